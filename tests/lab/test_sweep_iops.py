"""A sim sweep point's device IOPS is ftl-sim's own figure for the same run: the point's
last statistics row is a stub of a few milliseconds (the run's end after its last whole
second), and it weighs those milliseconds in the mean, not a second (issue 41, item 2)."""
import json
import re

import pytest

from lab_calls import LAB_1G, SMALL_SIM, read_csv, sweep

POINTS = ("greedy", "cost_benefit")


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)   # config paths are relative to the repository


def test_a_sim_points_iops_is_ftl_sims_own(capsys, ftl_sim, tmp_path):
    out = tmp_path / "sweep"
    status, _, stderr = sweep(capsys, "--workload", "gc-randwrite", "--config", LAB_1G,
                              *SMALL_SIM, "--runtime", "10", "--engine", "sim",
                              "--set", f"gc_policy={','.join(POINTS)}", "--out", out)
    assert status == 0, stderr
    rows = read_csv(out / "sweep.csv")
    assert [row["gc_policy"] for row in rows] == list(POINTS)
    for row in rows:
        point = out / row["folder"]
        own = json.loads((point / "summary.json").read_text())   # ftl-sim's JSON
        exact = own["ops"] / own["sim_time_s"]
        result = json.loads((point / "result.json").read_text())
        # the statistics' times have three decimals: the only difference left
        assert result["device_iops_mean"] == pytest.approx(exact, abs=0.5e-3 * exact)
        assert result["device_iops_mean"] == pytest.approx(own["iops"], abs=0.05 + 1e-4 * exact)
        assert float(row["device_iops_mean"]) == pytest.approx(exact, abs=0.5 + 1e-4 * exact)
        text = re.search(r"(\d+) IOPS", (point / "ftl-sim.log").read_text())   # its text
        assert abs(round(result["device_iops_mean"]) - int(text.group(1))) <= 1
        # the case the test is about: the run ends in a partial row, counted by its length
        iops = json.loads((point / "plots" / "summary.json").read_text())["iops"]
        assert iops["partial_rows"] >= 1
        assert iops["seconds"] == pytest.approx(own["sim_time_s"], abs=1e-3)
