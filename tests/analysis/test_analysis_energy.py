"""femu-plot energy: on a small stats.csv whose power states are known, the state drawn
under the power is the one each interval spent most time in (worked out here from its
ps<N>_ms values, a tie to the lower state), the non-operational share is what the
configuration's non-operational states hold, the PNG is written; J/GiB against WAF takes
each run's totals (summary.json's, else stats.csv's) and a sweep folder's points; a run
without a column the plot needs is one line naming the file and the column, status 2."""
import json

import pandas as pd
import pytest

from femu_analysis import cli, load_run
from femu_analysis.energy_plots import (dominant_states, energy_window, nonop_share,
                                        nonop_states, power_figure, run_totals,
                                        state_columns)

MIB = 1 << 20
PAGE = 4096
# (power W, ms in PS0, PS1, PS2, PS3, exits) per 1 s row; PS2 and PS3 non-operational
ROWS = [(3.0, 1000, 0, 0, 0, 0),
        (2.0, 600, 400, 0, 0, 0),
        (0.5, 100, 0, 200, 700, 1),
        (0.2, 0, 0, 0, 1000, 0),
        (1.0, 500, 0, 0, 500, 1),      # a tie: the lower state
        (0.3, 300, 0, 300, 400, 2)]
DOMINANT = [0, 0, 3, 3, 0, 3]
NONOP_SHARE = [0.0, 0.0, 0.9, 1.0, 0.5, 0.7]
CONFIG = "ps_count=4\nps2_nonop=1\nps3_nonop=1\nps0_nonop=0\n"


def write_run(folder, rows=ROWS, drop=(), config=CONFIG, written_mib=8):
    folder.mkdir(parents=True)
    table = []
    for index, (watts, *states, exits) in enumerate(rows, start=1):
        row = {"time_s": f"{index:.3f}", "interval_s": "1.000",
               "host_write_bytes": written_mib * MIB, "host_write_pages": written_mib * MIB // PAGE,
               "gc_moved_pages": 0, "energy_j": watts, "power_w": watts}
        row.update({f"ps{n}_ms": ms for n, ms in enumerate(states)})
        row["ps_exits"] = exits
        table.append({key: value for key, value in row.items() if key not in drop})
    pd.DataFrame(table).to_csv(folder / "stats.csv", index=False)
    if config is not None:
        (folder / "config.conf").write_text(config)
    return folder


def test_dominant_state_and_nonop_share_by_hand(tmp_path):
    run = load_run(write_run(tmp_path / "apst"))
    columns = state_columns(run.stats)
    assert [name for _, name in columns] == ["ps0_ms", "ps1_ms", "ps2_ms", "ps3_ms"]
    assert list(dominant_states(run.stats, columns)) == DOMINANT
    assert nonop_states(run.metadata, 4) == {2, 3}
    assert list(nonop_share(run.stats, columns, {2, 3})) == pytest.approx(NONOP_SHARE)


def test_the_state_panel_draws_the_dominant_states(tmp_path):
    run = load_run(write_run(tmp_path / "apst"))
    figure = power_figure(run, "apst", energy_window(run))
    top, bottom = figure.axes[0], figure.axes[1]
    power = top.get_lines()[0]
    assert list(power.get_ydata()) == [row[0] for row in ROWS]
    state = bottom.get_lines()[0]
    assert list(state.get_xdata()) == [1, 2, 3, 4, 5, 6]
    assert list(state.get_ydata()) == DOMINANT
    assert "4 exits" in state.get_label()
    labels = [tick.get_text() for tick in bottom.get_yticklabels()]
    assert labels == ["PS0", "PS1", "PS2 (non-op)", "PS3 (non-op)"]
    # the intervals mostly non-operational are shaded above too: rows 3, 4 and 6
    spans = sorted((round(patch.get_x(), 3), round(patch.get_x() + patch.get_width(), 3))
                   for patch in top.patches if patch.get_gid() == "nonop")
    assert spans == [(2.0, 3.0), (3.0, 4.0), (5.0, 6.0)]


def test_cli_writes_the_png(tmp_path, capsys):
    run = write_run(tmp_path / "apst")
    assert cli.main(["energy", str(run), "--out", str(tmp_path / "p")]) == 0
    assert (tmp_path / "p" / "power.png").stat().st_size > 0
    out = capsys.readouterr().out
    # 8 MiB a second for 6 s = 6/128 GiB, 7 J: 149.333 J/GiB; no GC: WAF 1
    assert "149.333" in out and "1.000" in out


def test_one_power_state_draws_the_power_alone(tmp_path):
    run = load_run(write_run(tmp_path / "one", rows=[(1.5, 1000, 0, 0, 0, 0)] * 3,
                             drop=("ps0_ms", "ps1_ms", "ps2_ms", "ps3_ms", "ps_exits"),
                             config=None))
    figure = power_figure(run, "one", energy_window(run))
    assert len(figure.axes) == 1


def test_unknown_nonop_states_are_said_not_guessed(tmp_path):
    run = load_run(write_run(tmp_path / "apst", config=None))
    assert nonop_states(run.metadata, 4) is None
    figure = power_figure(run, "apst", energy_window(run))
    assert not [patch for patch in figure.axes[0].patches if patch.get_gid() == "nonop"]
    assert any("unknown" in text.get_text() for text in figure.axes[1].texts)


@pytest.mark.parametrize("drop, column", [(("power_w",), "power_w"),
                                          (("energy_j",), "energy_j"),
                                          (("ps1_ms",), "ps1_ms")])
def test_a_missing_column_is_one_line(tmp_path, capsys, drop, column):
    run = write_run(tmp_path / "no-energy", drop=drop)
    assert cli.main(["energy", str(run), "--out", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert str(run / "stats.csv") in err and f"'{column}'" in err


def test_without_stats_csv_is_one_line(tmp_path, capsys):
    folder = tmp_path / "fio-only"
    folder.mkdir()
    (folder / "IOPSData.csv").write_text("time,read,write\n1,0,10\n")
    assert cli.main(["energy", str(folder), "--out", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "stats.csv" in err


def summary_run(folder, energy_j, waf, gib, setting):
    """A run folder as ftl-sim leaves it: summary.json with the energy figures."""
    write_run(folder)
    pages = int(gib * (1 << 30)) // PAGE
    (folder / "summary.json").write_text(json.dumps(
        {"tool": "ftl-sim", "geometry": {"page_bytes": PAGE}, "host_write_pages": pages,
         "waf": waf, "energy_j": energy_j, "mean_power_w": 1.0,
         "j_per_gib_written": energy_j / gib if gib else None,
         "config": {"gc_policy": setting}}))
    return folder


def test_energy_against_waf_one_point_per_run(tmp_path, capsys):
    runs = [summary_run(tmp_path / "a", 10.0, 1.0, 2.0, "greedy"),
            summary_run(tmp_path / "b", 30.0, 2.5, 2.0, "fifo"),
            summary_run(tmp_path / "c", 40.0, 7.9, 1.0, "random")]
    assert cli.main(["energy", *map(str, runs), "--out", str(tmp_path / "p")]) == 0
    table = pd.read_csv(tmp_path / "p" / "energy_waf.csv")
    assert list(table.label) == ["gc_policy=greedy", "gc_policy=fifo", "gc_policy=random"]
    assert list(table.j_per_gib_written) == pytest.approx([5.0, 15.0, 40.0])
    assert list(table.waf) == pytest.approx([1.0, 2.5, 7.9])
    assert list(table.host_write_gib) == pytest.approx([2.0, 2.0, 1.0])
    assert set(table.source) == {"summary.json"}
    for name in ("energy_waf.png", "power_gc_policy=greedy.png", "power_gc_policy=fifo.png"):
        assert (tmp_path / "p" / name).stat().st_size > 0


def test_totals_from_stats_without_a_summary(tmp_path):
    run = load_run(write_run(tmp_path / "plain"))
    totals = run_totals(run, "plain")
    assert totals["source"] == "stats.csv rows in the window"
    assert totals["energy_j"] == pytest.approx(7.0)
    assert totals["host_write_gib"] == pytest.approx(48 / 1024)
    assert totals["mean_power_w"] == pytest.approx(7.0 / 6)


def test_a_sweep_folder_stands_for_its_points(tmp_path):
    sweep = tmp_path / "sweep"
    summary_run(sweep / "p1", 10.0, 1.0, 2.0, "greedy")
    summary_run(sweep / "p2", 30.0, 2.5, 2.0, "greedy")
    (sweep / "sweep.json").write_text(json.dumps(
        {"workload": "gc-randwrite", "axes": [{"key": "ssd_size", "values": [512, 704]}],
         "points": ["p1", "p2"]}))
    assert cli.main(["energy", str(sweep), "--out", str(tmp_path / "p")]) == 0
    table = pd.read_csv(tmp_path / "p" / "energy_waf.csv")
    assert list(table.label) == ["ssd_size=512", "ssd_size=704"]


def test_labels_must_match_the_runs(tmp_path, capsys):
    runs = [write_run(tmp_path / "a"), write_run(tmp_path / "b")]
    assert cli.main(["energy", *map(str, runs), "--label", "x", "--out",
                     str(tmp_path / "p")]) == 2
    assert "--label given 1 times for 2 runs" in capsys.readouterr().err
