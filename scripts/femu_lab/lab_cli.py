"""femu-lab: the lab's command line.

    femu-lab sweep --workload NAME|FILE --set KEY=V1,V2,... [--set KEY=V]... [options]
    femu-lab run [run-blackbox.sh options]      one lab run (run-blackbox.sh's lab mode)
    femu-lab workloads                          describe the workload library
    femu-lab bench [--femu-upstream PATH] ...   femu vs stock nvme (vs FEMU): figures
    femu-lab dftl-study [--seed N] [-o DIR] ... DFTL, write buffer and streams in ftl-sim

Bad arguments: one line on stderr, exit status 2. A sweep whose points all finished
exits 0, one with failed points 1 (after the others ran and the table was written).
"""
import argparse
import sys
from pathlib import Path
from typing import List, Optional

from femu_analysis.cli_args import OneLineParser, UsageError, whole_number

from . import bench, blackbox, dftl_study, lab_run, lab_sweep, setup_steps, workloads
from .bench_sim import SimError
from .devconfig import ConfigError
from .sweep_checks import CheckError
from .sweep_folder import FolderError
from .sweep_plan import PlanError, parse_sets
from .workloads import WorkloadError

PROG = "femu-lab"
COMMANDS = ("sweep", "run", "workloads", "bench", "dftl-study")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog=PROG, description=__doc__.split("\n\n")[0].strip(),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND",
                                     parser_class=OneLineParser)
    add_sweep_arguments(commands.add_parser(
        "sweep", help="one workload over several configuration settings",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Runs one workload over the cross product of configuration settings,\n"
                    "one results folder per point, then comparison plots and a table.\n"
                    "The same command again resumes: finished points are kept, failed or\n"
                    "interrupted ones run again.",
        epilog="example:\n  femu-lab sweep --workload zipf:1.2 --set placement=hotcold \\\n"
               "      --set hot_threshold=0,6,20,50 --engine sim"))
    blackbox.add_arguments(commands.add_parser(
        "run", help="one lab run (run-blackbox.sh's lab mode)", **blackbox.parser_texts()))
    commands.add_parser("workloads", help="describe the workload library",
                        description="Describes the workload library (scripts/workloads).")
    bench.add_arguments(commands.add_parser(
        "bench", help="femu vs stock nvme (vs FEMU) on the same guest: a table of figures",
        **bench.parser_texts()))
    dftl_study.add_arguments(commands.add_parser(
        "dftl-study", help="DFTL, write buffer and multi-stream on three traces, in ftl-sim: "
                           "a table and figures", **dftl_study.parser_texts()))
    return parser


def add_sweep_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workload", required=True, metavar="NAME|FILE",
                        help="workload from scripts/workloads (femu-lab workloads) or a file")
    parser.add_argument("--set", action="append", default=[], dest="sets",
                        metavar="KEY=V1,V2,...",
                        help="one value: a fixed override; several: a swept axis "
                             "(repeatable; the cross product of the axes is run)")
    parser.add_argument("--config", type=Path, default=blackbox.LAB_CONFIG, metavar="FILE",
                        help="SSD configuration (default conf/lab-1g.conf)")
    parser.add_argument("--runtime", type=whole_number(1, 7 * 24 * 3600), metavar="SECONDS",
                        help="seconds of each timed run (default: the workload's)")
    parser.add_argument("--precondition", action="store_true",
                        help="fill the whole device with sequential writes first")
    parser.add_argument("--engine", choices=lab_sweep.ENGINES, default="vm",
                        help="vm: femu in QEMU (default); sim: ftl-sim in simulated time, "
                             "a fast preview")
    parser.add_argument("--jobs", type=whole_number(1, 64), default=1, metavar="N",
                        help="points run at once (default 1)")
    parser.add_argument("--smp", type=whole_number(1, 64), default=2, metavar="N",
                        help="guest vCPUs (default 2)")
    parser.add_argument("--mem", type=whole_number(1, 1 << 20), default=1024, metavar="MIB",
                        help="guest memory in MiB (default 1024)")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="sweep folder (default results/sweep-<workload>-<swept keys>-"
                             "<engine>)")
    parser.add_argument("--accel", choices=("auto", "kvm", "tcg"), default="auto",
                        help="KVM when it works (auto), else TCG")
    parser.add_argument("--qemu", type=Path, default=setup_steps.QEMU, metavar="PATH",
                        help="QEMU with femu (default: build it into build-femu/)")


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv or argv[0] not in (*COMMANDS, "-h", "--help"):
            raise UsageError(f"expected a command ({', '.join(COMMANDS)}), got "
                             f"{repr(argv[0]) if argv else 'none'} (see {PROG} --help)")
        args = build_parser().parse_args(argv)
        if args.command == "run":
            # run-blackbox.sh's lab mode as it is; only the name in its messages changes
            return blackbox.run(args, prog=f"{PROG} run")
        if args.command == "workloads":
            print(blackbox.list_workloads())
            return 0
        if args.command == "bench":
            return bench.run(args, prog=f"{PROG} bench")
        if args.command == "dftl-study":
            return dftl_study.run(args, prog=f"{PROG} dftl-study")
        return _sweep(args)
    except (UsageError, PlanError, ConfigError, WorkloadError, CheckError,
            FolderError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    except (setup_steps.SetupError, lab_run.LabRunError, SimError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if argv[0] in ("bench", "dftl-study"):   # nothing to resume: they start over
            print(f"{PROG}: interrupted", file=sys.stderr)
        else:
            print(f"{PROG}: interrupted; run the same command again to resume", file=sys.stderr)
        return 130


def _sweep(args) -> int:
    workload = workloads.resolve(args.workload)
    plan = parse_sets(args.sets)
    request = lab_sweep.SweepRequest(
        workload=workload, config_path=args.config, plan=plan,
        runtime=args.runtime or workload.runtime, precondition=args.precondition,
        engine=args.engine, jobs=args.jobs, out=args.out, smp=args.smp, mem_mb=args.mem,
        accel=args.accel, qemu=args.qemu)
    sweep = lab_sweep.prepare(request)
    shape = " x ".join(str(len(values)) for _, values in plan.axes)
    lab_sweep.say(f"{workload.name}, {len(sweep.points)} points ({shape}) on "
                  f"{sweep.definition['config']}, {request.runtime} s each, {args.engine} "
                  f"engine; folder {sweep.folder}")
    if args.engine == "vm" and args.jobs > 1:
        lab_sweep.say(f"warning: --jobs {args.jobs} runs VMs side by side on shared host "
                      "cores, so their figures change; use --jobs 1 to compare figures")
    return lab_sweep.run(sweep, lab_sweep.say)


if __name__ == "__main__":
    sys.exit(main())
