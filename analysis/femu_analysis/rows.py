"""Rows with their intervals: the one place that says how long each statistics row is,
which rows are partial, and how a mean over rows is taken.

Every time-series row covers ``interval_s`` seconds ending at ``time_s`` (from ``start_s``).
A run's last row may be a stub (``60.002,0,0``: the 2 ms after the last whole second), and
a file without ``interval_s`` (IOPSData.csv, statistics.csv, the FEMU-compatible formats)
has its lengths from the time column (loader.py). A row shorter than its file's interval
is ``partial``: drawn hollow, left out of minima, maxima and percentiles, and never counted
as a whole interval. A mean over rows is the total over the seconds they cover, i.e. each
row weighted by its length, so a stub adds its few milliseconds and nothing more.
"""
import numpy as np

# Times are written with three decimals: a row up to 1.5 ms short of its file's interval
# is a whole one.
SLACK_S = 0.0015


def is_partial(lengths, every_s):
    """True where a length (seconds) is shorter than the nominal ``every_s``."""
    return lengths < every_s - SLACK_S


def with_intervals(frame, every_s):
    """``frame`` (with ``time_s`` and ``start_s``) given ``interval_s`` when it lacks one
    and ``partial``, in place; returned for chaining."""
    if "interval_s" not in frame.columns:
        frame["interval_s"] = frame["time_s"] - frame["start_s"]
    frame["partial"] = is_partial(frame["interval_s"], every_s)
    return frame


def covered_s(rows):
    """Seconds the rows cover."""
    return float(rows["interval_s"].sum())


def weighted_mean(rows, column):
    """Mean of a per-second rate ``column`` over ``rows``, each row weighted by its length
    (= the total over the seconds covered); rows where the value is undefined (NaN) are
    left out with their seconds. None when no row has a value."""
    values = rows[column].to_numpy(dtype=float)
    lengths = rows["interval_s"].to_numpy(dtype=float)
    known = np.isfinite(values)
    seconds = lengths[known].sum()
    if not known.any() or seconds <= 0:
        return None
    return float((values[known] * lengths[known]).sum() / seconds)


def whole(rows):
    """The rows that are not partial, or all of them when every row is (a window shorter
    than one interval): what minima, maxima and percentiles are taken over."""
    if "partial" not in rows:
        return rows
    kept = rows[~rows["partial"].astype(bool)]
    return kept if len(kept) else rows
