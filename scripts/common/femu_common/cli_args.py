"""The command lines' shared argument pieces: errors as one line (raised, so the caller
prints it and exits 2), bounded whole-number options, sizes with a unit suffix, and
KEY=VALUE items. Used by femu-plot (femu_analysis) and every femu_lab command (femu-lab,
femu-vm, run-blackbox.sh)."""
import argparse
import re
from typing import Optional, Tuple

from .errors import InputError

# Whole numbers on command lines are ASCII digits only: str.isdigit() and int() also take
# '²' or other scripts' digits (int('²') then raises), and int() refuses over 4300 digits.
# 30 digits is far past any count, size or time the tools take.
MAX_DIGITS = 30
_WHOLE = re.compile(f"[0-9]{{1,{MAX_DIGITS}}}")
_SIGNED_WHOLE = re.compile(f"[+-]?[0-9]{{1,{MAX_DIGITS}}}")
# '64M', '1.5GiB', '4k', ' 16 kb ', '512': a number, then an optional binary unit.
_DIGITS = f"[0-9]{{1,{MAX_DIGITS}}}"
_SIZE = re.compile(rf"\s*({_DIGITS}(?:\.[0-9]{{0,{MAX_DIGITS}}})?|\.{_DIGITS})\s*([kmgt]?)"
                   r"(?:i?b)?\s*", re.IGNORECASE)
SHOWN_CHARACTERS = 40
_SCALE = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


class UsageError(InputError):
    """A bad argument; the message is one line (exit status 2)."""


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


def shown(text: str, limit: int = SHOWN_CHARACTERS) -> str:
    """text as a one-line message quotes it: control characters (a newline) escaped, cut
    to limit characters (a 5,000-digit argument)."""
    printable = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return printable if len(printable) <= limit else printable[:limit] + "..."


def whole(text: str) -> Optional[int]:
    """text as a whole number when it is 1 to MAX_DIGITS ASCII digits (no sign, space or
    '_'); None otherwise."""
    return int(text) if _WHOLE.fullmatch(text) else None


def _read(kind, text: str):
    """kind(text); an int only from an optional sign and ASCII digits."""
    if kind is int and not _SIGNED_WHOLE.fullmatch(text.strip()):
        raise ValueError(text)
    return kind(text)


def _ranged(kind, what: str, low, high):
    """An argparse type: text read by kind (int, float), in [low, high]."""
    def convert(text: str):
        try:
            value = _read(kind, text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{shown(text)}' is not {what}") from None
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
    match = _SIZE.fullmatch(str(text))
    if not match or (not fractions and "." in match.group(1)):
        return None
    number = match.group(1)
    scale = _SCALE[match.group(2).lower()]
    return float(number) * scale if "." in number else int(number) * scale


def key_value(item: str) -> Optional[Tuple[str, str]]:
    """'KEY=VALUE' -> ('KEY', 'VALUE'), both stripped (VALUE may be empty); None without an
    '=' or with an empty KEY."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        return None
    return key, value.strip()


def describe(parser: argparse.ArgumentParser, description: Optional[str] = None,
             epilog: Optional[str] = None, formatter_class=None) -> None:
    """A command's help texts, set by its add_arguments on the parser a registry made for
    it (femu-lab's): the description and epilog as written (RawDescriptionHelpFormatter
    unless formatter_class says otherwise)."""
    parser.description = description
    parser.epilog = epilog
    parser.formatter_class = formatter_class or argparse.RawDescriptionHelpFormatter
