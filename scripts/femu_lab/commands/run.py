"""`femu-lab run`: run-blackbox.sh's lab mode as it is; only the name in its messages
changes."""
import argparse

from femu_common.cli_args import describe

from ..run import blackbox

PROG = "femu-lab run"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    describe(parser, **blackbox.parser_texts())
    blackbox.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    return blackbox.run(args, prog=PROG)
