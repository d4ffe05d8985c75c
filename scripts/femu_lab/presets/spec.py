"""A drive preset's figures, as its conf file states them in comment lines:

    # figure NAME | KIND | TARGET UNIT | METRIC | ARGS
    # source NAME | where the figure comes from (title, URL, what was done with it)
    # run | ARGS                      ftl-sim arguments every figure's run adds first
                                      (the scaled-down capacity: --set blks_per_pl=...)

KIND is fit (a figure the preset's parameters were chosen to match), check (a measurement
by others the fit did not use) or missing (a headline figure no source gave: TARGET,
METRIC and ARGS are '-'). METRIC says what of ftl-sim's run is compared (METRICS); its
unit must be TARGET's. ARGS are ftl-sim's workload arguments, with two extras:
'FILL ; MEASURE' runs FILL first and MEASURE from its end state (--state-out/--state-in),
and '--zone-reads BS:SPAN:COUNT:ORDER' replays COUNT zone reads of BS within the first
SPAN bytes of zone 0, at random or in order (a generated version-1 trace). Every figure
names at least one source. A line that breaks these rules is refused as FILE:LINE: why.
"""
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from femu_common.errors import InputError

KINDS = ("fit", "check", "missing")
# metric -> (unit, what it is)
METRICS: Dict[str, Tuple[str, str]] = {
    "read_MBps": ("MB/s", "read throughput, 10^6 bytes a second"),
    "write_MBps": ("MB/s", "write throughput, 10^6 bytes a second"),
    "read_IOPS": ("IOPS", "reads a second"),
    "write_IOPS": ("IOPS", "writes a second"),
    "lat_us": ("us", "mean latency of the measured requests"),
    "cliff_GB": ("GB", "data written from empty before the first page the SLC cache "
                       "refused, times the capacity scale (10^9 bytes)"),
    "after_cliff_MBps": ("MB/s", "median write throughput of the whole seconds after "
                                 "the one the cache first refused a page in"),
}
STATS_METRICS = ("cliff_GB", "after_cliff_MBps")
FIGURE = re.compile(r"^#\s*figure\s+(?P<rest>.*)$")
SOURCE = re.compile(r"^#\s*source\s+(?P<rest>.*)$")
RUN = re.compile(r"^#\s*run\s*\|(?P<rest>.*)$")
NAME = re.compile(r"^[a-z0-9][a-z0-9.-]*$")
ZONE_READS = re.compile(r"^(?P<bs>\d+[kKmM]?):(?P<span>\d+[kKmMgG]?):(?P<count>\d+):"
                        r"(?P<order>rand|seq)$")
UNIT_BYTES = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
MAX_ZONE_READS = 10_000_000      # records of a generated trace
OWN_OPTIONS = ("--config", "--summary", "--stats-dir", "--state-in", "--state-out")
REFUSED_OPTIONS = ("--trace-out", "--kv-dump", "--kv-log", "--lost-out", "--unit-log",
                   "--print-config", "--help")


class PresetError(InputError):
    """A preset file that cannot be used: one line naming the file (and line)."""


@dataclass
class Figure:
    name: str
    kind: str
    target: Optional[float]
    unit: str
    metric: str
    args: str
    line: int
    sources: List[str] = field(default_factory=list)

    def runs(self) -> List[List[str]]:
        """ARGS as ftl-sim argument lists: [MEASURE] or [FILL, MEASURE]."""
        return [shlex.split(part) for part in self.args.split(" ; ")]


@dataclass
class Preset:
    path: Path
    run_args: List[str]
    figures: List[Figure]

    @property
    def name(self) -> str:
        return self.path.stem


def size_bytes(text: str) -> int:
    """'4k' -> 4096, '1077m' -> 1077 MiB, '2g', '512': bytes."""
    match = re.fullmatch(r"(\d+)([kKmMgG]?)", text)
    if not match:
        raise ValueError(f"'{text}' is not a size (e.g. 4k, 1077m)")
    return int(match[1]) * UNIT_BYTES[match[2].lower()]


def zone_reads(spec: str) -> Tuple[int, int, int, str]:
    """--zone-reads BS:SPAN:COUNT:ORDER -> (bs, span, count, order); ValueError if bad."""
    match = ZONE_READS.match(spec)
    if not match:
        raise ValueError(f"--zone-reads {spec}: expected BS:SPAN:COUNT:rand|seq "
                         "(e.g. 4k:1077m:20000:rand)")
    bs, span, count = size_bytes(match["bs"]), size_bytes(match["span"]), int(match["count"])
    if bs == 0 or bs % 4096 or span < bs or not 0 < count <= MAX_ZONE_READS:
        raise ValueError(f"--zone-reads {spec}: BS a multiple of 4 KiB, SPAN at least BS, "
                         f"COUNT from 1 to {MAX_ZONE_READS:,}")
    return bs, span, count, match["order"]


def _target(text: str, where: str) -> Tuple[Optional[float], str]:
    words = text.split()
    if words == ["-"]:
        return None, "-"
    if len(words) != 2:
        raise PresetError(f"{where}: target '{text}': expected VALUE UNIT (e.g. 7000 MB/s)")
    try:
        value = float(words[0].replace(",", ""))
    except ValueError:
        raise PresetError(f"{where}: target '{text}': '{words[0]}' is not a number") from None
    if not value > 0:
        raise PresetError(f"{where}: target '{text}': the value must be above 0")
    return value, words[1]


def check_words(words: List[str], where: str) -> None:
    """PresetError if words hold an option the command sets itself or one that writes a
    file or ends the run early (a preset is a file someone handed us)."""
    for word in words:
        option = word.split("=", 1)[0]
        if option in OWN_OPTIONS:
            raise PresetError(f"{where}: {option} is set by femu-lab presets itself")
        if option in REFUSED_OPTIONS:
            raise PresetError(f"{where}: {option} is not taken in a preset (it writes a file "
                              "or ends the run early)")


def _check_args(args: str, where: str) -> None:
    try:
        parts = [shlex.split(part) for part in args.split(" ; ")]
    except ValueError as error:
        raise PresetError(f"{where}: args: {error}") from None
    if len(parts) > 2 or not all(parts):
        raise PresetError(f"{where}: args: expected ARGS or 'FILL ; MEASURE', each non-empty")
    for words in parts:
        check_words(words, f"{where}: args")
        if "--zone-reads" in words:
            at = words.index("--zone-reads")
            try:
                zone_reads(words[at + 1] if at + 1 < len(words) else "")
            except ValueError as error:
                raise PresetError(f"{where}: {error}") from None


def _figure(rest: str, where: str, line: int) -> Figure:
    fields = [part.strip() for part in rest.split("|")]
    if len(fields) != 5:
        raise PresetError(f"{where}: expected '# figure NAME | KIND | TARGET UNIT | METRIC | "
                          f"ARGS', got {len(fields)} fields")
    name, kind, target_text, metric, args = fields
    if not NAME.match(name):
        raise PresetError(f"{where}: figure name '{name}': lower-case letters, digits, '.' "
                          "and '-' only")
    if kind not in KINDS:
        raise PresetError(f"{where}: {name}: kind '{kind}' is not one of {', '.join(KINDS)}")
    target, unit = _target(target_text, f"{where}: {name}")
    if kind == "missing":
        if (target, metric, args) != (None, "-", "-"):
            raise PresetError(f"{where}: {name}: a missing figure has '-' for its target, "
                              "metric and args")
        return Figure(name, kind, None, "-", "-", "-", line)
    if target is None:
        raise PresetError(f"{where}: {name}: a {kind} figure needs a target")
    if metric not in METRICS:
        raise PresetError(f"{where}: {name}: metric '{metric}' is not one of "
                          f"{', '.join(METRICS)}")
    if METRICS[metric][0] != unit:
        raise PresetError(f"{where}: {name}: {metric} is in {METRICS[metric][0]}, the target "
                          f"in {unit}")
    _check_args(args, f"{where}: {name}")
    return Figure(name, kind, target, unit, metric, args, line)


def read_preset(path: Path) -> Preset:
    """The figures of the preset at path; PresetError (one line) if it cannot be used."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise PresetError(f"{path}: no such preset file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise PresetError(f"{path}: cannot read it: {error}") from None
    figures: Dict[str, Figure] = {}
    sources: List[Tuple[str, str, str]] = []
    run_args: Optional[List[str]] = None
    for number, line in enumerate(text.splitlines(), 1):
        where = f"{path}:{number}"
        if match := FIGURE.match(line):
            figure = _figure(match["rest"], where, number)
            if figure.name in figures:
                raise PresetError(f"{where}: figure {figure.name} is stated twice (line "
                                  f"{figures[figure.name].line})")
            figures[figure.name] = figure
        elif match := SOURCE.match(line):
            name, _, what = match["rest"].partition("|")
            if not what.strip():
                raise PresetError(f"{where}: expected '# source NAME | where it comes from'")
            sources.append((name.strip(), what.strip(), where))
        elif match := RUN.match(line):
            if run_args is not None:
                raise PresetError(f"{where}: a second '# run' line")
            try:
                run_args = shlex.split(match["rest"])
            except ValueError as error:
                raise PresetError(f"{where}: run: {error}") from None
            check_words(run_args, f"{where}: run")
    for name, what, where in sources:
        if name not in figures:
            raise PresetError(f"{where}: source of '{name}', which no figure line names")
        figures[name].sources.append(what)
    if not figures:
        raise PresetError(f"{path}: no '# figure' line: not a drive preset")
    for figure in figures.values():
        if not figure.sources:
            raise PresetError(f"{path}:{figure.line}: figure {figure.name} names no source "
                              f"('# source {figure.name} | ...')")
    return Preset(path, run_args or [], list(figures.values()))
