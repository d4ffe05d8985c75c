"""A key-value run's plots (femu-lab run --workload kv-ycsb-a .. kv-ycsb-f): what the
guest's load generator measured (kv-ops.csv, one line per operation: end_s, kind,
latency_us, status; kv-load.json, its summary) and what the device counted (stats.csv's
kv_* columns, hw/femu/ftl/STATS.md).

- kv_ops_per_s: completed operations per second of the run, per kind;
- kv_latency_cdf: each kind's latency CDF (log time axis), p50 and p99 in the legend;
- kv_index: the index cache's hit rate and the KV WAF per statistics interval.
Standard plots of the project's style (style.py); every input is checked and a missing
column is one AnalysisError line.
"""
import json
from pathlib import Path

import numpy as np
import pandas as pd

from . import style
from .csvfile import read_csv_strict
from .errors import AnalysisError

OPS_FILE = "kv-ops.csv"
SUMMARY_FILE = "kv-load.json"
OPS_COLUMNS = ("end_s", "kind", "latency_us", "status")
HIT_COLUMNS = ("kv_index_hits", "kv_index_misses")
WAF_COLUMN = "kv_waf"
# kv-load's kinds in its order (tools/kv-load/kv_mix.h)
KINDS = ("read", "update", "insert", "scan", "rmw", "load")


def is_kv_run(folder) -> bool:
    """Whether the run folder holds a KV load generator's samples."""
    return (Path(folder) / OPS_FILE).is_file()


def read_ops(folder) -> pd.DataFrame:
    """kv-ops.csv: one row per operation (kind as text)."""
    return read_csv_strict(Path(folder) / OPS_FILE, OPS_COLUMNS, text_columns=("kind",))


def read_summary(folder) -> dict:
    path = Path(folder) / SUMMARY_FILE
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise AnalysisError(f"{folder}: no {SUMMARY_FILE} (the load generator's summary)") \
            from None
    except ValueError as error:
        raise AnalysisError(f"{path}: not JSON ({error})") from None


def ops_per_second(ops: pd.DataFrame) -> pd.DataFrame:
    """Operations completed in each whole second of the run (second 0 ends at 1 s), a
    column per kind; the last, partial second is left out."""
    if ops.empty:
        return pd.DataFrame(columns=["second"])
    seconds = np.floor(ops["end_s"]).astype(int)
    table = pd.crosstab(seconds, ops["kind"])
    last = int(np.floor(ops["end_s"].max()))
    table = table.reindex(range(0, max(last, 1)), fill_value=0)
    table.index.name = "second"
    return table.reset_index()


def latency_quantiles(ops: pd.DataFrame, kind: str) -> tuple:
    """(p50, p99) latency in us of a kind's successful operations, nearest rank as the
    generator counts them; (None, None) without any."""
    values = np.sort(ops[(ops["kind"] == kind) & (ops["status"] == 0)]["latency_us"].to_numpy())
    if not len(values):
        return None, None

    def rank(p):
        return values[min(len(values), max(1, int(np.ceil(p / 100 * len(values))))) - 1]
    return float(rank(50)), float(rank(99))


def index_series(stats: pd.DataFrame) -> pd.DataFrame:
    """time_s, hit_rate (hits / lookups of the interval, NaN without lookups) and kv_waf
    (NaN where no bytes were stored) per stats.csv row."""
    missing = [c for c in (*HIT_COLUMNS, WAF_COLUMN) if c not in stats.columns]
    if missing:
        raise AnalysisError(f"stats.csv has no {', '.join(missing)} column (a device "
                            "without the KV FTL's statistics)")
    hits = stats["kv_index_hits"].astype(float)
    lookups = hits + stats["kv_index_misses"].astype(float)
    rate = hits / lookups.where(lookups > 0)
    return pd.DataFrame({"time_s": stats["time_s"], "hit_rate": rate,
                         "kv_waf": pd.to_numeric(stats[WAF_COLUMN], errors="coerce")})


def _title(summary: dict, what: str) -> str:
    return (f"{what} — YCSB {summary.get('mix', '?')}, {summary.get('dist', '?')} keys, "
            f"{summary.get('keys', '?')} keys of {summary.get('value_size', '?')} B, "
            f"QD {summary.get('qd', '?')}")


def plot_ops_per_s(ops, summary, out_dir, fmt="png"):
    figure, axes = style.new_figure(_title(summary, "KV operations per second"),
                                    "time in the measured run (s)", "operations / s")
    table = ops_per_second(ops)
    tops = []
    for index, kind in enumerate(k for k in KINDS if k in table.columns):
        axes.plot(table["second"] + 1, table[kind], color=f"C{index}", label=kind)
        tops.extend(table[kind])
    if len(table.columns) > 2:
        total = table.drop(columns="second").sum(axis=1)
        axes.plot(table["second"] + 1, total, color="0.3", linestyle="--", label="all")
        tops.extend(total)
    axes.legend(loc="best", fontsize=8)
    style.nice_ylim(axes, tops)
    return style.save(figure, out_dir, "kv_ops_per_s", fmt)


def plot_latency_cdf(ops, summary, out_dir, fmt="png"):
    figure, axes = style.new_figure(_title(summary, "KV latency CDF"), "latency (us)",
                                    "fraction of operations")
    drawn = False
    for index, kind in enumerate(KINDS):
        values = np.sort(ops[(ops["kind"] == kind) & (ops["status"] == 0)]["latency_us"]
                         .to_numpy())
        if not len(values):
            continue
        p50, p99 = latency_quantiles(ops, kind)
        fraction = np.arange(1, len(values) + 1) / len(values)
        axes.step(values, fraction, where="post", color=f"C{index}",
                  label=f"{kind} ({len(values)} ops): p50 {p50:.0f} us, p99 {p99:.0f} us")
        drawn = True
    if not drawn:
        raise AnalysisError(f"{OPS_FILE} has no successful operation to draw")
    axes.set_xscale("log")
    axes.set_ylim(0, 1.02)
    axes.legend(loc="lower right", fontsize=8)
    return style.save(figure, out_dir, "kv_latency_cdf", fmt)


def plot_index(stats, summary, out_dir, fmt="png"):
    """The index cache's hit rate (left axis) and the KV WAF (right axis) over the run."""
    series = index_series(stats)
    figure, axes = style.new_figure(_title(summary, "KV index hit rate and WAF"),
                                    "time (s)", "index cache hit rate")
    axes.plot(series["time_s"], series["hit_rate"], color="C0", marker=".",
              label="index hit rate")
    axes.set_ylim(0, 1.05)
    waf_axes = axes.twinx()
    waf_axes.plot(series["time_s"], series["kv_waf"], color="C3", marker=".",
                  label="KV WAF")
    waf_axes.set_ylabel("KV WAF (flash bytes programmed / value bytes stored)")
    style.nice_ylim(waf_axes, series["kv_waf"])
    lines = axes.get_lines() + waf_axes.get_lines()
    axes.legend(lines, [line.get_label() for line in lines], loc="best", fontsize=8)
    return style.save(figure, out_dir, "kv_index", fmt)


def plot_kv_run(run, out_dir, fmt="png"):
    """Every KV plot of a loaded run (femu_analysis.loader.Run) that holds kv-ops.csv;
    the paths written."""
    ops = read_ops(run.path)
    summary = read_summary(run.path)
    paths = [plot_ops_per_s(ops, summary, out_dir, fmt),
             plot_latency_cdf(ops, summary, out_dir, fmt)]
    if run.stats is None:
        raise AnalysisError(f"{run.path}: no stats.csv: the index hit rate and KV WAF need "
                            "its kv_* columns")
    paths.append(plot_index(run.stats, summary, out_dir, fmt))
    return paths
