"""ftl-sim under the read-retry model: a trace that writes a page and reads it back later
gives exactly the read time the model says (pg_rd_lat + steps x read_retry_lat, then the
channel), the counters and the histogram by age class (flash/read_retry.c)."""
import json

import pytest

SEC = 1_000_000_000
RD, STEP, XFER = 40_000, 75_000, 10_000
BASE = ["--config", "conf/lab-1g.conf", "--set", f"pg_rd_lat={RD}",
        "--set", f"ch_xfer_lat={XFER}", "--set", f"read_retry_lat={STEP}",
        "--set", "read_retry_age_s=10", "--set", "read_retry_max=8"]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


def replay(run_ftl_sim, tmp_path, records, *extra):
    trace = tmp_path / "t.trace"
    trace.write_text("V 2\n" + "".join(r + "\n" for r in records))
    out = tmp_path / "s.json"
    run_ftl_sim(*BASE, *extra, "--trace", trace, "--summary", out)
    return json.loads(out.read_text())


def test_a_read_30_s_after_its_write_takes_three_steps(run_ftl_sim, tmp_path):
    s = replay(run_ftl_sim, tmp_path, ["W 0 0 8 1 0", f"R {30 * SEC} 0 8 1"])
    assert s["read_retries"] == 3 and s["retried_reads"] == 1
    hist = s["read_retry_histogram"]
    assert hist["sense_us"][:4] == [40.0, 115.0, 190.0, 265.0]
    assert hist["reads_by_age_class"][3][3] == 1
    assert sum(map(sum, hist["reads_by_age_class"])) == 1
    # the read's latency: sense with three steps, then one page over the channel
    assert s["max_latency_us"] == pytest.approx((RD + 3 * STEP + XFER) / 1e3, abs=0.5)


def test_read_retries_csv_has_the_histogram_and_only_with_retries_on(run_ftl_sim, tmp_path):
    on, off = tmp_path / "on", tmp_path / "off"
    replay(run_ftl_sim, tmp_path, ["W 0 0 8 1 0", "W 0 8 8 1 0", f"R {SEC} 0 8 1",
                                   f"R {25 * SEC} 8 8 1"], "--stats-dir", on)
    rows = (on / "read_retries.csv").read_text().splitlines()
    assert rows[0] == "age_class,steps,sense_us,reads"
    # fresh: class 0, no step; 25 s: x = 2.5, class 2, two or three steps
    assert rows[1] == "0,0,40.000,1"
    assert rows[2] in ("2,2,190.000,1", "2,3,265.000,1") and len(rows) == 3
    replay(run_ftl_sim, tmp_path, ["W 0 0 8 1 0"], "--set", "read_retry_lat=0",
           "--stats-dir", off)
    assert (off / "stats.csv").exists() and not (off / "read_retries.csv").exists()


def test_fresh_data_reads_without_retries_and_off_means_off(run_ftl_sim, tmp_path):
    s = replay(run_ftl_sim, tmp_path, ["W 0 0 8 1 0", f"R {SEC} 0 8 1"])
    assert s["read_retries"] == 0
    assert s["read_retry_histogram"]["reads_by_age_class"][0][0] == 1
    off = replay(run_ftl_sim, tmp_path, ["W 0 0 8 1 0", f"R {90 * SEC} 0 8 1"],
                 "--set", "read_retry_lat=0")
    assert off["read_retries"] == 0 and off["retried_reads"] == 0


def test_a_read_over_a_second_is_one_line(run_ftl_sim):
    proc = run_ftl_sim(*BASE, "--set", "read_retry_lat=200000000", "--rw", "read",
                       "--io-size", "4k", check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "read_retry_max: 8 steps of read_retry_lat" in lines[0]
