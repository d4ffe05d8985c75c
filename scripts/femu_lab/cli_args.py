"""What run-blackbox.sh and femu-lab share on the command line: argparse errors as one
line (raised, so the caller prints it and exits 2) and bounded whole-number options."""
import argparse


class UsageError(ValueError):
    """A bad argument; the message is one line."""


class OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        # argparse would print the usage block too; the rule here is one line.
        raise UsageError(f"{message} (see {self.prog} --help)")


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
