"""Two figures for the femu device, each beside QEMU's stock NVMe device.

    femu-lab device-figures idle-cpu [--seconds 30]
    femu-lab device-figures latency  [--runtime 20] [--region 64M]

idle-cpu: host CPU the QEMU process uses while the guest sleeps, in % of one core,
          from utime + stime in /proc/PID/stat sampled --seconds apart; one boot per
          device (femu, femu with stats_dir, stock nvme), one after the other.
latency:  QD1 4 KiB random-read completion latency (fio libaio, direct) on femu
          (pg_rd_lat 40 us) and the stock device, both attached to the same guest and
          measured one after the other over a preconditioned region.

Prints figures; asserts nothing.
"""
import argparse
import json
import os
import shlex
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, List, Tuple

from femu_common.cli_args import UsageError, describe
from femu_common.progress import Progress
from femu_guest import image as guest_image

from ..paths import QEMU as FEMU_QEMU, REPO_ROOT
from ..vm import launch as vm_launch
from ..vm.launch import (JOB_START_MARKER, VmSpec, femu_args, make_backing_file,
                         stock_nvme_args)
from .host import cpu_percent, cpu_ticks, find_qemu_pid, sample_cpu_percent  # noqa: F401

PROG = "femu-lab device-figures"
DEFAULT_CONFIG = REPO_ROOT / "conf" / "lab-1g.conf"
SETTLE_SECONDS = 5            # after the job starts, before the first CPU sample


# ---- idle CPU ---------------------------------------------------------------
# cpu_ticks, cpu_percent and find_qemu_pid live in bench_host (femu-lab bench uses them
# too) and stay importable from here.

def _job_started(out_dir: Path) -> bool:
    log = out_dir / "console.log"
    return log.exists() and JOB_START_MARKER in log.read_bytes()


def measure_idle_cpu(spec: VmSpec, out_dir: Path, seconds: float,
                     log: Progress) -> Tuple[float, str]:
    """Boot spec (its job sleeps), sample QEMU's CPU time `seconds` apart while idle;
    return (% of one core, accelerator)."""
    holder: Dict[str, object] = {}
    runner = threading.Thread(
        target=lambda: holder.update(result=vm_launch.run(spec, out_dir, quiet=True)))
    runner.start()
    try:
        deadline = time.monotonic() + 120
        while not _job_started(out_dir):
            if not runner.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the guest never reached its job; see {out_dir}/console.log")
            time.sleep(0.5)
        time.sleep(SETTLE_SECONDS)
        pid = find_qemu_pid(str(out_dir))
        if pid is None:
            raise RuntimeError("QEMU process not found")
        log(f"guest idle; sampling QEMU pid {pid} for {seconds:.0f} s")
        percent = sample_cpu_percent(pid, seconds)
    finally:
        runner.join()
    result = holder.get("result")
    if result is None or not result.ok:
        raise RuntimeError(f"guest run failed: {result.summary() if result else 'no result'}")
    return percent, result.accel


def idle_cpu(args, tmp: Path, log: Progress) -> int:
    image = guest_image.ensure_image(quiet=True)
    job = f"sleep {int(args.seconds + SETTLE_SECONDS + 10)}\n"
    disk = make_backing_file(tmp / "disk.img", 1 << 30)
    cases: List[Tuple[str, List[str]]] = [
        ("femu", femu_args(config=args.config)),
        ("femu + stats_dir", femu_args(config=args.config, stats_dir=tmp / "stats")),
        ("stock nvme", stock_nvme_args(disk)),
    ]
    rows = []
    for name, device in cases:
        log(f"{name}: booting")
        spec = VmSpec(job=job, qemu=str(args.qemu), kernel=image.kernel,
                      initramfs=image.initramfs, device_args=device, cpus=args.cpus,
                      job_timeout=int(args.seconds) + 60)
        load = os.getloadavg()[0]
        folder = tmp / name.replace(" ", "_")
        percent, accelerator = measure_idle_cpu(spec, folder, args.seconds, log)
        rows.append((name, percent, load))
        log(f"{name}: {percent:.2f} % of one core")
    print()
    print(f"Idle host CPU of the QEMU process, guest asleep, {args.seconds:.0f} s sample, "
          f"{args.cpus} vCPU, {accelerator} ({os.cpu_count()} host cores); "
          f"femu config {args.config.name}")
    print(f"{'device':<20}{'CPU % of one core':>20}{'host load at start':>22}")
    for name, percent, load in rows:
        print(f"{name:<20}{percent:>20.2f}{load:>22.2f}")
    return 0


# ---- QD1 read latency --------------------------------------------------------

def latency_job(runtime: int, region: str) -> str:
    """Find each controller's namespace by model, fill the region, then QD1 reads."""
    size = shlex.quote(region)    # --region is the user's: one quoted word in the job
    lines = ["set -e"]
    for label, model in (("femu", "femu SSD"), ("stock", "QEMU NVMe Ctrl")):
        lines += [
            f'{label}=""',
            "for ctrl in /sys/class/nvme/nvme*; do",
            f'    if grep -q "^{model}" "$ctrl/model"; then {label}=/dev/$(basename $ctrl)n1; fi',
            "done",
            f'[ -n "${label}" ] || {{ echo "no {label} namespace" >&2; exit 1; }}',
            f'echo "{label}: ${label}"',
        ]
    for label in ("femu", "stock"):
        lines.append(
            f"fio --name=fill-{label} --filename=${label} --rw=write --bs=1M --size={size} "
            "--direct=1 --ioengine=libaio --iodepth=4 --output-format=terse >/dev/null")
    for label in ("femu", "stock"):
        lines.append(
            f"fio --name=qd1-{label} --filename=${label} --rw=randread --bs=4k "
            f"--size={size} --direct=1 --ioengine=libaio --iodepth=1 --time_based "
            f"--runtime={runtime} --ramp_time=2 --norandommap "
            f"--output-format=json --output=\"$FEMU_OUT/qd1-{label}.json\"")
        lines.append(f"echo done {label}")
    return "\n".join(lines) + "\n"


def read_latency(fio_json: bytes) -> Dict[str, float]:
    """Mean, p50 and p99 completion latency in us, and IOPS, from fio's JSON."""
    side = json.loads(fio_json)["jobs"][0]["read"]
    clat = side["clat_ns"]
    pct = clat["percentile"]
    return {"iops": side["iops"], "mean": clat["mean"] / 1000,
            "p50": pct["50.000000"] / 1000, "p99": pct["99.000000"] / 1000}


def latency(args, tmp: Path, log: Progress) -> int:
    image = guest_image.ensure_image(quiet=True)
    disk = make_backing_file(tmp / "disk.img", 1 << 30)
    device = (femu_args(config=args.config, pg_rd_lat=40000)
              + stock_nvme_args(disk, serial="stock0"))
    spec = VmSpec(job=latency_job(args.runtime, args.region), qemu=str(args.qemu),
                  kernel=image.kernel, initramfs=image.initramfs, device_args=device,
                  cpus=args.cpus, job_timeout=2 * args.runtime + 240)
    load = os.getloadavg()[0]
    log(f"one boot, femu and stock nvme attached; {args.runtime} s of QD1 reads on each")
    result = vm_launch.run(spec, tmp / "latency")
    if not result.ok:
        print(f"latency run failed: {result.summary()}\n{result.text('job.log')[-2000:]}"
              if "job.log" in result.files else f"latency run failed: {result.summary()}",
              file=sys.stderr)
        return 1
    print()
    print(f"QD1 4 KiB random read (fio libaio, direct, {args.runtime} s after 2 s ramp, "
          f"region {args.region} written first), {args.cpus} vCPU, {result.accel}; "
          f"host load at start {load:.2f} ({os.cpu_count()} cores)")
    print(f"{'device':<28}{'IOPS':>9}{'mean us':>10}{'p50 us':>10}{'p99 us':>10}")
    for label, name in (("femu", "femu (pg_rd_lat 40 us)"), ("stock", "stock nvme")):
        figures = read_latency(result.files[f"qd1-{label}.json"])
        print(f"{name:<28}{figures['iops']:>9.0f}{figures['mean']:>10.1f}"
              f"{figures['p50']:>10.1f}{figures['p99']:>10.1f}")
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    describe(parser, __doc__.split("\n\n")[0], formatter_class=argparse.HelpFormatter)
    sub = parser.add_subparsers(dest="figure", metavar="FIGURE", parser_class=type(parser))
    sub.required = True
    cpu = sub.add_parser("idle-cpu", help="idle host CPU of QEMU: femu vs stock nvme")
    cpu.add_argument("--seconds", type=float, default=30, help="sampling interval")
    lat = sub.add_parser("latency", help="QD1 4 KiB random-read latency: femu vs stock nvme")
    lat.add_argument("--runtime", type=int, default=20, help="seconds of reads per device")
    lat.add_argument("--region", default="64M", help="region written first, then read")
    for p in (cpu, lat):
        p.add_argument("--qemu", type=Path, default=FEMU_QEMU, help="QEMU with the femu device")
        p.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="femu config file")
        p.add_argument("--cpus", type=int, default=2)
        p.add_argument("--keep", type=Path, help="keep the runs' folders here")


def run(args: argparse.Namespace) -> int:
    if not args.qemu.exists():
        raise UsageError(f"{args.qemu} is missing: build it with build-femu/femu-compile.sh")
    log = Progress(f"figures {args.figure}")
    with tempfile.TemporaryDirectory(prefix="femu-figures-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        try:
            return (idle_cpu if args.figure == "idle-cpu" else latency)(args, folder, log)
        except RuntimeError as error:
            print(f"{PROG}: error: {error}", file=sys.stderr)
            return 1
