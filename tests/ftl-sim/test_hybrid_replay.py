"""A recording of a hybrid-mapped run replays to identical statistics: FAST and BAST runs
with partial and full merges recorded with --trace-out and replayed open-loop give the same
statistics files, byte for byte (as test_replay.py holds for page mapping)."""
import csv

import pytest

TINY = ["--set", "nchs=1", "--set", "luns_per_ch=2", "--set", "blks_per_pl=32",
        "--set", "pgs_per_blk=16", "--set", "devsz_mb=3", "--set", "gc_unit=block",
        "--set", "gc_mode=line", "--set", "log_blocks=6"]
STATS_FILES = ("stats.csv", "IOPSData.csv", "throughputData.csv", "GCData.csv",
               "WAFData.csv", "statistics.csv", "phases.csv", "lpn_access_count.csv")


def totals(stats_dir, *columns):
    with open(stats_dir / "stats.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return {c: sum(int(r[c]) for r in rows) for c in columns}


@pytest.mark.parametrize("mapping", ["fast", "bast"])
def test_a_hybrid_recording_replays_identically(run_ftl_sim, tmp_path, mapping):
    trace = tmp_path / "run.trace"
    config = [*TINY, "--set", f"mapping={mapping}"]
    # random writes over a hot quarter and reads, after a fill: merges of several types
    # (ftl_check after every request)
    run_ftl_sim(*config, "--rw", "randrw", "--rwmixread", "30", "--qd", "4",
                "--dist", "hotcold:25:80", "--precondition", "seq", "--io-size", "3m",
                "--check-every", "1", "--stats-dir", tmp_path / "recorded",
                "--trace-out", trace)
    merges = totals(tmp_path / "recorded", "merge_partial", "merge_full")
    assert merges["merge_partial"] > 0 and merges["merge_full"] > 0, "meant to merge"
    run_ftl_sim(*config, "--trace", trace, "--stats-dir", tmp_path / "replayed")
    for name in STATS_FILES:
        assert ((tmp_path / "replayed" / name).read_text() ==
                (tmp_path / "recorded" / name).read_text()), name
