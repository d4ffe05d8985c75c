"""What the hot/cold table reads of one ftl-sim run folder (stats.csv, statistics.csv,
summary.json): the WAF of the measured part, its WAF after the first minute, the 10 s
WAFs after the first minute, and the hot set over time."""
import json
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

import pandas as pd
from femu_analysis import waf as waf_counts
from femu_analysis.errors import AnalysisError
from femu_analysis.loader import read_series
from femu_common.errors import RunFailure

WARMUP_S = 60.0     # "after the first minute" of the measured part


class RunError(RunFailure):
    """A run folder the table cannot read; one line naming it."""


@dataclass
class RunFigures:
    waf: float                          # the measured part, ftl-sim's WAF line
    waf_after_minute: float             # the WAF (femu_analysis.waf) after 60 s
    ten_s: List[Tuple[float, float]]    # (end of the interval, WAF): whole 10 s after 60 s
    hot_pages_end: int                  # hotcold only, else 0
    precondition_s: float               # where the workload starts in the files' time
    tens: pd.DataFrame                  # statistics.csv: seconds, waf, partial; whole run
    hot_pages: Optional[pd.DataFrame]   # stats.csv's time_s and hot_pages (hotcold only)


def read_run(folder: Path) -> RunFigures:
    try:
        summary = json.loads((folder / "summary.json").read_text())
        stats = pd.read_csv(folder / "stats.csv")
        tens = read_series(folder / "statistics.csv", "statistics")
    except (OSError, ValueError, AnalysisError) as error:
        raise RunError(f"{folder}: {error}") from None
    if tens is None:
        raise RunError(f"{folder}: no statistics.csv")
    tens = tens.rename(columns={"time_s": "seconds"})
    # The table's runs have no buffer: a WAF below 1 here would need its columns.
    if summary.get("buf_flushed_pages"):
        raise RunError(f"{folder}: buf_flushed_pages is {summary['buf_flushed_pages']}: the "
                       "table is for configurations without a write buffer")
    precondition = float(summary["precondition_sim_time_s"])
    start = precondition + WARMUP_S
    late = stats[stats["time_s"] - stats["interval_s"] >= start - 1e-9]
    after_minute = waf_counts.waf_parts(waf_counts.sums(late))["waf"]
    # whole 10 s intervals only: the run's last, partial row is no 10 s of its own
    late10 = tens[(tens["start_s"] >= start - 1e-9) & ~tens["partial"] & tens["waf"].notna()]
    return RunFigures(
        waf=float(summary["waf"]),
        waf_after_minute=float("nan") if after_minute is None else after_minute,
        ten_s=[(float(t), float(w)) for t, w in zip(late10["seconds"], late10["waf"])],
        hot_pages_end=int(summary.get("hot_pages", 0)),
        precondition_s=precondition, tens=tens[["seconds", "waf", "partial"]],
        hot_pages=stats[["time_s", "hot_pages"]] if "hot_pages" in stats else None)


def intervals_above(run: RunFigures, baseline: RunFigures) -> int:
    """10 s intervals after the first minute where run's WAF is above baseline's (the
    same interval: both runs share the precondition, so their rows line up)."""
    base = dict(baseline.ten_s)
    return sum(1 for t, w in run.ten_s if t in base and w > base[t])
