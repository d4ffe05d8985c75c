"""Data placement side by side (`femu-plot fdp RUN_A RUN_B`): the lab workload
fdp-separation run with placement identifiers (each class on its own FDP reclaim unit
handle) and without (one handle), or any two runs. Two panels: WAF per interval of each
run over its window, and each run's media writes per write pointer (host pages and the
GC pages programmed into that pointer's units, stacked), with the window's WAF per run and
per handle in the legend and in a table (fdp_compare.csv, and the text printed).

Per-handle figures come from stats.csv's wpN_host_pages and wpN_gc_pages (every run
since hot/cold placement has them; media = host + GC, as wpN_media_pages says).
"""
import re

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from . import intervals, series, style
from .plots import compare_title
from .errors import AnalysisError
from .rows import whole
from .waf import waf
from .window import phase_counts

STEM = "fdp_compare"
WP_HOST = re.compile(r"^wp(\d+)_host_pages$")


def handle_pages(run, window):
    """Per write pointer over the window: a frame of handle, host_pages, gc_pages,
    media_pages and waf (None where the handle took no host page)."""
    if run.stats is None:
        raise AnalysisError(f"{run.path}: no stats.csv: per-handle writes need its "
                            "wpN_host_pages and wpN_gc_pages columns")
    handles = sorted(int(m.group(1)) for m in map(WP_HOST.match, run.stats.columns) if m)
    if not handles:
        raise AnalysisError(f"{run.path}: stats.csv has no wpN_host_pages column")
    rows = series.within(run.stats, window)
    exact = phase_counts(run, window)   # the phase's own pages, not whole rows inside it
    if exact is not None and all(f"wp{h}_media_pages" in exact for h in handles):
        rows = pd.DataFrame([exact])
    table = []
    for handle in handles:
        gc_column = f"wp{handle}_gc_pages"
        if gc_column not in rows:
            raise AnalysisError(f"{run.path}: stats.csv has wp{handle}_host_pages but no "
                                f"{gc_column}")
        host = int(rows[f"wp{handle}_host_pages"].sum())
        gc = int(rows[gc_column].sum())
        # every page programmed into its units (host, GC, and SLC folds with the cache on)
        media_column = f"wp{handle}_media_pages"
        media = int(rows[media_column].sum()) if media_column in rows else host + gc
        table.append({"handle": handle, "host_pages": host, "gc_pages": gc,
                      "media_pages": media, "waf": waf(host, media - host)})
    return pd.DataFrame(table)


def window_waf(pages):
    """The window's WAF over every handle's media and host pages (None without host)."""
    host = pages["host_pages"].sum()
    return waf(host, pages["media_pages"].sum() - host)


def compare_table(runs, windows, labels):
    """One row per run and handle: run, handle, host_pages, gc_pages, media_pages, waf,
    and the run's WAF over every handle (run_waf)."""
    frames = []
    for run, window, label in zip(runs, windows, labels):
        pages = handle_pages(run, window)
        frames.append(pages.assign(run=label, run_waf=window_waf(pages)))
    table = pd.concat(frames, ignore_index=True)
    return table[["run", "handle", "host_pages", "gc_pages", "media_pages", "waf", "run_waf"]]


def _fmt(value):
    return "-" if value is None or (isinstance(value, float) and np.isnan(value)) \
        else f"{value:.3f}"


def compare_figure(runs, windows, labels):
    """(figure, table): WAF per interval on the left, media writes per handle on the
    right, the runs side by side."""
    if len(runs) != 2:
        raise AnalysisError(f"fdp compares two runs (with and without placement), got "
                            f"{len(runs)}")
    table = compare_table(runs, windows, labels)
    figure = Figure(figsize=style.FIGSIZE)
    FigureCanvasAgg(figure)
    left, right = figure.subplots(1, 2)
    # the workload and drive the runs share (the folder names when the workloads differ)
    workloads = {run.metadata.workload() for run in runs}
    shared = len(workloads) == 1 and None not in workloads
    figure.suptitle(f"Data placement — {compare_title(runs) if shared else _workload(runs)}")
    for axes, xlabel, ylabel in ((left, "time (s)", "WAF per interval"),
                                 (right, "write pointer (reclaim unit handle)",
                                  "media writes (pages)")):
        axes.set_xlabel(xlabel)
        axes.set_ylabel(ylabel)
        axes.grid(True, linestyle="--", color="0.85", linewidth=0.8)
    everything = []
    for index, (run, window, label) in enumerate(zip(runs, windows, labels)):
        rows = _waf_rows(run, window)
        x = rows["time_s"] - window.start_s
        color = f"C{index}"
        run_waf = table[table["run"] == label]["run_waf"].iloc[0]
        kept = whole(rows)   # a partial interval is drawn hollow, never an extreme
        points = style.mark_extremes(left, kept["time_s"] - window.start_s, kept["value"],
                                     color=color, text=False)
        short = rows[rows["partial"]]
        style.hollow(left, short["time_s"] - window.start_s, short["value"], color)
        # the extremes in the legend: two runs' labels beside their points would collide
        style.interval_line(left, rows["start_s"] - window.start_s, x, rows["value"], color,
                            label=f"{label}: WAF {_fmt(run_waf)} "
                                  f"(per interval {style.extremes_text(points)})")
        everything.extend(rows["value"])
    left.legend(loc="best", fontsize=8)
    style.nice_ylim(left, everything)
    _media_bars(right, table, labels)
    figure.tight_layout()
    return figure, table


def _waf_rows(run, window):
    """WAF per 10 s counted from the window's first whole second (stats.csv's rows in
    intervals.py's bins), so no 10 s row of statistics.csv straddling the window start
    hides the first seconds; statistics.csv's rows for runs without stats.csv."""
    if intervals.has_bins(run, "waf"):
        return intervals.binned(run, window, "waf", intervals.LONG_BIN_S)
    return series.within(series.require(series.waf(run), run, "WAF"), window)


def _media_bars(axes, table, labels):
    """Grouped bars, one group per handle, one bar per run: host pages with the GC pages
    stacked on them (hatched)."""
    handles = sorted(table["handle"].unique())
    width = 0.8 / len(labels)
    tops = []
    for index, label in enumerate(labels):
        mine = (table[table["run"] == label][["handle", "host_pages", "gc_pages",
                                              "media_pages", "waf"]]
                .set_index("handle").reindex(handles, fill_value=0))
        x = np.arange(len(handles)) + (index - (len(labels) - 1) / 2) * width
        color = f"C{index}"
        axes.bar(x, mine["host_pages"], width, color=color, alpha=0.85,
                 label=f"{label}: host")
        axes.bar(x, mine["gc_pages"], width, bottom=mine["host_pages"], color=color,
                 alpha=0.35, hatch="//", label=f"{label}: GC")
        for position, handle in zip(x, handles):
            row = mine.loc[handle]
            if row["media_pages"]:
                axes.annotate(f"WAF {_fmt(row['waf'])}", (position, row["media_pages"]),
                              textcoords="offset points", xytext=(0, 3), ha="center",
                              fontsize=7)
        tops.extend(mine["media_pages"])
    axes.set_xticks(np.arange(len(handles)), [str(h) for h in handles])
    axes.legend(loc="best", fontsize=7)
    style.nice_ylim(axes, tops)


def text_table(table):
    # the run column as wide as its longest label: a cut label names no run
    width = max([len("run"), *(len(run) for run in table["run"])])
    lines = [f"{'run':{width}s} {'handle':>6s} {'host pages':>12s} {'GC pages':>12s} "
             f"{'media pages':>12s} {'WAF':>7s}"]
    for row in table.itertuples():
        lines.append(f"{row.run:{width}s} {row.handle:6d} {row.host_pages:12d} "
                     f"{row.gc_pages:12d} {row.media_pages:12d} {_fmt(row.waf):>7s}")
    for label, run_waf in table.groupby("run", sort=False)["run_waf"].first().items():
        lines.append(f"{label}: WAF {_fmt(run_waf)} over every handle")
    return "\n".join(lines)


def plot_fdp_compare(runs, windows, labels, out_dir, fmt="png"):
    """Save the figure and fdp_compare.csv; print the table; return the paths."""
    figure, table = compare_figure(runs, windows, labels)
    print(text_table(table))
    path = style.save(figure, out_dir, STEM, fmt)
    csv_path = path.with_suffix(".csv")
    table.to_csv(csv_path, index=False, float_format="%.4f")
    return [path, csv_path]


def _workload(runs):
    workloads = {run.metadata.workload() for run in runs}
    if len(workloads) == 1 and None not in workloads:
        return workloads.pop()
    return " vs ".join(run.name for run in runs)
