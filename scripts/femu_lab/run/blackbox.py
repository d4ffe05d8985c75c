"""run-blackbox.sh: the lab's main job.

    run-blackbox.sh [--config FILE] [--set KEY=VALUE]... [--workload NAME|FILE]
                    [--runtime SECONDS] [--precondition | --aged STATE] [--record]
                    [--smp N] [--mem MIB] [--out DIR] [--kv-keys N] [--kv-qd N]
    run-blackbox.sh ... --trace FILE [--trace-format F] [--trace-timing timed|fast]
                    [--trace-lba-map modulo|scale|refuse]        (a real-world trace)
    run-blackbox.sh [--config FILE] [--set KEY=VALUE]... [--smp N] [--mem MIB]
                    [--ssh-port PORT] IMAGE [STATS_DIR]          (FEMU-compatible mode)

Without IMAGE: builds whatever is missing, boots the femu guest on a femu SSD, runs the
workload and leaves results/<timestamp>-<workload>/ (its path is the last line printed).
With --trace: fio in the guest replays the trace's requests (any format femu-trace reads)
on the raw device instead of a workload.
With IMAGE: boots that qcow2/raw disk as the OS disk beside a femu SSD, ssh forwarded
from localhost:PORT, the serial console on this terminal, statistics into STATS_DIR.
Bad arguments: one line, exit status 2; a failed run: one line, exit status 1.
"""
import argparse
import sys
import tempfile
from pathlib import Path
from typing import List, Optional

from femu_common.cli_args import OneLineParser, UsageError, shown, whole_number

from .. import devconfig, lab_options, paths, setup_steps, workloads
from . import cut_spec
from ..devconfig import ConfigError
from ..vm import accel
from ..workloads import WorkloadError
from . import fdp_report, kv_report
from . import zns_report
from ..traces import femu_trace
from . import aged, compat, kv_params, trace_replay, vm_run as lab_run
from .aged import AgedError
from .report import headline

PROG = "run-blackbox.sh"
LAB_CONFIG = paths.REPO_ROOT / "conf" / "lab-1g.conf"
COMPAT_CONFIG = paths.REPO_ROOT / "conf" / "femu-default.conf"
DEFAULT_WORKLOAD = "gc-randwrite"
RESULTS_ROOT = paths.REPO_ROOT / "results"
MIB = 1 << 20


def parser_texts() -> dict:
    """description, epilog and formatter of run-blackbox.sh's help (femu-lab run's too)."""
    return dict(description=__doc__.split("\n\n")[2].strip(),
                formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog="Workloads: " + ", ".join(workloads.library_names()) +
                       " (NAME:ARG for zipf, pareto, normal; --list-workloads describes them)")


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = OneLineParser(prog=prog, **parser_texts())
    add_arguments(parser)
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """run-blackbox.sh's options, on its own parser or on femu-lab's `run` subcommand."""
    parser.add_argument("image_args", nargs="*", metavar="IMAGE [STATS_DIR]",
                        help="FEMU-compatible mode: boot this OS disk image")
    lab_options.add_ssd_options(parser, None, "SSD configuration (default: the workload's "
                                              "'# config:', else conf/lab-1g.conf; "
                                              "conf/femu-default.conf with IMAGE)")
    parser.add_argument("--workload", metavar="NAME|FILE",
                        help=f"workload from scripts/workloads or a file (default "
                             f"{DEFAULT_WORKLOAD})")
    lab_options.add_run_length_options(parser)
    parser.add_argument("--aged", type=Path, metavar="STATE",
                        help="start the SSD from this state file (femu-lab age makes one in "
                             "seconds with ftl-sim; the device's state_out= saves one): the "
                             "run starts in steady state")
    parser.add_argument("--record", action="store_true",
                        help="record the requests the SSD served into io.trace in the results "
                             "folder, for ftl-sim --trace to replay under other settings")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="results folder (default results/<timestamp>-<workload>)")
    lab_options.add_machine_options(parser, mem=None, mem_help="guest memory in MiB (default "
                                                               "1024; 2048 with IMAGE)")
    parser.add_argument("--ssh-port", type=whole_number(1, 65535), default=8080, metavar="PORT",
                        help="IMAGE mode: host port forwarded to the guest's ssh (8080)")
    parser.add_argument("--list-workloads", action="store_true",
                        help="describe the workload library and exit")
    cut = parser.add_argument_group(
        "power cut", "cut the device's power during the workload (a write buffer needed; "
                     "docs/device.md, 'Power cuts')")
    cut.add_argument("--power-cut", metavar="SPEC",
                     help="at=SECONDS (into the workload), after-writes=N, after-flushes=N, "
                          "or random[=MAX] (after 1..MAX writes, drawn under --seed)")
    lab_options.add_seed_option(cut, "draws --power-cut random's point (default 1)")
    kv = parser.add_argument_group(
        "key-value load", "kv-ycsb-*: the load kv-load runs in the guest (default: the "
        "workload's '# sim:' --kv-keys and --qd, what a sweep --engine sim runs)")
    kv.add_argument("--kv-keys", type=whole_number(1, kv_params.KEYS_MAX), metavar="N",
                    help="keys stored before the measured part (the load phase)")
    kv.add_argument("--kv-qd", type=whole_number(1, kv_params.QD_MAX), metavar="N",
                    help="commands kv-load keeps outstanding")
    replay = parser.add_argument_group(
        "trace replay", "a real-world trace instead of a workload: femu-trace converts it to "
        "a fio iolog on the namespace, fio replays it in the guest (docs/labs.md)")
    replay.add_argument("--trace", type=Path, metavar="FILE",
                        help="the trace (msr, spc, blkparse, fio iolog, mqsim, disksim, femu)")
    replay.add_argument("--trace-format", choices=femu_trace.READ_FORMATS,
                        help="its format (default: auto, from its content)")
    replay.add_argument("--trace-timing", choices=trace_replay.TIMINGS, default="timed",
                        help="timed: at the trace's arrival times (default); fast: back to "
                             "back, in order")
    replay.add_argument("--trace-lba-map", choices=femu_trace.LBA_MAPS, default="modulo",
                        help="addresses past the namespace: wrapped (modulo, default), "
                             "scaled into it, or refused")
    femu_trace.add_reader_arguments(replay)


def list_workloads() -> str:
    lines = []
    for name in workloads.library_names():
        workload = workloads.resolve(name)
        needs = f", needs {workload.needs_mib} MiB" if workload.needs_mib else ""
        runs = f" x {workload.runs} runs" if workload.runs > 1 else ""
        length = workload.length(workload.runtime)
        if length.seconds != workload.runtime * workload.runs or not length.timed:
            runs += f" (workload phase: {length.text()})"
        lines.append(f"{workload.name:<16} {workload.runtime} s{runs}{needs}: "
                     f"{workload.description}")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except UsageError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    return run(args)


def run(args: argparse.Namespace, prog: str = PROG) -> int:
    """Runs parsed arguments; prog names the command in messages (femu-lab run calls this
    too)."""
    setup_steps.speak_as(prog.removesuffix(".sh"))
    try:
        if args.list_workloads:
            print(list_workloads())
            return 0
        if len(args.image_args) > 2:
            raise UsageError(f"unexpected argument '{args.image_args[2]}' "
                             "(IMAGE [STATS_DIR] at most)")
        if args.image_args and args.record:
            raise UsageError("--record is for lab runs (without IMAGE): add "
                             "trace_out=FILE to the device by hand in FEMU-compatible mode")
        if args.image_args and args.aged:
            raise UsageError("--aged is for lab runs (without IMAGE): add state_in=FILE to "
                             "the device by hand in FEMU-compatible mode")
        if args.trace is not None and args.workload is not None:
            raise UsageError("--trace and --workload exclude each other: the trace is the "
                             "workload")
        if args.trace is None and (args.trace_format or args.trace_timing != "timed"
                                   or args.trace_lba_map != "modulo"
                                   or femu_trace.reader_args(args)):
            raise UsageError("--trace-format, --trace-timing, --trace-lba-map and the trace "
                             "reader's options need --trace")
        if args.trace is not None and args.image_args:
            raise UsageError("--trace is for lab runs (without IMAGE)")
        if args.power_cut is not None and args.image_args:
            raise UsageError("--power-cut is for lab runs (without IMAGE)")
        if (args.kv_keys is not None or args.kv_qd is not None) and args.image_args:
            raise UsageError("--kv-keys and --kv-qd are for lab runs (without IMAGE)")
        if args.aged and args.precondition:
            raise UsageError("--aged and --precondition exclude each other: the state is the "
                             "preconditioning")
        if args.image_args:
            return _compat_mode(args)
        return _lab_mode(args)
    except femu_trace.TraceToolMissing as error:   # before TraceToolError: a setup problem
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 1
    except (UsageError, ConfigError, WorkloadError, AgedError, accel.AccelError,
            femu_trace.TraceToolError, cut_spec.CutSpecError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    except lab_run.LabRunInterrupted as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 130
    except (setup_steps.SetupError, lab_run.LabRunError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130


def _lab_mode(args) -> int:
    accel.preflight(args.accel)
    if args.out is not None and args.out.exists():   # before any work, a trace's too
        raise UsageError(f"--out {args.out} already exists")
    workload = None
    if args.trace is None:
        workload = workloads.resolve(args.workload or DEFAULT_WORKLOAD)
        workload.require_guest()
        kv_params.choose(workload, args.kv_keys, args.kv_qd)   # refused before any build
    elif args.kv_keys is not None or args.kv_qd is not None:
        raise UsageError("--kv-keys and --kv-qd are for key-value workloads, not --trace")
    elif not args.trace.is_file():
        what = "is not a file" if args.trace.exists() else "does not exist"
        raise UsageError(f"--trace {shown(str(args.trace), 200)} {what}")
    overrides = devconfig.parse_overrides(args.overrides)
    setup_steps.ensure_ftl_sim()
    config = devconfig.load(args.config or (workload and workload.config) or LAB_CONFIG,
                            overrides)
    if workload is not None:
        return _lab_run(args, workload, config)
    with tempfile.TemporaryDirectory(prefix="femu-trace-replay-") as scratch:
        replay = trace_replay.prepare(args.trace, config, Path(scratch), args.trace_timing,
                                      args.trace_format, args.trace_lba_map, args.runtime,
                                      femu_trace.reader_args(args))
        _say(f"{args.trace}: {replay.summary['format']} trace, "
             f"{int(replay.summary['records']):,} requests over "
             f"{int(replay.summary['span_ns']) / 1e9:.3f} s, replayed {args.trace_timing}")
        return _lab_run(args, replay.workload, config, replay)


def _lab_run(args, workload, config, replay=None) -> int:
    runtime = args.runtime or workload.runtime
    kv = kv_params.choose(workload, args.kv_keys, args.kv_qd)
    overrides = config.overrides
    if workload.needs_mib * MIB > config.logical_bytes:
        raise UsageError(f"workload '{workload.name}' needs {workload.needs_mib} MiB but "
                         f"{config.name} holds {config.logical_bytes // MIB} MiB "
                         "(try --config conf/lab-4g.conf)")
    power_cut = None
    if args.power_cut is not None:
        power_cut = cut_spec.parse(args.power_cut, args.seed, runtime)
        cut_spec.check_device(power_cut, config.values)
    state = _aged_state(args.aged, config)
    qemu = setup_steps.ensure_qemu(args.qemu)
    image = setup_steps.ensure_guest(release=args.guest_release)
    setup_steps.choose_accel(args.accel, qemu, image)
    folder = args.out or lab_run.fresh_name(lab_run.default_folder(RESULTS_ROOT, workload))
    length = workload.length(runtime)
    settings = " with " + " ".join(f"{k}={v}" for k, v in overrides.items()) if overrides else ""
    start = ", preconditioned" if args.precondition else ""
    if state is not None:
        start = f", from the aged state {args.aged}"
    if kv:
        start += ", " + ", ".join(f"{key}={value}" for key, value in kv.items())
    _say(f"{workload.name} for {length.text()} on {config.name}{settings}{start}; "
         f"results in {_shown(folder.resolve())}")
    request = lab_run.LabRequest(
        workload=workload, config=config, folder=folder.resolve(), qemu=qemu.resolve(),
        runtime=runtime, precondition=args.precondition, smp=args.smp,
        mem_mb=args.mem or 1024, accel=args.accel, live=True, record=args.record,
        aged=state, kernel=image.kernel, initramfs=image.initramfs,
        params=replay.params if replay else {},
        guest_files=replay.guest_files if replay else {}, power_cut=power_cut,
        kv_keys=args.kv_keys, kv_qd=args.kv_qd)
    result = lab_run.run(request)
    _say(headline(result.figures))
    zns_text = zns_report.report_text(result.folder)
    if zns_text:
        print(zns_text, file=sys.stderr, flush=True)
    fdp_text = fdp_report.report_text(result.folder)
    if fdp_text:
        print(fdp_text, file=sys.stderr, flush=True)
    kv_text = kv_report.report_text(result.folder)
    if kv_text:
        print(kv_text, file=sys.stderr, flush=True)
    shown = _shown(result.folder)
    _say(f"plots: {shown / 'plots'}")
    if args.record:
        _say(f"trace: {shown / lab_run.TRACE_FILE} (replay: ftl-sim --config "
             f"{shown / 'config.conf'} --trace {shown / lab_run.TRACE_FILE} --stats-dir DIR)")
    print(shown)
    return 0


def _aged_state(path: Optional[Path], config) -> Optional[Path]:
    """--aged's file, checked against the run's configuration before anything boots."""
    if path is None:
        return None
    meta = aged.check_state(path, config)
    if meta.get("data") == "absent":
        _say(f"{path} was aged by {meta.get('producer', 'ftl-sim')}: it holds no data, so "
             "LBAs the ageing wrote read as zeroes (the FTL's state is complete)")
    return path.resolve()


def _shown(path: Path) -> Path:
    """path relative to the working folder when it lies inside it (results/...)."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def _compat_mode(args) -> int:
    accel.preflight(args.accel)
    image = Path(args.image_args[0])
    stats_dir = Path(args.image_args[1]) if len(args.image_args) > 1 else None
    overrides = devconfig.parse_overrides(args.overrides)
    setup_steps.ensure_ftl_sim()
    config = devconfig.load(args.config or COMPAT_CONFIG, overrides)
    qemu = setup_steps.ensure_qemu(args.qemu)
    try:
        return compat.run_image(image, stats_dir, config=config, qemu=qemu, smp=args.smp,
                                mem_mb=args.mem or 2048, ssh_port=args.ssh_port,
                                accel=args.accel)
    except compat.CompatError as error:
        raise UsageError(str(error)) from None


def _say(message: str) -> None:
    setup_steps.say(message)    # under run-blackbox's name or femu-lab run's


if __name__ == "__main__":
    sys.exit(main())
