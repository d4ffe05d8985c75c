"""femu-lab's commands: each name, the module that defines it and its one-line summary.

A command module has two functions, and nothing else is asked of it:

    add_arguments(parser: argparse.ArgumentParser) -> None   its options (and its help
                                                              texts: cli_args.describe)
    run(args: argparse.Namespace) -> int                      the exit status

Modules are imported only when their command runs, so `femu-lab --help` imports none.
An error a command raises derives from femu_common.errors.FemuError: femu-lab prints it
as one line and exits with its exit_status.

Entry points. Every user-facing tool of femu_lab is a command here, run as femu-lab (the
console script), scripts/femu-lab (which installs what is missing first) or
`python -m femu_lab`. Beside it:
  femu-vm                      a console script of its own (vm.cli): any job in the guest,
                               its exit status the job's (124, 125: no status), a harness
                               the labs are built on rather than a lab
  python -m femu_lab.run.blackbox   run-blackbox.sh's back end (the script installs the
                               venv first, then execs it)
  python -m femu_lab.slurm.task     one Slurm array task, written into the job script
  python -m femu_lab.zns.compaction_trace   makes docs/traces/zns-compaction-*.trace; each
                               trace records that command line, so it stays as it was
  python3 -m femu_guest        scripts/guest/build-image.sh: Debian's python3 without the
                               venv (femu-vm build-image is the venv's way)
"""
import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Dict


@dataclass(frozen=True)
class Command:
    name: str
    module: str         # imported when the command runs
    summary: str        # its line in `femu-lab --help`
    resumable: bool = True    # Ctrl-C says "run the same command again to resume"

    def load(self) -> ModuleType:
        return importlib.import_module(self.module)


COMMANDS = (
    Command("sweep", "femu_lab.commands.sweep",
            "one workload over several configuration settings"),
    Command("run", "femu_lab.commands.run", "one lab run (run-blackbox.sh's lab mode)"),
    Command("age", "femu_lab.commands.age",
            "age an SSD in ftl-sim (seconds): a state file runs start from",
            resumable=False),
    Command("workloads", "femu_lab.commands.workloads", "describe the workload library"),
    Command("bench", "femu_lab.bench.runner",
            "femu vs stock nvme (vs FEMU) on the same guest: a table of figures",
            resumable=False),
    Command("dftl-study", "femu_lab.dftl.study",
            "DFTL, write buffer and multi-stream on three traces, in ftl-sim: a table and "
            "figures", resumable=False),
    Command("mapping-lab", "femu_lab.mapping.lab",
            "page, DFTL, block, BAST and FAST mapping, without and with the read cache, on "
            "five workloads in ftl-sim: a table and one figure per metric",
            resumable=False),
    Command("fdp-lab", "femu_lab.fdp.lab",
            "FDP: fdp-separation with and without placement identifiers (aged states, VM "
            "runs, ftl-sim replays, femu-plot fdp, a table)"),
    Command("fdp-bench", "femu_lab.fdp.bench",
            "FDP textbook hot/cold case in ftl-sim: WAF with one and two handles against "
            "the analytic optimum, and ftl-sim's speed with placement=fdp (figures only)",
            resumable=False),
    Command("gc-onset", "femu_lab.bench.gc_onset",
            "paced GC from the first second the drive is full, in ftl-sim: per-second IOPS, "
            "worst second, p99, and WAF against line GC (figures only)", resumable=False),
    Command("crash", "femu_lab.crash.lab",
            "crash consistency: ext4 / F2FS x barriers x plp, power cut at random points, "
            "rebooted, durable writes checked (a table)"),
    Command("hotcold-table", "femu_lab.hotcold.table",
            "hot/cold placement vs one stream in ftl-sim, with exact and with aging write "
            "counts: a table and hot-set.png"),
    Command("trace", "femu_lab.traces.cli",
            "real-world traces: generate a synthetic one, show what one holds (femu-trace "
            "info), convert one (femu-trace convert)"),
    Command("device-figures", "femu_lab.bench.device_figures",
            "idle host CPU or QD1 read latency of femu, each beside QEMU's stock NVMe "
            "device (figures only)", resumable=False),
    Command("stock-nvme-bench", "femu_lab.bench.stock_nvme_bench",
            "4 KiB random IOPS on QEMU's stock NVMe device: the ceiling any emulated device "
            "sees on this host (figures only)", resumable=False),
    Command("presets", "femu_lab.presets.command",
            "the real-drive presets of conf/ in ftl-sim against their data sheets' and "
            "others' measured figures: target, femu, error (a table)", resumable=False),
    Command("energy", "femu_lab.energy.command",
            "joules per GiB written against WAF (waf), APST's power against latency on a "
            "bursty trace (apst), in ftl-sim with energy=on: tables and figures",
            resumable=False),
    Command("soak", "femu_lab.soak.runner",
            "reset / shutdown / unplug soak: the guest booted again and again around one "
            "kind of event, failures counted (a table)", resumable=False),
)
BY_NAME: Dict[str, Command] = {command.name: command for command in COMMANDS}
