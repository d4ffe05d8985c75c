"""femu-vm: run a job in the femu guest, or get a shell in it.

  femu-vm run --job JOB.sh --out DIR [--nvme-file disk.img --nvme-size 1G]
              [--qemu BIN] [-L DIR] [--memory MB] [--cpus N] [--job-timeout S]
              [--timeout S] [--accel auto|kvm|tcg] [--guest-release R] [--append ARGS]
              [--echo] [-- EXTRA QEMU ARGS...]
  femu-vm shell [same device / machine options]
  femu-vm build-image [--force] [--guest-release R]
  femu-vm accel [--qemu BIN] [--guest-release R]

`run` exits with the job's exit status, 124 when it timed out, 125 when no
status came back (QEMU failed or the guest crashed). `accel` prints what --accel auto
picks here and why (a probe boot of the guest kernel under KVM, cached per QEMU, guest
kernel and host boot). --accel defaults to $FEMU_ACCEL, else auto.
"""
import argparse
import sys
from pathlib import Path

from femu_common.cli_args import size_bytes
from femu_guest import RELEASES
from femu_guest import image as guest_image

from .. import setup_steps
from . import accel
from .launch import VmError, VmSpec, interactive, make_backing_file, run, stock_nvme_args


def _size(text: str) -> int:
    """'1G', '512M', '1.5GiB', '4096' -> bytes (argparse names the option when not)."""
    size = size_bytes(text)
    if size is None:
        raise ValueError(text)
    return int(size)


def _add_machine_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--qemu", default="qemu-system-x86_64", help="QEMU binary")
    parser.add_argument("-L", dest="firmware_dirs", action="append", type=Path, default=[],
                        help="extra QEMU firmware folder (repeatable)")
    parser.add_argument("--memory", type=int, default=1024, help="guest memory, MiB")
    parser.add_argument("--cpus", type=int, default=2)
    setup_steps.add_guest_arguments(parser)
    parser.add_argument("--append", default="", help="extra kernel command line")
    parser.add_argument("--nvme-file", type=Path,
                        help="attach QEMU's stock NVMe controller on this raw file")
    parser.add_argument("--nvme-size", type=_size, default=_size("1G"),
                        help="size to create --nvme-file with when missing (default 1G)")
    parser.add_argument("qemu_args", nargs="*", help="after --: extra QEMU arguments")


def _spec(args, job) -> VmSpec:
    devices = []
    if args.nvme_file:
        if not args.nvme_file.exists():
            make_backing_file(args.nvme_file, args.nvme_size)
        devices = stock_nvme_args(args.nvme_file)
    return VmSpec(job=job, qemu=args.qemu, memory_mb=args.memory, cpus=args.cpus,
                  device_args=devices, extra_args=args.qemu_args,
                  firmware_dirs=args.firmware_dirs, accel=args.accel,
                  guest_release=args.guest_release,
                  kernel_append=args.append,
                  job_timeout=getattr(args, "job_timeout", 600),
                  timeout=getattr(args, "timeout", None),
                  echo_console=getattr(args, "echo", False))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="femu-vm", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    sub = parser.add_subparsers(dest="command", required=True)
    run_parser = sub.add_parser("run", help="boot, run a job, collect its results")
    run_parser.add_argument("--job", type=Path, required=True, help="shell script to run")
    run_parser.add_argument("--out", type=Path, required=True, help="output folder")
    run_parser.add_argument("--job-timeout", type=int, default=600,
                            help="guest-side job timeout in seconds (0: none)")
    run_parser.add_argument("--timeout", type=float,
                            help="host-side deadline (default: job timeout + 120 s)")
    run_parser.add_argument("--echo", action="store_true", help="show the console live")
    _add_machine_options(run_parser)
    shell_parser = sub.add_parser("shell", help="interactive shell in the guest")
    shell_parser.add_argument("--timeout", type=float, default=3600,
                              help="QEMU is stopped after this many seconds")
    _add_machine_options(shell_parser)
    build = sub.add_parser("build-image", help="build the guest image if out of date")
    build.add_argument("--force", action="store_true")
    build.add_argument("--guest-release", choices=RELEASES, default=None)
    probe = sub.add_parser("accel", help="print the accelerator 'auto' picks (kvm or tcg) "
                                         "and why")
    probe.add_argument("--qemu", default=str(setup_steps.QEMU) if setup_steps.QEMU.exists()
                       else "qemu-system-x86_64",
                       help="QEMU binary (default: the built femu QEMU if present)")
    probe.add_argument("--guest-release", choices=RELEASES, default=None)
    args = parser.parse_args(argv)

    if args.command == "build-image":
        return guest_image.main((["--force"] if args.force else [])
                                + (["--release", args.guest_release] if args.guest_release
                                   else []))
    try:
        if args.command == "accel":
            chosen, verdict = accel.resolve("auto", args.qemu, guest_release=args.guest_release)
            print(verdict.describe())
            if verdict.log:
                print(f"the probe's log: {verdict.log}")
            return 0
        if args.command == "shell":
            spec = _spec(args, None)
            spec.timeout = None
            return interactive(spec, timeout=args.timeout)
        if not args.job.is_file():
            parser.error(f"no such job file: {args.job}")
        result = run(_spec(args, args.job), args.out)
    except (accel.AccelError, VmError) as error:
        print(f"femu-vm: error: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2 if isinstance(error, accel.AccelError) else 125
    print(result.summary())
    for name in sorted(result.files):
        print(f"  {args.out / 'files' / name}  ({len(result.files[name])} bytes)")
    if result.timed_out or result.host_timed_out:
        return 124
    if result.exit_status is None:
        return 125
    return result.exit_status
