"""Benchmark: 4 KiB random read / write IOPS at iodepth 1 and 32 that the guest
reaches on QEMU's stock NVMe device, i.e. the ceiling any emulated device sees
on this host (under TCG that ceiling is the CPU emulation, not the device).

    femu-lab stock-nvme-bench [--runtime 20] [--region 256M] [--out DIR]

Prints figures; asserts nothing. One boot runs every case in turn.
"""
import argparse
import json
import os
import shlex
import sys
import tempfile
from pathlib import Path

from femu_common.cli_args import describe
from femu_guest import image as guest_image

from ..vm import accel
from ..vm.launch import VmSpec, make_backing_file, run, stock_nvme_args

CASES = [(rw, depth) for rw in ("randread", "randwrite") for depth in (1, 32)]


def job_script(runtime: int, region: str) -> str:
    size = shlex.quote(region)    # --region is the user's: one quoted word in the job
    lines = [
        "set -e",
        "# Precondition: write the region once, so reads hit allocated blocks.",
        f"fio --name=fill --filename=/dev/nvme0n1 --rw=write --bs=1M --size={size} "
        "--direct=1 --ioengine=libaio --iodepth=4 --output-format=terse >/dev/null",
    ]
    for rw, depth in CASES:
        lines.append(
            f"fio --name={rw}-qd{depth} --filename=/dev/nvme0n1 --rw={rw} --bs=4k "
            f"--size={size} --direct=1 --ioengine=libaio --iodepth={depth} "
            f"--time_based --runtime={runtime} --ramp_time=2 --norandommap "
            f"--output-format=json --output=\"$FEMU_OUT/{rw}-qd{depth}.json\"")
        lines.append(f"echo done {rw} qd{depth}")
    return "\n".join(lines) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    describe(parser, __doc__.split("\n\n")[0], formatter_class=argparse.HelpFormatter)
    parser.add_argument("--runtime", type=int, default=20, help="seconds per case")
    parser.add_argument("--region", default="256M", help="LBA region fio works on")
    parser.add_argument("--cpus", type=int, default=2)
    accel.add_argument(parser)
    parser.add_argument("--out", type=Path, help="keep results here (default: a temp folder)")


def run(args: argparse.Namespace) -> int:
    image = guest_image.ensure_image()
    with tempfile.TemporaryDirectory(prefix="femu-bench-") as tmp:
        out = args.out or Path(tmp)
        disk = make_backing_file(Path(tmp) / "disk.img", 1 << 30)
        job_timeout = len(CASES) * (args.runtime + 30) + 120
        spec = VmSpec(job=job_script(args.runtime, args.region), device_args=stock_nvme_args(disk),
                      kernel=image.kernel, initramfs=image.initramfs,
                      cpus=args.cpus, accel=args.accel, job_timeout=job_timeout)
        load = os.getloadavg()[0]
        result = run(spec, out)
    if not result.ok:
        print(f"benchmark failed: {result.summary()}", file=sys.stderr)
        return 1

    manifest = image.manifest
    print()
    print(f"host load average at start: {load:.2f} ({os.cpu_count()} cores); accel {result.accel}")
    print(f"image: vmlinux {manifest['vmlinux_bytes'] / 1e6:.1f} MB + initramfs "
          f"{manifest['initramfs_bytes'] / 1e6:.1f} MB ({manifest['shared_libraries']} shared "
          f"libraries, {manifest['shared_library_bytes'] / 1e6:.1f} MB); last full build "
          f"{manifest['build_seconds']:.1f} s")
    print(f"boot-to-job: {result.boot_to_job_seconds:.2f} s host clock "
          f"({result.status.get('uptime_at_job_start', '?')} s guest uptime)")
    print(f"{'case':<16}{'IOPS':>10}{'MiB/s':>10}{'mean lat us':>14}")
    for rw, depth in CASES:
        job = json.loads(result.files[f"{rw}-qd{depth}.json"])["jobs"][0]
        side = job["read"] if rw == "randread" else job["write"]
        print(f"{rw + ' qd' + str(depth):<16}{side['iops']:>10.0f}{side['bw'] / 1024:>10.1f}"
              f"{side['lat_ns']['mean'] / 1000:>14.1f}")
    return 0
