"""The command lines' shared argument pieces: errors as one line (raised, so the caller
prints it and exits 2), bounded whole-number options, sizes with a unit suffix, and
KEY=VALUE items. Used by femu-plot (femu_analysis) and every femu_lab command (femu-lab,
femu-vm, run-blackbox.sh)."""
import argparse
import re
from typing import Optional, Tuple

# '64M', '1.5GiB', '4k', ' 16 kb ', '512': a number, then an optional binary unit.
_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmgt]?)(?:i?b)?\s*$", re.IGNORECASE)
_SCALE = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


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


def _ranged(kind, what: str, low, high):
    """An argparse type: text read by kind (int, float), in [low, high]."""
    def convert(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not {what}") from None
        if not low <= value <= high:
            show = (lambda v: f"{v:g}") if kind is float else str
            raise argparse.ArgumentTypeError(f"{show(value)} is not between {show(low)} and "
                                             f"{show(high)}")
        return value
    return convert


def whole_number(low: int, high: int):
    """An argparse type: a whole number in [low, high]."""
    return _ranged(int, "a whole number", low, high)


def number(low: float, high: float):
    """An argparse type: a number (a fraction too) in [low, high]."""
    return _ranged(float, "a number", low, high)


def size_bytes(text: str, fractions: bool = True) -> Optional[float]:
    """'64M' -> 67108864, '1.5k' -> 1536.0, '4KiB' -> 4096 (units are powers of 1024,
    any case, 'B' and 'iB' optional); None when text is no such size, or has a fraction
    and fractions is False."""
    match = _SIZE.match(str(text))
    if not match or (not fractions and not match.group(1).isdigit()):
        return None
    number = match.group(1)
    scale = _SCALE[match.group(2).lower()]
    return int(number) * scale if number.isdigit() else float(number) * scale


def key_value(item: str) -> Optional[Tuple[str, str]]:
    """'KEY=VALUE' -> ('KEY', 'VALUE'), both stripped (VALUE may be empty); None without an
    '=' or with an empty KEY."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        return None
    return key, value.strip()
