"""femu-lab: the lab's command line.

    femu-lab sweep --workload NAME|FILE --set KEY=V1,V2,... [--set KEY=V]... [options]
    femu-lab sweep ... --executor slurm [--partition P] ...   the points as a Slurm array job
    femu-lab sweep --status DIR                 a sweep's progress (squeue, sacct, folders)
    femu-lab run [run-blackbox.sh options]      one lab run (run-blackbox.sh's lab mode)
    femu-lab age --config FILE -o STATE ...     age an SSD in ftl-sim: a state to start from
    femu-lab workloads                          describe the workload library
    femu-lab bench [--femu-upstream PATH] ...   femu vs stock nvme (vs FEMU): figures
    femu-lab dftl-study [--seed N] [-o DIR] ... DFTL, write buffer and streams in ftl-sim
    femu-lab fdp-lab [--hot-handle N] [-o DIR] ... fdp-separation with and without FDP
                                                placement identifiers, side by side
    femu-lab crash [--fs ext4,f2fs] [--cuts N] ...  crash consistency: power cuts, reboots,
                                                durable writes checked (a table)
    femu-lab hotcold-table [-o DIR] ...         hot/cold vs one stream in ftl-sim, exact
                                                and aging write counts (a table, a plot)
    femu-lab trace generate|info|convert ...    real-world traces: a synthetic one in any
                                                format, what one holds, one converted

Bad arguments: one line on stderr, exit status 2. A sweep whose points all finished
exits 0, one with failed points 1 (after the others ran and the table was written).
"""
import argparse
import os
import sys
from pathlib import Path
from typing import List, Optional

from femu_common.cli_args import OneLineParser, UsageError, shown, whole, whole_number

from . import devconfig, setup_steps, workloads
from .bench import runner as bench
from .devconfig import ConfigError
from .crash import lab as crash_lab
from .dftl import study as dftl_study
from .fdp import lab as fdp_lab
from .hotcold import table as hotcold_table
from .ftl_sim import SimError
from .run import aged, blackbox, vm_run as lab_run
from .run.aged import AgedError, AgeFailed
from .slurm import checks as slurm_checks, executor as slurm_executor, status as slurm_status
from .slurm.queue import QueueError
from .sweep import runner as lab_sweep
from .sweep.checks import CheckError
from .sweep.folder import FolderError
from .sweep.plan import PlanError, parse_sets
from .traces import cli as trace_cli
from .traces.femu_trace import TraceToolError
from .traces.generate import TraceWriteError
from .vm import accel
from .workloads import WorkloadError

PROG = "femu-lab"
COMMANDS = ("sweep", "run", "age", "workloads", "bench", "dftl-study", "fdp-lab", "crash",
            "hotcold-table", "trace")


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
        epilog="examples:\n  femu-lab sweep --workload zipf:1.2 --set placement=hotcold \\\n"
               "      --set hot_threshold=0,6,20,50 --engine sim\n"
               "  femu-lab sweep --workload gc-randwrite --set wl.bs=4k,16k \\\n"
               "      --set wl.iodepth=1,16 --steady waf:0.02 --runtime 300 --engine sim\n"
               "workload keys (wl.bs, wl.iodepth, wl.numjobs, wl.rwmixread, wl.runtime)\n"
               "sweep beside the SSD's; a workload takes those its '# workload-keys:'\n"
               "header lists (docs/labs.md, Sweeps)"))
    blackbox.add_arguments(commands.add_parser(
        "run", help="one lab run (run-blackbox.sh's lab mode)", **blackbox.parser_texts()))
    add_age_arguments(commands.add_parser(
        "age", help="age an SSD in ftl-sim (seconds): a state file runs start from",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Fills the logical space once, then writes PASSES times its capacity\n"
                    "with the workload (its '# sim:' line) in ftl-sim, and saves the FTL's\n"
                    "state: run-blackbox.sh --aged STATE (or femu-lab sweep --aged STATE)\n"
                    "then starts the VM run in steady state. The state holds no data:\n"
                    "LBAs the ageing wrote read back as zeroes in the guest.",
        epilog="example:\n  femu-lab age --config conf/lab-4g.conf --workload gc-randwrite "
               "-o aged.state\n  run-blackbox.sh --config conf/lab-4g.conf --aged aged.state"))
    commands.add_parser("workloads", help="describe the workload library",
                        description="Describes the workload library (scripts/workloads).")
    bench.add_arguments(commands.add_parser(
        "bench", help="femu vs stock nvme (vs FEMU) on the same guest: a table of figures",
        **bench.parser_texts()))
    dftl_study.add_arguments(commands.add_parser(
        "dftl-study", help="DFTL, write buffer and multi-stream on three traces, in ftl-sim: "
                           "a table and figures", **dftl_study.parser_texts()))
    fdp_lab.add_arguments(commands.add_parser(
        "fdp-lab", help="FDP: fdp-separation with and without placement identifiers (aged "
                        "states, VM runs, ftl-sim replays, femu-plot fdp, a table)",
        **fdp_lab.parser_texts()))
    hotcold_table.add_arguments(commands.add_parser(
        "hotcold-table", help="hot/cold placement vs one stream in ftl-sim, with exact and "
                              "with aging write counts: a table and hot-set.png",
        description=hotcold_table.__doc__.split("\n\n")[0].strip()))
    crash_lab.add_arguments(commands.add_parser(
        "crash", help="crash consistency: ext4 / F2FS x barriers x plp, power cut at random "
                      "points, rebooted, durable writes checked (a table)",
        **crash_lab.parser_texts()))
    trace_cli.add_arguments(commands.add_parser(
        "trace", help="real-world traces: generate a synthetic one, show what one holds "
                      "(femu-trace info), convert one (femu-trace convert)",
        description=trace_cli.__doc__.split("\n\n")[0].strip(),
        formatter_class=argparse.RawDescriptionHelpFormatter))
    return parser


def add_sweep_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workload", metavar="NAME|FILE",
                        help="workload from scripts/workloads (femu-lab workloads) or a file "
                             "(required, except with --status)")
    parser.add_argument("--set", action="append", default=[], dest="sets",
                        metavar="KEY=V1,V2,...",
                        help="one value: a fixed override; several: a swept axis "
                             "(repeatable; the cross product of the axes is run)")
    parser.add_argument("--config", type=Path, default=blackbox.LAB_CONFIG, metavar="FILE",
                        help="SSD configuration (default conf/lab-1g.conf)")
    parser.add_argument("--baseline", action="store_true",
                        help="hot/cold sweeps: add a first point with placement=single, "
                             "labelled 'single stream (baseline)'")
    parser.add_argument("--runtime", type=whole_number(1, 7 * 24 * 3600), metavar="SECONDS",
                        help="seconds of each timed run (default: the workload's)")
    parser.add_argument("--precondition", action="store_true",
                        help="fill the whole device with sequential writes first")
    parser.add_argument("--aged", type=Path, metavar="STATE",
                        help="every point starts from this state file (femu-lab age); its "
                             "configuration must match every point's")
    parser.add_argument("--steady", type=_steady_rule, metavar="waf:TOL[:N]",
                        help="measure each point once its WAF settled: the first N (default "
                             "3) statistics intervals whose WAFs spread by at most TOL of "
                             "their mean (waf:0.02: 2 %%); --runtime is the most it runs; "
                             "the table says whether it was reached")
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
    setup_steps.add_guest_arguments(parser)
    parser.add_argument("--qemu", type=Path, default=setup_steps.QEMU, metavar="PATH",
                        help="QEMU with femu (default: build it into build-femu/)")
    add_slurm_arguments(parser.add_argument_group(
        "Slurm", "one array job, one task per point (docs/slurm.md)"))


def add_slurm_arguments(group) -> None:
    group.add_argument("--executor", choices=("local", "slurm"), default="local",
                       help="local: run the points here (default); slurm: submit them")
    group.add_argument("--partition", metavar="P",
                       help="Slurm partition (default: the cluster's default one)")
    group.add_argument("--time", type=slurm_checks.time_limit, metavar="T",
                       help="time limit per task, as sbatch --time (e.g. 30, 1:30:00, 1-00)")
    group.add_argument("--cpus-per-task", type=whole_number(1, 4096), metavar="N",
                       help="CPUs per task (sbatch --cpus-per-task)")
    group.add_argument("--slurm-mem", type=slurm_checks.memory, metavar="M",
                       help="memory per task, as sbatch --mem (e.g. 4G; --mem is the guest's)")
    group.add_argument("--no-wait", dest="wait", action="store_false",
                       help="return once submitted (see --status; the same command "
                            "again waits and writes the report)")
    group.add_argument("--assume-shared", action="store_true",
                       help="the sweep folder is visible on every node, whatever its file "
                            "system looks like from here")
    group.add_argument("--status", type=Path, metavar="DIR",
                       help="show the progress of the sweep in DIR (squeue, sacct, the "
                            "point folders) and exit")


def add_age_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--out", type=Path, required=True, metavar="STATE",
                        help="the state file to write (replaced atomically)")
    parser.add_argument("--config", type=Path, default=blackbox.LAB_CONFIG, metavar="FILE",
                        help="SSD configuration (default conf/lab-1g.conf)")
    parser.add_argument("--set", action="append", default=[], dest="overrides",
                        metavar="KEY=VALUE", help="override one configuration key (repeatable)")
    parser.add_argument("--workload", default=blackbox.DEFAULT_WORKLOAD, metavar="NAME|FILE",
                        help=f"the writes that age the SSD (its '# sim:' line; default "
                             f"{blackbox.DEFAULT_WORKLOAD})")
    parser.add_argument("--passes", type=whole_number(1, 100), default=2, metavar="N",
                        help="logical capacities of workload writes after the fill (default 2)")
    parser.add_argument("--no-fill", dest="fill", action="store_false",
                        help="no sequential fill of the logical space first")
    parser.add_argument("--seed", type=whole_number(0, 2 ** 63), default=1, metavar="N",
                        help="ftl-sim's random seed of the first pass (default 1)")
    parser.add_argument("--rest", type=rest_seconds, default=0, metavar="TIME",
                        help="leave the SSD idle this long after the last pass, before the "
                             "save: its data ages (read retries); seconds, or with a unit "
                             "s, m, h, d (e.g. 60d), at most 100 days")


def rest_seconds(text: str) -> int:
    """--rest: whole seconds, minutes, hours or days, 1 s to 100 days."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    number, unit = (text[:-1], text[-1]) if text[-1:] in units else (text, "s")
    count = whole(number)
    if count is None:
        raise argparse.ArgumentTypeError(f"'{shown(text)}' is not a duration (e.g. 3600, "
                                         "12h, 60d)")
    seconds = count * units[unit]
    if not 1 <= seconds <= 100 * 86400:
        raise argparse.ArgumentTypeError(f"{shown(text)}: must be 1 s to 100 days")
    return seconds


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv or argv[0] not in (*COMMANDS, "-h", "--help"):
            raise UsageError(f"expected a command ({', '.join(COMMANDS)}), got "
                             f"{repr(argv[0]) if argv else 'none'} (see {PROG} --help)")
        args = build_parser().parse_args(argv)
        setup_steps.speak_as(f"{PROG} {args.command}")   # setup and accelerator lines
        if args.command == "run":
            # run-blackbox.sh's lab mode as it is; only the name in its messages changes
            return blackbox.run(args, prog=f"{PROG} run")
        if args.command == "age":
            return _age(args)
        if args.command == "workloads":
            print(blackbox.list_workloads())
            return 0
        if args.command == "bench":
            return bench.run(args, prog=f"{PROG} bench")
        if args.command == "dftl-study":
            return dftl_study.run(args, prog=f"{PROG} dftl-study")
        if args.command == "fdp-lab":
            return fdp_lab.run(args, prog=f"{PROG} fdp-lab")
        if args.command == "crash":
            return crash_lab.run(args)
        if args.command == "hotcold-table":
            return hotcold_table.main(args)
        if args.command == "trace":
            return trace_cli.run(args, prog=f"{PROG} trace")
        return _sweep(args)
    except (UsageError, PlanError, ConfigError, WorkloadError, CheckError,
            FolderError, AgedError, accel.AccelError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    except (setup_steps.SetupError, lab_run.LabRunError, SimError, AgeFailed,
            slurm_executor.SubmitError, QueueError, TraceToolError,
            TraceWriteError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if argv[0] in ("bench", "dftl-study", "age"):   # nothing to resume: they start over
            print(f"{PROG}: interrupted", file=sys.stderr)
        else:
            print(f"{PROG}: interrupted; run the same command again to resume", file=sys.stderr)
        return 130


def _steady_rule(text: str):
    """--steady's argparse type: a malformed rule is one usage line."""
    from .run import steady
    try:
        return steady.parse(text)
    except steady.SteadyError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _sweep(args) -> int:
    if args.status is not None:
        return slurm_status.status(args.status, print, lab_sweep.say)
    if args.workload is None:
        raise UsageError("the following arguments are required: --workload "
                         f"(see {PROG} sweep --help)")
    slurm = _slurm_options(args)
    workload = workloads.resolve(args.workload)
    plan = parse_sets(args.sets)
    if args.baseline:
        plan.add_baseline()
    request = lab_sweep.SweepRequest(
        workload=workload, config_path=args.config, plan=plan,
        runtime=args.runtime or workload.runtime, precondition=args.precondition,
        engine=args.engine, jobs=args.jobs, out=args.out, smp=args.smp, mem_mb=args.mem,
        accel=args.accel, qemu=args.qemu, aged=args.aged, guest_release=args.guest_release,
        steady=args.steady)
    if args.aged and args.precondition:
        raise UsageError("--aged and --precondition exclude each other: the state is the "
                         "preconditioning")
    sweep = lab_sweep.prepare(request)
    if slurm is not None:
        # one line, exit 2, before anything is said or submitted
        slurm_checks.check(sweep.folder, slurm, request.aged)
    shape = " x ".join(str(len(values)) for _, values in plan.axes)
    lab_sweep.say(f"{workload.name}, {len(sweep.points)} points ({shape}) on "
                  f"{sweep.definition['config']}, "
                  f"{'wl.runtime' if plan.given('wl.runtime') else request.runtime} s each, "
                  f"{args.engine} "
                  f"engine; folder {sweep.folder}")
    if slurm is not None:
        return slurm_executor.run(sweep, slurm, lab_sweep.say)
    if args.engine == "vm" and args.jobs > 1:
        lab_sweep.say(f"warning: --jobs {args.jobs} runs VMs side by side on shared host "
                      "cores, so their figures change; use --jobs 1 to compare figures")
    return lab_sweep.run(sweep, lab_sweep.say)


def _slurm_options(args) -> Optional[slurm_checks.SlurmOptions]:
    """The Slurm settings with --executor slurm, else None; Slurm flags without it and
    --jobs with it are refused (Slurm decides how many points run at once)."""
    given = [flag for flag, value in (("--partition", args.partition), ("--time", args.time),
                                      ("--cpus-per-task", args.cpus_per_task),
                                      ("--slurm-mem", args.slurm_mem),
                                      ("--no-wait", not args.wait),
                                      ("--assume-shared", args.assume_shared)) if value]
    if args.executor != "slurm":
        if given:
            raise UsageError(f"{given[0]} needs --executor slurm")
        return None
    if args.jobs > 1:
        raise UsageError("--jobs with --executor slurm: Slurm decides how many points run "
                         "at once (drop --jobs)")
    return slurm_checks.SlurmOptions(partition=args.partition, time=args.time,
                                     cpus_per_task=args.cpus_per_task, mem=args.slurm_mem,
                                     wait=args.wait, assume_shared=args.assume_shared)


def _age(args) -> int:
    workload = workloads.resolve(args.workload)
    workload.simulator_args()          # WorkloadError without a '# sim:' line
    setup_steps.ensure_ftl_sim()
    config = devconfig.load(args.config, devconfig.parse_overrides(args.overrides))
    request = aged.AgeRequest(config=config, workload=workload, out=args.out,
                              passes=args.passes, fill=args.fill, seed=args.seed,
                              rest_s=args.rest)
    result = aged.age(request)
    lab_sweep.say(aged.describe(result, request))
    print(result.out)
    return 0


def main_on_a_pipe() -> int:
    """main(), and a reader that left early (`femu-lab trace info FILE | head -1`) ends
    it quietly with 141, as SIGPIPE ends other tools, instead of a traceback."""
    try:
        status = main()
        sys.stdout.flush()      # what is still buffered meets the closed pipe here
        return status
    except BrokenPipeError:
        # Python flushes stdout again at exit: let that go nowhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main_on_a_pipe())
