"""Plots: labelled extremes equal the data's, one line per compared run, CDF values;
the plotted counts add up to the summary's, partial intervals kept and marked, labels that
never overlap, integer axes for counts, one resolution for every compare plot."""
import numpy as np
import pandas as pd
import pytest

from femu_analysis import find_window, load_run, parse_window
from femu_analysis.plots import (TIME_SERIES, cdf_figure, compare_figure, distinguishing_labels,
                                 plot_cdf, plot_run, timeseries_figure)
from femu_analysis.style import format_value

# plot stem -> (file, how to get the plotted value from its raw rows); the fixture runs
# are under two minutes, so GC counts and WAF are drawn per second from stats.csv
RAW_VALUES = {
    "iops": ("IOPSData.csv", lambda raw, interval: (raw["read"] + raw["write"]) / interval),
    "throughput": ("throughputData.csv",
                   lambda raw, interval: raw["readThroughput"] + raw["writeThroughput"]),
    "erased_blocks": ("stats.csv", lambda raw, interval: raw["gc_erased_blocks"]),
    "moved_pages": ("stats.csv", lambda raw, interval: raw["gc_moved_pages"]),
    "waf": ("stats.csv", lambda raw, interval: raw["waf"]),
}


def _labels(figure):
    """{'max': value, 'min': value} read back from the annotation texts."""
    labels = {}
    for text in figure.axes[0].texts:
        name, value = text.get_text().split()
        labels[name] = float(value)
    return labels


def _raw_in_window(run_dir, stem, window, whole_only=False):
    """The plotted values recomputed from the raw CSV, independently of the package;
    ``whole_only`` leaves out the rows shorter than the file's interval (partial)."""
    file, value = RAW_VALUES[stem]
    raw = pd.read_csv(run_dir / file)
    time = raw.iloc[:, 0]
    interval = time.diff().fillna(time.iloc[0])
    inside = (time - interval >= window.start_s - 5e-4) & (time <= window.end_s + 5e-4)
    if whole_only:
        inside &= interval >= interval.max() - 1e-3
    return value(raw, interval)[inside].dropna()


@pytest.mark.parametrize("spec", TIME_SERIES, ids=lambda spec: spec.stem)
def test_extreme_labels_equal_the_data(workload_run, spec):
    run = load_run(workload_run)
    window = find_window(run)
    figure, extremes = timeseries_figure(run, window, spec)
    expected = _raw_in_window(workload_run, spec.stem, window)
    # a partial interval is only marked: neither minimum nor maximum
    marked = _raw_in_window(workload_run, spec.stem, window, whole_only=True)
    labels = _labels(figure)
    assert labels["max"] == pytest.approx(marked.max(), abs=1e-3)   # 3 decimals shown
    assert labels["min"] == pytest.approx(marked.min(), abs=1e-3)
    assert extremes["max"][1] == pytest.approx(marked.max(), abs=5e-4)
    assert extremes["min"][1] == pytest.approx(marked.min(), abs=5e-4)
    # the plotted line is exactly the window's data (undefined WAF left as gaps),
    # re-numbered from the window start
    line = figure.axes[0].get_lines()[0]
    plotted = np.asarray(line.get_ydata(), dtype=float)
    assert np.allclose(plotted[np.isfinite(plotted)], expected.to_numpy(), atol=5e-4)
    assert min(line.get_xdata()) >= 0


def test_whole_run_extremes_equal_the_file(workload_run):
    run = load_run(workload_run)
    window = find_window(run, parse_window("0:"))
    figure, _ = timeseries_figure(run, window, TIME_SERIES[3])  # moved pages
    raw = pd.read_csv(workload_run / "stats.csv")
    whole = raw[raw["interval_s"] >= 1.0]["gc_moved_pages"]
    assert _labels(figure) == {"max": whole.max(), "min": whole.min()}


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


STATS_VALUES = {  # compare metric -> its value per stats.csv row (1 s bins)
    "iops": lambda raw: (raw["host_read_cmds"] + raw["host_write_cmds"]) / raw["interval_s"],
    "waf": lambda raw: raw["waf"],
    "throughput": lambda raw: (raw["host_read_bytes"] + raw["host_write_bytes"])
    / raw["interval_s"] / (1 << 20),
}


@pytest.mark.parametrize("metric", sorted(STATS_VALUES))
def test_compare_holds_one_line_per_run(hot_runs, metric):
    runs = [load_run(path) for path in hot_runs]
    windows = [find_window(run) for run in runs]
    labels = distinguishing_labels(runs)
    assert labels == ["hot_threshold=0", "hot_threshold=20"]
    figure = compare_figure(runs, windows, labels, metric)
    axes = figure.axes[0]
    lines = axes.get_lines()
    assert len(lines) == len(runs)
    # every metric per second (runs under two minutes), from the same rows
    assert "per second" in axes.get_title() and "per second" in axes.get_ylabel()
    whole_seconds = []
    for line, path, window in zip(lines, hot_runs, windows):
        raw = pd.read_csv(path / "stats.csv")
        start = raw["time_s"] - raw["interval_s"]
        inside = raw[(start >= window.start_s - 5e-4) & (raw["time_s"] <= window.end_s + 5e-4)]
        assert np.allclose(line.get_ydata(), STATS_VALUES[metric](inside), equal_nan=True,
                           atol=5e-4)
        whole_seconds.append(inside["interval_s"].to_numpy() >= 1.0 - 1e-3)
    # each run's max and min over its whole seconds (a partial one is only marked) in its
    # legend entry, with the run's own values; no text on the data
    legend = [text.get_text() for text in axes.get_legend().get_texts()]
    for line, label, whole in zip(lines, labels, whole_seconds):
        values = np.asarray(line.get_ydata(), dtype=float)[whole]
        assert f"{label}: min {format_value(np.nanmin(values))}, " \
               f"max {format_value(np.nanmax(values))}" in legend
    assert not axes.texts
    # the title names what the runs share: workload, drive and placement
    assert "zipf:1.2" in axes.get_title()
    assert "drive lab-1g" in axes.get_title() and "placement hotcold" in axes.get_title()


def test_compare_plots_share_one_resolution(hot_runs):
    runs = [load_run(path) for path in hot_runs]
    windows = [find_window(run) for run in runs]
    xs = {metric: [tuple(line.get_xdata()) for line in
                   compare_figure(runs, windows, ["a", "b"], metric).axes[0].get_lines()]
          for metric in STATS_VALUES}
    assert xs["iops"] == xs["waf"] == xs["throughput"]


def test_cdf_full_and_zoomed(workload_run, tmp_path):
    run = load_run(workload_run)
    counts = np.sort(pd.read_csv(workload_run / "lpn_access_count.csv")["Access_Count"])
    full = cdf_figure(run).axes[0].get_lines()[0]
    assert np.array_equal(full.get_xdata(), counts)
    assert full.get_ydata()[-1] == pytest.approx(1.0)
    assert np.all(np.diff(full.get_ydata()) > 0)
    zoomed = cdf_figure(run, 50).axes[0]
    zoom = zoomed.get_lines()[0]
    assert max(zoom.get_xdata()) <= 50
    assert zoom.get_ydata()[-1] == pytest.approx(np.mean(counts <= 50))
    # the x axis ends where 98 % of the LPNs are (at least 5 writes wide, at most 50),
    # not on a flat tail
    end = zoomed.get_xlim()[1]
    assert np.mean(counts <= end) >= 0.98
    assert end in (5, 50) or np.mean(counts <= end - 2) < 0.98
    names = [path.name for path in plot_cdf(run, tmp_path)]
    assert names == ["cdf.png", "cdf_zoom50.png"]
