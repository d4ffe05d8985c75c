"""ftl-sim --idle SIZE:TIME: a closed loop that pauses after every SIZE issued (once the
requests in flight have completed) for TIME of simulated idle time, as a write-cliff run
needs to show the cache's recovery; bad values are one line and status 2."""
import json

import pytest

RUN = ["--config", "conf/lab-1g.conf", "--rw", "write", "--bs", "128k", "--qd", "4",
       "--io-size", "256m"]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


def test_four_pauses_add_their_time_and_nothing_else(run_ftl_sim, tmp_path):
    plain, idle = tmp_path / "plain.json", tmp_path / "idle.json"
    run_ftl_sim(*RUN, "--summary", plain)
    run_ftl_sim(*RUN, "--idle", "64m:5s", "--summary", idle, "--stats-dir", tmp_path / "st")
    a, b = json.loads(plain.read_text()), json.loads(idle.read_text())
    # 2048 writes of 128 KiB at QD 4 take 0.8192 s of flash time with or without pauses
    assert a["sim_time_s"] == pytest.approx(0.8192, abs=1e-4)
    assert b["sim_time_s"] == pytest.approx(4 * 5 + 0.8192, abs=1e-4)
    assert b["writes"] == a["writes"] == 2048 and b["p99_latency_us"] == a["p99_latency_us"]
    assert b["workload"]["idle_every"] == 64 << 20 and b["workload"]["idle_s"] == 5
    rows = (tmp_path / "st" / "IOPSData.csv").read_text().splitlines()[1:]
    writes = [int(row.split(",")[2]) for row in rows]
    assert sum(writes) == 2048 and writes.count(0) >= 4 * 4   # the idle seconds


@pytest.mark.parametrize("value, message", [
    ("64m", "expected SIZE:TIME"), ("0:5s", "--idle: must be greater than zero"),
    ("64m:0", "TIME must be between 0 and 10^7 seconds"), ("64m:soon", "--idle: ")])
def test_bad_values_are_one_line(run_ftl_sim, value, message):
    proc = run_ftl_sim(*RUN, "--idle", value, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]
