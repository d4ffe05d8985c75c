"""The benchmark window: the part of a run that was the measured workload.

Order of evidence: a window the user gave (``START:END`` seconds), the run's phase markers
(``phases.csv``: from ``workload`` to the next marker), else the longest stretch of
sustained I/O (seconds with at least 5% of the run's typical busy IOPS, gaps of up to
3 s bridged), which drops mount / prepare / idle time the way the labs' row slices did.

A phase window's counts are exact where phases.csv carries the counters at each marker
(phase_counts): the next marker's snapshot minus the workload marker's, wherever in a
second either falls; whole statistics rows inside the window leave out the seconds the
markers cut.
"""
import dataclasses
import math

import numpy as np

from . import series
from .errors import AnalysisError
from .loader import has_phase_snapshots

BUSY_FRACTION = 0.05   # of the 90th percentile of busy seconds
MAX_GAP_S = 3.0        # idle seconds bridged inside one stretch


@dataclasses.dataclass(frozen=True)
class Window:
    start_s: float
    end_s: float
    source: str  # explicit | phases | sustained-io

    @property
    def length_s(self):
        return self.end_s - self.start_s

    def __str__(self):
        return f"{self.start_s:g}:{self.end_s:g} s ({self.source})"


def parse_window(text):
    """'auto' or None -> None; 'START:END' (either side may be empty) -> Window."""
    if text is None or text == "auto":
        return None
    start_text, sep, end_text = text.partition(":")
    try:
        if not sep:
            raise ValueError
        start = float(start_text) if start_text.strip() else 0.0
        end = float(end_text) if end_text.strip() else math.inf
    except ValueError:
        raise AnalysisError(f"--window: expected auto or START:END in seconds, "
                            f"got '{text}'") from None
    if not (start >= 0 and end > start):
        raise AnalysisError(f"--window: START must be >= 0 and below END, got '{text}'")
    return Window(start, end, "explicit")


def find_window(run, explicit=None):
    """The benchmark window of ``run``; ``explicit`` (a Window) is checked and clipped.

    A workload phase shorter than the statistics intervals around it (a fixed-size job
    that finished between two 1 s rows) is widened to the smallest span of whole
    intervals that covers it, and says so in its source; any other window holding no
    whole statistics interval is an error (AnalysisError), so nothing downstream plots or
    summarises an empty selection.
    """
    window = _find(run, explicit)
    if window.source == "phases" and not series.rows_within(run, window):
        window = _widen_to_intervals(run, window)
    series.require_rows(run, window)
    return window


def _widen_to_intervals(run, window):
    """``window`` stretched to the last interval start at or before its start and the first
    interval end at or after its end, over every time-series file of the run; ``window``
    itself when no interval covers it."""
    starts, ends = [], []
    for frame in (getattr(run, key) for key in series.SERIES_FILES):
        if frame is None or not len(frame):
            continue
        starts.extend(frame["start_s"][frame["start_s"] <= window.start_s])
        ends.extend(frame["time_s"][frame["time_s"] >= window.end_s])
    if not starts or not ends:
        return window
    return Window(float(max(starts)), float(min(ends)), "phases, widened to whole intervals")


def _find(run, explicit):
    per_second = series.iops(run)
    end_of_run = _end_of_run(run)
    if explicit is not None:
        window = Window(explicit.start_s, min(explicit.end_s, end_of_run), "explicit")
        if window.start_s >= end_of_run:
            raise AnalysisError(f"{run.path}: window {explicit.start_s:g}:{explicit.end_s:g} "
                                f"starts after the run's end ({end_of_run:g} s)")
        return window
    from_phases = _phase_window(run, end_of_run)
    if from_phases is not None:
        return from_phases
    if per_second is None:
        # Only 10 s files: no sustained-I/O signal finer than the whole run.
        return Window(0.0, end_of_run, "whole-run")
    return _sustained_io(run, per_second)


def _end_of_run(run):
    ends = [frame["time_s"].max() for frame in
            (run.iops, run.throughput, run.gc, run.waf, run.statistics, run.stats)
            if frame is not None and len(frame)]
    if not ends:
        raise AnalysisError(f"{run.path}: statistics files hold no rows")
    return float(max(ends))


def _workload_markers(phases):
    """(the workload marker's row, the next marker's row or None) of phases.csv, markers in
    time order; None without a workload marker."""
    if phases is None or not len(phases):
        return None
    phases = phases.sort_values("time_s", kind="stable").reset_index(drop=True)
    starts = phases.index[phases["phase"] == "workload"]
    if not len(starts):
        return None
    first = starts[0]
    return phases.iloc[first], phases.iloc[first + 1] if first + 1 < len(phases) else None


def _phase_window(run, end_of_run):
    markers = _workload_markers(run.phases)
    if markers is None:
        return None
    start = float(markers[0]["time_s"])
    end = float(markers[1]["time_s"]) if markers[1] is not None else end_of_run
    # equal times are a phase shorter than the files' half millisecond, not an error
    if end < start:
        raise AnalysisError(f"{run.path / 'phases.csv'}: workload phase ends before it starts")
    return Window(start, end, "phases")


def phase_counts(run, window):
    """{column: count} of every counter phases.csv snapshots (and the phase's ``start_s``,
    ``end_s`` and ``seconds``) over the workload phase that ``window`` was cut from; None
    when the window is not a phase window, the run's phases.csv has no snapshots (a run
    from before them: its figures come from whole rows), or the phase has no later
    marker."""
    if not window.source.startswith("phases") or not has_phase_snapshots(run):
        return None
    markers = _workload_markers(run.phases)
    if markers is None or markers[1] is None:
        return None
    start, end = markers
    counters = [c for c in run.phases.columns if c not in ("time_s", "phase")]
    counts = {c: float(end[c] - start[c]) for c in counters
              if not math.isnan(end[c]) and not math.isnan(start[c])}
    counts["start_s"], counts["end_s"] = float(start["time_s"]), float(end["time_s"])
    counts["seconds"] = counts["end_s"] - counts["start_s"]
    return counts


def _sustained_io(run, per_second):
    total = per_second["total"].fillna(0.0).to_numpy()
    busy_values = total[total > 0]
    if not len(busy_values):
        raise AnalysisError(f"{run.path}: no I/O in the run, no benchmark window to find")
    busy = total >= BUSY_FRACTION * np.percentile(busy_values, 90)
    starts = per_second["start_s"].to_numpy()
    ends = per_second["time_s"].to_numpy()
    best = None  # (length, start, end)
    current = None
    for index in np.flatnonzero(busy):
        if current is not None and starts[index] - current[1] <= MAX_GAP_S + 1e-9:
            current[1] = ends[index]
        else:
            current = [starts[index], ends[index]]
        length = current[1] - current[0]
        if best is None or length > best[0] + 1e-9:
            best = (length, current[0], current[1])
    return Window(float(best[1]), float(best[2]), "sustained-io")
