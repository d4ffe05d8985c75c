"""Summary: figures over the window, WAF from page counts, fallbacks when stats.csv is gone."""
import json

import numpy as np
import pandas as pd
import pytest

from femu_analysis import AnalysisError, Window, find_window, load_run, parse_window, summarize
from femu_analysis.table import markdown_table, rows, text_table
from femu_analysis.waf import waf


def _stats_in(run_dir, window):
    stats = pd.read_csv(run_dir / "stats.csv")
    start = stats["time_s"] - stats["interval_s"]
    return stats[(start >= window.start_s - 5e-4) & (stats["time_s"] <= window.end_s + 5e-4)]


def test_waf_is_pages_programmed_per_host_page_and_undefined_without_host_writes():
    assert waf(400, 200) == 1.5 and waf(10, 0) == 1.0
    assert waf(0, 0) is None and waf(0, 7) is None


def test_waf_is_host_plus_gc_over_host_pages_in_the_window(hot_runs):
    for run_dir in hot_runs:
        run = load_run(run_dir)
        window = find_window(run)
        summary = summarize(run, window)
        rows = _stats_in(run_dir, window)
        host, moved = rows["host_write_pages"].sum(), rows["gc_moved_pages"].sum()
        assert moved > 0, "the run should have garbage-collected"
        assert summary["waf"] == pytest.approx(waf(host, moved))
        assert summary["waf_source"] == "stats.csv"
        assert summary["host_write_pages"] == host
        assert summary["moved_pages"]["total"] == moved
        assert summary["erased_blocks"]["total"] == rows["gc_erased_blocks"].sum()


def test_iops_and_bandwidth_figures_over_the_window(workload_run):
    run = load_run(workload_run)
    window = find_window(run)
    summary = summarize(run, window)
    rows = _stats_in(workload_run, window)
    commands = rows["host_read_cmds"] + rows["host_write_cmds"]
    seconds = rows["interval_s"].sum()
    # the mean is the window's total over its seconds: a partial row weighs its length
    assert summary["iops"]["mean"] == pytest.approx(commands.sum() / seconds)
    assert summary["iops"]["seconds"] == pytest.approx(seconds)
    whole = rows["interval_s"] >= 1.0 - 1e-3   # percentiles and extremes of whole seconds
    assert summary["iops"]["partial_rows"] == (~whole).sum()
    iops = (commands / rows["interval_s"])[whole]
    assert summary["iops"]["p50"] == pytest.approx(np.percentile(iops, 50))
    assert summary["iops"]["p99"] == pytest.approx(np.percentile(iops, 99))
    assert summary["iops"]["max"] == pytest.approx(iops.max())
    mib = (rows["host_read_bytes"] + rows["host_write_bytes"]).sum() / 2**20
    assert summary["throughput_mib_s"]["mean"] == pytest.approx(mib / seconds, rel=1e-5)


def _summary_of(run_dir, window):
    run = load_run(run_dir)
    return summarize(run, find_window(run, window))


def test_waf_falls_back_to_lab_files(workload_run, run_copy):
    whole = parse_window("0:")
    exact = _summary_of(workload_run, whole)
    lab_only = run_copy(workload_run, drop=("stats.csv",))
    from_lab = _summary_of(lab_only, whole)
    assert from_lab["waf_source"] == "WAFData.csv+throughputData.csv"
    # host pages come back from MiB/s written with three decimals: nearly exact
    assert from_lab["waf"] == pytest.approx(exact["waf"], rel=1e-3)
    for name in ("throughputData.csv", "WAFData.csv"):
        (lab_only / name).unlink()
    coarse = _summary_of(lab_only, whole)
    assert coarse["waf_source"].startswith("statistics.csv")
    tens = pd.read_csv(workload_run / "statistics.csv")
    tens["length"] = tens["seconds"].diff().fillna(tens["seconds"].iloc[0])
    tens = tens.dropna(subset=["waf"])   # each interval's WAF weighted by its length
    assert coarse["waf"] == pytest.approx((tens["waf"] * tens["length"]).sum()
                                          / tens["length"].sum())


def test_fallback_off_the_10s_grid_matches_stats_csv_over_the_same_rows(workload_run,
                                                                         run_copy):
    """Without stats.csv, WAF and GC rates come from whole 10 s rows inside the window;
    host pages must cover the same seconds, rates must divide by those seconds."""
    window = parse_window("55:75")  # inside the workload phase, 5 s off the 10 s grid
    lab_only = run_copy(workload_run, drop=("stats.csv",))
    run = load_run(lab_only)
    fallback = summarize(run, find_window(run, window))
    assert fallback["waf_source"] == "WAFData.csv+throughputData.csv"
    assert fallback["waf_span_s"] == [60.0, 70.0]  # the one whole 10 s row inside 55:75
    # the same seconds from stats.csv: the figures the 1 s page counts give
    rows = _stats_in(workload_run, Window(60.0, 70.0, "explicit"))
    assert len(rows) == 10
    host, moved = rows["host_write_pages"].sum(), rows["gc_moved_pages"].sum()
    assert moved > 0
    assert fallback["waf"] == pytest.approx(waf(host, moved), rel=1e-3)
    assert fallback["host_write_pages"] == pytest.approx(host, rel=1e-3)
    for key, column in (("erased_blocks", "gc_erased_blocks"),
                        ("moved_pages", "gc_moved_pages")):
        assert fallback[key]["total"] == rows[column].sum()
        assert fallback[key]["per_s"] == pytest.approx(rows[column].sum() / 10.0)
        assert fallback[key]["span_s"] == [60.0, 70.0]
    # and what summarize itself says with stats.csv over those seconds
    exact_run = load_run(workload_run)
    exact = summarize(exact_run, find_window(exact_run, parse_window("60:70")))
    assert exact["waf_source"] == "stats.csv"
    assert fallback["waf"] == pytest.approx(exact["waf"], rel=1e-3)
    for key in ("erased_blocks", "moved_pages"):
        assert fallback[key]["per_s"] == pytest.approx(exact[key]["per_s"])


def test_rates_divide_by_the_seconds_of_the_rows_used(workload_run):
    run = load_run(workload_run)
    window = find_window(run, parse_window("55.5:75"))  # the row ending at 56 s is left out
    summary = summarize(run, window)
    rows = _stats_in(workload_run, window)
    assert rows["interval_s"].sum() == pytest.approx(19.0)
    for key, column in (("erased_blocks", "gc_erased_blocks"),
                        ("moved_pages", "gc_moved_pages")):
        assert summary[key]["total"] == rows[column].sum()
        assert summary[key]["per_s"] == pytest.approx(rows[column].sum() / 19.0)
        assert summary[key]["span_s"] == [56.0, 75.0]


def test_window_without_rows_is_an_error(workload_run):
    run = load_run(workload_run)
    window = parse_window("0:0.5")
    with pytest.raises(AnalysisError, match=r"no data inside the window 0:0\.5 s"):
        find_window(run, window)
    with pytest.raises(AnalysisError, match=r"no data inside the window 0:0\.5 s"):
        summarize(run, window)


def test_read_only_run_has_no_waf(sim_root):
    run = load_run(sim_root / "perf" / "randread")
    summary = summarize(run, find_window(run))
    # the precondition's writes end inside a 1 s row at the window start: left out
    assert summary["host_write_pages"] == 0
    assert summary["waf"] is None
    assert summary["iops"]["write_mean"] == 0
    json.dumps(summary, allow_nan=False)  # undefined figures are null, never NaN
    header, body = rows([summary])
    assert body[0][header.index("WAF")] == "-"


def test_tables_have_one_row_per_run(hot_runs):
    runs = [load_run(path) for path in hot_runs]
    summaries = [summarize(run, find_window(run)) for run in runs]
    assert len(text_table(summaries).splitlines()) == 1 + len(runs)
    markdown = markdown_table(summaries)
    for summary in summaries:
        assert f"| {summary['run']} |" in markdown
        assert f"{summary['waf']:.3f}" in markdown
