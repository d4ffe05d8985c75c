"""A key-value run is recorded (ftl-sim --kv --trace-out: a version-6 trace of KS, KR, KD,
KE, KL records) from an aged KV state (--state-out of an earlier --kv run, section KVST),
and replays from the same state (--state-in --trace) to the same statistics files, byte for
byte: the store's admission, flash record, log, compactions and index cache came back
from the state file, and every KV record went through the engine's admission again."""
import csv

SMALL = ["--set", "nchs=1", "--set", "luns_per_ch=2", "--set", "blks_per_pl=64",
         "--set", "pgs_per_blk=16", "--set", "devsz_mb=6", "--set", "kv_max_keys=512",
         "--set", "kv_max_value=16384"]
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


def test_a_kv_run_from_an_empty_device_records_its_store_and_replays(run_ftl_sim, tmp_path):
    """Without a state file the store --kv makes is the recording's first record (KC), so
    the recording replays on its own."""
    trace = tmp_path / "kv.trace"
    run_ftl_sim(*SMALL, *KV, "--trace-out", trace, "--stats-dir", tmp_path / "recorded")
    records = [line.split() for line in trace.read_text().splitlines()
               if line and not line.startswith("#")]
    assert records[1][:3] == ["KC", "0", "1"] and records[1][3] == "0"
    assert sum(1 for r in records if r[0] == "KC") == 1
    run_ftl_sim(*SMALL, "--trace", trace, "--stats-dir", tmp_path / "replayed")
    for name in STATS_FILES:
        assert ((tmp_path / "replayed" / name).read_text() ==
                (tmp_path / "recorded" / name).read_text()), name


def replay_summary(run_ftl_sim, tmp_path, text, **kw):
    trace = tmp_path / "hand.trace"
    trace.write_text(text)
    result = run_ftl_sim(*SMALL, "--trace", trace, "--stats-dir", tmp_path / "stats",
                         "--summary", tmp_path / "s.json", **kw)
    return trace, result


def test_a_store_s_life_replays_as_recorded(run_ftl_sim, tmp_path):
    """Hand-computed: KS at 10 stores; KS No Overwrite of the same key at 20 is refused; X
    over exactly the store's range empties it (admission too), so KS No Overwrite at 40
    stores; KX ends the store, KC makes a new, empty one, where KE at 70 finds no key.
    Two stores served, two commands refused and counted."""
    import json
    _, result = replay_summary(run_ftl_sim, tmp_path,
                               "V 6\nKC 0 1 0 4096 65536\nKS 10 1 6b 100 1 0\n"
                               "KS 20 1 6b 100 2 256\nX 30 1 0 4096 0\nKS 40 1 6b 100 3 256\n"
                               "KX 50 1\nKC 60 1 0 4096 65536\nKE 70 1 6b\nE 80\n")
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["kv_refused"] == 2
    assert "key-value: 2 replayed commands refused" in result.stdout
    assert column_sum(tmp_path / "stats", "kv_stores") == 2
    assert column_sum(tmp_path / "stats", "kv_exists") == 0


def one_error(result):
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(errors) == 1, result.stderr
    return errors[0]


def test_kv_records_without_their_store_fail_in_one_line(run_ftl_sim, tmp_path):
    _, result = replay_summary(run_ftl_sim, tmp_path, "V 6\nKS 10 2 6b 100 1 0\nE 20\n",
                               check=False)
    assert "key-value store of namespace 2 failed" in one_error(result)
    _, result = replay_summary(run_ftl_sim, tmp_path,
                               "V 6\nKC 0 1 0 4096 65536\nKX 5 1\nKE 10 1 6b\nE 20\n",
                               check=False)
    assert "key-value exist of namespace 1 failed" in one_error(result)


def test_a_kc_record_the_ftl_cannot_make_fails_in_one_line(run_ftl_sim, tmp_path):
    for text, want in (
            ("V 6\nKC 0 1 0 4096 65536\nKC 1 1 8192 4096 65536\n", "store creation of "
             "namespace 1 failed"),                           # a second store for nsid 1
            ("V 6\nKC 0 1 0 64 1073741824\n", "store creation of namespace 1 failed"),
            ("V 6\nKC 0 1 0 999999999 100\n", "are beyond the device's")):
        trace, result = replay_summary(run_ftl_sim, tmp_path, text, check=False)
        assert want in one_error(result), text


def test_a_kx_record_without_its_store_fails_in_one_line(run_ftl_sim, tmp_path):
    _, result = replay_summary(run_ftl_sim, tmp_path, "V 6\nKX 5 3\nE 20\n", check=False)
    assert "key-value store's end of namespace 3 failed" in one_error(result)
