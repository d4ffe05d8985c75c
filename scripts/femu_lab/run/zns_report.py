"""The ZNS+ figures of a lab run per phase: the counters the device snapshots at each
phase marker (phases.csv: NAND_read, NAND_write, NAND_cpbk, copy and zone commands, busy
chip-seconds since the statistics started), as zns-phases.csv and a printed table.
zns-compaction marks one phase per compaction method, so the table shows NAND_cpbk
replacing NAND_read + NAND_write; it also prints the guest's own table (compaction.csv:
commands and seconds per method) when the run has one.

A phase's figures are its marker's snapshot subtracted from the next marker's: exact to
the request, wherever in a second the marker falls. Runs from before the snapshots
(phases.csv with only time_s,phase) get the old estimate from nand.csv's whole-second rows,
each charged to the phase in which the middle of its second falls, and the table says so
(`source`). Standard library only: the host side of a run without the analysis package can
call it too.
"""
import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

COUNTS = ("NAND_read", "NAND_write", "NAND_cpbk", "copy_cmds", "copy_pages", "zone_resets",
          "zone_appends", "zone_writes", "zone_reads")
# Columns whose sum says the run used the zoned namespace or Copy at all.
ZONED_ACTIVITY = ("NAND_cpbk", "copy_cmds", "zone_resets", "zone_appends", "zone_writes",
                  "zone_reads")
TABLE_FILE = "zns-phases.csv"
SNAPSHOTS = "phase snapshots"           # the figures' source, as the table names it
WHOLE_SECONDS = "whole-second rows"
SOURCE_NOTES = {
    SNAPSHOTS: "phases.csv snapshots at each marker; exact",
    WHOLE_SECONDS: "nand.csv whole-second rows, each charged to the phase holding its "
                   "middle: a second that holds two phases goes to one (a run from before "
                   "phase snapshots)",
}
GUEST_TABLE = "compaction.csv"


@dataclass
class PhaseFigures:
    phase: str
    start_s: float
    end_s: float
    counts: Dict[str, int] = field(default_factory=dict)
    busy_chip_seconds: Optional[float] = 0.0    # None when the snapshots do not say
    source: str = SNAPSHOTS

    @property
    def seconds(self) -> float:
        return self.end_s - self.start_s

    @property
    def ch_util_mean(self) -> Optional[float]:
        if self.busy_chip_seconds is None:
            return None
        return self.busy_chip_seconds / self.seconds if self.seconds > 0 else 0.0


def _rows(path: Path) -> List[Dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def phase_spans(markers: List[Tuple[float, str]], end_s: float) -> List[Tuple[str, float, float]]:
    """(phase, start, end) for each marker but `end`: a phase lasts until the next marker
    (the last one until end_s)."""
    ordered = sorted(markers, key=lambda m: m[0])
    spans = []
    for i, (start, name) in enumerate(ordered):
        if name == "end":
            continue
        stop = ordered[i + 1][0] if i + 1 < len(ordered) else end_s
        spans.append((name, start, max(start, stop)))
    return spans


def per_phase(folder: Path) -> Optional[List[PhaseFigures]]:
    """The figures of each phase, or None when the run has no nand.csv or phases.csv, or
    never used a zone or Copy."""
    nand_path, phases_path = folder / "nand.csv", folder / "phases.csv"
    if not nand_path.is_file() or not phases_path.is_file():
        return None
    rows = _rows(nand_path)
    if not rows or not any(float(row.get(c) or 0) for row in rows for c in ZONED_ACTIVITY):
        return None
    snapshots = _rows(phases_path)
    if snapshots and all(c in snapshots[0] for c in COUNTS):
        return _from_snapshots(snapshots)
    markers = [(float(row["time_s"]), row["phase"]) for row in snapshots]
    return _from_whole_seconds(rows, markers)


def _from_snapshots(snapshots: List[Dict[str, str]]) -> List[PhaseFigures]:
    """Each phase's counts: the next marker's snapshot minus its own. A last phase without
    a next snapshot (statistics never closed) has no figures and is left out."""
    ordered = sorted(snapshots, key=lambda row: float(row["time_s"]))
    figures = []
    for row, after in zip(ordered, ordered[1:]):
        if row["phase"] == "end":
            continue
        busy = (float(after["busy_chip_s"]) - float(row["busy_chip_s"])
                if row.get("busy_chip_s") and after.get("busy_chip_s") else None)
        figures.append(PhaseFigures(row["phase"], float(row["time_s"]),
                                    float(after["time_s"]),
                                    {c: int(after[c]) - int(row[c]) for c in COUNTS}, busy))
    return figures


def _from_whole_seconds(rows: List[Dict[str, str]],
                        markers: List[Tuple[float, str]]) -> List[PhaseFigures]:
    """The estimate for phases.csv without snapshots: each nand.csv row to the phase in
    which the middle of its second falls."""
    end_s = float(rows[-1]["time_s"])
    figures = [PhaseFigures(name, start, stop, {c: 0 for c in COUNTS}, source=WHOLE_SECONDS)
               for name, start, stop in phase_spans(markers, end_s)]
    for row in rows:
        interval = float(row["interval_s"])
        middle = float(row["time_s"]) - interval / 2
        phase = next((f for f in figures if f.start_s <= middle < f.end_s), None)
        if phase is None:
            continue
        for column in COUNTS:
            phase.counts[column] += int(float(row.get(column) or 0))
        phase.busy_chip_seconds += float(row.get("CH_util") or 0) * interval
    return figures


def write_table(figures: List[PhaseFigures], folder: Path) -> Path:
    path = folder / TABLE_FILE
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["phase", "start_s", "seconds", *COUNTS, "CH_util_mean", "source"])
        for phase in figures:
            writer.writerow([phase.phase, f"{phase.start_s:.3f}", f"{phase.seconds:.3f}",
                             *(phase.counts[c] for c in COUNTS),
                             _fixed(phase.ch_util_mean, 3), phase.source])
    return path


def format_table(figures: List[PhaseFigures]) -> str:
    shown = ("NAND_read", "NAND_write", "NAND_cpbk", "copy_cmds", "zone_appends", "zone_resets")
    header = f"{'phase':<12} {'seconds':>8} " + " ".join(f"{c:>12}" for c in shown) + \
        f" {'CH_util':>8}"
    lines = [header]
    for phase in figures:
        lines.append(f"{phase.phase:<12} {phase.seconds:>8.1f} " +
                     " ".join(f"{phase.counts[c]:>12}" for c in shown) +
                     f" {_fixed(phase.ch_util_mean, 2) or '-':>8}")
    return "\n".join(lines)


def _fixed(value: Optional[float], digits: int) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _source_note(figures: List[PhaseFigures]) -> str:
    return SOURCE_NOTES[figures[0].source if figures else SNAPSHOTS]


def format_guest_table(folder: Path) -> Optional[str]:
    """compaction.csv (the guest's commands and seconds per method) as text, if present."""
    path = folder / GUEST_TABLE
    if not path.is_file():
        return None
    rows = _rows(path)
    lines = [f"{'method':<8} {'victims':>7} {'valid %':>7} {'blocks':>7} {'commands':>8} "
             f"{'seconds':>8} {'verified':>8}"]
    for row in rows:
        lines.append(f"{row['method']:<8} {row['victims']:>7} {row['valid_pct']:>7} "
                     f"{row['valid_blocks']:>7} {row['commands']:>8} {row['seconds']:>8} "
                     f"{row['verified']:>8}")
    return "\n".join(lines)


def record(folder: Path) -> Optional[List[Dict[str, object]]]:
    """Writes zns-phases.csv and returns its rows for result.json, or None for a run that
    never used a zone or Copy."""
    figures = per_phase(folder)
    if figures is None:
        return None
    write_table(figures, folder)
    return [{"phase": f.phase, "seconds": round(f.seconds, 3), **f.counts,
             "CH_util_mean": None if f.ch_util_mean is None else round(f.ch_util_mean, 3),
             "source": f.source} for f in figures]


def report_text(folder: Path) -> Optional[str]:
    """The tables to print at the end of a run: the phases' figures when the run used a
    zone or Copy, the guest's compaction table when it wrote one; None when neither."""
    parts = []
    figures = per_phase(folder)
    if figures is not None:
        parts.append(f"ZNS+ figures per phase (flash pages; {_source_note(figures)}):\n" +
                     format_table(figures))
    guest = format_guest_table(folder)
    if guest:
        parts.append("compaction as the guest timed it (compaction.csv):\n" + guest)
    return "\n".join(parts) or None
