"""femu-lab: the lab's command line.

    femu-lab sweep --workload NAME|FILE --set KEY=V1,V2,... [--set KEY=V]... [options]
    femu-lab sweep ... --executor slurm [--partition P] ...   the points as a Slurm array job
    femu-lab sweep --status DIR                 a sweep's progress (squeue, sacct, folders)
    femu-lab run [run-blackbox.sh options]      one lab run (run-blackbox.sh's lab mode)
    femu-lab age --config FILE -o STATE ...     age an SSD in ftl-sim: a state to start from
    femu-lab workloads                          describe the workload library
    femu-lab bench [--femu-upstream PATH] ...   femu vs stock nvme (vs FEMU): figures
    femu-lab dftl-study [--seed N] [-o DIR] ... DFTL, write buffer and streams in ftl-sim
    femu-lab mapping-lab [--schemes ...] ...    page, DFTL, block, BAST and FAST, with and
                                                without the read cache, in ftl-sim
    femu-lab fdp-lab [--hot-handle N] [-o DIR] ... fdp-separation with and without FDP
                                                placement identifiers, side by side
    femu-lab crash [--fs ext4,f2fs] [--cuts N] ...  crash consistency: power cuts, reboots,
                                                durable writes checked (a table)
    femu-lab hotcold-table [-o DIR] ...         hot/cold vs one stream in ftl-sim, exact
                                                and aging write counts (a table, a plot)
    femu-lab trace generate|info|convert ...    real-world traces: a synthetic one in any
                                                format, what one holds, one converted
    femu-lab presets [--preset FILE]... [-o DIR]   the real-drive presets in ftl-sim
                                                against their figures (a table)
    femu-lab energy waf|apst [--quick] [-o DIR]  joules per GiB against WAF, APST's power
                                                against latency, in ftl-sim (tables, figures)
    femu-lab soak --pattern P --boots N ...     reset / shutdown / unplug soak in guests

Bad arguments: one line on stderr, exit status 2. A sweep whose points all finished
exits 0, one with failed points 1 (after the others ran and the table was written).
"""
import argparse
import os
import sys
from typing import List, Optional

from femu_common.cli_args import OneLineParser, UsageError
from femu_common.errors import FemuError

from . import setup_steps
from .commands import BY_NAME, COMMANDS, Command

PROG = "femu-lab"


def build_parser(chosen: Optional[str] = None) -> argparse.ArgumentParser:
    """femu-lab's parser: every command listed; the chosen one's module imported and its
    options added (None: every command's, as a test of them all wants)."""
    parser = OneLineParser(prog=PROG, description=__doc__.split("\n\n")[0].strip(),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND",
                                     parser_class=OneLineParser)
    for command in COMMANDS:
        sub = commands.add_parser(command.name, help=command.summary)
        if chosen in (None, command.name):
            command.load().add_arguments(sub)
    return parser


def parse(argv: List[str]) -> argparse.Namespace:
    """argv as femu-lab reads it: UsageError (one line) unless it starts with a command."""
    if not argv or argv[0] not in (*BY_NAME, "-h", "--help"):
        raise UsageError(f"expected a command ({', '.join(BY_NAME)}), got "
                         f"{repr(argv[0]) if argv else 'none'} (see {PROG} --help)")
    return build_parser(argv[0]).parse_args(argv)


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parse(argv)
        command: Command = BY_NAME[args.command]
        setup_steps.speak_as(f"{PROG} {command.name}")   # setup and accelerator lines
        return command.load().run(args)
    except FemuError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return error.exit_status
    except KeyboardInterrupt:
        if argv[0] in BY_NAME and not BY_NAME[argv[0]].resumable:   # they start over
            print(f"{PROG}: interrupted", file=sys.stderr)
        else:
            print(f"{PROG}: interrupted; run the same command again to resume", file=sys.stderr)
        return 130


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
