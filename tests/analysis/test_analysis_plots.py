"""Plots: labelled extremes equal the data's, one line per compared run, CDF values."""
import numpy as np
import pandas as pd
import pytest

from femu_analysis import find_window, load_run, parse_window
from femu_analysis.plots import (TIME_SERIES, cdf_figure, compare_figure, distinguishing_labels,
                                 plot_cdf, plot_run, timeseries_figure)
from femu_analysis.style import format_value

# plot stem -> (lab file, how to get the plotted value from its raw rows)
RAW_VALUES = {
    "iops": ("IOPSData.csv", lambda raw, interval: (raw["read"] + raw["write"]) / interval),
    "throughput": ("throughputData.csv",
                   lambda raw, interval: raw["readThroughput"] + raw["writeThroughput"]),
    "erased_blocks": ("GCData.csv", lambda raw, interval: raw["reclaimedBlocks"]),
    "moved_pages": ("WAFData.csv", lambda raw, interval: raw["GCWrite"]),
    "waf": ("statistics.csv", lambda raw, interval: raw["waf"]),
}


def _labels(figure):
    """{'max': value, 'min': value} read back from the annotation texts."""
    labels = {}
    for text in figure.axes[0].texts:
        name, value = text.get_text().split()
        labels[name] = float(value)
    return labels


def _raw_in_window(run_dir, stem, window):
    """The plotted values recomputed from the raw CSV, independently of the package."""
    file, value = RAW_VALUES[stem]
    raw = pd.read_csv(run_dir / file)
    time = raw.iloc[:, 0]
    interval = time.diff().fillna(time.iloc[0])
    inside = (time - interval >= window.start_s - 5e-4) & (time <= window.end_s + 5e-4)
    return value(raw, interval)[inside].dropna()


@pytest.mark.parametrize("spec", TIME_SERIES, ids=lambda spec: spec.stem)
def test_extreme_labels_equal_the_data(workload_run, spec):
    run = load_run(workload_run)
    window = find_window(run)
    figure, extremes = timeseries_figure(run, window, spec)
    expected = _raw_in_window(workload_run, spec.stem, window)
    labels = _labels(figure)
    assert labels["max"] == pytest.approx(expected.max(), abs=5e-4)
    assert labels["min"] == pytest.approx(expected.min(), abs=5e-4)
    assert extremes["max"][1] == pytest.approx(expected.max())
    assert extremes["min"][1] == pytest.approx(expected.min())
    # the plotted line is exactly the window's data (undefined WAF left as gaps),
    # re-numbered from the window start
    line = figure.axes[0].get_lines()[0]
    plotted = np.asarray(line.get_ydata(), dtype=float)
    assert np.allclose(plotted[np.isfinite(plotted)], expected.to_numpy())
    assert min(line.get_xdata()) >= 0


def test_whole_run_extremes_equal_the_file(workload_run):
    run = load_run(workload_run)
    window = find_window(run, parse_window("0:"))
    figure, _ = timeseries_figure(run, window, TIME_SERIES[3])  # moved pages
    raw = pd.read_csv(workload_run / "WAFData.csv")["GCWrite"]
    assert _labels(figure) == {"max": raw.max(), "min": raw.min()}


def test_title_names_workload_and_configuration(workload_run):
    run = load_run(workload_run)
    title = timeseries_figure(run, find_window(run), TIME_SERIES[0])[0].axes[0].get_title()
    assert "randwrite" in title and "zipf:1.2" in title
    assert "hotcold threshold 0" in title


def test_plot_run_writes_every_series(workload_run, tmp_path):
    run = load_run(workload_run)
    paths = plot_run(run, find_window(run), tmp_path, "png")
    # a page-mapped run: no CMT hit rate (an empty column), but its GC victims' histogram;
    # busy chips (ch_util.csv) but no zone map (not zoned: no zones.csv)
    assert sorted(path.name for path in paths) == sorted(
        [f"{s.stem}.png" for s in TIME_SERIES] + ["gc_victims.png", "ch_util.png"])
    for path in paths:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = plot_run(run, find_window(run), tmp_path / "svg", "svg")
    assert all(b"<svg" in path.read_bytes()[:2000] for path in svg)


@pytest.mark.parametrize("metric, file, column", [("iops", "statistics.csv", "iops"),
                                                  ("waf", "statistics.csv", "waf")])
def test_compare_holds_one_line_per_run(hot_runs, metric, file, column):
    runs = [load_run(path) for path in hot_runs]
    windows = [find_window(run) for run in runs]
    labels = distinguishing_labels(runs)
    assert labels == ["hot_threshold=0", "hot_threshold=20"]
    figure = compare_figure(runs, windows, labels, metric)
    lines = figure.axes[0].get_lines()
    assert len(lines) == len(runs)
    assert [line.get_label() for line in lines] == labels
    for line, path, window in zip(lines, hot_runs, windows):
        raw = pd.read_csv(path / file)
        time = raw["seconds"]
        start = time - time.diff().fillna(time.iloc[0])
        inside = raw[(start >= window.start_s - 5e-4) & (time <= window.end_s + 5e-4)]
        assert np.allclose(line.get_ydata(), inside[column], equal_nan=True)
    # each run's max and min are labelled too, with the run's own values
    labels = [text.get_text() for text in figure.axes[0].texts]
    for line in lines:
        values = np.asarray(line.get_ydata(), dtype=float)
        assert f"max {format_value(np.nanmax(values))}" in labels
        assert f"min {format_value(np.nanmin(values))}" in labels


def test_cdf_full_and_zoomed(workload_run, tmp_path):
    run = load_run(workload_run)
    counts = np.sort(pd.read_csv(workload_run / "lpn_access_count.csv")["Access_Count"])
    full = cdf_figure(run).axes[0].get_lines()[0]
    assert np.array_equal(full.get_xdata(), counts)
    assert full.get_ydata()[-1] == pytest.approx(1.0)
    assert np.all(np.diff(full.get_ydata()) > 0)
    zoom = cdf_figure(run, 50).axes[0].get_lines()[0]
    assert max(zoom.get_xdata()) <= 50
    assert zoom.get_ydata()[-1] == pytest.approx(np.mean(counts <= 50))
    names = [path.name for path in plot_cdf(run, tmp_path)]
    assert names == ["cdf.png", "cdf_zoom50.png"]
