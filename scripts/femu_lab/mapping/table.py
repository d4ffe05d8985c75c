"""The mapping lab's table: a row per scheme x read cache x workload, as CSV and Markdown.

    row = table_row(run, trace_label, figures, wall_s)
    write_csv(rows, folder / "mapping-lab.csv")
    (folder / "mapping-lab.md").write_text(markdown(rows, notes))

A figure ftl-sim did not report (a counter of a scheme or cache this build lacks, a hit
rate without a lookup) is empty in the CSV and '-' in Markdown. The CSV holds the values
as ftl-sim wrote them (no rounding): the table is what the run printed.
"""
import csv
from pathlib import Path
from typing import Dict, Mapping, Optional, Sequence, Tuple

from .plan import Run

# (key, Markdown header, Markdown format); the CSV's header is the keys
COLUMNS: Tuple[Tuple[str, str, str], ...] = (
    ("scheme", "scheme", "{}"),
    ("cache", "read cache", "{}"),
    ("workload", "workload", "{}"),
    ("waf", "WAF", "{:.3f}"),
    ("nand_erases", "erases", "{:.0f}"),
    ("merge_switch", "switch merges", "{:.0f}"),
    ("merge_partial", "partial merges", "{:.0f}"),
    ("merge_full", "full merges", "{:.0f}"),
    ("merge_copied_pages", "merge-copied pages", "{:.0f}"),
    ("mean_latency_us", "mean latency (us)", "{:.1f}"),
    ("p50_latency_us", "p50 latency (us)", "{:.1f}"),
    ("p99_latency_us", "p99 latency (us)", "{:.1f}"),
    ("rcache_hit_rate", "cache hit rate", "{:.3f}"),
    ("rcache_hits", "cache hits", "{:.0f}"),
    ("rcache_misses", "cache misses", "{:.0f}"),
    ("host_write_pages", "host pages written", "{:.0f}"),
    ("host_read_pages", "host pages read", "{:.0f}"),
    ("wall_s", "wall (s)", "{:.2f}"),
)
KEYS = tuple(key for key, _, _ in COLUMNS)
NUMBER_KEYS = KEYS[3:]
SWEEP_KEYS = ("policy", "cache_pages", "scheme", "workload", "rcache_hit_rate",
              "rcache_hits", "rcache_misses", "mean_latency_us", "wall_s")


def table_row(run: Run, workload_label: str, figures: Mapping[str, Optional[float]],
              wall_s: float) -> Dict[str, object]:
    row: Dict[str, object] = {"scheme": run.scheme, "cache": run.cache.label,
                              "workload": workload_label}
    row.update({key: figures.get(key) for key in NUMBER_KEYS if key != "wall_s"})
    row["wall_s"] = round(wall_s, 3)
    return row


def sweep_row(run: Run, figures: Mapping[str, Optional[float]],
              wall_s: float) -> Dict[str, object]:
    return {"policy": run.cache.policy, "cache_pages": run.cache.pages, "scheme": run.scheme,
            "workload": run.workload, **{key: figures.get(key) for key in SWEEP_KEYS[4:-1]},
            "wall_s": round(wall_s, 3)}


def csv_value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def write_csv(rows: Sequence[Mapping], path: Path, keys: Sequence[str] = KEYS) -> Path:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(keys)
        for row in rows:
            writer.writerow([csv_value(row.get(key)) for key in keys])
    return path


def markdown(rows: Sequence[Mapping], notes: Sequence[str] = ()) -> str:
    header = [title for _, title, _ in COLUMNS]
    lines = ["# Mapping lab", ""] + [f"- {note}" for note in notes] + ([""] if notes else [])
    lines += ["| " + " | ".join(header) + " |",
              "|" + "|".join(["---"] * 3 + ["---:"] * (len(header) - 3)) + "|"]
    for row in rows:
        cells = ["-" if row.get(key) is None else fmt.format(row[key])
                 for key, _, fmt in COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
