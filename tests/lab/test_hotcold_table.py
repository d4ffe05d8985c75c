"""femu-lab hotcold-table: every figure of its table is read from the runs' own files
(ftl-sim's summary, its 1 s and 10 s statistics), the one stream is the baseline of each
distribution and layout, the hot set is the classifier's gauge, and bad options are one
line with exit status 2."""
import csv
import json

import pandas as pd
import pytest

from femu_lab import cli as lab_cli
from femu_lab.hotcold import cases as hc_cases


@pytest.fixture
def in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


def test_folders_sort_in_table_order_and_hold_no_equals_sign():
    plan = hc_cases.plan(["zipf:1.2"], ["full"], [6, 20, 50], ["off", "4096"])
    names = [c.folder for c in plan]
    assert all("=" not in n and ":" not in n for n in names)
    for decay in ("off", "4096"):   # zero-padded thresholds: 6 before 20 before 50
        hot = [n for n in names if n.endswith(f"decay-{decay}")]
        assert len(hot) == 3 and hot == sorted(hot)
    assert [c.label for c in plan][:2] == ["single stream", "hotcold threshold 6, exact counts"]
    assert plan[0].sets() == ("--set", "placement=single", "--set", "hot_decay=off")


def test_a_small_table(capsys, ftl_sim, tmp_path, in_repo):
    out = tmp_path / "t"
    argv = ["hotcold-table", "-o", str(out), "--dist", "zipf:1.2", "--layout", "full",
            "--threshold", "50", "--decay", "off,4096", "--runtime", "80"]
    assert lab_cli.main(argv) == 0, capsys.readouterr().err
    assert "| zipf:1.2 | full | single stream |" in capsys.readouterr().out
    with open(out / "hotcold-table.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["run"] for r in rows] == ["single stream", "hotcold threshold 50, exact counts",
                                        "hotcold threshold 50, aging every 4096"]
    runs = sorted((out / "runs").iterdir())
    assert [r.name for r in runs] == ["zipf1.2-full-hotcold-t050-decay-4096",
                                      "zipf1.2-full-hotcold-t050-decay-off",
                                      "zipf1.2-full-single"]
    by_name = {"single stream": runs[2], "hotcold threshold 50, exact counts": runs[1],
               "hotcold threshold 50, aging every 4096": runs[0]}
    for row in rows:
        folder = by_name[row["run"]]
        summary = json.loads((folder / "summary.json").read_text())
        assert float(row["waf"]) == pytest.approx(summary["waf"], abs=5e-4)
        tens = pd.read_csv(folder / "statistics.csv")
        whole = tens["seconds"].diff().fillna(tens["seconds"].iloc[0]) >= 10 - 1e-3
        late = tens[whole & (tens["seconds"] - 10 >= summary["precondition_sim_time_s"] + 60)]
        assert int(row["10s_intervals"]) == len(late) > 0
        assert float(row["worst_10s_after_1min"]) == pytest.approx(late["waf"].max(), abs=5e-4)
        stats = pd.read_csv(folder / "stats.csv")
        if "hotcold" in row["run"]:
            assert int(row["hot_pages_end"]) == summary["hot_pages"] == stats["hot_pages"].iloc[-1]
            assert summary["hot_decay"] == (0 if "exact" in row["run"] else 4096)
        else:
            assert row["hot_pages_end"] == "" and "hot_pages" not in stats.columns
            assert row["10s_above_single"] == "0" and float(row["below_single_pct"]) == 0.0
    assert (out / "hot-set.png").stat().st_size > 0
    assert "single stream" in (out / "hotcold-table.md").read_text()


@pytest.mark.parametrize("options, message", [
    (["--layout", "sideways"], "--layout: 'sideways' is not one of full, region"),
    (["--runtime", "30"], "give more than 60 s"),
    (["--threshold", ""], "--threshold: no value given"),
    (["--config", "conf/no-such.conf"], "conf/no-such.conf is not a file"),
])
def test_bad_options_are_one_line(capsys, tmp_path, in_repo, options, message):
    assert lab_cli.main(["hotcold-table", "-o", str(tmp_path / "o"), *options]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not (tmp_path / "o").exists()
