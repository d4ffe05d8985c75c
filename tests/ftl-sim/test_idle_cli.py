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
    ("64m:0", "'0' is not above 0 and 2^53 ns"), ("64m:soon", "--idle: "),
    ("64m:9007200s", "'9007200s' is not above 0 and 2^53 ns"),
    ("64m:104.3d", "'104.3d' is not above 0 and 2^53 ns")])
def test_bad_values_are_one_line(run_ftl_sim, value, message):
    proc = run_ftl_sim(*RUN, "--idle", value, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_pauses_that_add_up_beyond_2_to_53_ns_are_refused_before_the_run(run_ftl_sim,
                                                                          tmp_path):
    """The issue's 4096 pauses of 10^7 s wrapped the 64-bit clock (issue 39, fault 9); each
    pause is now at most 2^53 ns and so is their sum: 4096 days are refused in one line
    before anything is written."""
    stats = tmp_path / "st"
    proc = run_ftl_sim("--config", "conf/lab-1g.conf", "--rw", "randwrite", "--bs", "4k",
                       "--io-size", "16m", "--idle", "4k:1d", "--stats-dir", stats,
                       check=False)
    assert proc.returncode == 2 and not stats.exists()
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "4096 pauses of 86400 s over --io-size" in lines[0]
    proc = run_ftl_sim(*RUN[:-2], "--runtime", "9000000", "--idle", "64m:100000s", check=False)
    assert proc.returncode == 2 and "after --runtime" in proc.stderr


@pytest.mark.parametrize("option", ["--runtime", "--power-cut-at"])
def test_time_options_stop_at_2_to_53_ns(run_ftl_sim, option):
    """Every option that makes time has the recordings' limit, 2^53 ns (fault 10)."""
    proc = run_ftl_sim(*RUN, option, "10000000", check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{option}: '10000000' is not" in lines[0] and "2^53 ns" in lines[0]


def test_a_run_whose_clock_passes_2_to_53_ns_fails_instead_of_writing_unreadable_times(
        run_ftl_sim, tmp_path):
    """Options within the limit whose sum with the flash time is not: the clock check ends
    the run with status 2 (fault 10); a run just inside the limit records a trace that
    ftl-sim replays."""
    proc = run_ftl_sim(*RUN[:-2], "--io-size", "256k", "--idle", "128k:4503599.627s",
                       check=False)
    assert proc.returncode == 2 and "beyond the 2^53 ns" in proc.stderr
    out = tmp_path / "r.trace"
    run_ftl_sim(*RUN[:-2], "--io-size", "256k", "--idle", "128k:4000000s",
                "--trace-out", out)
    back = run_ftl_sim("--config", "conf/lab-1g.conf", "--trace", out, check=False)
    assert back.returncode == 0, back.stderr
