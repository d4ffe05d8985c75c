"""Figures of one run over its benchmark window: IOPS, MiB/s, GC work, WAF, and the ZNS+
flash page counts and channel utilisation when the run has nand.csv.

WAF is every flash program over host pages written (README's), summed over the window,
from the most exact source the run holds:
1. ``stats.csv`` (1 s rows, page counts): waf.waf_parts of its counters, with its parts
   (waf_host, waf_gc, waf_fold, waf_map, waf_copy) beside it; Copy's from nand.csv;
2. ``WAFData.csv`` (GC pages) with host pages from ``throughputData.csv`` (MiB/s x seconds /
   page size) over exactly the span of the 10 s rows used, so both sums cover the same time;
3. the mean of ``statistics.csv``'s interval WAF, each interval weighted by its length (no
   page counts to weight by).

IOPS and MiB/s means are the window's totals over the seconds its rows cover (rows.py):
a partial last row adds its own milliseconds, never a whole second.

Erased blocks and moved pages per second divide the total by the summed length of the rows
actually used (10 s rows inside a window cover less than the window when it is not on a
10 s boundary); ``span_s`` says which seconds those rows cover. Erased blocks are GC's and
folding's (waf.erased_parts: ``gc`` and ``fold`` beside the total) where stats.csv has them.
"""
import json
import math
import pathlib

import numpy as np

from . import series, table
from .rows import covered_s, weighted_mean, whole
from . import waf as waf_counts
from .waf import waf
from .window import Window, phase_counts

PERCENTILES = (5, 50, 95, 99)
MIB = 1024 * 1024


def summarize(run, window):
    """A JSON-ready dict of the run's figures over ``window``; AnalysisError when no row of
    the run's files lies inside it."""
    series.require_rows(run, window)
    result = {
        "run": run.name,
        "path": str(run.path),
        "title": run.metadata.title(),
        "window": {"start_s": window.start_s, "end_s": window.end_s,
                   "length_s": window.length_s, "source": window.source},
    }
    for key, frame in (("iops", series.iops(run)), ("throughput_mib_s", series.throughput(run))):
        if frame is not None:
            result[key] = _distribution(series.within(frame, window))
    for key, frame, stats_column in (("erased_blocks", series.erased_blocks(run), "gc_erased_blocks"),
                                     ("moved_pages", series.moved_pages(run), "gc_moved_pages")):
        figure = _window_count(run, window, frame, stats_column)
        if figure is not None:
            result[key] = figure
    if result.get("erased_blocks") and run.stats is not None:
        result["erased_blocks"] = _with_fold_erases(result["erased_blocks"], run, window)
    result.update(_waf(run, window))
    ftl = _ftl_counts(run, window)
    if ftl:
        result["ftl"] = ftl
    nand = _nand_counts(run, window)
    if nand:
        result["nand"] = nand
    _use_phase_snapshots(result, phase_counts(run, window))
    return _json_ready(result)


def _use_phase_snapshots(result, exact):
    """The phase's exact counts (window.phase_counts) in place of the sums of the rows
    inside its window, which leave out the seconds its markers cut; ``counts_from`` says
    which the figures are."""
    if exact is None:
        result["counts_from"] = "whole rows inside the window"
        return
    result["counts_from"] = "phase snapshots"
    for key, columns in (("nand", NAND_COUNT_COLUMNS), ("ftl", FTL_COUNT_COLUMNS)):
        section = result.get(key)
        if section:
            section.update({c: exact[c] for c in columns if c in exact})
    nand, ftl = result.get("nand"), result.get("ftl")
    if nand and "busy_chip_s" in exact and exact["seconds"] > 0:
        nand["ch_util_mean"] = exact["busy_chip_s"] / exact["seconds"]
        nand["span_s"] = [exact["start_s"], exact["end_s"]]
    if ftl and "cmt_hits" in exact:
        lookups = exact["cmt_hits"] + exact["cmt_misses"]
        ftl["cmt_hit_rate"] = exact["cmt_hits"] / lookups if lookups else None


# nand.csv counts summed over the window (ZNS+'s NAND_read / NAND_write / NAND_cpbk first)
NAND_COUNT_COLUMNS = ("NAND_read", "NAND_write", "NAND_cpbk", "copy_cmds", "copy_pages",
                      "zone_resets", "zone_finishes", "zone_appends", "zone_writes",
                      "zone_reads", "zone_write_pages", "zone_read_pages",
                      "zone_erased_blocks")


def _nand_counts(run, window):
    """Window totals of nand.csv's counts, CH_util's mean over those seconds (weighted by
    their length) and its highest whole second, the most busy chips of a whole ch_util.csv
    row, and the seconds covered; {} for runs without nand.csv, None figures when no row
    is inside."""
    if run.nand is None:
        return {}
    rows = series.within(run.nand, window)
    if not len(rows):
        return {column: None for column in (*NAND_COUNT_COLUMNS, "ch_util_mean",
                                            "ch_util_max", "busy_chips_max", "span_s")}
    counts = {column: float(rows[column].sum()) for column in NAND_COUNT_COLUMNS
              if column in rows}
    counts["ch_util_mean"] = weighted_mean(rows, "CH_util")
    counts["ch_util_max"] = float(whole(rows)["CH_util"].max())
    fine = series.busy_chips(run)
    fine_rows = series.within(fine, window) if fine is not None else None
    counts["busy_chips_max"] = (float(whole(fine_rows)["value"].max())
                                if fine_rows is not None and len(fine_rows) else None)
    counts["span_s"] = _span(rows)
    return counts


# stats.csv counters of DFTL, the write buffer and the stream fallback, summed over the window
FTL_COUNT_COLUMNS = ("map_reads", "map_writes", "map_gc_runs", "map_gc_moved_pages",
                     "cmt_hits", "cmt_misses", "cmt_writebacks", "gc_map_updates",
                     "buf_read_hits", "buf_absorbed_sectors", "buf_flushed_pages",
                     "buf_fill_reads", "fallback_runs", "fallback_pages",
                     "gc_victim_valid_pages", "map_gc_victim_valid_pages")


def _ftl_counts(run, window):
    """Window totals of the FTL counters the run's stats.csv has, the CMT hit rate
    (None without a lookup) and the mean valid pages per data and map GC victim."""
    if run.stats is None:
        return {}
    rows = series.within(run.stats, window)
    counts = {column: float(rows[column].sum()) for column in FTL_COUNT_COLUMNS
              if column in rows}
    if not counts:
        return {}
    lookups = counts.get("cmt_hits", 0.0) + counts.get("cmt_misses", 0.0)
    counts["cmt_hit_rate"] = counts.get("cmt_hits", 0.0) / lookups if lookups else None
    # a data victim is data GC's or the stream fallback's: gc_victim_valid_pages has both
    victims = {"gc_victim_valid_pages": waf_counts.collections(
                   waf_counts.sums(rows, waf_counts.COLLECTION_COLUMNS))["gc_collections"],
               "map_gc_victim_valid_pages":
                   float(rows["map_gc_runs"].sum()) if "map_gc_runs" in rows else 0.0}
    for key, total in victims.items():
        counts[f"mean_{key}"] = counts[key] / total if key in counts and total else None
    counts.update(waf_counts.buffer_figures(run.stats, rows))
    return counts


def _window_count(run, window, frame, stats_column):
    """Total, per second and span of one GC count over the rows inside the window."""
    # 1 s rows cut the window edges finer than the 10 s lab files.
    if run.stats is not None and stats_column in run.stats:
        rows, column = series.within(run.stats, window), stats_column
    elif frame is not None:
        rows, column = series.within(frame, window), "value"
    else:
        return None
    if not len(rows):  # e.g. a window shorter than one 10 s row: unknown, not zero
        return {"total": None, "per_s": None, "span_s": None}
    total = float(rows[column].sum())
    seconds = covered_s(rows)
    return {"total": total, "per_s": total / seconds if seconds > 0 else None,
            "span_s": _span(rows)}


def _with_fold_erases(figure, run, window):
    """The GC count of erased blocks made every erased block's: GC's and folding's, each
    beside the total (stats.csv's seconds, as the GC count)."""
    if figure["total"] is None or "gc_erased_blocks" not in run.stats:
        return figure
    rows = series.within(run.stats, window)
    parts = waf_counts.erased_parts(waf_counts.sums(rows, waf_counts.ERASE_PARTS.values()))
    seconds = covered_s(rows)
    return {**figure, "total": parts["erased_blocks"],
            "per_s": parts["erased_blocks"] / seconds if seconds > 0 else None,
            "gc": parts["gc_erased_blocks"], "fold": parts["fold_erased_blocks"]}


def _span(rows):
    return [float(rows["start_s"].min()), float(rows["time_s"].max())]


def _stats_counts(run, window):
    """(waf.sums of stats.csv's rows in the window, with Copy's counts from nand.csv's rows
    of the same seconds; those rows)."""
    rows = series.within(run.stats, window)
    counts = waf_counts.sums(rows)
    if run.nand is not None:
        counts = waf_counts.with_copy_counts(
            counts, waf_counts.sums(series.within(run.nand, window), waf_counts.NAND_COLUMNS))
    return counts, rows


def _waf(run, window):
    if run.stats is not None and {"host_write_pages", "gc_moved_pages"} <= set(run.stats):
        counts, rows = _stats_counts(run, window)
        return {**waf_counts.waf_parts(counts),
                "waf_span_s": _span(rows) if len(rows) else None, "waf_source": "stats.csv"}
    if run.waf is not None and run.throughput is not None:
        source = "WAFData.csv+throughputData.csv"
        gc_rows = series.within(run.waf, window)
        if not len(gc_rows):
            return {"waf": None, "host_write_pages": None, "waf_span_s": None,
                    "waf_source": source}
        # Host pages over the very seconds the 10 s GC rows cover, not the whole window.
        start, end = _span(gc_rows)
        rows = series.within(run.throughput, Window(start, end, "waf-rows"))
        moved = gc_rows["GCWrite"].sum()
        host = (rows["writeThroughput"] * rows["interval_s"]).sum() * MIB / run.metadata.page_bytes
        return {"waf": waf(host, moved), "host_write_pages": float(host),
                "waf_span_s": [start, end], "waf_source": source}
    if run.statistics is not None:
        return {"waf": weighted_mean(series.within(run.statistics, window), "waf"),
                "waf_source": "statistics.csv (mean of intervals, weighted by length)"}
    return {}


def _distribution(rows):
    """Means of a rate series' total, read and write over ``rows``, each row weighted by
    its length (the window's total over the seconds it covers); min, max and percentiles
    of the total over the whole rows (rows.whole: a 2 ms stub is no second of its own);
    the seconds covered and the partial rows among them."""
    out = {"mean": weighted_mean(rows, "total"), "read_mean": weighted_mean(rows, "read"),
           "write_mean": weighted_mean(rows, "write"), "seconds": covered_s(rows),
           "partial_rows": int(rows["partial"].sum())}
    values = whole(rows)["total"].dropna().to_numpy(dtype=float)
    if not len(values):
        return out
    out.update({"min": float(values.min()), "max": float(values.max())})
    for percent in PERCENTILES:
        out[f"p{percent}"] = float(np.percentile(values, percent))
    return out


def _json_ready(value):
    """NaN / inf are not JSON: they become null."""
    if isinstance(value, dict):
        return {key: _json_ready(item) for key, item in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_summaries(summaries, out):
    """summary.json (an object for one run, a list for several) and summary.md."""
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out / "summary.json", out / "summary.md"
    document = summaries[0] if len(summaries) == 1 else summaries
    json_path.write_text(json.dumps(document, indent=2) + "\n")
    md_path.write_text(table.markdown_table(summaries))
    return [json_path, md_path]
