"""DFTL in the analysis: the CMT hit-rate series, the histogram of valid pages per GC
victim, WAF over every flash program, and runs from before DFTL plotted as they were
(hand-made run folders in fixtures/dftl, see its README)."""
import pathlib

import numpy as np
import pandas as pd
import pytest

from femu_analysis import cli, find_window, load_run, parse_window, series, summarize
from femu_analysis.plots import (CMT_HIT_RATE, TIME_SERIES, plot_run, run_victims_figure,
                                 timeseries_figure, victims_figure)


@pytest.fixture
def dftl_dir(fixtures_dir):
    return fixtures_dir / "dftl" / "run"


@pytest.fixture
def pre_dftl_dir(fixtures_dir):
    return fixtures_dir / "dftl" / "pre-dftl"


def _plot(capsys, *args):
    """femu-plot ARGS in this process: (status, written paths, stderr)."""
    capsys.readouterr()
    status = cli.main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    return status, [pathlib.Path(line) for line in out.splitlines()], err


def test_cmt_hit_rate_series_is_the_column_with_its_gaps(dftl_dir):
    run = load_run(dftl_dir)
    frame = series.cmt_hit_rate(run)
    raw = pd.read_csv(dftl_dir / "stats.csv")
    assert list(frame["time_s"]) == list(raw["time_s"])
    assert np.allclose(frame["value"][:6], raw["cmt_hit_rate"][:6])
    assert np.isnan(frame["value"].iloc[6])          # the idle half second: no lookup


def test_cmt_hit_rate_plot_marks_the_extremes_of_the_data(dftl_dir):
    run = load_run(dftl_dir)
    figure, extremes = timeseries_figure(run, find_window(run), CMT_HIT_RATE)
    assert extremes["max"] == (5.0, 0.9) and extremes["min"] == (1.0, 0.7)
    labels = sorted(text.get_text() for text in figure.axes[0].texts)
    assert labels == ["max 0.9", "min 0.7"]
    assert "CMT hit rate" in figure.axes[0].get_title()


def test_victim_histogram_lines_hold_the_counts_and_means(dftl_dir):
    run = load_run(dftl_dir)
    histogram = series.victim_histogram(run)
    assert set(histogram) == {"data", "map"}
    figure = run_victims_figure(run)
    axes = figure.axes[0]
    steps = [line for line in axes.get_lines() if line.get_linestyle() in ("-", "--")]
    data, mapped = steps
    assert list(data.get_xdata()) == list(range(17))
    expected = np.zeros(17)
    expected[[1, 3, 6, 10, 15]] = [2, 4, 3, 3, 1]
    assert np.array_equal(data.get_ydata(), expected)
    assert list(mapped.get_ydata()[:3]) == [1, 0, 1]
    legend = [text.get_text() for text in axes.get_legend().get_texts()]
    mean = (1 * 2 + 3 * 4 + 6 * 3 + 10 * 3 + 15 * 1) / 13
    assert legend == [f"data victims: 13, mean {mean:.1f} valid",
                      "map victims: 2, mean 1.0 valid"]


def test_victims_figure_takes_sparse_pairs_and_skips_empty_lines():
    figure = victims_figure("t", [("a", [2, 7], [5, 1], "-", "C0"),
                                  ("empty", [0, 3], [0, 0], "--", "C1")])
    axes = figure.axes[0]
    assert [text.get_text() for text in axes.get_legend().get_texts()] == [
        f"a: 6, mean {(2 * 5 + 7) / 6:.1f} valid"]
    assert list(axes.get_lines()[0].get_ydata()) == [0, 0, 5, 0, 0, 0, 0, 1]


def test_femu_plot_draws_the_dftl_plots(capsys, dftl_dir, tmp_path):
    status, written, err = _plot(capsys, dftl_dir, "--out", tmp_path)
    assert status == 0, err
    names = sorted(path.name for path in written)
    assert names == sorted([f"{spec.stem}.png" for spec in TIME_SERIES]
                           + ["cmt_hit_rate.png", "gc_victims.png", "summary.json",
                              "summary.md"])
    for path in written:
        assert path.parent == tmp_path and path.stat().st_size > 0


def test_title_names_dftl_and_the_buffer(dftl_dir):
    title = load_run(dftl_dir).metadata.title()
    assert "DFTL cmt 4096" in title and "buffer 8192 sectors" in title and "stream" in title


def test_summary_waf_counts_every_flash_program(dftl_dir):
    run = load_run(dftl_dir)
    summary = summarize(run, find_window(run, parse_window("0:")))
    raw = pd.read_csv(dftl_dir / "stats.csv")
    programs = sum(raw[column].sum() for column in (
        "nand_user_programs", "nand_gc_programs", "map_writes", "map_gc_moved_pages",
        "fallback_pages"))
    assert summary["waf"] == pytest.approx(programs / raw["host_write_pages"].sum())
    assert summary["waf"] < (raw["host_write_pages"].sum() + raw["gc_moved_pages"].sum()) \
        / raw["host_write_pages"].sum()   # the buffer absorbed rewrites


def test_a_run_from_before_dftl_plots_as_it_did(capsys, pre_dftl_dir, tmp_path):
    run = load_run(pre_dftl_dir)
    assert run.gc_victims is None
    assert series.cmt_hit_rate(run) is None and run_victims_figure(run) is None
    status, written, err = _plot(capsys, pre_dftl_dir, "--out", tmp_path)
    assert status == 0, err
    assert sorted(path.name for path in written) == sorted(
        [f"{spec.stem}.png" for spec in TIME_SERIES] + ["summary.json", "summary.md"])
    summary = summarize(run, find_window(run, parse_window("0:")))
    assert summary["waf"] == pytest.approx((6000 + 720) / 6000)


def test_empty_dftl_data_draws_nothing(dftl_dir, tmp_path):
    """A page-mapped run has the column, all empty, and may have had no GC victim."""
    folder = tmp_path / "page-mapped"
    folder.mkdir()
    stats = pd.read_csv(dftl_dir / "stats.csv")
    stats["cmt_hit_rate"] = np.nan
    stats.to_csv(folder / "stats.csv", index=False)
    victims = pd.read_csv(dftl_dir / "gc_victims.csv")
    victims[["data_victims", "map_victims"]] = 0
    victims.to_csv(folder / "gc_victims.csv", index=False)
    run = load_run(folder)
    assert series.cmt_hit_rate(run) is None and run_victims_figure(run) is None
    written = plot_run(run, find_window(run), tmp_path / "plots")
    assert sorted(path.stem for path in written) == sorted(spec.stem for spec in TIME_SERIES)


def test_summary_totals_the_ftl_counters_over_the_window(tmp_path):
    """summarize() sums the DFTL / buffer / fallback counters of stats.csv over the window
    and derives the CMT hit rate; the table shows the hit rate and the map writes."""
    from femu_analysis import load_run, summarize
    from femu_analysis.table import rows
    from femu_analysis.window import Window
    run = tmp_path / "run"
    run.mkdir()
    columns = ("time_s,interval_s,host_read_cmds,host_write_cmds,host_write_pages,iops,"
               "gc_runs,gc_erased_blocks,gc_moved_pages,map_gc_runs,nand_user_programs,"
               "nand_gc_programs,map_reads,map_writes,map_gc_moved_pages,cmt_hits,"
               "cmt_misses,fallback_pages,gc_victim_valid_pages,map_gc_victim_valid_pages")
    lines = [columns]
    for t in range(1, 6):
        lines.append(f"{t}.000,1.000,10,10,100,20,1,4,30,1,100,30,7,5,2,90,10,0,30,3")
    (run / "stats.csv").write_text("\n".join(lines) + "\n")
    summary = summarize(load_run(run), Window(1.0, 4.0, "test"))   # the rows ending 2, 3, 4
    ftl = summary["ftl"]
    assert ftl["map_writes"] == 3 * 5 and ftl["cmt_hits"] == 3 * 90
    assert ftl["cmt_hit_rate"] == pytest.approx(0.9)
    assert ftl["mean_gc_victim_valid_pages"] == pytest.approx(30.0)
    assert ftl["mean_map_gc_victim_valid_pages"] == pytest.approx(3.0)
    assert summary["waf"] == pytest.approx((100 + 30 + 5 + 2 + 0) / 100)
    header, body = rows([summary])
    assert body[0][header.index("CMT hit rate")] == "0.900"
    assert body[0][header.index("map writes")] == "15"
