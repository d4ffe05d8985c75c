"""femu-lab bench: femu against QEMU's stock nvme (and upstream FEMU, given its binary)
on the same guest, one boot per device per round, the devices interleaved; every boot
runs the whole job list (bench_jobs), QEMU's threads sampled around each fio job
(bench_cpu_windows); then the table with ratios (bench_table), the ftl-sim row for the
write step (bench_sim), the QD1 latency checks and the CPU-per-I/O checks (bench_cpu_check).

Prints figures; asserts nothing; not a CI test. Progress goes to stderr, the table to
stdout. A failed boot is reported and the others still run (exit status 1).
"""
import argparse
import json
import os
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional

from femu_common.cli_args import UsageError, describe, whole_number
from femu_common.errors import RunFailure
from femu_common.progress import Progress
from femu_guest import image as guest_image

from .. import devconfig, lab_options, paths, setup_steps
from ..file_tail import FileTail
from ..vm import launch as vm
from . import (cpu_check as bench_cpu_check, cpu_figures as bench_cpu_figures,
               cpu_windows as bench_cpu_windows, devices as bench_devices, jobs as bench_jobs,
               sim as bench_sim, stats as bench_stats, table as bench_table,
               threads as bench_threads)
from .host import find_qemu_pid, sample_cpu_percent
from .jobs import BenchTimes
from .stats import Geometry

PROG = "femu-lab bench"
DEFAULT_CONFIG = paths.REPO_ROOT / "conf" / "lab-1g.conf"
# femu's CPU per I/O of issue 43's bench run (docs/bench.md), the reference a later run is
# held to: more than 20 % above it fails the printed check
DEFAULT_CPU_BASELINE = paths.REPO_ROOT / "docs" / "bench-cpu-baseline.json"
HEARTBEAT_SECONDS = 30
POLL_SECONDS = 0.1      # how often the console is read: how late a CPU window may start


class BenchError(RunFailure):
    """One boot failed; the message is one line (plus, where there is one, a log tail)."""


# ---- command line -------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    describe(parser, **parser_texts())
    lab_options.add_ssd_options(parser, DEFAULT_CONFIG,
                                "femu's SSD configuration (default conf/lab-1g.conf); stock "
                                "nvme and FEMU get its logical size, FEMU its geometry")
    parser.add_argument("--femu-upstream", type=Path, metavar="PATH",
                        help="upstream FEMU's qemu-system-x86_64: adds the FEMU column")
    parser.add_argument("--rounds", type=whole_number(1, 100), default=1, metavar="N",
                        help="boots per device, interleaved (default 1); the table shows "
                             "medians")
    parser.add_argument("--runtime", type=whole_number(1, 24 * 3600), default=30,
                        metavar="SECONDS", help="randwrite after the fill, and ftl-sim's "
                                                "simulated run (default 30)")
    parser.add_argument("--read-runtime", type=whole_number(1, 24 * 3600), default=15,
                        metavar="SECONDS", help="each randread job, after a 2 s ramp "
                                                "(default 15)")
    parser.add_argument("--idle-seconds", type=whole_number(1, 3600), default=20,
                        metavar="SECONDS", help="idle CPU sample (default 20)")
    lab_options.add_machine_options(
        parser, qemu=paths.QEMU, qemu_help="QEMU with femu, also used for stock nvme "
                                           "(default: the built build-femu/qemu-system-x86_64)")
    parser.add_argument("--ftl-sim", type=Path, metavar="PATH",
                        help="ftl-sim binary (default build/release/tools/ftl-sim/ftl-sim)")
    parser.add_argument("--cpu-baseline", type=cpu_baseline_arg, metavar="FILE|stock",
                        default=DEFAULT_CPU_BASELINE,
                        help="an earlier --json: check femu's CPU per I/O against its "
                             "figures (default: docs/bench-cpu-baseline.json, measured on a "
                             "2-core TCG host); stock: femu's outside the vCPUs against "
                             "stock nvme's in this run")
    parser.add_argument("--json", type=Path, metavar="OUT",
                        help="save every figure (per boot, medians, ftl-sim) as JSON")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep each boot's folder (console, job.log, fio reports) here")


def cpu_baseline_arg(text: str) -> Optional[Path]:
    """--cpu-baseline: a file, or 'stock' (None: the checks against stock nvme)."""
    return None if text == "stock" else Path(text)


def parser_texts() -> dict:
    return dict(description=__doc__.split("\n\n")[0].strip(),
                formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog="example:\n  femu-lab bench --rounds 2 --json bench.json\n"
                       "  femu-lab bench --femu-upstream ~/FEMU/build-femu/"
                       "qemu-system-x86_64")


# ---- one boot ----------------------------------------------------------------------

class ConsoleSteps:
    """The `femu-bench: step NAME` lines that have appeared in a growing console log;
    every new line also goes to on_line(line, late), in order (late: passed on)."""

    def __init__(self, path: Path,
                 on_line: Callable[[str, bool], None] = lambda line, late: None):
        self.tail, self.on_line = FileTail(path), on_line

    def new(self, late: bool = False) -> List[str]:
        marker = bench_jobs.MARKER
        found = []
        for line in self.tail.lines():
            self.on_line(line, late)
            if marker in line:
                found.append(line[line.find(marker) + len(marker):].strip())
        return found


@dataclass
class Boot:
    device: str
    round: int
    folder: Path
    figures: Dict[str, object] = field(default_factory=dict)
    error: Optional[str] = None
    notes: List[str] = field(default_factory=list)
    accel: str = ""
    wall_seconds: float = 0.0
    load_at_start: float = 0.0


def run_boot(device: bench_devices.Device, round_index: int, folder: Path, times: BenchTimes,
             image, args, log: Progress) -> Boot:
    boot = Boot(device.name, round_index, folder, load_at_start=os.getloadavg()[0])
    folder.mkdir(parents=True, exist_ok=True)
    spec = vm.VmSpec(job=bench_jobs.guest_script(times), qemu=str(device.qemu),
                     kernel=image.kernel, initramfs=image.initramfs,
                     device_args=device.arguments(folder), cpus=args.smp,
                     memory_mb=args.mem, accel=args.accel,
                     firmware_dirs=list(device.firmware_dirs),
                     extra_args=bench_threads.name_arguments(device.name),
                     job_timeout=bench_jobs.job_timeout(times))
    holder: Dict[str, object] = {}

    def target() -> None:
        try:
            holder["result"] = vm.run(spec, folder, quiet=True)
        except Exception as error:   # reported below, in this thread
            holder["error"] = error

    started = time.monotonic()
    runner = threading.Thread(target=target, daemon=True)
    runner.start()
    windows = bench_cpu_windows.CpuWindows(
        lambda: find_qemu_pid(str(folder.resolve()) + "/", program=str(device.qemu)))
    steps = ConsoleSteps(folder / "console.log", windows.line)
    step, step_started, heartbeat = "boot", started, started
    idle: Optional[float] = None
    try:
        while runner.is_alive():
            pending = steps.new()
            while pending:
                name = pending.pop(0)
                step, step_started = name, time.monotonic()
                heartbeat = step_started
                log(f"{device.name}: {name}")
                if name == "idle":
                    idle = _sample_idle(device, folder, times, boot, log)
                    later = steps.new(late=True)
                    if later and idle is not None:
                        # the guest went on before the sample ended: not idle throughout
                        boot.notes.append(f"idle CPU sample overlapped step {later[0]}: "
                                          "not counted")
                        idle = None
                    pending += later
            now = time.monotonic()
            if now - heartbeat >= HEARTBEAT_SECONDS:
                log(f"{device.name}: {step}, {now - step_started:.0f} s into it")
                heartbeat = now
            runner.join(timeout=POLL_SECONDS)
        steps.new(late=True)   # what QEMU printed as it ended: windows noted, not counted
    finally:
        # On Ctrl-C, no join: QEMU dies with this process (vm.guarded).
        if not runner.is_alive():
            image_file = folder / bench_devices.STOCK_IMAGE
            if image_file.exists():
                image_file.unlink()   # as large as the device: never kept
    boot.wall_seconds = time.monotonic() - started
    if "error" in holder:
        boot.error = f"{type(holder['error']).__name__}: {holder['error']}"
        return boot
    result: vm.RunResult = holder["result"]
    boot.accel = result.accel
    if not result.ok:
        tail = result.text("job.log").strip().splitlines()[-3:] if "job.log" in result.files \
            else []
        boot.error = result.summary() + ("; job.log ends: " + " | ".join(tail) if tail else "")
        return boot
    try:
        boot.figures = bench_stats.boot_figures(result.files, idle)
    except bench_stats.FioReportError as error:
        boot.error = str(error)
        return boot
    cpu, detail, notes = bench_cpu_figures.boot_cpu_figures(
        windows.windows, bench_stats.fio_total_ios(result.files),
        bench_threads.ticks_per_second())
    boot.figures.update(cpu)
    boot.figures["cpu"] = detail
    boot.notes += windows.notes + notes
    return boot


def _sample_idle(device, folder: Path, times: BenchTimes, boot: Boot,
                 log: Progress) -> Optional[float]:
    """QEMU's CPU while the guest sleeps: wait for the guest to settle, then sample."""
    time.sleep(bench_jobs.IDLE_SETTLE_SECONDS)
    pid = find_qemu_pid(str(folder.resolve()) + "/", program=str(device.qemu))
    if pid is None:
        boot.notes.append("idle CPU: QEMU process not found")
        return None
    log(f"{device.name}: guest idle; sampling QEMU pid {pid} for {times.idle} s")
    try:
        return sample_cpu_percent(pid, times.idle)
    except (OSError, ValueError) as error:
        boot.notes.append(f"idle CPU: {error}")
        return None


# ---- the whole benchmark -------------------------------------------------------------

def check_arguments(args) -> None:
    if not args.qemu.exists():
        raise UsageError(f"{args.qemu} is missing: build it with build-femu/femu-compile.sh "
                         "or give --qemu PATH")
    if args.femu_upstream is not None and not args.femu_upstream.is_file():
        raise UsageError(f"--femu-upstream {args.femu_upstream}: no such file")
    problem = bench_devices.firmware_problem() if args.femu_upstream is not None else None
    if problem:
        raise UsageError(f"--femu-upstream: {problem}")
    if args.cpu_baseline is not None:
        bench_cpu_check.load_baseline(args.cpu_baseline)   # a bad file: before any boot


def run(args, prog: str = PROG) -> int:
    check_arguments(args)
    args.qemu = args.qemu.resolve()
    if args.femu_upstream is not None:
        args.femu_upstream = args.femu_upstream.resolve()
    ftl_sim = (args.ftl_sim or devconfig.ftl_sim_path()).resolve()
    config_path = args.config.resolve()
    config = devconfig.load(config_path, devconfig.parse_overrides(args.overrides), ftl_sim)
    geometry = Geometry.from_config(config.values)
    times = BenchTimes(idle=args.idle_seconds, read=args.read_runtime, write=args.runtime)
    log = Progress("bench")
    with tempfile.TemporaryDirectory(prefix="femu-bench-") as tmp:
        root = (args.keep or Path(tmp)).resolve()
        root.mkdir(parents=True, exist_ok=True)
        config.write(root / "config.conf")   # the record; the devices get the file itself
        log(f"ftl-sim: randwrite 4k QD32 after a sequential fill, {args.runtime} s simulated")
        sim = bench_sim.run(ftl_sim, config_path, config.overrides, args.runtime,
                            root / "ftl-sim", geometry)
        image = guest_image.ensure_image(quiet=True, release=args.guest_release)
        setup_steps.choose_accel(args.accel, args.qemu, image, log)
        devices = {d.name: d for d in bench_devices.devices(
            config_path, config.overrides, config.values, config.logical_bytes, args.qemu,
            args.femu_upstream)}
        skipped = bench_devices.femu_only_settings(config.values) if args.femu_upstream else []
        boots: List[Boot] = []
        order = bench_devices.boot_order(list(devices), args.rounds)
        total = sum(len(names) for names in order)
        for round_index, names in enumerate(order, 1):
            for name in names:
                log(f"boot {len(boots) + 1}/{total}: round {round_index}, {name} "
                    f"({devices[name].qemu})")
                folder = root / f"round{round_index}-{name}"
                boot = run_boot(devices[name], round_index, folder, times, image, args, log)
                boots.append(boot)
                for note in boot.notes:
                    log(f"{name}: note: {note}")
                if boot.error:
                    log(f"{name}: FAILED: {boot.error}")
                else:
                    log(f"{name}: done in {boot.wall_seconds:.0f} s")
        report = build_report(args, config, geometry, times, sim, boots, skipped)
        print("\n".join(report_lines(report, geometry, args)))
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(report, indent=2, default=str) + "\n")
            log(f"figures saved in {args.json}")
    return 1 if any(boot.error for boot in boots) else 0


def build_report(args, config, geometry: Geometry, times: BenchTimes, sim: dict,
                 boots: List[Boot], skipped: List[str]) -> dict:
    medians = {}
    for name in bench_table.DEVICES:
        good = [boot.figures for boot in boots if boot.device == name and not boot.error]
        if good:
            medians[name] = bench_stats.median_figures(good)
    checks = []
    if "femu" in medians and "stock" in medians:
        checks = bench_stats.latency_checks(medians["femu"], medians["stock"], geometry)
        checks += bench_stats.device_checks(medians["femu"], medians["stock"],
                                            medians.get("FEMU"))
    cpu_checks = cpu_checks_of(medians, args.cpu_baseline)
    return {
        "command": sys.argv,
        "host": {"cores": os.cpu_count(), "accel": sorted({b.accel for b in boots if b.accel})},
        "config": {"file": str(config.source), "overrides": config.overrides,
                   "values": config.values, "logical_bytes": config.logical_bytes},
        "times": {"idle_s": times.idle, "read_s": times.read, "write_s": times.write,
                  "ramp_s": bench_jobs.RAMP_SECONDS},
        "binaries": {"femu": str(args.qemu), "stock": str(args.qemu),
                     "FEMU": str(args.femu_upstream) if args.femu_upstream else None},
        "femu_settings_not_given_to_FEMU": skipped,
        "fill_ceiling_mib_s": bench_stats.fill_ceiling_mib_s(geometry),
        "boots": [{"device": b.device, "round": b.round, "figures": b.figures,
                   "error": b.error, "notes": b.notes, "accel": b.accel,
                   "wall_seconds": round(b.wall_seconds, 1),
                   "load_at_start": round(b.load_at_start, 2)} for b in boots],
        "medians": medians,
        "ftl_sim": sim,
        "checks": [{"what": c.what, "value_us": c.value, "limit_us": c.limit,
                    "formula": c.formula, "passed": c.passed, "unit": c.unit}
                   for c in checks],
        "cpu_baseline": str(args.cpu_baseline) if args.cpu_baseline else None,
        "cpu_checks": [{"what": c.what, "value_us": c.value, "reference": c.reference_name,
                        "reference_us": c.reference, "tick_us": c.tick, "limit_us": c.limit,
                        "status": c.status} for c in cpu_checks],
    }


def cpu_checks_of(medians: dict, baseline: Optional[Path]) -> List[bench_cpu_check.CpuCheck]:
    """Against the baseline's femu when given, else against stock's in this run (none
    when femu or, without a baseline, stock has no good boot)."""
    femu = medians.get("femu")
    if femu is None:
        return []
    if baseline is not None:
        return bench_cpu_check.baseline_checks(femu, bench_cpu_check.load_baseline(baseline))
    stock = medians.get("stock")
    return bench_cpu_check.stock_checks(femu, stock) if stock is not None else []


def report_lines(report: dict, geometry: Geometry, args) -> List[str]:
    boots = report["boots"]
    loads = ", ".join(f"{b['device']} {b['load_at_start']:.2f}" for b in boots)
    accel = "/".join(report["host"]["accel"]) or "?"
    rounds = args.rounds
    lines = ["",
             f"femu-lab bench: {Path(report['config']['file']).name}, logical "
             f"{report['config']['logical_bytes'] // bench_devices.MIB} MiB; {rounds} round"
             f"{'s' if rounds > 1 else ''}, {args.smp} vCPU, {accel}, "
             f"{report['host']['cores']} host cores; host load at each boot: {loads}",
             f"runtimes: idle sample {report['times']['idle_s']} s, reads "
             f"{report['times']['read_s']} s (+{report['times']['ramp_s']} s ramp), randwrite "
             f"{report['times']['write_s']} s; femu and stock QEMU {args.qemu}"
             + (f"; FEMU {args.femu_upstream}" if args.femu_upstream else "; FEMU not run "
                "(--femu-upstream PATH)"),
             ""]
    if rounds > 1:
        lines.insert(-1, "figures are medians over the rounds (every boot's in --json)")
    lines += bench_table.table(report["medians"])
    lines += ["", bench_table.ceiling_line(geometry)]
    femu = report["medians"].get("femu") or {}
    lines += bench_table.sim_lines(report["ftl_sim"], geometry, report["times"]["write_s"],
                                   femu.get("write_iops"))
    checks = [bench_stats.Check(c["what"], c["value_us"], c["limit_us"], c["formula"],
                                c.get("unit", "us")) for c in report["checks"]]
    if checks:
        lines += [""] + bench_table.check_lines(checks)
    cpu_checks = [bench_cpu_check.CpuCheck(c["what"], c["value_us"], c["reference_us"],
                                           c["reference"], c["tick_us"])
                  for c in report["cpu_checks"]]
    if cpu_checks:
        reference = (f"femu's medians in --cpu-baseline {report['cpu_baseline']}"
                     if report["cpu_baseline"] else "stock's (--cpu-baseline stock)")
        lines += ["", f"CPU per I/O against {reference}:"]
        lines += bench_table.cpu_check_lines(cpu_checks)
    if report["femu_settings_not_given_to_FEMU"]:
        lines.append("FEMU ran without " + ", ".join(report["femu_settings_not_given_to_FEMU"])
                     + " (no such FEMU property)")
    for boot in boots:
        for note in boot["notes"]:
            lines.append(f"note: round {boot['round']} {boot['device']}: {note}")
        if boot["error"]:
            lines.append(f"FAILED: round {boot['round']} {boot['device']}: {boot['error']}")
    return lines
