"""An aged run's plots (issue 41, item 7): its WAF is drawn from the first interval's start
(no 10 s row straddling the window start hides the first seconds), and its LPN-write CDF
says how many of the writes it counts were the ageing's."""
import json

import numpy as np
import pandas as pd
import pytest

from femu_analysis import load_run, parse_window, find_window
from femu_analysis.fdp_plots import compare_figure as fdp_figure
from femu_analysis.plots import TIME_SERIES, cdf_figure, timeseries_figure

SMALL = ["--set", "luns_per_ch=2", "--set", "pgs_per_blk=64", "--set", "ssd_size=48"]
LOGICAL_PAGES = 48 * 256   # ssd_size=48 (MiB) of 4 KiB pages
WAF = next(spec for spec in TIME_SERIES if spec.stem == "waf")


@pytest.fixture(scope="module")
def aged(tmp_path_factory, run_ftl_sim, repo_root):
    """(aged run folder, the ageing's summary, a fresh run folder): a small lab-1g aged by
    a filled device and 20 s of random writes, then 25 s of random writes from that state
    (params.json names it, as femu-lab does), and the same 25 s from an empty device."""
    root = tmp_path_factory.mktemp("aged")
    config = ["--config", repo_root / "conf" / "lab-1g.conf", *SMALL, "--rw", "randwrite",
              "--bs", "4k", "--qd", "16"]
    state = root / "aged.state"
    run_ftl_sim(*config, "--precondition", "seq", "--runtime", "20", "--state-out", state,
                "--summary", root / "ageing.json")
    folders = {}
    for name, start in (("aged", ["--state-in", state]), ("fresh", [])):
        folder = root / name
        folder.mkdir()
        run_ftl_sim(*config, *start, "--runtime", "25", "--stats-dir", folder,
                    "--summary", folder / "summary.json")
        folders[name] = folder
    (folders["aged"] / "params.json").write_text(json.dumps({"aged": str(state)}))
    return folders["aged"], json.loads((root / "ageing.json").read_text()), folders["fresh"]


def _drawn_x(axes):
    """Every x the series' lines and segments reach (data coordinates)."""
    xs = [x for line in axes.get_lines() for x in line.get_xdata()]
    for collection in axes.collections:
        if collection.get_gid() == "first-interval":
            xs += [point[0] for segment in collection.get_segments() for point in segment]
    return np.asarray(xs, dtype=float)


def test_the_waf_plot_draws_the_first_interval_from_its_start(aged):
    folder, _, _ = aged
    run = load_run(folder)
    window = find_window(run)
    figure, _ = timeseries_figure(run, window, WAF)
    stats = pd.read_csv(folder / "stats.csv")
    first = stats.iloc[0]
    assert first["time_s"] - first["interval_s"] == pytest.approx(window.start_s)
    axes = figure.axes[0]
    assert _drawn_x(axes).min() == pytest.approx(0.0)   # the window's first second shown
    segment = next(c for c in axes.collections if c.get_gid() == "first-interval")
    (x0, y0), (x1, y1) = segment.get_segments()[0]
    assert (x0, x1) == (pytest.approx(0.0), pytest.approx(first["time_s"] - window.start_s))
    assert y0 == y1 == pytest.approx(first["waf"], abs=5e-4)


def test_a_window_off_the_10s_grid_starts_the_waf_curve_at_its_first_second(aged):
    """statistics.csv's 10 s rows would start the FDP panel at the first row wholly inside
    (15.5 s in for a window from 4.5 s); its bins count from the window's first second."""
    folder, _, fresh = aged
    runs = [load_run(folder), load_run(fresh)]
    windows = [find_window(run, parse_window("4.5:")) for run in runs]
    figure, _ = fdp_figure(runs, windows, ["aged", "fresh"])
    left = figure.axes[0]
    assert _drawn_x(left).min() == pytest.approx(0.5)   # 5 s, the first whole second


def test_an_aged_runs_cdf_says_what_the_ageing_wrote(aged):
    folder, ageing, fresh = aged
    run = load_run(folder)
    counted = int(run.lpn_access["Access_Count"].sum())
    own = int(pd.read_csv(folder / "stats.csv")["host_write_pages"].sum())
    # the ageing's measured writes and its precondition's, one per logical page
    before = ageing["host_write_pages"] + LOGICAL_PAGES
    assert counted - own == before
    for zoom in (None, 50):
        title = cdf_figure(run, zoom).axes[0].get_title()
        assert f"counts include the ageing's {before:,} host page writes, besides the " \
               f"run's {own:,}" in title
    assert "counts include" not in cdf_figure(load_run(fresh)).axes[0].get_title()
