"""The plotted intervals: stats.csv's 1 s rows inside the window, summed into bins.

A run shorter than SHORT_RUN_S is drawn per second (bins of one row), a longer one per
LONG_BIN_S, the bins counted from the first row inside the window. Every row the summary
sums is in exactly one bin, so the plotted counts add up to the summary's totals; a bin
shorter than its nominal length (the window's last seconds, a gap in the file) is kept
and flagged ``partial`` (rows.is_partial; the plots draw it hollow), never dropped.

Runs whose stats.csv lacks the columns (FEMU-era folders) have no bins: the plots fall
back to the lab files' own rows (series.py).
"""
import numpy as np
import pandas as pd

from . import series
from .rows import is_partial
from . import waf as waf_counts

SHORT_RUN_S = 120.0
LONG_BIN_S = 10.0
MIB = float(1 << 20)
# stats.csv columns a metric needs; a run without them has no bins for it
NEEDS = {
    "iops": ("host_read_cmds", "host_write_cmds"),
    "throughput": ("host_read_bytes", "host_write_bytes"),
    "erased_blocks": ("gc_erased_blocks",),
    "moved_pages": ("gc_moved_pages",),
    "waf": ("host_write_pages", "gc_moved_pages"),
    "cmt_hit_rate": ("cmt_hits", "cmt_misses"),
}


def bin_seconds(windows):
    """One bin length for every window drawn together: 1 s when some window is shorter
    than SHORT_RUN_S, else LONG_BIN_S."""
    return 1.0 if min(window.length_s for window in windows) < SHORT_RUN_S else LONG_BIN_S


def has_bins(run, metric):
    return run.stats is not None and set(NEEDS[metric]) <= set(run.stats)


def binned(run, window, metric, width):
    """A frame of time_s, start_s, interval_s, partial and value: ``metric`` per bin of
    ``width`` seconds over the stats.csv rows inside ``window``; None when stats.csv lacks
    the metric's columns."""
    if not has_bins(run, metric):
        return None
    rows = series.within(run.stats, window)
    if not len(rows):
        return pd.DataFrame(columns=["time_s", "start_s", "interval_s", "partial", "value"])
    origin = float(rows["start_s"].iloc[0])
    # half a millisecond of slack: times are written with three decimals
    key = np.floor((rows["start_s"] - origin + 0.0005) / width).astype(int)
    out = []
    for _, group in rows.groupby(key, sort=True):
        length = float(group["interval_s"].sum())
        out.append({"time_s": float(group["time_s"].iloc[-1]),
                    "start_s": float(group["start_s"].iloc[0]), "interval_s": length,
                    "partial": bool(is_partial(length, width)),
                    "value": VALUES[metric](group, length)})
    return pd.DataFrame(out)


# A run's last row can cover less than the 0.5 ms its three decimals show (0.000): no rate.
def _iops(rows, length):
    if length <= 0:
        return np.nan
    return float((rows["host_read_cmds"].sum() + rows["host_write_cmds"].sum()) / length)


def _throughput(rows, length):
    if length <= 0:
        return np.nan
    return float((rows["host_read_bytes"].sum() + rows["host_write_bytes"].sum())
                 / length / MIB)


def _rows_waf(rows, _length):
    """The bin's WAF as summary.py takes the window's from stats.csv (the same rows'
    sums, waf.py's definition): NaN without a host page."""
    value = waf_counts.waf_parts(waf_counts.sums(rows))["waf"]
    return np.nan if value is None else value


def _erased(rows, _length):
    """Blocks erased in the bin, by GC and by folding (waf.py's erased_parts), as the
    summary counts them."""
    return waf_counts.erased_parts(waf_counts.sums(rows))["erased_blocks"]


def _hit_rate(rows, _length):
    lookups = rows["cmt_hits"].sum() + rows["cmt_misses"].sum()
    return float(rows["cmt_hits"].sum() / lookups) if lookups else np.nan


VALUES = {
    "iops": _iops,
    "throughput": _throughput,
    "erased_blocks": _erased,
    "moved_pages": lambda rows, _length: float(rows["gc_moved_pages"].sum()),
    "waf": _rows_waf,
    "cmt_hit_rate": _hit_rate,
}


def per_text(width):
    """'per 10 s' / 'per second': the bin in axis labels and titles."""
    return "per second" if width == 1.0 else f"per {width:g} s"
