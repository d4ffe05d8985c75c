"""The command lines' shared argparse pieces: errors as one line (raised, so the caller
prints it and exits 2) and bounded whole-number options. Used by femu-plot and by every
femu_lab command (femu-lab, run-blackbox.sh).

It lives here because femu_analysis is the lowest package all of those import (femu_lab
depends on it). The QEMU builder (femu_build) and the guest image builder (femu_guest)
keep argparse's own errors: they must run from Debian's python3 without the venv, where
this package (pandas, matplotlib) is not installed."""
import argparse


class UsageError(ValueError):
    """A bad argument; the message is one line."""


class OneLineParser(argparse.ArgumentParser):
    """Subcommands: add_subparsers(..., parser_class=OneLineParser)."""

    def error(self, message):
        # argparse would print the usage block too; the rule here is one line.
        raise UsageError(f"{message} (see {self.prog} --help)")

    def parse_args(self, args=None, namespace=None):
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:   # argparse blames the top parser; the subcommand's help is the one to see
            self._chosen_command(parsed).error(f"unrecognized arguments: {' '.join(extra)}")
        return parsed

    def _chosen_command(self, parsed) -> argparse.ArgumentParser:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action.choices.get(getattr(parsed, action.dest, None), self)
        return self


def whole_number(low: int, high: int):
    """An argparse type: a whole number in [low, high]."""
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not between {low} and {high}")
        return value
    return convert
