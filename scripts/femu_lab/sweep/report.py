"""The end of a sweep: comparison plots over every finished point (legend = the swept
settings) and one table row per point, as sweep.csv, sweep.md and text for the terminal.
Imported only when a sweep ends: it needs pandas and matplotlib from the venv.
"""
import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from femu_analysis import plots
from femu_analysis.errors import AnalysisError
from femu_analysis.loader import load_run
from femu_analysis.window import find_window

from ..run import steady
from .plan import Point

COMPARE_METRICS = ("iops", "waf", "throughput")
FIGURES = (  # (result.json key = csv column, table header, format)
    ("device_iops_mean", "device IOPS", "{:.0f}"),
    ("waf", "WAF", "{:.3f}"),
    ("waf_host", "WAF host", "{:.3f}"),
    ("waf_gc", "WAF GC", "{:.3f}"),
    ("waf_fold", "WAF fold", "{:.3f}"),
    ("waf_map", "WAF map", "{:.3f}"),
    ("waf_copy", "WAF copy", "{:.3f}"),
    ("gc_erased_blocks", "GC erased blocks", "{:.0f}"),
    ("fold_erased_blocks", "fold erased blocks", "{:.0f}"),
    ("gc_moved_pages", "GC moved pages", "{:.0f}"),
    ("fio_iops", "fio IOPS", "{:.0f}"),
    ("kv_ops_per_s", "KV ops/s", "{:.0f}"),
)

# Columns only when a point has a figure other than 0 (or none) there: fio IOPS (simulated
# points and sysbench runs have none), the parts of WAF and erasures most drives lack, a
# key-value workload's operations per second (kv-load's in the VM, ftl-sim --kv's).
WHEN_NOT_ZERO = ("fio_iops", "waf_fold", "waf_map", "waf_copy", "fold_erased_blocks",
                 "kv_ops_per_s")


@dataclass
class PointOutcome:
    point: Point
    folder: Path                              # the point's final folder name
    status: str                               # done | failed | not run
    figures: Optional[Dict[str, object]] = None
    error: str = ""


def compare_plots(outcomes: List[PointOutcome], out: Path) -> Tuple[List[Path], List[str]]:
    """compare_<metric>.png over the finished points; (paths, one-line notes on what
    could not be drawn)."""
    for metric in COMPARE_METRICS:   # no stale plot from an earlier invocation survives
        (out / f"compare_{metric}.png").unlink(missing_ok=True)
    runs, windows, labels, notes = [], [], [], []
    for outcome in outcomes:
        if outcome.status != "done":
            continue
        try:
            run = load_run(outcome.folder)
            windows.append(find_window(run, None))
        except AnalysisError as error:
            notes.append(f"{outcome.point.label} left out of the plots: {error}")
            continue
        runs.append(run)
        labels.append(outcome.point.label)
    written: List[Path] = []
    if not runs:
        return written, notes
    for metric in COMPARE_METRICS:
        try:
            written += plots.plot_compare(runs, windows, labels, metric, out)
        except AnalysisError as error:
            notes.append(f"no compare_{metric} plot: {error}")
    return written, notes


def table(outcomes: List[PointOutcome], swept_keys: List[str]) -> Tuple[List[str], List[str],
                                                                          List[List[str]]]:
    """(csv column names, display headers, rows of strings); the WHEN_NOT_ZERO columns
    only when a point has them."""
    figures = [item for item in FIGURES
               if item[0] not in WHEN_NOT_ZERO or any((o.figures or {}).get(item[0])
                                                     for o in outcomes)]
    columns = swept_keys + [key for key, _, _ in figures] + ["status"]
    headers = swept_keys + [header for _, header, _ in figures] + ["status"]
    rows = []
    for outcome in outcomes:
        settings = dict(outcome.point.settings)
        row = [settings.get(key, "-") for key in swept_keys]   # the baseline has none
        for key, _, fmt in figures:
            value = (outcome.figures or {}).get(key)
            row.append("-" if value is None else fmt.format(value))
        rows.append(row + [outcome.status])
    if any((o.figures or {}).get("steady") for o in outcomes):   # --steady's outcome
        columns.insert(-1, "steady")
        headers.insert(-1, "steady state")
        for row, outcome in zip(rows, outcomes):
            row.insert(-1, steady.label((outcome.figures or {}).get("steady")))
    return columns, headers, rows


def write_csv(path: Path, columns: List[str], rows: List[List[str]]) -> Path:
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        writer.writerows([["" if cell == "-" else cell for cell in row] for row in rows])
    return path


def text_table(headers: List[str], rows: List[List[str]]) -> str:
    widths = [max(len(line[i]) for line in [headers, *rows]) for i in range(len(headers))]
    right = _numeric_columns(rows, len(headers))
    return "\n".join("  ".join(cell.rjust(width) if right[i] else cell.ljust(width)
                               for i, (cell, width) in enumerate(zip(line, widths))).rstrip()
                     for line in [headers, *rows])


def markdown(title: str, facts: List[str], headers: List[str], rows: List[List[str]],
             plot_paths: List[Path], notes: List[str]) -> str:
    lines = [f"# {title}", "", *[f"- {fact}" for fact in facts], "",
             "| " + " | ".join(headers) + " |",
             "|" + "|".join("---:" if right else "---"
                            for right in _numeric_columns(rows, len(headers))) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    lines += [""] + [f"- {note}" for note in notes] + ([""] if notes else [])
    lines += [f"![{path.stem}](plots/{path.name})" for path in plot_paths]
    return "\n".join(lines) + "\n"


def _numeric_columns(rows: List[List[str]], count: int) -> List[bool]:
    """Columns holding numbers are right-aligned."""
    return [any(_numeric(row[i]) for row in rows) for i in range(count)]


def _numeric(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True
