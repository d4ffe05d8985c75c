"""ftl-sim records a run as a version-2 trace (--trace-out) and replays one open-loop (at
the recorded arrival times) or closed-loop (--replay closed --qd N). An open-loop replay
of a recording gives the FTL the same calls at the same times: every statistics file is
the same, byte for byte."""
import csv
import json

import pytest

SMALL = ["--set", "nchs=1", "--set", "luns_per_ch=2", "--set", "blks_per_pl=32",
         "--set", "pgs_per_blk=16", "--set", "devsz_mb=3"]
STATS_FILES = ("stats.csv", "IOPSData.csv", "throughputData.csv", "GCData.csv",
               "WAFData.csv", "statistics.csv", "phases.csv", "lpn_access_count.csv")


def totals(stats_dir, *columns):
    with open(stats_dir / "stats.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return {c: sum(int(r[c]) for r in rows) for c in columns}


def records(trace):
    return [line.split()[0] for line in trace.read_text().splitlines()
            if line and not line.startswith("#")]


def test_open_loop_replay_of_a_recording_is_identical(run_ftl_sim, tmp_path):
    trace = tmp_path / "run.trace"
    run_ftl_sim(*SMALL, "--rw", "randrw", "--qd", "8", "--precondition", "seq",
                "--runtime", "3", "--stats-dir", tmp_path / "recorded", "--trace-out", trace)
    kinds = records(trace)
    assert kinds[0] == "V" and kinds[-1] == "E"
    assert kinds.count("P") == 3          # precondition, workload, end
    replayed = run_ftl_sim(*SMALL, "--trace", trace, "--stats-dir", tmp_path / "replayed")
    assert "GC:" in replayed.stdout
    gc = totals(tmp_path / "recorded", "gc_runs")["gc_runs"]
    assert gc > 10, "the run is meant to exercise GC"
    for name in STATS_FILES:
        assert ((tmp_path / "replayed" / name).read_text() ==
                (tmp_path / "recorded" / name).read_text()), name


def test_a_trace_without_phases_is_one_workload_phase(run_ftl_sim, tmp_path):
    """A foreign trace (here blkparse's) records no phases: the replay marks its own
    workload and end, after the precondition, so femu-plot's window is the replay's
    (it used to hold the precondition only, and the window took it in)."""
    trace = tmp_path / "t.blkparse"
    trace.write_text("8,0 0 1 0.000000000 1 Q W 0 + 8 [x]\n"
                     "8,0 0 2 1.000000000 1 Q W 8 + 8 [x]\n"
                     "8,0 0 3 2.500000000 1 Q W 16 + 8 [x]\n")
    run_ftl_sim(*SMALL, "--trace", trace, "--precondition", "seq",
                "--stats-dir", tmp_path / "s")
    rows = list(csv.DictReader(open(tmp_path / "s" / "phases.csv")))
    assert [r["phase"] for r in rows] == ["precondition", "workload", "end"]
    start, end = float(rows[1]["time_s"]), float(rows[2]["time_s"])
    assert start > 0 and end - start == pytest.approx(2.5, abs=0.01)


def test_a_replay_can_itself_be_recorded(run_ftl_sim, tmp_path):
    first, second = tmp_path / "first.trace", tmp_path / "second.trace"
    run_ftl_sim(*SMALL, "--rw", "randwrite", "--qd", "4", "--io-size", "2m",
                "--trace-out", first)
    run_ftl_sim(*SMALL, "--trace", first, "--trace-out", second)
    assert first.read_text().replace("by ftl-sim", "") == \
        second.read_text().replace("by ftl-sim", "")


def test_closed_loop_replay_keeps_the_requests_not_the_times(run_ftl_sim, tmp_path):
    trace = tmp_path / "run.trace"
    run_ftl_sim(*SMALL, "--rw", "randrw", "--qd", "1", "--io-size", "2m",
                "--stats-dir", tmp_path / "qd1", "--trace-out", trace)
    run_ftl_sim(*SMALL, "--trace", trace, "--replay", "closed", "--qd", "16",
                "--stats-dir", tmp_path / "qd16")
    columns = ("host_read_cmds", "host_write_cmds", "host_write_pages")
    assert totals(tmp_path / "qd1", *columns) == totals(tmp_path / "qd16", *columns)
    seconds = [float(r["time_s"]) for r in csv.DictReader(open(tmp_path / "qd16" / "stats.csv"))]
    recorded = [float(r["time_s"]) for r in csv.DictReader(open(tmp_path / "qd1" / "stats.csv"))]
    assert seconds[-1] < recorded[-1], "16 outstanding requests finish sooner than 1"


def test_deallocate_flush_and_idle_records(run_ftl_sim, tmp_path):
    trace = tmp_path / "hand.trace"
    trace.write_text("V 2\n"
                     "W 0 0 64 1 0\n"
                     "D 1000 1 0 8 32 8\n"
                     "F 2000 1\n"
                     "A 2500000000\n"
                     "R 2600000000 0 8 1\n"
                     "E 3000000000\n")
    run_ftl_sim(*SMALL, "--trace", trace, "--stats-dir", tmp_path / "s")
    got = totals(tmp_path / "s", "host_write_pages", "host_trim_cmds", "host_trim_pages",
                 "host_read_cmds")
    # The FTL counts each range of a deallocate, as it does for the device's DSM.
    assert got == {"host_write_pages": 8, "host_trim_cmds": 2, "host_trim_pages": 2,
                   "host_read_cmds": 1}
    times = [r["time_s"] for r in csv.DictReader(open(tmp_path / "s" / "stats.csv"))]
    assert times == ["1.000", "2.000", "3.000"]   # the recording's end, not the last completion


def test_days_of_idle_time_are_one_row(run_ftl_sim, tmp_path):
    """Twelve idle days between two writes (issue 29: a 10^17 ns jump wrote hundreds of
    MiB of zero rows and never ended): the statistics hold one row for the idle stretch."""
    trace = tmp_path / "gap.trace"
    trace.write_text("V 2\nW 0 0 8 1 0\nW 1000000000000000 8 8 1 0\n")
    run_ftl_sim(*SMALL, "--trace", trace, "--stats-dir", tmp_path / "s")
    rows = list(csv.DictReader(open(tmp_path / "s" / "stats.csv")))
    assert len(rows) < 20
    assert sum(int(r["host_write_cmds"]) for r in rows) == 2
    assert max(float(r["interval_s"]) for r in rows) > 999_000   # the idle row
    assert float(rows[-1]["time_s"]) == pytest.approx(1_000_001, abs=1)


@pytest.mark.parametrize("args,content,words", [
    (["--replay", "open"], "W 0 8\n", ["--replay open", "no arrival times"]),
    (["--qd", "4"], "V 2\nW 0 0 8 1 0\n", ["--qd applies to closed-loop replay"]),
    ([], "V 2\nW 0 0 8 1\n", [":2:", "W: too few fields"]),
    ([], "V 2\nR 0 99999999 8 1\n", [":2:", "beyond the device"]),
    ([], "V 2\nW 0 0 8 1 0\nW 100000000000000000 0 8 1 0\n",
     [":3:", "time 100000000000000000 ns is beyond the latest a trace may hold"]),
    # 2^55 + 8 sectors: times 512 it wraps to 4 KiB; refused, not replayed as a small write
    ([], "V 2\nW 0 0 36028797018963976 1 0\n", [":2:", "beyond the device"]),
    ([], "W 0 36028797018963976\n", [":1:", "beyond the device"]),
    ([], "W 36028797018963960 16\n", [":1:", "beyond the device"]),   # by the dry run
    ([], "V 9\n", [":1:", "version 9 is not supported"]),
])
def test_replay_errors_are_one_line(run_ftl_sim, tmp_path, args, content, words):
    trace = tmp_path / "bad.trace"
    trace.write_text(content)
    proc = run_ftl_sim(*SMALL, "--trace", trace, *args, check=False)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), proc.stderr


def test_replay_needs_a_trace(run_ftl_sim):
    proc = run_ftl_sim("--replay", "open", check=False)
    assert proc.returncode == 2 and "--replay needs --trace" in proc.stderr


def test_trace_out_on_a_full_disk(run_ftl_sim):
    proc = run_ftl_sim(*SMALL, "--trace-out", "/dev/full", check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "ftl-sim: --trace-out: /dev/full: write failed: No space left on device"]


def test_trace_out_that_cannot_be_created(run_ftl_sim, tmp_path):
    proc = run_ftl_sim(*SMALL, "--trace-out", tmp_path / "no" / "such" / "t.trace",
                       check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        f"ftl-sim: --trace-out: {tmp_path}/no/such/t.trace: cannot create: "
        "No such file or directory"]


def test_verify_and_format_records(run_ftl_sim, tmp_path):
    """Y (verify) and X (format) records replay through the FTL and record again as
    they were; a verify fails like a read under read_uncor_ppm, and the run goes on."""
    trace, again = tmp_path / "hand.trace", tmp_path / "again.trace"
    trace.write_text("V 2\n"
                     "W 0 0 512 1 0\n"          # 64 pages: two whole lines
                     "Y 1000 0 64 1\n"          # 8 mapped pages, each fails
                     "X 2000 1 0 512 1\n"       # both lines emptied and erased
                     "X 3000 1 512 64 0\n"      # nothing there, no erase
                     "R 4000 0 8 1\n"           # unmapped now: no flash read
                     "E 1000000000\n")
    summary = tmp_path / "s.json"
    proc = run_ftl_sim(*SMALL, "--set", "read_uncor_ppm=1000000", "--trace", trace,
                       "--trace-out", again, "--summary", summary)
    got = json.loads(summary.read_text())
    assert (got["verify_cmds"], got["read_errors"]) == (1, 8)
    assert (got["format_cmds"], got["format_erased_blocks"]) == (2, 4)
    assert got["wear"]["erase_max"] == 1 and got["wear"]["bad_blocks"] == 0
    assert "flash: 8 read errors, 2 formats (4 blocks erased), 0 bad blocks" in proc.stdout
    body = [line for line in again.read_text().splitlines() if not line.startswith("#")]
    # the trace records no phases, so the replay marked its workload and end (P records)
    assert [line for line in body if line.startswith("P ")] == ["P 0 workload",
                                                              "P 1000000000 end"]
    assert [line for line in body if not line.startswith("P ")] == \
        trace.read_text().splitlines()


def test_summary_reports_bad_blocks_and_wear(run_ftl_sim, tmp_path):
    summary = tmp_path / "s.json"
    proc = run_ftl_sim(*SMALL, "--set", "bad_blk_pcent=10", "--set", "devsz_mb=2",
                       "--rw", "randwrite", "--precondition", "seq", "--io-size", "8m",
                       "--check-every", "500", "--summary", summary)
    wear = json.loads(summary.read_text())["wear"]
    assert wear["blocks"] == 64 and wear["bad_blocks"] == 6   # 3 of 32 on each LUN
    assert wear["spare_blocks"] == wear["spare_blocks_total"] - 6
    assert 0 < wear["erase_min"] <= wear["erase_avg"] <= wear["erase_max"]
    assert ", 6 bad blocks; erase counts min " in proc.stdout


def phase_counts(stats_dir, column):
    """{phase: its count of column}: the difference of its phases.csv snapshot and the
    next one's."""
    rows = list(csv.DictReader(open(stats_dir / "phases.csv")))
    return {row["phase"]: int(after[column]) - int(row[column])
            for row, after in zip(rows, rows[1:])}


def test_closed_loop_replay_keeps_the_recorded_phases(run_ftl_sim, tmp_path):
    """A closed-loop replay of a recording marks the recording's phases, no `workload` of
    its own and no second `end` (issue 41), each phase with the recorded requests."""
    trace = tmp_path / "run.trace"
    run_ftl_sim(*SMALL, "--rw", "randrw", "--qd", "1", "--precondition", "seq",
                "--io-size", "2m", "--stats-dir", tmp_path / "qd1", "--trace-out", trace)
    run_ftl_sim(*SMALL, "--trace", trace, "--replay", "closed", "--qd", "16",
                "--stats-dir", tmp_path / "qd16")
    phases = [r["phase"] for r in csv.DictReader(open(tmp_path / "qd16" / "phases.csv"))]
    assert phases == ["precondition", "workload", "end"]
    for column in ("host_read_cmds", "host_write_pages"):
        assert phase_counts(tmp_path / "qd16", column) == \
            phase_counts(tmp_path / "qd1", column)


def test_phase_snapshots_split_a_second(run_ftl_sim, tmp_path):
    """Phase marks at 1.5 s and 1.75 s, inside one 1 s row: each phase's counts in
    phases.csv are its own requests, where the 1-2 s row of stats.csv holds all three
    phases' (issue 41: a per-phase table summed whole seconds)."""
    trace = tmp_path / "marks.trace"
    trace.write_text("V 2\n"
                     "P 0 fill\n"
                     "W 200000000 0 64 1 0\n"          # 8 pages
                     "W 1200000000 64 32 1 0\n"        # 4 pages
                     "P 1500000000 compact\n"
                     "R 1600000000 0 16 1\n"           # 2 pages
                     "W 1700000000 96 8 1 0\n"         # 1 page
                     "P 1750000000 verify\n"
                     "R 1800000000 0 96 1\n"           # 12 pages
                     "P 2500000000 end\n"
                     "E 2500000000\n")
    run_ftl_sim(*SMALL, "--trace", trace, "--stats-dir", tmp_path / "s")
    got = {column: phase_counts(tmp_path / "s", column)
           for column in ("host_write_pages", "host_read_pages", "host_read_cmds",
                          "NAND_read", "NAND_write")}
    assert got["host_write_pages"] == {"fill": 12, "compact": 1, "verify": 0}
    assert got["host_read_pages"] == {"fill": 0, "compact": 2, "verify": 12}
    assert got["host_read_cmds"] == {"fill": 0, "compact": 1, "verify": 1}
    assert got["NAND_read"] == got["host_read_pages"]
    assert got["NAND_write"] == got["host_write_pages"]
    second = list(csv.DictReader(open(tmp_path / "s" / "stats.csv")))[1]
    assert (int(second["host_read_pages"]), int(second["host_write_pages"])) == (14, 5)
