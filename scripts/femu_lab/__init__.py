"""femu_lab: host-side tooling for femu guests, one sub-package per concern.

  cli          the `femu-lab` command line (also `python -m femu_lab`)
  vm/          QEMU and the guest: launch, `femu-vm` (vm.cli), accelerator, result framing,
               qtest, the QMP client (vm.qmp)
  run/         one lab run: run-blackbox.sh and `femu-lab run` (run.blackbox), the run in
               the VM or in ftl-sim, its report (with its FDP and zoned figures), the
               power cut (run.cut_spec), ageing (`femu-lab age`), FEMU-compatible mode
  sweep/       `femu-lab sweep`: plan, checks, folders, runner, report
  slurm/       a sweep as a Slurm array job
  soak/        reset / unplug soak in real guests (python -m femu_lab.soak)
  bench/       `femu-lab bench` and the device figures beside QEMU's stock NVMe
  dftl/        `femu-lab dftl-study`
  zns/         zns-compaction's plan as an ftl-sim trace
  fdp/         `femu-lab fdp-lab` (fdp.lab), `femu-lab fdp-bench` (fdp.bench: the textbook
               hot/cold case in ftl-sim against femu_analysis.fdp_model's optimum)

Shared by several of them: paths (where things live), devconfig (an SSD configuration,
checked by ftl-sim), ftl_sim (the one way ftl-sim is run), workloads (the workload
library), setup_steps (building ftl-sim, QEMU and the guest image before a run),
file_tail (reading a log QEMU still writes). guest_image is the old name of the guest
image builder (python -m femu_lab.guest_image).

The guest image comes from femu_guest (scripts/guest), the built QEMU's path from
femu_build (build-femu), the analysis from femu_analysis (analysis), the pieces every
package shares (progress lines, argument parsing, the command runner) from femu_common
(scripts/common).
"""
