"""The ftl-sim row of `femu-lab bench`: 4 KiB random writes at QD32 after a sequential
fill, on the same configuration, in simulated time; its IOPS, WAF, p99, worst second and
the flash-time bound at the WAF it measured.

    ftl-sim --config C --rw randwrite --bs 4k --qd 32 --precondition seq --runtime R \\
            --summary DIR/summary.json --stats-dir DIR

Per-second IOPS come from DIR/stats.csv, the rows wholly inside the measured phase
(phases.csv: from `workload` to `end`).
"""
import csv
import io
import json
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple

from femu_analysis.rows import is_partial

from ..ftl_sim import CommandError, SimError, run_ftl_sim  # noqa: F401 (SimError: this row's)
from .stats import Geometry, coefficient_of_variation, flash_time_bound_iops, worst


def command(ftl_sim: Path, config: Path, overrides: Mapping[str, str], runtime: int,
            folder: Path) -> List[str]:
    sets = [arg for key, value in overrides.items() for arg in ("--set", f"{key}={value}")]
    return [str(ftl_sim), "--config", str(config), *sets, "--rw", "randwrite", "--bs", "4k",
            "--qd", "32", "--precondition", "seq", "--runtime", str(runtime),
            "--summary", str(folder / "summary.json"), "--stats-dir", str(folder)]


def measured_window(phases_csv: str) -> Tuple[float, float]:
    """(start, end) in simulated seconds of the `workload` phase from phases.csv."""
    times: Dict[str, float] = {}
    for row in csv.DictReader(io.StringIO(phases_csv)):
        times[row["phase"].strip()] = float(row["time_s"])
    if "workload" not in times:
        raise SimError("phases.csv has no 'workload' phase")
    start = times["workload"]
    later = [t for name, t in times.items() if t > start]
    return start, min(later) if later else float("inf")


def per_second_iops(stats_csv: str, start: float, end: float) -> List[float]:
    """The `iops` column of stats.csv over the rows whose interval lies wholly inside
    [start, end] (simulated seconds) and is a whole second (the last row of a run may be
    shorter, rows.is_partial: left out, as fio's last partial window)."""
    values = []
    for row in csv.DictReader(io.StringIO(stats_csv)):
        stamp, interval = float(row["time_s"]), float(row["interval_s"])
        if (not is_partial(interval, 1.0) and stamp - interval >= start - 1e-9
                and stamp <= end + 1e-9):
            values.append(float(row["iops"]))
    return values


def figures(summary: dict, seconds: List[float], geometry: Geometry) -> Dict[str, Optional[float]]:
    """The row: IOPS, WAF, p99 (us), worst second, CV and the flash-time bound."""
    waf = float(summary["waf"])
    iops = float(summary["iops"])
    bound = flash_time_bound_iops(geometry, waf)
    return {"iops": iops, "waf": waf, "p99_us": float(summary["p99_latency_us"]),
            "worst_iops": worst(seconds), "cv": coefficient_of_variation(seconds),
            "bound_iops": bound, "percent_of_bound": 100.0 * iops / bound,
            "sim_seconds": float(summary.get("sim_time_s", 0.0))}


def run(ftl_sim: Path, config: Path, overrides: Mapping[str, str], runtime: int,
        folder: Path, geometry: Geometry) -> Dict[str, object]:
    folder.mkdir(parents=True, exist_ok=True)
    args = command(ftl_sim, config, overrides, runtime, folder)
    try:
        run_ftl_sim(args, timeout=3600)
    except CommandError as error:
        raise SimError(str(error)) from None
    try:
        summary = json.loads((folder / "summary.json").read_text())
        start, end = measured_window((folder / "phases.csv").read_text())
        seconds = per_second_iops((folder / "stats.csv").read_text(), start, end)
        row = figures(summary, seconds, geometry)
    except (OSError, ValueError, KeyError) as error:
        raise SimError(f"ftl-sim output in {folder}: {error}") from None
    return {**row, "seconds": seconds, "command": args}
