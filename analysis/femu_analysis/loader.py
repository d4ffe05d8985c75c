"""Load every statistics file of one run folder into tidy pandas frames.

Each time-series frame gets ``time_s`` (elapsed seconds at the end of the interval, the
STATS.md convention), ``start_s`` (start of the interval), ``interval_s`` and ``partial``
(rows.py) and keeps the file's own columns under their lab names, so notebooks written
against the CSVs keep working. Missing files load as None; a folder with none of them is
an error.
"""
import dataclasses
import pathlib

import pandas as pd

from .csvfile import read_csv_strict
from .errors import AnalysisError
from .metadata import Metadata, load_metadata
from .rows import with_intervals


@dataclasses.dataclass(frozen=True)
class SeriesFile:
    file: str           # name in the run folder
    time_column: str    # the file's own name for its time column
    columns: tuple      # columns the header must hold
    every_s: float      # nominal interval, used when timestamps are wall-clock


SERIES_FILES = {
    "iops": SeriesFile("IOPSData.csv", "time", ("time", "read", "write"), 1.0),
    "throughput": SeriesFile("throughputData.csv", "time",
                             ("time", "readThroughput", "writeThroughput"), 1.0),
    "gc": SeriesFile("GCData.csv", "time", ("time", "reclaimedBlocks"), 10.0),
    "waf": SeriesFile("WAFData.csv", "time", ("time", "GCWrite"), 10.0),
    "statistics": SeriesFile("statistics.csv", "seconds", ("seconds", "iops", "waf"), 10.0),
    "stats": SeriesFile("stats.csv", "time_s", ("time_s",), 1.0),
}
# The ZNS+ files (hw/femu/ftl/STATS.md): in runs from the zoned-namespace device on, absent
# from older ones, so they never decide whether a folder holds statistics.
ZNS_SERIES_FILES = {
    "nand": SeriesFile("nand.csv", "time_s", ("time_s", "NAND_read", "NAND_write", "NAND_cpbk",
                                              "CH_util"), 1.0),
    "ch_util": SeriesFile("ch_util.csv", "time_s", ("time_s", "busy_chips"), 0.1),
}
ZONES_FILE = "zones.csv"          # the zone map when the statistics closed (zoned runs)
ZONES_COLUMNS = ("zone", "start", "cap", "wp", "state")
PHASES_FILE = "phases.csv"
ACCESS_FILE = "lpn_access_count.csv"
VICTIMS_FILE = "gc_victims.csv"   # written when the statistics close (not a time series)


@dataclasses.dataclass
class Run:
    """One run folder: its frames (None when the file is absent) and its metadata."""
    path: pathlib.Path
    metadata: Metadata
    iops: pd.DataFrame = None
    throughput: pd.DataFrame = None
    gc: pd.DataFrame = None
    waf: pd.DataFrame = None
    statistics: pd.DataFrame = None
    stats: pd.DataFrame = None
    phases: pd.DataFrame = None
    lpn_access: pd.DataFrame = None
    gc_victims: pd.DataFrame = None   # valid_pages, data_victims[, map_victims]
    nand: pd.DataFrame = None         # nand.csv: flash pages, copies, zones, CH_util per s
    ch_util: pd.DataFrame = None      # ch_util.csv: busy chips per 0.1 s
    zones: pd.DataFrame = None        # zones.csv: zone, start, cap, wp, state (text)

    @property
    def name(self):
        return self.path.name

    @property
    def has_series(self):
        return any(getattr(self, key) is not None for key in SERIES_FILES)


def load_run(path, need_series=True):
    """Load the run folder ``path``; raise AnalysisError if it is not one.

    ``need_series=False`` accepts folders that hold only metadata or fio results (sweeps).
    """
    folder = pathlib.Path(path)
    if not folder.is_dir():
        raise AnalysisError(f"{folder}: no such run directory")
    run = Run(path=folder, metadata=load_metadata(folder))
    for key, spec in {**SERIES_FILES, **ZNS_SERIES_FILES}.items():
        setattr(run, key, _load_series(folder / spec.file, spec))
    run.phases = _load_phases(folder / PHASES_FILE)
    access = folder / ACCESS_FILE
    if access.exists():
        run.lpn_access = read_csv_strict(access, ("LPN", "Access_Count"))
    victims = folder / VICTIMS_FILE
    if victims.exists():
        run.gc_victims = read_csv_strict(victims, ("valid_pages", "data_victims"))
    zones = folder / ZONES_FILE
    if zones.exists():
        run.zones = read_csv_strict(zones, ZONES_COLUMNS, text_columns=("state",))
    if need_series and not run.has_series:
        names = ", ".join(spec.file for spec in SERIES_FILES.values())
        raise AnalysisError(f"{folder}: no statistics data (none of {names})")
    return run


def read_series(path, key):
    """One time-series file as load_run reads it (``key``: a SERIES_FILES or
    ZNS_SERIES_FILES name): time_s, start_s, interval_s, partial and the file's own
    columns; None when the file is absent."""
    return _load_series(pathlib.Path(path), {**SERIES_FILES, **ZNS_SERIES_FILES}[key])


def _load_series(path, spec):
    if not path.exists():
        return None
    frame = read_csv_strict(path, spec.columns, time_column=spec.time_column)
    frame = frame.rename(columns={spec.time_column: "time_s"})
    if pd.api.types.is_datetime64_any_dtype(frame["time_s"]):
        # Wall-clock stamps (FEMU-era files): re-number as the labs do, the first row
        # ending one nominal interval after the start.
        first = frame["time_s"].iloc[0]
        frame["time_s"] = (frame["time_s"] - first).dt.total_seconds() + spec.every_s
    if "interval_s" in frame.columns:
        frame["start_s"] = frame["time_s"] - frame["interval_s"]
    else:
        frame["start_s"] = _interval_starts(frame["time_s"], spec.every_s)
    return with_intervals(frame, spec.every_s)


def _interval_starts(times, every_s):
    """Start of each row's interval when the file does not say (no ``interval_s``).

    A row covers at most one nominal interval ending at its time, and never reaches back
    past the previous row: start = max(previous time, time - every_s), the first row
    starting at 0 at the earliest. FEMU-era files skip idle seconds, so a row after a gap
    covers its own second, not the whole gap (which would dilute its rate and push its
    start outside a window holding it). Where the previous row is (up to rounding) one
    interval back, its time is kept as is, so regular files get exact boundaries.
    """
    previous = times.shift(1)
    if len(times):
        previous.iloc[0] = 0.0
    one_back = times - every_s
    use_previous = previous >= one_back - 1e-6
    return previous.where(use_previous, one_back)


def _load_phases(path):
    """phases.csv: time_s, phase and, from runs with phase snapshots on, the counters since
    the statistics started at each marker (STATS.md); older files have the first two only
    (has_phase_snapshots)."""
    if not path.exists():
        return None
    return read_csv_strict(path, ("time_s", "phase"), text_columns=("phase",))


# A column every phases.csv with snapshots has (STATS.md).
SNAPSHOT_MARK = "host_write_pages"


def has_phase_snapshots(run):
    """Whether the run's phases.csv rows carry the counters at each marker."""
    return run.phases is not None and SNAPSHOT_MARK in run.phases.columns
