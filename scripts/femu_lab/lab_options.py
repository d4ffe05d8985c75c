"""The options several femu-lab commands share, defined once: the SSD (--config, --set),
the machine (--smp, --mem, --accel, --guest-release, --qemu), a lab run's length
(--runtime, --precondition: femu-lab run and sweep), an ftl-sim or draw seed (--seed), a
results folder (-o/--out) and a comma-separated list of names (name_list). Each command
adds the groups it has, with its own defaults and the help texts that differ (what its
--config defaults to).

--mem's minimum is the guest's: its kernel keeps the ~100 MB initramfs.cpio in RAM and
unpacks it there too (docs/device.md gives the image's sizes), so some 210 MB are taken
before the workload starts; 256 MiB (femu-lab bench's bound before) is the least that
leaves it room.
"""
import argparse
from pathlib import Path
from typing import List, Optional, Sequence

from femu_common.cli_args import whole_number

from . import setup_steps

MEM_MIN_MIB = 256
MEM_MAX_MIB = 1 << 20
SMP_MAX = 64
SEED_MAX = 2 ** 63
SET_HELP = "override one configuration key (repeatable)"
QEMU_HELP = "QEMU with femu (default: build it into build-femu/)"


def add_ssd_options(parser: argparse.ArgumentParser, config: Optional[Path],
                    config_help: str, set_help: str = SET_HELP) -> None:
    """--config FILE (default config) and --set KEY=VALUE... into args.overrides."""
    parser.add_argument("--config", type=Path, default=config, metavar="FILE",
                        help=config_help)
    add_set_option(parser, set_help)


def add_set_option(parser: argparse.ArgumentParser, help: str = SET_HELP) -> None:
    """--set KEY=VALUE, repeatable, into args.overrides (a command without --config)."""
    parser.add_argument("--set", action="append", default=[], dest="overrides",
                        metavar="KEY=VALUE", help=help)


def add_machine_options(parser: argparse.ArgumentParser, mem: Optional[int] = 1024,
                        mem_help: str = "guest memory in MiB (default 1024)",
                        qemu: Path = setup_steps.QEMU, qemu_help: str = QEMU_HELP) -> None:
    """--smp N, --mem MIB (default mem), --accel, --guest-release and --qemu PATH."""
    parser.add_argument("--smp", type=whole_number(1, SMP_MAX), default=2, metavar="N",
                        help="guest vCPUs (default 2)")
    parser.add_argument("--mem", type=whole_number(MEM_MIN_MIB, MEM_MAX_MIB), default=mem,
                        metavar="MIB", help=mem_help)
    add_guest_options(parser, qemu, qemu_help)


def add_guest_options(parser: argparse.ArgumentParser, qemu: Path = setup_steps.QEMU,
                      qemu_help: str = QEMU_HELP) -> None:
    """--accel, --guest-release and --qemu PATH (a command that chooses no --smp/--mem)."""
    setup_steps.add_guest_arguments(parser)
    parser.add_argument("--qemu", type=Path, default=qemu, metavar="PATH", help=qemu_help)


def add_run_length_options(parser: argparse.ArgumentParser) -> None:
    """--runtime SECONDS (None: the workload's) and --precondition, as a lab run takes them."""
    parser.add_argument("--runtime", type=whole_number(1, 7 * 24 * 3600), metavar="SECONDS",
                        help="seconds of each timed run (default: the workload's)")
    parser.add_argument("--precondition", action="store_true",
                        help="fill the whole device with sequential writes first")


def add_seed_option(parser, help: str) -> None:
    """--seed N, 0 to 2^63, default 1."""
    parser.add_argument("--seed", type=whole_number(0, SEED_MAX), default=1, metavar="N",
                        help=help)


def add_out_folder(parser: argparse.ArgumentParser, help: str) -> None:
    """-o/--out DIR: the command's results folder (None: the command's default)."""
    parser.add_argument("-o", "--out", type=Path, metavar="DIR", help=help)


def name_list(choices: Sequence[str], what: str):
    """An argparse type: 'a,b' -> ['a', 'b'], each one of choices, none twice."""
    def convert(text: str) -> List[str]:
        items = [item.strip() for item in text.split(",") if item.strip()]
        if not items:
            raise argparse.ArgumentTypeError(f"no {what} given")
        for item in items:
            if item not in choices:
                raise argparse.ArgumentTypeError(
                    f"unknown {what} '{item}' (want {', '.join(choices)})")
        if len(set(items)) < len(items):
            raise argparse.ArgumentTypeError(f"a {what} named twice in '{text}'")
        return items
    return convert
