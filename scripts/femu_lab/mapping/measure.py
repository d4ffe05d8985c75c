"""One mapping-lab run's figures, as ftl-sim reported them for the measured part (after
the fill): nothing here is recomputed but the read cache's hit rate.

    figures = read_run(folder)      # {"waf": 1.17, "nand_erases": 83.0, ...}

Each counter comes from summary.json when ftl-sim writes it there, else from phases.csv's
snapshots (the workload marker to the end: nand_erases lives there); a counter this
ftl-sim reports nowhere (the hybrid merges or the read cache, on a build without them) is
None, which the table leaves blank. Page mapping on a build with merges reports 0.
"""
import json
import math
from pathlib import Path
from typing import Dict, Mapping, Optional

from femu_analysis import AnalysisError, find_window, load_run
from femu_analysis.window import phase_counts
from femu_common.errors import RunFailure

# summary.json's figures of the measured part
SUMMARY_KEYS = ("waf", "mean_latency_us", "p50_latency_us", "p99_latency_us",
                "host_write_pages", "host_read_pages")
# counters by the FTL's names (struct ftl_counters, stats.csv, phases.csv, summary.json)
MERGE_KEYS = ("merge_switch", "merge_partial", "merge_full")
RCACHE_KEYS = ("rcache_hits", "rcache_misses", "rcache_evictions")
COUNTER_KEYS = ("nand_erases", *MERGE_KEYS, "merge_copied_pages", "merge_erased_blocks",
                *RCACHE_KEYS)


class RunReadError(RunFailure):
    """A run folder without a readable summary or phases; one line naming it."""


def _number(value) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return None if isinstance(value, float) and math.isnan(value) else value


def hit_rate(hits: Optional[float], misses: Optional[float]) -> Optional[float]:
    """hits / (hits + misses); None without both counters or without a lookup."""
    if hits is None or misses is None or hits + misses == 0:
        return None
    return hits / (hits + misses)


def measured_counts(folder: Path) -> Dict[str, float]:
    """phases.csv's counts from the workload marker to the end ({} without snapshots)."""
    try:
        run = load_run(folder)
        counts = phase_counts(run, find_window(run))
    except AnalysisError as error:
        raise RunReadError(f"{folder}: {error}") from None
    return counts or {}


def figures_of(summary: Mapping, counts: Mapping[str, float]) -> Dict[str, Optional[float]]:
    figures = {key: _number(summary.get(key)) for key in SUMMARY_KEYS}
    for key in COUNTER_KEYS:
        figures[key] = _number(summary[key]) if key in summary else _number(counts.get(key))
    figures["rcache_hit_rate"] = hit_rate(figures["rcache_hits"], figures["rcache_misses"])
    return figures


def read_run(folder: Path) -> Dict[str, Optional[float]]:
    try:
        summary = json.loads((folder / "summary.json").read_text())
    except (OSError, ValueError) as error:
        raise RunReadError(f"{folder}: no readable summary.json: {error}") from None
    return figures_of(summary, measured_counts(folder))
