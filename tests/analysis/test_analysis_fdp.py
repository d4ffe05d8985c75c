"""femu-plot fdp: two runs side by side, WAF over time and media writes per reclaim unit
handle, on synthetic stats.csv files whose totals are known (the lab's fdp-separation
workload with and without placement identifiers)."""
import json

import pandas as pd
import pytest

from femu_analysis import cli, fdp_plots
from femu_analysis.loader import load_run
from femu_analysis.window import find_window, parse_window

SECONDS = 20


def write_run(folder, per_second, phases=True, with_waf=True, handles=2, config=None):
    """A run folder with stats.csv rows of 1 s: per_second is [(host, gc), ...] per
    handle, the same every second; statistics.csv every 10 s; phases.csv (workload from
    2 s)."""
    folder.mkdir(parents=True)
    rows = []
    for second in range(1, SECONDS + 1):
        row = {"time_s": f"{second:.3f}", "interval_s": "1.000"}
        host = sum(h for h, _ in per_second[:handles])
        gc = sum(g for _, g in per_second[:handles])
        row.update(host_read_cmds=0, host_write_cmds=host, host_write_pages=host,
                   gc_moved_pages=gc)
        if with_waf:
            row["waf"] = f"{(host + gc) / host:.4f}" if host else ""
        for handle, (h, g) in enumerate(per_second[:handles]):
            row[f"wp{handle}_host_pages"] = h
            row[f"wp{handle}_gc_pages"] = g
        rows.append(row)
    pd.DataFrame(rows).to_csv(folder / "stats.csv", index=False)
    tens = []
    for end in (10, 20):
        host = sum(h for h, _ in per_second[:handles]) * 10
        gc = sum(g for _, g in per_second[:handles]) * 10
        tens.append({"seconds": f"{end:.3f}", "iops": host / 10, "waf": (host + gc) / host})
    pd.DataFrame(tens).to_csv(folder / "statistics.csv", index=False)
    if phases:
        (folder / "phases.csv").write_text("time_s,phase\n0.000,precondition\n"
                                           "2.000,workload\n20.000,end\n")
    if config:
        (folder / "summary.json").write_text(json.dumps({"tool": "ftl-sim",
                                                         "config": config,
                                                         "workload": {"rw": "randwrite"}}))
    return folder


@pytest.fixture
def two_runs(tmp_path):
    """fdp-separation: with placement IDs, cold (handle 0) 10 host + 20 GC pages a second,
    hot (handle 1) 90 + 10; without, everything on handle 0, 100 host + 200 GC."""
    with_ids = write_run(tmp_path / "with-ids", [(10, 20), (90, 10)])
    without = write_run(tmp_path / "without-ids", [(100, 200), (0, 0)])
    return with_ids, without


def test_table_totals_per_handle_over_the_window(two_runs):
    runs = [load_run(path) for path in two_runs]
    windows = [find_window(run, parse_window("auto")) for run in runs]
    table = fdp_plots.compare_table(runs, windows, ["with", "without"])
    # the workload phase from 2 s to 20 s: the 18 rows ending at 3 .. 20
    assert list(table["run"]) == ["with", "with", "without", "without"]
    assert list(table["handle"]) == [0, 1, 0, 1]
    assert list(table["host_pages"]) == [180, 1620, 1800, 0]
    assert list(table["gc_pages"]) == [360, 180, 3600, 0]
    assert list(table["media_pages"]) == [540, 1800, 5400, 0]
    assert table["waf"][0] == pytest.approx(3.0) and table["waf"][1] == pytest.approx(10 / 9)
    assert table["waf"][2] == pytest.approx(3.0) and pd.isna(table["waf"][3])
    assert table["run_waf"][0] == pytest.approx(2340 / 1800)
    assert table["run_waf"][2] == pytest.approx(3.0)


def test_figure_has_both_runs_in_both_panels(two_runs):
    runs = [load_run(path) for path in two_runs]
    windows = [find_window(run, parse_window("auto")) for run in runs]
    figure, _ = fdp_plots.compare_figure(runs, windows, ["with", "without"])
    left, right = figure.axes
    labels = [line.get_label() for line in left.get_lines()]
    assert [label.split(" (")[0] for label in labels] == ["with: WAF 1.300",
                                                         "without: WAF 3.000"]
    assert all("per interval min" in label for label in labels) and not left.texts
    bars = {container.get_label(): [p.get_height() for p in container.patches]
            for container in right.containers}
    assert bars == {"with: host": [180, 1620], "with: GC": [360, 180],
                    "without: host": [1800, 0], "without: GC": [3600, 0]}
    assert [t.get_text() for t in right.get_xticklabels()] == ["0", "1"]
    notes = [text.get_text() for text in right.texts]
    assert "WAF 3.000" in notes and "WAF 1.111" in notes


def test_cli_writes_png_and_csv_and_prints_the_table(two_runs, tmp_path, capsys):
    out = tmp_path / "out"
    status = cli.main(["fdp", *map(str, two_runs), "--label", "with IDs",
                       "--label", "without IDs", "--out", str(out)])
    printed = capsys.readouterr().out
    assert status == 0
    assert (out / "fdp_compare.png").stat().st_size > 0
    saved = pd.read_csv(out / "fdp_compare.csv")
    assert list(saved.columns) == ["run", "handle", "host_pages", "gc_pages", "media_pages",
                                   "waf", "run_waf"]
    assert list(saved["media_pages"]) == [540, 1800, 5400, 0]
    assert "with IDs: WAF 1.300 over every handle" in printed
    assert "without IDs: WAF 3.000 over every handle" in printed
    assert str(out / "fdp_compare.png") in printed


def test_text_table_keeps_whole_labels_in_one_column(two_runs):
    """The lab's labels are longer than any fixed width: each row names its run in full,
    and the handle column starts at the same place on every line."""
    runs = [load_run(path) for path in two_runs]
    windows = [find_window(run, parse_window("auto")) for run in runs]
    labels = ["with placement (hot on handle 1)", "without placement (all on handle 0)"]
    lines = fdp_plots.text_table(fdp_plots.compare_table(runs, windows, labels)).splitlines()
    rows = lines[1:5]
    assert [row.split("  ")[0] for row in rows] == [labels[0]] * 2 + [labels[1]] * 2
    width = len(labels[1])
    assert {line[width + 1:width + 7] for line in lines[:5]} == \
        {"handle", "     0", "     1"}
    assert lines[5:] == [f"{labels[0]}: WAF 1.300 over every handle",
                         f"{labels[1]}: WAF 3.000 over every handle"]


def test_default_labels_name_what_differs(tmp_path, capsys):
    a = write_run(tmp_path / "a", [(10, 0), (90, 0)],
                  config={"placement": "fdp", "fdp_ruhs": 2})
    b = write_run(tmp_path / "b", [(100, 50)], handles=1,
                  config={"placement": "fdp", "fdp_ruhs": 1})
    assert cli.main(["fdp", str(a), str(b), "--out", str(tmp_path / "o")]) == 0
    table = pd.read_csv(tmp_path / "o" / "fdp_compare.csv")
    assert set(table["run"]) == {"fdp_ruhs=2", "fdp_ruhs=1"}
    # a run with one write pointer has one bar group; the other's second is still drawn
    assert list(table["handle"]) == [0, 1, 0]
    capsys.readouterr()


@pytest.mark.parametrize("runs, extra, message", [
    (1, [], "fdp compares two runs (with and without placement), got 1"),
    (3, [], "got 3"),
    (2, ["--label", "only one"], "--label given 1 times for 2 runs"),
])
def test_cli_errors_are_one_line(two_runs, tmp_path, capsys, runs, extra, message):
    folders = [*two_runs, two_runs[0]][:runs]
    assert cli.main(["fdp", *map(str, folders), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("femu-plot: error: ") and message in err[0]


def test_run_without_handle_columns_is_a_one_line_error(tmp_path, capsys):
    good = write_run(tmp_path / "good", [(10, 1), (10, 1)])
    bare = tmp_path / "bare"
    bare.mkdir()
    pd.DataFrame({"time_s": ["1.000", "2.000"], "interval_s": ["1.000", "1.000"],
                  "host_write_cmds": [5, 5]}).to_csv(bare / "stats.csv", index=False)
    assert cli.main(["fdp", str(good), str(bare), "--window", "0:2"]) == 2
    err = capsys.readouterr().err
    assert f"{bare}: stats.csv has no wpN_host_pages column" in err
