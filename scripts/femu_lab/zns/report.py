"""The ZNS+ figures of a lab run per phase: the device's nand.csv (NAND_read, NAND_write,
NAND_cpbk, copy and zone commands, CH_util, one row a second) cut by the guest's phase
markers (phases.csv), as zns-phases.csv and a printed table. zns-compaction marks one
phase per compaction method, so the table shows NAND_cpbk replacing NAND_read +
NAND_write; it also prints the guest's own table (compaction.csv: commands and seconds per
method) when the run has one.

A nand.csv row covers the second that ends at its time_s; it goes to the phase in which
the middle of that second falls (zns-compaction leaves 2 s idle between its phases, so a
busy second lies in one phase). Standard library only: the host side of a run without
the analysis package can call it too.
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
GUEST_TABLE = "compaction.csv"


@dataclass
class PhaseFigures:
    phase: str
    start_s: float
    end_s: float
    counts: Dict[str, int] = field(default_factory=dict)
    busy_chip_seconds: float = 0.0     # CH_util x interval, summed

    @property
    def seconds(self) -> float:
        return self.end_s - self.start_s

    @property
    def ch_util_mean(self) -> float:
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
    markers = [(float(row["time_s"]), row["phase"]) for row in _rows(phases_path)]
    end_s = float(rows[-1]["time_s"])
    figures = [PhaseFigures(name, start, stop, {c: 0 for c in COUNTS})
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
        writer.writerow(["phase", "start_s", "seconds", *COUNTS, "CH_util_mean"])
        for phase in figures:
            writer.writerow([phase.phase, f"{phase.start_s:.3f}", f"{phase.seconds:.3f}",
                             *(phase.counts[c] for c in COUNTS), f"{phase.ch_util_mean:.3f}"])
    return path


def format_table(figures: List[PhaseFigures]) -> str:
    shown = ("NAND_read", "NAND_write", "NAND_cpbk", "copy_cmds", "zone_appends", "zone_resets")
    header = f"{'phase':<12} {'seconds':>8} " + " ".join(f"{c:>12}" for c in shown) + \
        f" {'CH_util':>8}"
    lines = [header]
    for phase in figures:
        lines.append(f"{phase.phase:<12} {phase.seconds:>8.1f} " +
                     " ".join(f"{phase.counts[c]:>12}" for c in shown) +
                     f" {phase.ch_util_mean:>8.2f}")
    return "\n".join(lines)


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
             "CH_util_mean": round(f.ch_util_mean, 3)} for f in figures]


def report_text(folder: Path) -> Optional[str]:
    """The tables to print at the end of a run: the phases' figures when the run used a
    zone or Copy, the guest's compaction table when it wrote one; None when neither."""
    parts = []
    figures = per_phase(folder)
    if figures is not None:
        parts.append("ZNS+ figures per phase (nand.csv; flash pages):\n" + format_table(figures))
    guest = format_guest_table(folder)
    if guest:
        parts.append("compaction as the guest timed it (compaction.csv):\n" + guest)
    return "\n".join(parts) or None
