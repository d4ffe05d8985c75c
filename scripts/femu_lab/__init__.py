"""femu_lab: host-side tooling for femu guests, one sub-package per concern.

  cli          the `femu-lab` command line (also `python -m femu_lab`); lab_options, the
               options several commands share (the SSD, the machine)
  commands/    the registry (name -> module with add_arguments and run) and the command
               modules of sweep, run, age and workloads, which compose several parts
  vm/          QEMU and the guest: launch, `femu-vm` (vm.cli), accelerator, result framing,
               qtest, the QMP client (vm.qmp)
  run/         one lab run: run-blackbox.sh and `femu-lab run` (run.blackbox), the run in
               the VM or in ftl-sim, its report (with its FDP and zoned figures), the
               power cut (run.cut_spec), ageing (`femu-lab age`), FEMU-compatible mode
  sweep/       `femu-lab sweep`: plan, checks, folders, runner, report
  slurm/       a sweep as a Slurm array job
  soak/        `femu-lab soak`: reset / unplug soak in real guests
  bench/       `femu-lab bench`, `device-figures` and `stock-nvme-bench`: the device
               beside QEMU's stock NVMe
  dftl/        `femu-lab dftl-study`
  mapping/     `femu-lab mapping-lab`: page, DFTL, block, BAST and FAST, with and without
               the read cache, on the same workloads in ftl-sim
  zns/         the zoned namespace's figures: zns-compaction's plan as an ftl-sim trace
  fdp/         `femu-lab fdp-lab` (fdp.lab), `femu-lab fdp-bench` (fdp.bench: the textbook
               hot/cold case in ftl-sim against femu_analysis.fdp_model's optimum)
  hotcold/     `femu-lab hotcold-table`: hot/cold separation against one stream in ftl-sim
  crash/       `femu-lab crash`: the crash-consistency lab (file systems, power cuts)
  traces/      `femu-lab trace`: synthetic traces in every format, femu-trace from Python

Shared by several of them: paths (where things live), devconfig (an SSD configuration,
checked by ftl-sim), ftl_sim (the one way ftl-sim is run), workloads (the workload
library), setup_steps (building ftl-sim, QEMU and the guest image before a run),
file_tail (reading a log QEMU still writes). Every error class derives from
femu_common.errors.FemuError, whose exit_status femu-lab exits with.

The guest image comes from femu_guest (scripts/guest), the built QEMU's path from
femu_build (build-femu), the analysis from femu_analysis (analysis), the pieces every
package shares (progress lines, argument parsing, the command runner) from femu_common
(scripts/common).
"""
