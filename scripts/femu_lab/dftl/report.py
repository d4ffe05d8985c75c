"""The DFTL study's table and figures, from ftl-sim's summary JSON of each (trace, build).

    rows = [study_row("interleaved", "dftl", json.loads(path.read_text())), ...]
    write_csv(rows, folder / "dftl-study.csv")
    (folder / "dftl-study.md").write_text(markdown(rows, ["seed 1, conf/lab-dftl.conf"]))
    save_figures(rows, summaries, folder)

A figure the summary does not hold (an older ftl-sim, a run without GC) is None: empty in
the CSV, '-' in the Markdown table.
"""
import csv
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from femu_analysis import plots, style

# (key, Markdown header, format); the CSV's header is the keys. Beside the WAF, what
# explains one below 1: host pages the buffer absorbed (a later write replaced them there)
# and those still pending in it at the end (never programmed), with the pages flushed.
COLUMNS: Tuple[Tuple[str, str, str], ...] = (
    ("trace", "trace", "{}"),
    ("build", "build", "{}"),
    ("waf", "WAF", "{:.3f}"),
    ("host_write_pages", "host pages", "{:.0f}"),
    ("buf_absorbed_pages", "absorbed pages", "{:.0f}"),
    ("buf_pending_pages", "pending pages", "{:.0f}"),
    ("buf_flushed_pages", "flushed pages", "{:.0f}"),
    ("gc_runs", "GC runs (data GC + fallback victims)", "{:.0f}"),
    ("data_gc_runs", "data GC runs", "{:.0f}"),
    ("fallback_lines", "fallback victims", "{:.0f}"),
    ("gc_write_pages", "GC moved pages", "{:.0f}"),
    ("map_reads", "map reads", "{:.0f}"),
    ("map_writes", "map writes", "{:.0f}"),
    ("map_gc_runs", "map GCs", "{:.0f}"),
    ("map_gc_moved_pages", "map-GC moved pages", "{:.0f}"),
    ("cmt_hit_rate", "CMT hit rate", "{:.4f}"),
    ("buf_read_hits", "buffer read hits", "{:.0f}"),
    ("buf_fill_reads", "fill reads", "{:.0f}"),
    ("fallback_runs", "fallback runs", "{:.0f}"),
    ("fallback_pages", "fallback pages", "{:.0f}"),
    ("mean_valid_per_victim", "mean valid pages / data victim", "{:.2f}"),
    ("valid_per_victim_s0", "valid / GC victim, stream 0 (C)", "{:.2f}"),
    ("valid_per_victim_s1", "valid / GC victim, stream 1 (H)", "{:.2f}"),
)
# The row's keys computed here rather than read from the summary.
DERIVED_KEYS = ("trace", "build", "gc_runs", "data_gc_runs", "mean_valid_per_victim",
                "valid_per_victim_s0", "valid_per_victim_s1")
SUMMARY_KEYS = tuple(key for key, _, _ in COLUMNS if key not in DERIVED_KEYS)


def victim_pairs(summary: Mapping, kind: str) -> List[Tuple[int, int]]:
    """summary["victim_histogram"][kind] as [(valid pages, victims)], [] when absent."""
    histogram = summary.get("victim_histogram")
    if not isinstance(histogram, dict):
        return []
    return [(int(valid), int(count)) for valid, count in histogram.get(kind) or []]


def _count(summary: Mapping, key: str) -> Optional[float]:
    value = summary.get(key)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def collections(summary: Mapping) -> Optional[float]:
    """Every data collection: data GC's victims (gc_runs) and the defragmenting fallback's
    (fallback_lines), as gc_victims.csv and the victim histogram count them; None when
    the summary lacks either."""
    runs, fallback = _count(summary, "gc_runs"), _count(summary, "fallback_lines")
    return None if runs is None or fallback is None else runs + fallback


def mean_valid_per_victim(summary: Mapping) -> Optional[float]:
    """Mean valid pages of a data GC victim when chosen (fallback victims included, as the
    FTL counts them): from the histogram, else gc_victim_valid_pages / every collection;
    None without a victim."""
    pairs = victim_pairs(summary, "data")
    victims = sum(count for _, count in pairs)
    if victims:
        return sum(valid * count for valid, count in pairs) / victims
    runs, valid = collections(summary), summary.get("gc_victim_valid_pages")
    if runs and valid is not None:
        return valid / runs
    return None


def stream_valid_per_victim(summary: Mapping, stream: int) -> Optional[float]:
    """Mean valid pages of data GC's victims among the units write pointer `stream` opened
    (ftl-sim --unit-log's `units`; without streams, 0 is the one; the fallback's victims
    are fallback_pages / fallback_lines): None when the summary has no such write pointer
    or GC took none of its units."""
    for unit in summary.get("units") or []:
        if unit.get("write_pointer") == str(stream) and \
                unit.get("victims", 0) > unit.get("fallback_victims", 0):
            return unit.get("valid_per_gc_victim")
    return None


def study_row(trace: str, build: str, summary: Mapping) -> Dict[str, object]:
    """One row of the table: the summary's figures under the table's keys."""
    row: Dict[str, object] = {"trace": trace, "build": build}
    for key, _, _ in COLUMNS:
        if key in SUMMARY_KEYS:
            row[key] = _count(summary, key)
    row["gc_runs"] = collections(summary)
    row["data_gc_runs"] = _count(summary, "gc_runs")
    row["mean_valid_per_victim"] = mean_valid_per_victim(summary)
    for stream in (0, 1):
        row[f"valid_per_victim_s{stream}"] = stream_valid_per_victim(summary, stream)
    return {key: row[key] for key, _, _ in COLUMNS}


def write_csv(rows: Sequence[Mapping], path: Path) -> Path:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow([key for key, _, _ in COLUMNS])
        for row in rows:
            writer.writerow(["" if row.get(key) is None else _csv_value(row[key])
                             for key, _, _ in COLUMNS])
    return path


def _csv_value(value) -> str:
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.6g}"
    return str(int(value)) if isinstance(value, float) else str(value)


def markdown(rows: Sequence[Mapping], notes: Sequence[str] = ()) -> str:
    header = [title for _, title, _ in COLUMNS]
    lines = ["# DFTL study", ""]
    lines += [f"- {note}" for note in notes]
    if notes:
        lines.append("")
    lines += ["| " + " | ".join(header) + " |",
              "|" + "|".join(["---", "---"] + ["---:"] * (len(header) - 2)) + "|"]
    for row in rows:
        cells = ["-" if row.get(key) is None else fmt.format(row[key])
                 for key, _, fmt in COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _ordered(values: Sequence[str]) -> List[str]:
    return list(dict.fromkeys(values))


def waf_figure(rows: Sequence[Mapping], title: str):
    """Grouped bars: one group per trace, one bar per build, each labelled with its WAF."""
    traces = _ordered([row["trace"] for row in rows])
    builds = _ordered([row["build"] for row in rows])
    figure, axes = style.new_figure(title, "trace", "WAF (flash programs / host pages)")
    width = 0.8 / max(1, len(builds))
    values = []
    for index, build in enumerate(builds):
        heights = []
        for trace in traces:
            found = [row.get("waf") for row in rows
                     if row["trace"] == trace and row["build"] == build]
            heights.append(found[0] if found and found[0] is not None else np.nan)
        x = np.arange(len(traces)) + (index - (len(builds) - 1) / 2) * width
        bars = axes.bar(x, heights, width, label=build, color=f"C{index % 10}")
        axes.bar_label(bars, labels=["" if np.isnan(h) else f"{h:.2f}" for h in heights],
                       fontsize=8, padding=2)
        values.extend(heights)
    axes.set_xticks(np.arange(len(traces)), traces)
    axes.axhline(1.0, color="0.5", linewidth=0.8, linestyle="--")
    if any(row.get("waf") is not None and row["waf"] < 1 for row in rows):
        axes.set_xlabel("trace (a WAF below 1: the host pages include those the buffer "
                        "absorbed or still held at the end; dftl-study.md has both)",
                        fontsize=8)
    style.nice_ylim(axes, values)
    axes.legend(loc="best", fontsize=9)
    return figure


def victims_figure(build: str, summaries: Mapping[str, Mapping], title_suffix: str = ""):
    """One build's valid-pages-per-victim histogram: a line per trace for data victims
    (solid) and map victims (dashed, same color); None when no trace had a victim."""
    lines = []
    for index, (trace, summary) in enumerate(summaries.items()):
        for kind, linestyle in (("data", "-"), ("map", "--")):
            pairs = victim_pairs(summary, kind)
            if sum(count for _, count in pairs):
                valid, counts = zip(*pairs)
                lines.append((f"{trace} {kind}", valid, counts, linestyle, f"C{index % 10}"))
    if not lines:
        return None
    title = f"Valid pages per GC victim — build {build}" + title_suffix
    return plots.victims_figure(title, lines)


def slug(build: str) -> str:
    """'dftl+buffer+streams' -> 'dftl-buffer-streams' (file names)."""
    return build.replace("+", "-")


def save_figures(rows: Sequence[Mapping], summaries: Mapping[Tuple[str, str], Mapping],
                 folder: Path, title_suffix: str = "") -> List[Path]:
    """waf.png and victims_<build>.png (builds with a victim) into folder."""
    paths = [style.save(waf_figure(rows, "WAF per trace and build" + title_suffix), folder,
                        "waf")]
    for build in _ordered([build for _, build in summaries]):
        per_trace = {trace: summary for (trace, b), summary in summaries.items() if b == build}
        figure = victims_figure(build, per_trace, title_suffix)
        if figure is not None:
            paths.append(style.save(figure, folder, f"victims_{slug(build)}"))
    return paths
