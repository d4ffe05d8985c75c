"""Steady state by WAF: `--steady waf:TOL[:N]` measures a point only once its write
amplification has settled.

The rule: N consecutive whole statistics intervals (statistics.csv's 10 s rows) inside
the workload phase, GC erasing blocks in each, whose interval WAFs spread by at most TOL
of their mean: max - min <= TOL x mean (waf:0.02: a 2 % spread). An interval without GC
takes no part: a device not yet full writes at WAF 1.0 flat, which is no steady state
(a fixed 60 s at QD 1 ends there). The first such N intervals are the
measured window, so the point's figures are those a run stopped there would have had: a
statistics row depends only on what came before it. The run itself lasts the point's
runtime (the maximum); when no N intervals settle by then, the figures cover the whole
workload phase and the outcome says "not reached" (sweep table, result.json).

The rule reads the rows after the run, in both engines: a VM cannot stop its guest job at
the moment, and in ftl-sim the rows of a longer run are those of the shorter one.
"""
import math
from dataclasses import dataclass
from typing import Dict, List, Optional

from femu_common.errors import InputError

SPEC_HELP = "waf:TOL[:N] (TOL a fraction, e.g. 0.02; N intervals, default 3)"
DEFAULT_WINDOWS = 3
_EPS = 1e-6


class SteadyError(InputError):
    """A malformed --steady; one line."""


@dataclass(frozen=True)
class SteadyRule:
    tolerance: float
    windows: int = DEFAULT_WINDOWS

    @property
    def spec(self) -> str:
        return f"waf:{self.tolerance:g}:{self.windows}"

    def describe(self) -> str:
        return (f"from the first {self.windows} consecutive intervals with GC at work whose "
                f"WAFs spread by at most {self.tolerance * 100:g} % of their mean")



@dataclass
class SteadyOutcome:
    rule: SteadyRule
    reached: bool
    start_s: Optional[float] = None     # the settled intervals (the measured window)
    end_s: Optional[float] = None
    wafs: Optional[List[float]] = None
    searched_s: float = 0.0             # workload seconds the rule looked at

    def record(self) -> Dict[str, object]:
        """result.json's "steady"."""
        return {"rule": self.rule.spec, "reached": self.reached, "window_s":
                None if not self.reached else [self.start_s, self.end_s],
                "wafs": self.wafs, "searched_s": self.searched_s}


def parse(text: str) -> SteadyRule:
    kind, _, rest = text.partition(":")
    parts = rest.split(":") if rest else []
    if kind != "waf" or len(parts) not in (1, 2):
        raise SteadyError(f"--steady: expected {SPEC_HELP}, got '{text}'")
    try:
        tolerance = float(parts[0])
        windows = int(parts[1]) if len(parts) == 2 else DEFAULT_WINDOWS
    except ValueError:
        raise SteadyError(f"--steady: expected {SPEC_HELP}, got '{text}'") from None
    if not 0 < tolerance < 1 or not math.isfinite(tolerance):
        raise SteadyError(f"--steady {text}: TOL must be above 0 and below 1 (0.02 is 2 %)")
    if not 2 <= windows <= 100:
        raise SteadyError(f"--steady {text}: N must be from 2 to 100 intervals")
    return SteadyRule(tolerance, windows)


def settle(rule: SteadyRule, starts: List[float], ends: List[float], wafs: List[float],
           erased: List[float]) -> SteadyOutcome:
    """The first N consecutive intervals (given in time order, each whole and inside the
    workload phase) that meet the rule; a gap between intervals, or an interval without
    a WAF (no host page written) or without GC (erased[i] == 0), starts the count again."""
    searched = (ends[-1] - starts[0]) if starts else 0.0
    run: List[int] = []
    for index, value in enumerate(wafs):
        counts = math.isfinite(value) and erased[index] > 0
        if not counts or (run and abs(starts[index] - ends[run[-1]]) > _EPS):
            run = []
        if not counts:
            continue
        run = (run + [index])[-rule.windows:]
        values = [wafs[i] for i in run]
        mean = sum(values) / len(values)
        if len(run) == rule.windows and max(values) - min(values) <= rule.tolerance * mean:
            return SteadyOutcome(rule, True, starts[run[0]], ends[run[-1]],
                                 [round(v, 4) for v in values], searched)
    return SteadyOutcome(rule, False, searched_s=searched)


def settle_run(rule: SteadyRule, run, window) -> SteadyOutcome:
    """settle() over a loaded run's whole interval-WAF rows inside window (the workload
    phase); a partial row (shorter than the run's interval) takes no part. An interval's
    GC is the blocks GC erased in the rows within it."""
    from femu_analysis import series
    from femu_analysis.window import Window
    frame, gc = series.waf(run), series.erased_blocks(run)
    if frame is None or not len(frame) or gc is None:
        return SteadyOutcome(rule, False)
    full = float(frame["interval_s"].max())
    inside = series.within(frame, window)
    inside = inside[inside["interval_s"] >= full - _EPS].sort_values("start_s")
    starts = [float(v) for v in inside["start_s"]]
    ends = [float(v) for v in inside["time_s"]]
    erased = [float(series.within(gc, Window(start, end, "steady"))["value"].sum())
              for start, end in zip(starts, ends)]
    return settle(rule, starts, ends, [float(v) for v in inside["value"].fillna(math.nan)],
                  erased)


def label(record: Optional[Dict[str, object]]) -> str:
    """The sweep table's cell: 'yes, 90-120 s' or 'NOT reached in 300 s'; '-' without."""
    if not record:
        return "-"
    if record.get("reached"):
        start, end = record["window_s"]
        return f"yes, {start:g}-{end:g} s"
    return f"NOT reached in {record.get('searched_s') or 0:g} s"
