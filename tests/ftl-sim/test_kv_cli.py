"""ftl-sim --kv's YCSB workloads: each mix's shares of operations, zipfian's and latest's
skew, the same summary from the same seed, and each bad option or ops-file line refused in
one line naming it (exit 2)."""
import collections
import json

import pytest

TINY = ["--set", "nchs=1", "--set", "luns_per_ch=2", "--set", "blks_per_pl=32",
        "--set", "pgs_per_blk=16", "--set", "secs_per_pg=8", "--set", "secsz=512",
        "--set", "devsz_mb=3", "--set", "kv_max_value=16384"]
KV = [*TINY, "--kv", "--kv-value-size", "256", "--kv-keys", "1000"]
# YCSB's core workloads: percent of operations by kind (read, update, insert, scan, rmw)
SHARES = {"a": {"read": 50, "update": 50}, "b": {"read": 95, "update": 5},
          "c": {"read": 100}, "d": {"read": 95, "insert": 5},
          "e": {"scan": 95, "insert": 5}, "f": {"read": 50, "rmw": 50}}


def summary_of(run_ftl_sim, tmp_path, *args, name="s.json"):
    path = tmp_path / name
    run_ftl_sim(*args, "--summary", path)
    return json.loads(path.read_text())


@pytest.mark.parametrize("mix", sorted(SHARES))
def test_each_mix_issues_its_shares(run_ftl_sim, tmp_path, mix):
    ops = 3000
    kv = summary_of(run_ftl_sim, tmp_path, *KV, "--kv-mix", mix, "--kv-ops", ops)["kv"]
    assert kv["ops"] == ops and kv["keys_loaded"] == 1000
    for kind, count in kv["mix_ops"].items():
        share = SHARES[mix].get(kind, 0) / 100
        sigma = (ops * share * (1 - share)) ** 0.5
        assert abs(count - ops * share) <= 4 * sigma + 1, (kind, count)
    # every operation found its key: reads and scans hit loaded or inserted keys
    failed = sum(n for c in kv["status"].values() for s, n in c.items() if s != "ok")
    assert failed == 0
    assert kv["load"]["ops"] == 1000 and kv["load"]["status"]["store"]["ok"] == 1000
    served = kv["latency_us"]["list" if mix == "e" else "retrieve"]["count"]
    assert kv["ops_per_s"] > 0 and served == kv["status"]["list" if mix == "e" else "retrieve"]["ok"]


def key_counts(log_path):
    """Retrieves per key in a --kv-log."""
    return collections.Counter(line.split()[2] for line in log_path.read_text().splitlines()
                               if line.split()[1] == "retrieve")


def zipf_top_share(n, theta=0.99):
    return 1 / sum(i ** -theta for i in range(1, n + 1))


@pytest.mark.parametrize("dist", ["zipfian", "latest", "uniform"])
def test_key_choice_skew(run_ftl_sim, tmp_path, dist):
    log = tmp_path / "kv.log"
    ops = 20000
    run_ftl_sim(*KV, "--kv-mix", "c", "--kv-dist", dist, "--kv-ops", ops, "--kv-log", log)
    counts = key_counts(log)
    top_key, top = counts.most_common(1)[0]
    if dist == "uniform":
        assert top / ops < 5 / 1000 and len(counts) > 990
        return
    assert top / ops == pytest.approx(zipf_top_share(1000), abs=0.02)
    if dist == "latest":    # the newest key, user000000000999, is the hottest
        assert bytes.fromhex(top_key) == b"user000000000999"


def test_same_seed_same_summary_other_seed_other_run(run_ftl_sim, tmp_path):
    args = [*KV, "--kv-mix", "a", "--kv-ops", "2000", "--kv-value-size", "uniform:100:3000"]
    one = summary_of(run_ftl_sim, tmp_path, *args, "--seed", "7", name="1.json")
    two = summary_of(run_ftl_sim, tmp_path, *args, "--seed", "7", name="2.json")
    other = summary_of(run_ftl_sim, tmp_path, *args, "--seed", "8", name="3.json")
    assert one == two
    assert one["kv"]["kv_store_bytes"] != other["kv"]["kv_store_bytes"]


def test_dump_lists_the_loaded_keys_in_order(run_ftl_sim, tmp_path):
    dump = tmp_path / "kv.dump"
    run_ftl_sim(*TINY, "--kv", "--kv-keys", "50", "--kv-mix", "c", "--kv-ops", "10",
                "--kv-value-size", "100", "--kv-dump", dump)
    rows = [line.split() for line in dump.read_text().splitlines()]
    assert [bytes.fromhex(r[0]) for r in rows] == [b"user%012d" % i for i in range(50)]
    assert [(r[1], r[2]) for r in rows] == [("100", str(i + 1)) for i in range(50)]


@pytest.mark.parametrize("args, message", [
    (["--kv", "--kv-mix", "g"], "--kv-mix: 'g' is not one of a, b, c, d, e, f"),
    (["--kv", "--kv-dist", "pareto"], "--kv-dist: 'pareto' is not one of"),
    (["--kv", "--kv-keys", "0"], "--kv-keys: '0' is not a whole number"),
    (["--kv", "--kv-ops", "-1"], "--kv-ops: '-1' is not a whole number"),
    (["--kv", "--kv-value-size", "uniform:2k:1k"], "--kv-value-size: MIN 2k is above MAX 1k"),
    (["--kv", "--kv-value-size", "uniform:1k"], "--kv-value-size: expected SIZE or uniform"),
    (["--kv", "--kv-value-size", "5g"], "--kv-value-size: '5g' is not below 4 GiB"),
    (["--kv", "--kv-value-size", "lots"], "--kv-value-size: "),
    (["--kv-mix", "a"], "--kv-mix needs --kv"),
    (["--kv-dump", "x"], "--kv-dump needs --kv"),
    (["--kv", "--rw", "read"], "--rw: a block workload's option"),
    (["--kv", "--precondition", "seq"], "--precondition: a block workload's option"),
    (["--kv", "--kv-ops-file", "f.ops", "--kv-keys", "5"], "--kv-ops-file: excludes"),
    (["--kv", "--kv-dump", "/no/such/folder/d"], "--kv-dump /no/such/folder/d: its folder"),
    (["--kv", "--kv-log", "/no/such/folder/l"], "--kv-log /no/such/folder/l: its folder"),
    (["--kv", "--kv-keys", "999999999999", "--kv-ops", "1"], "--kv-keys: with --kv-ops"),
])
def test_bad_options_are_one_line(run_ftl_sim, args, message):
    proc = run_ftl_sim(*TINY, *args, check=False)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and message in lines[0], proc.stderr


@pytest.mark.parametrize("line, message", [
    ("put 00 1", "unknown operation 'put'"),
    ("store 00", "store takes 3 to 4 fields, got 2"),
    ("retrieve 00 5", "retrieve takes 2 to 2 fields, got 3"),
    ("store 0 5", "key '0' is not 1-16 bytes"),
    ("store zz 5", "key 'zz' is not 1-16 bytes"),
    ("exist " + "00" * 17, "key '" + "00" * 17 + "' is not 1-16 bytes"),
    ("store 00 4294967296", "size '4294967296' is not a whole number below 2^32"),
    ("store 00 -1", "size '-1' is not"),
    ("store 00 5 maybe", "store option 'maybe' is not exist or absent"),
    ("list 00 65537", "MAX '65537' is not a whole number in [0, 65536]"),
    ("list 00", "list takes 3 to 3 fields, got 2"),
    ("delete 00 1 2 3 4", "too many fields"),
])
def test_bad_ops_file_lines_name_file_and_line(run_ftl_sim, tmp_path, line, message):
    ops = tmp_path / "bad.ops"
    ops.write_text("# first\nstore 00 1\n\n" + line + "\nretrieve 00\n")
    proc = run_ftl_sim(*TINY, "--kv", "--kv-ops-file", ops, check=False)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert f"{ops}:4: {message}" in lines[0]
