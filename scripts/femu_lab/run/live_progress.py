"""The live progress line of a lab run, read from the files the device writes while it
runs: phases.csv (which phase, since when) and stats.csv (IOPS and WAF per second).

    [  1:12 elapsed] workload 31/60 s | 14.2k IOPS | WAF 1.87 (GC 0.87) | GC 96 blocks erased

A workload that ends with its I/O rather than a clock (write-cliff, a fast trace replay)
shows the I/O done against the planned bytes (femu_lab.length):

    [  1:41 elapsed] workload 85 s, 1.21/1.88 GiB + 60 s idle | 0.0k IOPS | ...

WAF (femu_analysis.waf: every flash program over host pages, with its parts beyond the
host's) and the blocks erased (by GC and, on an SLC-cache drive, by folding: 'GC 0 + fold
148') count from the start of the workload phase (all of the run before it). A run on
the zoned namespace, whose commands stats.csv does not count, also shows the zone
commands of the last second from nand.csv:

    [  0:50 elapsed] workload 8/60 s | 0.0k IOPS | 2.1k zone cmds/s | GC 0 blocks erased
"""
import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, TextIO

from femu_analysis import waf
from femu_common.progress import LiveLine, clock_text

from ..length import Length

# nand.csv's zoned commands (stats.csv counts the conventional namespace's only).
ZONE_COMMANDS = ("zone_writes", "zone_appends", "zone_reads")


@dataclass
class Snapshot:
    phase: str                 # booting | precondition | setup | workload | end ...
    phase_seconds: float       # device time since the phase began
    iops: Optional[float]      # last full second
    waf: Optional[float]       # since the workload began (or the run, before it)
    erased_blocks: int         # by GC and by folding, the same seconds
    zone_cmds: Optional[float] = None   # zone writes, appends and reads, last second
    parts: dict = field(default_factory=dict)   # waf.waf_parts and waf.erased_parts
    io_bytes: int = 0          # host bytes read and written since the workload began


def _rows(path: Path) -> List[dict]:
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def _number(row: dict, key: str) -> float:
    try:
        return float(row.get(key) or 0)
    except ValueError:
        return 0.0


def snapshot(stats_dir: Path) -> Snapshot:
    phases = [row for row in _rows(stats_dir / "phases.csv") if row.get("phase")]
    stats = _rows(stats_dir / "stats.csv")
    if not stats:
        return Snapshot("booting", 0.0, None, None, 0)
    now = _number(stats[-1], "time_s")
    phase, since = ("boot", 0.0) if not phases else (phases[-1]["phase"],
                                                    _number(phases[-1], "time_s"))
    workload_start = next((_number(r, "time_s") for r in phases if r["phase"] == "workload"),
                          0.0)
    counted = [r for r in stats if _number(r, "time_s") > workload_start]
    counts = waf.sums(counted)
    parts = {**waf.waf_parts(counts), **waf.erased_parts(counts)}
    nand = _rows(stats_dir / "nand.csv")
    zone_cmds = None
    if nand and any(_number(r, c) for r in nand for c in ZONE_COMMANDS):
        last = nand[-1]
        zone_cmds = sum(_number(last, c) for c in ZONE_COMMANDS) / \
            (_number(last, "interval_s") or 1.0)
    return Snapshot(phase=phase, phase_seconds=max(0.0, now - since),
                    iops=_number(stats[-1], "iops"),
                    waf=parts["waf"], erased_blocks=int(parts["erased_blocks"]),
                    zone_cmds=zone_cmds, parts=parts,
                    io_bytes=int(sum(_number(r, column) for r in counted
                                     for column in ("host_read_bytes", "host_write_bytes"))))


def describe(shot: Snapshot, elapsed: float, length: Length) -> str:
    text = f"[{clock_text(elapsed)} elapsed] "
    if shot.phase == "workload":
        text += f"workload {length.progress(shot.phase_seconds, shot.io_bytes)}"
    elif shot.phase == "booting":
        return text + "booting the guest"
    else:
        text += f"{shot.phase} {shot.phase_seconds:.0f} s"
    if shot.iops is not None:
        text += f" | {shot.iops / 1000:.1f}k IOPS"
    if shot.zone_cmds is not None:
        text += f" | {shot.zone_cmds / 1000:.1f}k zone cmds/s"
    if shot.waf is not None:
        text += f" | WAF {waf.describe(shot.parts, host=False)}"
    return text + f" | {waf.describe_erased(shot.parts)} blocks erased"


class LiveProgress(LiveLine):
    """Prints the line every `interval` s: in place on a terminal, else every `every` s
    (femu_common.progress.LiveLine)."""

    def __init__(self, stats_dir: Path, length: Length, stream: Optional[TextIO] = None,
                 interval: float = 2.0, every: float = 10.0):
        super().__init__(lambda elapsed: describe(snapshot(stats_dir), elapsed, length),
                         stream, interval, every)
        self.stats_dir, self.length = stats_dir, length
