"""ftl-sim with FDP: --fdp / --fdp-hot and --dist hotcold on synthetic writes, the per-handle
summary (host and media pages, WAF) and stats.csv columns, and version-4 traces (W's
placement, U records) replayed, refused with the file and line, and recorded."""
import csv
import json

import pytest

# 1 ch x 2 LUN x 32 blocks x 16 pages of 4 KiB = 4 MiB raw, 3 MiB logical
SMALL = ["--set", "nchs=1", "--set", "luns_per_ch=2", "--set", "blks_per_pl=32",
         "--set", "pgs_per_blk=16", "--set", "devsz_mb=3"]
FDP2 = [*SMALL, "--set", "placement=fdp", "--set", "fdp_ruhs=2"]
STATS_FILES = ("stats.csv", "IOPSData.csv", "throughputData.csv", "GCData.csv",
               "WAFData.csv", "statistics.csv", "phases.csv", "lpn_access_count.csv")


def summary(run_ftl_sim, tmp_path, *args, name="s.json"):
    path = tmp_path / name
    proc = run_ftl_sim(*args, "--summary", path)
    return json.loads(path.read_text()), proc.stdout


def stats_rows(stats_dir):
    with open(stats_dir / "stats.csv", newline="") as f:
        return list(csv.DictReader(f))


def one_line_error(run_ftl_sim, *args):
    proc = run_ftl_sim(*args, check=False)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.mark.parametrize("args, message", [
    (["--fdp", "1"], "--fdp: picks a reclaim unit handle under placement=fdp"),
    (["--set", "placement=fdp", "--set", "fdp_ruhs=2", "--fdp", "2"],
     "--fdp: 2 is not below fdp_ruhs (2)"),
    (["--set", "placement=fdp", "--fdp", "16"], "--fdp: '16' is not a whole number"),
    (["--set", "placement=fdp", "--fdp", "x"], "--fdp: 'x' is not a whole number"),
    (["--set", "placement=fdp", "--set", "fdp_ruhs=2", "--fdp-hot", "1"],
     "--fdp-hot: needs --dist hotcold:H:W"),
    (["--set", "placement=fdp", "--set", "fdp_ruhs=2", "--dist", "hotcold:10:90",
      "--fdp-hot", "3"], "--fdp-hot: 3 is not below fdp_ruhs (2)"),
    (["--set", "placement=stream", "--dist", "hotcold:10:90", "--fdp-hot", "1"],
     "--fdp-hot: picks a reclaim unit handle under placement=fdp"),
    (["--set", "placement=fdp", "--set", "fdp_ruhs=2", "--stream", "1"],
     "--stream: tags synthetic writes under placement=stream"),
    (["--dist", "hotcold:10"], "--dist: 'hotcold:10': want hotcold:H:W"),
    (["--dist", "hotcold:0:90"], "must be in (0, 100)"),
    (["--dist", "hotcold:10:120"], "must be in [0, 100]"),
])
def test_fdp_usage_errors(run_ftl_sim, args, message):
    line = one_line_error(run_ftl_sim, *SMALL, *args)
    assert line.startswith("ftl-sim: ") and message in line, line


def test_fdp_option_refuses_a_trace(run_ftl_sim, tmp_path):
    trace = tmp_path / "t.trace"
    trace.write_text("W 0 8\n")
    line = one_line_error(run_ftl_sim, *FDP2, "--fdp", "1", "--trace", trace)
    assert "--fdp: tags synthetic writes (a trace carries its own handles)" in line


def test_writes_go_to_the_fdp_handle_and_the_summary_counts_each_handle(run_ftl_sim,
                                                                         tmp_path):
    s, text = summary(run_ftl_sim, tmp_path, *FDP2, "--fdp", "1", "--io-size", "12m",
                      "--stats-dir", tmp_path / "stats")
    wps = s["write_pointers"]
    assert [wp["name"] for wp in wps] == ["handle 0", "handle 1"]
    assert wps[0]["host_pages"] == 0 and wps[0]["gc_pages"] == 0 and wps[0]["waf"] is None
    one = wps[1]
    assert one["host_pages"] == s["host_write_pages"] == 3072
    assert one["gc_pages"] == s["gc_write_pages"] > 0, "12 MiB over 3 MiB must collect"
    assert one["media_pages"] == one["host_pages"] + one["gc_pages"]
    assert one["host_bytes"] == one["host_pages"] * 4096
    assert one["media_bytes"] == one["media_pages"] * 4096
    assert one["waf"] == pytest.approx(one["media_pages"] / one["host_pages"], abs=1e-4)
    assert one["waf"] == pytest.approx(s["waf"], abs=1e-4)
    assert s["fdp"] == {"ruhs": 2, "ruh_type": "persistent", "ru_pages": 32,
                        "ruh_updates": 0, "ru_updates": 0, "ru_time_limits": 0,
                        "unwritten_pages": 0, "events_taken": 0,
                        "events_not_fully_written": 0, "events_time_limit": 0,
                        "events_lost": 0}
    assert "handle 1: 3072 host pages" in text and "handle 0: 0 host pages" in text
    assert "FDP: 2 handles (persistent), 0 RU updates" in text
    # stats.csv: media pages and WAF for each write pointer that exists, summing to the
    # summary's (no precondition: the whole run is measured)
    rows = stats_rows(tmp_path / "stats")
    assert "wp1_media_pages" in rows[0] and "wp1_waf" in rows[0]
    assert "wp2_media_pages" not in rows[0] and "fdp_ru_updates" in rows[0]
    assert sum(int(r["wp1_media_pages"]) for r in rows) == one["media_pages"]
    assert sum(int(r["wp0_media_pages"]) for r in rows) == 0
    assert all(r["wp0_waf"] == "" for r in rows)
    for r in rows:
        if int(r["wp1_host_pages"]):
            assert float(r["wp1_waf"]) == pytest.approx(
                int(r["wp1_media_pages"]) / int(r["wp1_host_pages"]), abs=1e-4)


def test_hotcold_split_puts_the_hot_part_on_its_own_handle(run_ftl_sim, tmp_path):
    s, _ = summary(run_ftl_sim, tmp_path, *FDP2, "--dist", "hotcold:10:90", "--fdp", "0",
                   "--fdp-hot", "1", "--precondition", "seq", "--io-size", "8m")
    assert s["workload"]["dist"] == "hotcold:10:90"
    cold, hot = (wp["host_pages"] for wp in s["write_pointers"])
    assert cold + hot == 2048
    # 90% of 2048 writes: binomial sd 14
    assert hot == pytest.approx(0.9 * 2048, abs=100)
    # the hot part is its own handle's: 10% of 768 pages live there, so its WAF is low
    # next to the cold handle's, whose units hold long-lived data
    assert s["write_pointers"][1]["waf"] < s["write_pointers"][0]["waf"]


def test_precondition_fills_each_class_on_its_handle(run_ftl_sim, tmp_path):
    run_ftl_sim(*FDP2, "--dist", "hotcold:25:90", "--fdp", "0", "--fdp-hot", "1",
                "--precondition", "seq", "--io-size", "4k", "--stats-dir", tmp_path / "st")
    rows = stats_rows(tmp_path / "st")
    hot = sum(int(r["wp1_host_pages"]) for r in rows)
    cold = sum(int(r["wp0_host_pages"]) for r in rows)
    assert hot + cold == 768 + 1
    assert hot in (192, 193)     # 25% of 768 pages, and the one write if it was hot


def test_one_handle_equals_placement_single(run_ftl_sim, tmp_path):
    args = [*SMALL, "--precondition", "seq", "--dist", "zipf:1.2", "--io-size", "8m"]
    single, _ = summary(run_ftl_sim, tmp_path, *args, name="single.json")
    fdp, _ = summary(run_ftl_sim, tmp_path, *args, "--set", "placement=fdp",
                     "--set", "fdp_ruhs=1", name="fdp.json")
    for key in ("host_write_pages", "gc_write_pages", "gc_runs", "erased_blocks", "waf",
                "mean_latency_us", "ops"):
        assert single[key] == fdp[key], key


V4 = """V 4
W 0 0 64 1 0
W 1000 64 64 1 1
U 2000 1 0
W 3000 128 8 1 0
U 4000 1 1
U 5000 1 1
E 6000
"""


def test_version4_trace_replays_ruh_updates(run_ftl_sim, tmp_path):
    trace = tmp_path / "u.trace"
    trace.write_text(V4)
    s, text = summary(run_ftl_sim, tmp_path, *FDP2, "--trace", trace)
    assert [wp["host_pages"] for wp in s["write_pointers"]] == [9, 8]
    # handle 0's unit (32 pages, 8 written) closed by the first U, handle 1's (8 of 32)
    # by the second; the third finds no open unit and changes nothing
    fdp = s["fdp"]
    assert fdp["ruh_updates"] == 3
    assert fdp["ru_updates"] == 2 and fdp["unwritten_pages"] == 24 + 24
    assert fdp["events_taken"] == fdp["events_not_fully_written"] == 2
    assert "FDP: 2 handles (persistent), 2 RU updates, 0 time limits, 48 unwritten" in text


def test_version4_under_another_placement_drops_u_records(run_ftl_sim, tmp_path):
    trace = tmp_path / "u.trace"
    trace.write_text(V4)
    s, _ = summary(run_ftl_sim, tmp_path, *SMALL, "--trace", trace)
    assert s["host_write_pages"] == 17 and s["fdp"]["ruhs"] == 0
    assert s["fdp"]["ruh_updates"] == 0 and s["fdp"]["ru_updates"] == 0


@pytest.mark.parametrize("content, line, message", [
    ("V 4\nW 0 0 8 1 0\nW 1 8 8 1 2\n", 3, "the write's handle 2 is not below fdp_ruhs (2)"),
    ("V 4\nU 0 1 5\n", 2, "reclaim unit handle 5 is not below fdp_ruhs (2)"),
    ("V 4\nU 0 1\n", 2, "U: too few fields"),
    ("V 4\nU 0 1 x\n", 2, "ruh 'x' is not a decimal number"),
    ("V 3\nU 0 1 0\n", 2, "unknown op 'U'"),
    ("W 0 8 H\nW 8 8 X\n", 2, "bad stream tag 'X'"),
])
def test_bad_fdp_records_name_file_and_line(run_ftl_sim, tmp_path, content, line, message):
    trace = tmp_path / "bad.trace"
    trace.write_text(content)
    error = one_line_error(run_ftl_sim, *FDP2, "--trace", trace)
    assert f"{trace}:{line}: " in error and message in error, error


def test_version1_tags_are_handles_under_fdp(run_ftl_sim, tmp_path):
    trace = tmp_path / "v1.trace"
    trace.write_text("S 7\nW 0 16 H\nW 16 8 C\nW 24 8\nW 8 8 C\n")
    s, _ = summary(run_ftl_sim, tmp_path, *FDP2, "--trace", trace)
    # C (cold) and untagged writes are handle 0, H (hot) handle 1, as with streams
    assert [wp["host_pages"] for wp in s["write_pointers"]] == [3, 2]
    error = one_line_error(run_ftl_sim, *SMALL, "--set", "placement=fdp",
                           "--set", "fdp_ruhs=1", "--trace", trace)
    assert f"{trace}:2: the write's handle 1 is not below fdp_ruhs (1)" in error


def test_recording_with_fdp_is_version4_and_replays_identically(run_ftl_sim, tmp_path):
    trace, recording = tmp_path / "u.trace", tmp_path / "rec.trace"
    # a timed trace with RUH updates among random writes on both handles
    lines = ["V 4"]
    for i in range(3000):
        lines.append(f"W {i * 100000} {(i * 7919) % 760 * 8} 8 1 {i % 2}")
        if i % 500 == 499:
            lines.append(f"U {i * 100000 + 1} 1 {i % 2}")
    trace.write_text("\n".join(lines) + "\n")
    run_ftl_sim(*FDP2, "--trace", trace, "--stats-dir", tmp_path / "first",
                "--trace-out", recording)
    kinds = [line.split()[0] for line in recording.read_text().splitlines()
             if line and not line.startswith("#")]
    assert kinds[0] == "V" and recording.read_text().startswith("V 4\n")
    assert kinds.count("U") == 6 and kinds.count("W") == 3000
    run_ftl_sim(*FDP2, "--trace", recording, "--stats-dir", tmp_path / "again")
    for name in STATS_FILES:
        assert ((tmp_path / "again" / name).read_text() ==
                (tmp_path / "first" / name).read_text()), name
    rows = stats_rows(tmp_path / "first")
    assert sum(int(r["fdp_ru_updates"]) for r in rows) == 6
    assert sum(int(r["gc_runs"]) for r in rows) > 0, "meant to exercise GC"
    # without FDP a recording stays version 3 (a replayed v4 trace may hold zone records)
    plain = tmp_path / "plain.trace"
    run_ftl_sim(*SMALL, "--trace", trace, "--trace-out", plain)
    assert plain.read_text().startswith("V 3\n")
    assert " U " not in plain.read_text() and "\nU " not in plain.read_text()


def test_time_limit_events_are_taken(run_ftl_sim, tmp_path):
    trace = tmp_path / "slow.trace"
    # one write per 2 s on handle 0: each unit outlives a 1 s limit after its first page
    trace.write_text("V 4\n" + "".join(f"W {i * 2_000_000_000} {i * 8} 8 1 0\n"
                                        for i in range(5)))
    s, _ = summary(run_ftl_sim, tmp_path, *FDP2, "--set", "fdp_ru_time_limit_s=1",
                   "--trace", trace)
    fdp = s["fdp"]
    assert fdp["ru_time_limits"] == 4 and fdp["events_time_limit"] == 4
    assert fdp["unwritten_pages"] == 4 * 31 and fdp["events_lost"] == 0
