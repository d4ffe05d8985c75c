"""The figures the documents quote, each tied to the command that gives it, for the doc
test of figures (tests/docs/test_doc_figures.py).

A figure annotation is an HTML comment (invisible when rendered) right after the text
that quotes the figures, one per command:

    <!-- figure cmd="build/release/tools/ftl-sim/ftl-sim --config conf/lab-1g.conf ..."
         waf=7.901±0.002 iops=8,212±1% p99_latency_us=3.0ms±0.1 -->

- `cmd` is the command exactly as the document prints it, in one of its code blocks or
  code spans (backslash line breaks and runs of blanks count as one blank), in the same
  file or in a document the paragraph links to: the reader can run it as printed.
- every other `KEY=VALUE±TOL` is one figure: VALUE as the paragraph prints it (`8,212`,
  `15k`, `3.0ms`; the test finds it in the text before the comment, back to the previous
  blank line), TOL absolute in VALUE's unit or a percentage of it. KEY says where the
  command's result holds it:
  - ftl-sim: a `/`-separated path into its `--summary` JSON (`waf`, `iops`,
    `write_pointers/0/waf`); a `ms` or `s` suffix on a key ending in `_us` converts;
  - `scripts/femu-lab sweep ... --engine sim`: `SETTING=V/COLUMN`, the column of
    sweep.csv's row whose SETTING is V (`hot_threshold=50/waf`);
  - `scripts/femu-lab age`: `waf_pass/0` (the first pass's WAF), `simulated_s`,
    `state_mib`, from the line it prints;
  - `scripts/femu-lab dftl-study`: `TRACE/BUILD/COLUMN` of its dftl-study.csv
    (`interleaved/dftl+buffer/waf`).
  - `scripts/femu-lab mapping-lab`: `SCHEME/CACHE/WORKLOAD/COLUMN` of its mapping-lab.csv,
    CACHE with '-' for its blank (`bast/off/uniform/merge_full`, `page/lru-512/zipf-1.2/
    rcache_hit_rate`); with `--cache-sweep`, `sweep/POLICY/PAGES/COLUMN` of cache_sweep.csv
    (`sweep/arc/256/rcache_hit_rate`).
  - `scripts/femu-lab presets`: `PRESET/FIGURE/COLUMN` of its presets.csv
    (`samsung-980pro/seq-read/femu`).
  - `scripts/femu-lab energy waf`: `SETTING/WORKLOAD/COLUMN` of its energy-waf.csv, the
    setting's blank as '-' (`single-greedy/rand-100/j_per_gib_written`), and
    `target/WAF/COLUMN` of energy-waf-targets.csv (`target/2.5/j_per_gib_written`);
    `scripts/femu-lab energy apst`: `SETTING/COLUMN` of energy-apst.csv
    (`aggressive/p99_latency_us`).
- `by-hand="why"` instead of `cmd`: figures a test does not run (VM runs, wall times),
  with the reason and how they were measured; counted, never run. (No VM figure is run:
  the documents' VM runs take minutes each and their figures follow the host.)

The test rewrites only where a command writes (`--summary`, `--stats-dir`, `--out` go to
a temporary folder); the rest runs as printed, from the repository's root.
"""
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from doc_blocks import REPO, code_blocks

ANNOTATION = re.compile(r"<!--\s*figure\s(.*?)-->", re.S)
FIGURE = re.compile(r"^(?P<value>[0-9][0-9,]*(?:\.[0-9]+)?)(?P<unit>k|ms|s)?"
                    r"±(?P<tol>[0-9.]+)(?P<percent>%)?$")
_FENCED = re.compile(r"^\s*(```+|~~~+).*?^\s*\1[^\n]*$", re.M | re.S)
_ANNOTATION_LINE = re.compile(r"<!--\s*figure\s.*?-->\n?", re.S)
LINK = re.compile(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)")
UNIT_SCALE = {"k": 1000.0}          # a quoted value's unit: what it multiplies by
US_PER = {"ms": 1e3, "s": 1e6}      # a `_us` key quoted in ms or s


@dataclass
class Figure:
    key: str
    shown: str           # as the document prints it, e.g. '8,212' or '3.0'
    value: float         # in the result's unit
    tolerance: float     # absolute, in the result's unit

    def holds(self, measured: float) -> bool:
        return abs(measured - self.value) <= self.tolerance + 1e-12


@dataclass
class Annotation:
    path: Path
    line: int
    paragraph: str                   # the text before the comment, back to a blank line
    cmd: Optional[str] = None
    by_hand: Optional[str] = None
    figures: List[Figure] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def parse_figure(key: str, text: str) -> Figure:
    match = FIGURE.match(text)
    if not match:
        raise ValueError(f"figure {key}={text}: expected VALUE±TOL (e.g. 7.9±0.05, 8,212±1%)")
    number = float(match["value"].replace(",", ""))
    unit = match["unit"] or ""
    scale = UNIT_SCALE.get(unit, 1.0)
    if unit in US_PER:
        if not key.endswith("_us"):
            raise ValueError(f"figure {key}={text}: {unit} only on a key in microseconds")
        scale = US_PER[unit]
    tolerance = float(match["tol"])
    tolerance = number * tolerance / 100 if match["percent"] else tolerance
    shown = match["value"]
    return Figure(key, shown, number * scale, tolerance * scale)


def annotations(path: Path) -> List[Annotation]:
    """The annotations of PATH; comments inside code blocks are examples, not figures."""
    text = path.read_text()
    outside = _FENCED.sub(lambda block: re.sub(r"[^\n]", " ", block.group(0)), text)
    out = []
    for match in ANNOTATION.finditer(outside):
        line = text.count("\n", 0, match.start()) + 1
        before = text[:match.start()]
        paragraph = re.split(r"\n\s*\n", _ANNOTATION_LINE.sub("", before))[-1]
        found = Annotation(path, line, paragraph)
        for word in shlex.split(match.group(1)):
            if word.startswith(("cmd=", "by-hand=")):
                key, _, value = word.partition("=")
            else:   # a sweep's key holds '=' itself: hot_threshold=50/waf=2.6±0.1
                key, _, value = word.rpartition("=")
            if key == "cmd":
                found.cmd = value
            elif key == "by-hand":
                found.by_hand = value
            else:
                found.figures.append(parse_figure(key, value))
        out.append(found)
    return out


def normalised(command: str) -> str:
    return " ".join(command.replace("\\\n", " ").split())


def printed_commands(path: Path) -> str:
    """Every code block and code span of PATH, normalised, for a substring search."""
    text = ANNOTATION.sub("", path.read_text())
    blocks = [normalised("\n".join(block.lines)) for block in code_blocks(path)]
    spans = [normalised(span) for span in re.findall(r"`([^`]+)`", text)]
    return "\n".join(blocks + spans)


def linked_docs(annotation: Annotation) -> List[Path]:
    folder = annotation.path.parent
    return [(folder / target).resolve() for target in LINK.findall(annotation.paragraph)
            if (folder / target).is_file()]


def lookup(result: Dict, key: str):
    """The value at KEY ('/'-separated; a list index is a number) in RESULT."""
    value = result
    for part in key.split("/"):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value
