"""The lab's time series of a run, each from its lab CSV or, if absent, from stats.csv.

Every function returns a frame with ``time_s``, ``start_s``, ``interval_s``, ``partial``
(rows.py) and value columns, or None when the run has no source for it. Counts per
interval become rates by dividing by the interval's true length, so a partial last row is
not an outlier; a mean over the rows weights each by its length (rows.weighted_mean).
"""
from .errors import AnalysisError
from .loader import SERIES_FILES

TIME_COLUMNS = ["time_s", "start_s", "interval_s", "partial"]


def iops(run):
    """read, write, total commands per second (1 s rows)."""
    if run.iops is not None:
        frame, read, write = run.iops, run.iops["read"], run.iops["write"]
    elif run.stats is not None and {"host_read_cmds", "host_write_cmds"} <= set(run.stats):
        frame, read, write = run.stats, run.stats["host_read_cmds"], run.stats["host_write_cmds"]
    else:
        return None
    out = frame[TIME_COLUMNS].copy()
    out["read"] = read / frame["interval_s"]
    out["write"] = write / frame["interval_s"]
    out["total"] = out["read"] + out["write"]
    return out


def throughput(run):
    """read, write, total MiB/s (1 s rows)."""
    if run.throughput is not None:
        frame = run.throughput
        read, write = frame["readThroughput"], frame["writeThroughput"]
    elif run.stats is not None and {"read_mib_s", "write_mib_s"} <= set(run.stats):
        frame = run.stats
        read, write = frame["read_mib_s"], frame["write_mib_s"]
    else:
        return None
    out = frame[TIME_COLUMNS].copy()
    out["read"], out["write"] = read, write
    out["total"] = read + write
    return out


def erased_blocks(run):
    """Blocks erased by GC per interval (10 s rows from GCData.csv)."""
    return _count(run, "gc", "reclaimedBlocks", "gc_erased_blocks")


def moved_pages(run):
    """Valid pages moved by GC per interval (10 s rows from WAFData.csv)."""
    return _count(run, "waf", "GCWrite", "gc_moved_pages")


def interval_iops(run):
    """Mean IOPS per statistics interval (10 s rows from statistics.csv)."""
    if run.statistics is not None:
        out = run.statistics[TIME_COLUMNS].copy()
        out["value"] = run.statistics["iops"]
        return out
    per_second = iops(run)
    if per_second is None:
        return None
    return per_second[TIME_COLUMNS].assign(value=per_second["total"])


def waf(run):
    """Interval WAF (10 s rows from statistics.csv; NaN where no host page was written)."""
    if run.statistics is not None:
        out = run.statistics[TIME_COLUMNS].copy()
        out["value"] = run.statistics["waf"]
        return out
    if run.stats is not None and "waf" in run.stats:
        return run.stats[TIME_COLUMNS].assign(value=run.stats["waf"])
    return None


def cmt_hit_rate(run):
    """DFTL's cached-mapping-table hit rate per interval (stats.csv's cmt_hit_rate: hits /
    lookups, empty in an interval without lookups); None unless some interval has one,
    so page-mapped runs and runs from before DFTL have no such series."""
    if run.stats is None or "cmt_hit_rate" not in run.stats:
        return None
    if not run.stats["cmt_hit_rate"].notna().any():
        return None
    return run.stats[TIME_COLUMNS].assign(value=run.stats["cmt_hit_rate"])


def victim_histogram(run):
    """gc_victims.csv as {'data': (valid pages, victims), 'map': (...)}, numpy arrays, for
    the kinds that had a victim; None when the run has no such file or no GC ran."""
    frame = run.gc_victims
    if frame is None:
        return None
    frame = frame.dropna(subset=["valid_pages"])   # a row without its count says nothing
    if not len(frame):
        return None
    valid = frame["valid_pages"].to_numpy(dtype=float)
    out = {}
    for kind, column in (("data", "data_victims"), ("map", "map_victims")):
        if column in frame:
            counts = frame[column].fillna(0).to_numpy(dtype=float)
            if counts.sum() > 0:
                out[kind] = (valid, counts)
    return out or None


def _count(run, key, column, stats_column):
    frame = getattr(run, key)
    if frame is not None:
        return frame[TIME_COLUMNS].assign(value=frame[column])
    if run.stats is not None and stats_column in run.stats:
        return run.stats[TIME_COLUMNS].assign(value=run.stats[stats_column])
    return None


def require(frame, run, what):
    """``frame`` itself, or a one-line error naming what the run folder lacks."""
    if frame is None:
        raise AnalysisError(f"{run.path}: no data for {what}")
    return frame


def within(frame, window):
    """Rows of ``frame`` whose whole interval lies inside ``window``.

    A row straddling the window start would mix setup (e.g. precondition writes) into the
    benchmark figures, so it is left out; at most one interval is lost at each edge.
    Times are written with three decimals, hence the half-millisecond tolerance.
    """
    slack = 0.0005
    return frame[(frame["start_s"] >= window.start_s - slack)
                 & (frame["time_s"] <= window.end_s + slack)]


def rows_within(run, window):
    """How many rows of all the run's time-series files lie inside ``window`` (see within)."""
    return sum(len(within(frame, window)) for frame in
               (getattr(run, key) for key in SERIES_FILES) if frame is not None)


def require_rows(run, window):
    """A one-line error when no row of any statistics file lies inside ``window``."""
    if not rows_within(run, window):
        raise AnalysisError(f"{run.path}: no data inside the window {window}: no "
                            "statistics interval lies wholly inside it")


def busy_chips(run):
    """Busy chips per 0.1 s (ch_util.csv): LUN busy time / interval; None without the file
    (runs from before the zoned-namespace statistics)."""
    if run.ch_util is None or not len(run.ch_util):
        return None
    return run.ch_util[TIME_COLUMNS].assign(value=run.ch_util["busy_chips"])


def ch_util(run):
    """ZNS+'s CH_util per second (nand.csv): the mean busy chips of each second."""
    if run.nand is None or not len(run.nand):
        return None
    return run.nand[TIME_COLUMNS].assign(value=run.nand["CH_util"])


# nand.csv's commands of the zoned namespace, which IOPS and throughput (stats.csv: the
# conventional FTL's host reads and writes) leave out; resets and finishes move no data.
ZONED_COMMANDS = ("zone_reads", "zone_writes", "zone_appends", "copy_cmds")


# The zone map's states, in the order drawn. zones.csv names them as the FTL does
# (ftl_zone_state_name); zone_state_key matches by keyword, so "Implicitly Opened" and
# "implicit_open" are the same state.
ZONE_STATES = ("empty", "implicit_open", "explicit_open", "closed", "full", "read_only",
               "offline")


def zone_state_key(name):
    """The ZONE_STATES entry a zones.csv state name means, or 'other'."""
    text = "".join(char for char in str(name).lower() if char.isalpha())
    for key, words in (("implicit_open", ("implicit",)), ("explicit_open", ("explicit",)),
                       ("read_only", ("readonly",)), ("empty", ("empty",)),
                       ("closed", ("close",)), ("full", ("full",)),
                       ("offline", ("offline",))):
        if any(word in text for word in words):
            return key
    return "other"


def zone_fill(run):
    """zones.csv with ``fill`` = (wp - start) / cap in [0, 1] and ``state_key`` (see
    zone_state_key); None without the file or a zone."""
    frame = run.zones
    if frame is None:
        return None
    frame = frame.dropna(subset=["zone", "start", "cap", "wp"])
    if not len(frame):
        return None
    out = frame[["zone", "start", "cap", "wp", "state"]].copy()
    cap = out["cap"].where(out["cap"] > 0)
    out["fill"] = ((out["wp"] - out["start"]) / cap).clip(0.0, 1.0).fillna(0.0)
    out["state_key"] = out["state"].map(zone_state_key)
    return out.sort_values("zone", kind="stable").reset_index(drop=True)
