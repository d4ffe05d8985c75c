"""`femu-lab workloads`: the workload library, one line per workload."""
import argparse

from femu_common.cli_args import describe

from ..run import blackbox


def add_arguments(parser: argparse.ArgumentParser) -> None:
    describe(parser, "Describes the workload library (scripts/workloads).",
             formatter_class=argparse.HelpFormatter)


def run(args: argparse.Namespace) -> int:
    print(blackbox.list_workloads())
    return 0
