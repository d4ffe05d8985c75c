"""The ZNS+ statistics in the analysis: busy chips over time (ch_util.csv with nand.csv's
per-second CH_util), the zone write-pointer map (zones.csv), the NAND totals of the
summary, and run folders from before those files plotted as they were (the hand-made
folder fixtures/zns/run, see its README)."""
import json
import pathlib

import numpy as np
import pytest
from matplotlib.colors import to_rgba

from femu_analysis import cli, find_window, load_run, series, summarize
from femu_analysis.plots import ZONE_COLORS, ch_util_figure, zone_wp_figure
from femu_analysis.table import rows

ZNS_FILES = ("nand.csv", "ch_util.csv", "zones.csv")
# the fixture's ch_util.csv, 0.1 s rows
TENTHS = ([0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 3, 2] + [4.0] * 10
          + [1, 0, 0, 0, 0, 0, 0, 0, 0, 0.5] + [0.2] * 5)


@pytest.fixture
def zns_dir(fixtures_dir):
    return fixtures_dir / "zns" / "run"


def _plot(capsys, *args):
    """femu-plot ARGS in this process: (status, written paths, stderr)."""
    capsys.readouterr()
    status = cli.main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    return status, [pathlib.Path(line) for line in out.splitlines()], err


def test_loader_reads_the_zns_files(zns_dir):
    run = load_run(zns_dir)
    assert list(run.ch_util["busy_chips"]) == TENTHS
    assert np.allclose(run.ch_util["start_s"], run.ch_util["time_s"] - 0.1)
    assert list(run.nand["interval_s"]) == [1.0, 1.0, 1.0, 0.5]
    assert list(run.nand["NAND_cpbk"]) == [0, 300, 0, 7]
    assert list(run.zones["state"])[:2] == ["Full", "Implicitly Opened"]


@pytest.mark.parametrize("name, key", [
    ("Implicitly Opened", "implicit_open"), ("implicitly_open", "implicit_open"),
    ("explicitly_open", "explicit_open"),
    ("EXPLICIT-OPEN", "explicit_open"), ("Read Only", "read_only"), ("read_only", "read_only"),
    ("Closed", "closed"), ("full", "full"), ("Empty", "empty"), ("Offline", "offline"),
    ("bogus", "other"),
])
def test_zone_state_names_in_either_spelling(name, key):
    assert series.zone_state_key(name) == key


def test_ch_util_plot_holds_both_series_and_marks_the_extremes(zns_dir):
    run = load_run(zns_dir)
    window = find_window(run)
    assert (window.start_s, window.end_s) == (0.0, 3.0)
    figure, extremes = ch_util_figure(run, window)
    axes = figure.axes[0]
    assert tuple(figure.get_size_inches()) == (10, 5)
    assert axes.get_title() == "Channel utilisation — zoned, 8 zones"
    fine, per_second, all_luns = axes.get_lines()
    # the window's 30 tenths, at their ends
    assert np.allclose(fine.get_xdata(), np.arange(1, 31) / 10)
    assert list(fine.get_ydata()) == TENTHS[:30]
    # one step per second, each CH_util the mean of its ten tenths
    assert list(per_second.get_xdata()) == [0, 1, 2, 3]
    assert np.allclose(per_second.get_ydata(), [2.3, 4.0, 0.15, 0.15])
    for second in range(3):
        assert np.mean(TENTHS[10 * second:10 * second + 10]) == pytest.approx(
            per_second.get_ydata()[second])
    assert per_second.get_drawstyle() == "steps-post"
    assert list(all_luns.get_ydata()) == [4, 4]
    assert extremes == {"max": (pytest.approx(0.8), 4.0), "min": (pytest.approx(2.2), 0.0)}
    assert sorted(text.get_text() for text in axes.texts) == ["max 4", "min 0"]
    assert [text.get_text() for text in axes.get_legend().get_texts()] == [
        "busy chips per 0.1 s", "CH_util per second", "all 4 LUNs busy"]
    assert axes.xaxis.get_gridlines()[0].get_linestyle() == "--"


def test_zone_map_bars_are_the_written_fractions_coloured_by_state(zns_dir):
    figure = zone_wp_figure(load_run(zns_dir))
    axes = figure.axes[0]
    assert "Zone write pointers" in axes.get_title()
    fills = {}
    for patch in axes.patches:
        if patch.get_gid() == "zone-fill":
            zone = round(patch.get_x() + patch.get_width() / 2)
            fills[zone] = (patch.get_height(), patch.get_facecolor())
    assert sorted(fills) == list(range(8))
    expected = [(1.0, "full"), (0.5, "implicit_open"), (0.25, "explicit_open"),
                (0.75, "closed"), (0.0, "empty"), (0.0, "read_only"), (0.0, "offline"),
                (0.0, "empty")]
    for zone, (fill, state) in enumerate(expected):
        assert fills[zone][0] == pytest.approx(fill)
        assert fills[zone][1] == pytest.approx(to_rgba(ZONE_COLORS[state]))
    # every zone also has its faint full-height bar, so empty and offline zones show
    backgrounds = [patch for patch in axes.patches if patch.get_gid() == "zone-background"]
    assert len(backgrounds) == 8 and {patch.get_height() for patch in backgrounds} == {1.0}
    assert [text.get_text() for text in axes.get_legend().get_texts()] == [
        "empty: 2 zones, mean 0% written", "implicit open: 1 zone, mean 50% written",
        "explicit open: 1 zone, mean 25% written", "closed: 1 zone, mean 75% written",
        "full: 1 zone, mean 100% written", "read only: 1 zone, mean 0% written",
        "offline: 1 zone, mean 0% written"]


def test_summary_has_the_window_nand_totals(zns_dir):
    run = load_run(zns_dir)
    summary = summarize(run, find_window(run))
    nand = summary["nand"]
    # seconds 1-3; the half second after the workload is left out
    assert (nand["NAND_read"], nand["NAND_write"], nand["NAND_cpbk"]) == (110, 250, 300)
    assert (nand["copy_cmds"], nand["copy_pages"], nand["zone_resets"]) == (3, 300, 2)
    assert (nand["zone_appends"], nand["zone_erased_blocks"]) == (40, 4)
    assert nand["ch_util_mean"] == pytest.approx((2.3 + 4.0 + 0.15) / 3)
    assert nand["ch_util_max"] == 4.0 and nand["busy_chips_max"] == 4.0
    assert nand["span_s"] == [0.0, 3.0]
    header, body = rows([summary])
    assert [body[0][header.index(name)] for name in
            ("NAND read", "NAND write", "NAND cpbk", "CH_util")] == ["110", "250", "300", "2.15"]


def test_femu_plot_draws_the_zns_plots(capsys, zns_dir, tmp_path):
    status, written, err = _plot(capsys, zns_dir, "--out", tmp_path)
    assert status == 0, err
    names = {path.name for path in written}
    assert {"ch_util.png", "zone_wp.png", "summary.json", "iops.png"} <= names
    for path in written:
        assert path.stat().st_size > 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["nand"]["NAND_cpbk"] == 300
    assert "| NAND cpbk |" in (tmp_path / "summary.md").read_text()


def test_runs_without_the_zns_files_plot_as_before(capsys, zns_dir, run_copy, tmp_path):
    old = run_copy(zns_dir, drop=ZNS_FILES)
    run = load_run(old)
    assert run.nand is None and run.ch_util is None and run.zones is None
    assert ch_util_figure(run, find_window(run)) is None and zone_wp_figure(run) is None
    status, written, err = _plot(capsys, old, "--out", tmp_path / "plots")
    assert status == 0, err
    names = {path.name for path in written}
    assert "iops.png" in names and not names & {"ch_util.png", "zone_wp.png"}
    summary = json.loads((tmp_path / "plots" / "summary.json").read_text())
    assert "nand" not in summary
    header, body = rows([summary])
    assert body[0][header.index("NAND read")] == "-"


def test_a_run_with_ch_util_but_no_zones_draws_no_zone_map(capsys, zns_dir, run_copy,
                                                            tmp_path):
    """A conventional run (no zones.csv) still gets its channel utilisation."""
    conventional = run_copy(zns_dir, drop=("zones.csv",))
    status, written, err = _plot(capsys, conventional, "--out", tmp_path / "plots")
    assert status == 0, err
    names = {path.name for path in written}
    assert "ch_util.png" in names and "zone_wp.png" not in names


def test_ftl_sim_writes_the_zns_files_consistently(workload_run):
    """A real ftl-sim run (conventional, randwrite with GC): the ZNS+ files are there
    without zones, each whole second's CH_util is the mean of its ten 0.1 s rows, and the
    NAND pages add up to stats.csv's flash reads and programs."""
    run = load_run(workload_run)
    assert run.zones is None and not (workload_run / "zones.csv").exists()
    nand, tenths, stats = run.nand, run.ch_util, run.stats
    assert list(nand["time_s"]) == list(stats["time_s"])
    assert np.allclose(tenths["interval_s"].iloc[:-1], 0.1)
    whole = nand[nand["interval_s"] == 1.0]
    for end, ch_util in zip(whole["time_s"], whole["CH_util"]):
        inside = tenths[(tenths["time_s"] > end - 1 + 1e-6) & (tenths["time_s"] <= end + 1e-6)]
        assert len(inside) == 10
        assert inside["busy_chips"].mean() == pytest.approx(ch_util, abs=1e-4)
    luns = run.metadata.lun_count
    assert tenths["busy_chips"].between(0, luns).all() and tenths["busy_chips"].max() > 0
    programs = stats[["nand_user_programs", "nand_gc_programs", "map_writes",
                      "map_gc_moved_pages", "fallback_pages"]].to_numpy().sum()
    reads = stats[["nand_user_reads", "nand_gc_reads", "map_reads",
                   "buf_fill_reads"]].to_numpy().sum()
    assert nand["NAND_write"].sum() == programs > 0
    assert nand["NAND_read"].sum() == reads
    zone_columns = [column for column in nand if column.startswith(("zone", "copy"))]
    assert len(zone_columns) == 17 and not nand[zone_columns].to_numpy().any()
    assert not nand["NAND_cpbk"].any()
