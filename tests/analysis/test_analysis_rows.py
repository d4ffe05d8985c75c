"""Rows with their intervals: a run's last row, a 2 ms stub (``60.002,0,0``), is marked
partial and weighs its 2 ms in every mean, never a whole second; it is drawn hollow and is
neither a minimum nor a percentile."""
import numpy as np
import pandas as pd
import pytest

from femu_analysis import Window, load_run, summarize
from femu_analysis.plots import TIME_SERIES, timeseries_figure
from femu_analysis.rows import weighted_mean, whole

SECONDS = 60
STUB_S = 0.002


def _stub_run(folder):
    """A FEMU-format folder (no interval_s anywhere): IOPSData.csv and throughputData.csv
    with 60 whole seconds of uneven load, then the 2 ms stub; statistics.csv likewise."""
    folder.mkdir()
    writes = [8000 + 100 * (second % 7) for second in range(SECONDS)]
    times = [f"{second + 1:.3f}" for second in range(SECONDS)] + [f"{SECONDS + STUB_S:.3f}"]
    counts = writes + [0]
    (folder / "IOPSData.csv").write_text(
        "time,read,write\n" + "".join(f"{t},0,{w}\n" for t, w in zip(times, counts)))
    (folder / "throughputData.csv").write_text(
        "time,readThroughput,writeThroughput\n"
        + "".join(f"{t},0.0000,{w * 4096 / 2**20:.4f}\n" for t, w in zip(times, counts)))
    (folder / "statistics.csv").write_text(
        "seconds,iops,waf\n" + "".join(f"{10 * (k + 1)}.000,8000.00,2.0000\n" for k in range(6))
        + f"{SECONDS + STUB_S:.3f},0.00,4.0000\n")
    return writes


def test_a_stub_row_weighs_its_milliseconds_not_a_second(tmp_path):
    writes = _stub_run(tmp_path / "run")
    run = load_run(tmp_path / "run")
    assert list(run.iops["partial"]) == [False] * SECONDS + [True]
    assert run.iops["interval_s"].iloc[-1] == pytest.approx(STUB_S)
    summary = summarize(run, Window(0.0, SECONDS + STUB_S, "explicit"))
    iops = summary["iops"]
    # the run's total over the seconds it covers, as ftl-sim computes it
    assert iops["mean"] == pytest.approx(sum(writes) / (SECONDS + STUB_S))
    assert iops["mean"] != pytest.approx(sum(writes) / (SECONDS + 1), rel=1e-4)
    assert iops["write_mean"] == pytest.approx(iops["mean"]) and iops["read_mean"] == 0
    assert iops["seconds"] == pytest.approx(SECONDS + STUB_S) and iops["partial_rows"] == 1
    # the stub's rate (0) is no second of the run: min and percentiles of whole seconds
    assert iops["min"] == min(writes) and iops["p5"] == pytest.approx(np.percentile(writes, 5))
    mib_s = summary["throughput_mib_s"]["mean"]
    assert mib_s == pytest.approx(sum(writes) * 4096 / 2**20 / (SECONDS + STUB_S), rel=1e-5)
    # statistics.csv's interval WAF (the fallback without page counts): by length too
    assert summary["waf"] == pytest.approx((2.0 * SECONDS + 4.0 * STUB_S) / (SECONDS + STUB_S))


def test_the_stub_is_drawn_hollow_and_is_no_extreme(tmp_path):
    writes = _stub_run(tmp_path / "run")
    run = load_run(tmp_path / "run")
    figure, extremes = timeseries_figure(run, Window(0.0, SECONDS + STUB_S, "explicit"),
                                         TIME_SERIES[0])   # IOPS from IOPSData.csv
    hollow = [point for collection in figure.axes[0].collections
              if collection.get_gid() == "partial" for point in collection.get_offsets()]
    assert [tuple(point) for point in hollow] == [(pytest.approx(SECONDS + STUB_S), 0.0)]
    assert extremes["min"][1] == min(writes) and extremes["max"][1] == max(writes)


def test_weighted_mean_leaves_out_undefined_values_with_their_seconds():
    rows = pd.DataFrame({"interval_s": [1.0, 1.0, 0.5, 1.0],
                         "value": [2.0, np.nan, 4.0, 6.0],
                         "partial": [False, False, True, False]})
    assert weighted_mean(rows, "value") == pytest.approx((2.0 + 2.0 + 6.0) / 2.5)
    assert weighted_mean(rows.iloc[1:2], "value") is None
    assert list(whole(rows)["value"].fillna(-1)) == [2.0, -1, 6.0]
    everything_partial = rows.assign(partial=True)
    assert len(whole(everything_partial)) == len(rows)   # nothing whole: all of them
