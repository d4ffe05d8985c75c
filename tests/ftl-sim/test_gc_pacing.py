"""Paced background GC against FEMU's whole-line GC, in simulated time (so the figures are
the same on any host): lab-1g, 4 KiB random writes at QD32 after a sequential fill."""
import csv
import json

import pytest

LAB_1G = "conf/lab-1g.conf"
JOB = ["--config", LAB_1G, "--rw", "randwrite", "--bs", "4k", "--qd", "32",
       "--precondition", "seq", "--io-size", "1g"]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)  # config paths are relative to the repository


def measured_seconds(stats_dir):
    """Host write commands of each whole second of the measured phase."""
    with open(stats_dir / "phases.csv", newline="") as f:
        phases = {row["phase"]: float(row["time_s"]) for row in csv.DictReader(f)}
    start, end = phases["workload"], phases["end"]
    with open(stats_dir / "stats.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return [int(row["host_write_cmds"]) for row in rows
            if float(row["time_s"]) - float(row["interval_s"]) >= start
            and float(row["time_s"]) <= end and float(row["interval_s"]) == 1.0]


def run_mode(run_ftl_sim, tmp_path, mode):
    out = tmp_path / mode
    run_ftl_sim(*JOB, "--set", f"gc_mode={mode}", "--stats-dir", out,
                "--summary", out / "summary.json")
    summary = json.loads((out / "summary.json").read_text())
    return summary, measured_seconds(out)


def flash_time_bound(summary):
    """LUNs / (WAF x t_prog + (WAF - 1) x t_read): IOPS if GC and host writes kept every
    LUN busy, at the run's own WAF."""
    cfg, waf = summary["config"], summary["waf"]
    luns = cfg["nchs"] * cfg["luns_per_ch"]
    seconds_per_write = (waf * cfg["pg_wr_lat"] + (waf - 1) * cfg["pg_rd_lat"]) / 1e9
    return luns / seconds_per_write


def test_paced_gc_keeps_the_flash_busy_and_the_latency_flat(run_ftl_sim, tmp_path):
    paced, seconds = run_mode(run_ftl_sim, tmp_path, "paced")
    assert paced["config"]["gc_mode"] == "paced"
    assert paced["gc_runs"] > 0 and paced["waf"] > 2     # GC really ran all along
    assert paced["iops"] >= 0.8 * flash_time_bound(paced)
    assert paced["p99_latency_us"] <= 20_000
    mean = sum(seconds) / len(seconds)
    assert len(seconds) >= 10
    assert min(seconds) >= 0.5 * mean


def test_line_gc_is_femus_burst_and_victims_are_the_same(run_ftl_sim, tmp_path):
    paced, _ = run_mode(run_ftl_sim, tmp_path, "paced")
    line, seconds = run_mode(run_ftl_sim, tmp_path, "line")
    # Whole lines after a request: host writes wait out thousands of page moves.
    assert line["iops"] < 0.5 * flash_time_bound(line)
    assert line["p99_latency_us"] > 5 * paced["p99_latency_us"]
    assert min(seconds) < 0.5 * sum(seconds) / len(seconds)
    # Same collections: paced GC changes when the flash works, not what it writes (only
    # the order of a victim's moves differs, LUN by LUN), so the same WAF within 3 %.
    assert line["host_write_pages"] == paced["host_write_pages"]
    assert paced["waf"] == pytest.approx(line["waf"], rel=0.03)
