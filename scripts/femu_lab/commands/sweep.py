"""`femu-lab sweep`: its options, the Slurm ones, and the sweep they ask for."""
import argparse
from pathlib import Path
from typing import Optional

from femu_common.cli_args import UsageError, describe, whole_number

from .. import lab_options, workloads
from ..run import blackbox
from ..slurm import checks as slurm_checks, executor as slurm_executor, status as slurm_status
from ..sweep import runner as lab_sweep
from ..sweep.plan import parse_sets

PROG = "femu-lab sweep"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    describe(parser,
             "Runs one workload over the cross product of configuration settings,\n"
             "one results folder per point, then comparison plots and a table.\n"
             "The same command again resumes: finished points are kept, failed or\n"
             "interrupted ones run again.",
             "examples:\n  femu-lab sweep --workload zipf:1.2 --set placement=hotcold \\\n"
             "      --set hot_threshold=0,6,20,50 --engine sim\n"
             "  femu-lab sweep --workload gc-randwrite --set wl.bs=4k,16k \\\n"
             "      --set wl.iodepth=1,16 --steady waf:0.02 --runtime 300 --engine sim\n"
             "workload keys (wl.bs, wl.iodepth, wl.numjobs, wl.rwmixread, wl.runtime)\n"
             "sweep beside the SSD's; a workload takes those its '# workload-keys:'\n"
             "header lists (docs/labs.md, Sweeps)")
    parser.add_argument("--workload", metavar="NAME|FILE",
                        help="workload from scripts/workloads (femu-lab workloads) or a file "
                             "(required, except with --status)")
    # not lab_options' --set: a value list here is an axis, not one override
    parser.add_argument("--set", action="append", default=[], dest="sets",
                        metavar="KEY=V1,V2,...",
                        help="one value: a fixed override; several: a swept axis "
                             "(repeatable; the cross product of the axes is run)")
    parser.add_argument("--config", type=Path, metavar="FILE",
                        help="SSD configuration (default: the workload's '# config:', else "
                             "conf/lab-1g.conf)")
    parser.add_argument("--baseline", action="store_true",
                        help="hot/cold sweeps: add a first point with placement=single, "
                             "labelled 'single stream (baseline)'")
    lab_options.add_run_length_options(parser)
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
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="sweep folder (default results/sweep-<workload>-<swept keys>-"
                             "<engine>)")
    lab_options.add_machine_options(parser)
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


def _steady_rule(text: str):
    """--steady's argparse type: a malformed rule is one usage line."""
    from ..run import steady
    try:
        return steady.parse(text)
    except steady.SteadyError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def run(args: argparse.Namespace) -> int:
    if args.status is not None:
        return slurm_status.status(args.status, print, lab_sweep.say)
    if args.workload is None:
        raise UsageError("the following arguments are required: --workload "
                         f"(see {PROG} --help)")
    slurm = _slurm_options(args)
    workload = workloads.resolve(args.workload)
    plan = parse_sets(args.sets)
    if args.baseline:
        plan.add_baseline()
    request = lab_sweep.SweepRequest(
        workload=workload, config_path=args.config or workload.config or blackbox.LAB_CONFIG,
        plan=plan,
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
