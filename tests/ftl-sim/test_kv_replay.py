"""A key-value run is recorded (ftl-sim --kv --trace-out: a version-6 trace of KS, KR, KD,
KE, KL records) from an aged KV state (--state-out of an earlier --kv run, section KVST),
and replays from the same state (--state-in --trace) to the same statistics files, byte for
byte: the store's admission, flash record, log, compactions and index cache came back
from the state file, and every KV record went through the engine's admission again."""
import csv

SMALL = ["--set", "nchs=1", "--set", "luns_per_ch=2", "--set", "blks_per_pl=64",
         "--set", "pgs_per_blk=16", "--set", "devsz_mb=6", "--set", "kv_max_keys=512"]
KV = ["--kv", "--kv-keys", "200", "--kv-ops", "3000", "--kv-value-size", "4k", "--qd", "4"]
STATS_FILES = ("stats.csv", "IOPSData.csv", "throughputData.csv", "GCData.csv",
               "WAFData.csv", "statistics.csv", "phases.csv", "lpn_access_count.csv")


def column_sum(stats_dir, column):
    with open(stats_dir / "stats.csv", newline="") as f:
        return sum(int(row[column] or 0) for row in csv.DictReader(f))


def test_recorded_kv_run_replays_to_identical_statistics(run_ftl_sim, tmp_path):
    aged = tmp_path / "aged.state"
    trace = tmp_path / "kv.trace"
    run_ftl_sim(*SMALL, *KV, "--state-out", aged)
    run_ftl_sim(*SMALL, "--state-in", aged, *KV, "--trace-out", trace,
                "--stats-dir", tmp_path / "recorded")
    lines = [line.split()[0] for line in trace.read_text().splitlines()
             if line and not line.startswith("#")]
    assert lines[0] == "V" and trace.read_text().startswith("V 6\n")
    assert lines.count("KS") > 1000 and lines.count("KR") > 0
    assert column_sum(tmp_path / "recorded", "kv_compactions") > 0
    run_ftl_sim(*SMALL, "--state-in", aged, "--trace", trace,
                "--stats-dir", tmp_path / "replayed")
    assert (column_sum(tmp_path / "replayed", "kv_stores") ==
            column_sum(tmp_path / "recorded", "kv_stores") > 1000)
    for name in STATS_FILES:
        assert ((tmp_path / "replayed" / name).read_text() ==
                (tmp_path / "recorded" / name).read_text()), name


def test_kv_record_in_a_version_5_trace_is_refused(run_ftl_sim, tmp_path):
    trace = tmp_path / "old.trace"
    trace.write_text("V 5\nW 0 0 8 1 0\nKS 10 1 6b 100 1 0\nE 20\n")
    result = run_ftl_sim(*SMALL, "--trace", trace, check=False)
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(errors) == 1
    assert f"{trace}:3: KS: a key-value record needs a version-6 trace" in errors[0]
