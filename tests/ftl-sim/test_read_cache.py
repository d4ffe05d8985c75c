"""The DRAM read cache in ftl-sim (read_cache_pages, docs/ftl.md): zipf 1.2 reads over a
filled device hit it under every policy, and every hit is a flash read saved, under page
mapping and dftl; stats.csv carries the counters only when the cache is on; bad inputs
fail with one line naming the key."""
import csv
import json

import pytest

# lab-1g: 4 KiB pages, 196608 logical pages; a cache of 1 % of them.
LAB = ["--config", "conf/lab-1g.conf"]
READS = ["--rw", "randread", "--dist", "zipf:1.2", "--precondition", "seq",
         "--io-size", "40m", "--seed", "3"]
CACHE_PAGES = 1966
COUNTERS = ("rcache_hits", "rcache_misses", "rcache_evictions")


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)  # config paths are relative to the repository


def _summary(run_ftl_sim, tmp_path, *sets, name="s"):
    args = [*LAB, *READS]
    for s in sets:
        args += ["--set", s]
    out = tmp_path / name
    run_ftl_sim(*args, "--summary", out.with_suffix(".json"), "--stats-dir", out)
    return json.loads(out.with_suffix(".json").read_text()), out / "stats.csv"


def _stats_rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("mapping", ["page", "dftl"])
@pytest.mark.parametrize("policy", ["lru", "clock", "2q", "arc"])
def test_hits_save_flash_reads(run_ftl_sim, tmp_path, policy, mapping):
    """The same reads with and without the cache: hits > 0, each one a flash read of user
    data fewer; hits + misses = every host page read (all mapped, no buffer); stats.csv's
    columns add up to the summary's."""
    plain, plain_stats = _summary(run_ftl_sim, tmp_path, f"mapping={mapping}", name="plain")
    cached, stats = _summary(run_ftl_sim, tmp_path, f"mapping={mapping}",
                             f"read_cache_pages={CACHE_PAGES}",
                             f"read_cache_policy={policy}", name="cached")
    assert cached["read_cache_policy"] == policy and "rcache_hits" not in plain
    hits, misses = cached["rcache_hits"], cached["rcache_misses"]
    assert hits > 0 and cached["rcache_evictions"] > 0
    assert hits + misses == cached["host_read_pages"] == plain["host_read_pages"]
    assert cached["rcache_hit_rate"] == pytest.approx(hits / (hits + misses), abs=1e-6)
    rows, plain_rows = _stats_rows(stats), _stats_rows(plain_stats)
    assert tuple(sum(int(r[c]) for r in rows) for c in COUNTERS) == \
        tuple(cached[c] for c in COUNTERS)
    user_reads = sum(int(r["nand_user_reads"]) for r in rows)
    assert user_reads == sum(int(r["nand_user_reads"]) for r in plain_rows) - hits
    if mapping == "page":   # with dftl a hit also skips a CMT lookup: map reads differ
        assert cached["NAND_read"] == plain["NAND_read"] - hits


def test_no_columns_without_the_cache(run_ftl_sim, tmp_path):
    _, stats = _summary(run_ftl_sim, tmp_path)
    assert not set(COUNTERS) & set(_stats_rows(stats)[0])


@pytest.mark.parametrize("sets, key", [
    (["read_cache_policy=lfu"], "read_cache_policy"),
    ([f"read_cache_pages={196608 + 1}"], "read_cache_pages"),
    # 1 MiB of DRAM cannot hold lab-1g's page map (768 KiB) beside 1966 pages (7.7 MiB)
    ([f"read_cache_pages={CACHE_PAGES}", "dram_mb=1"], "read_cache_pages"),
])
def test_bad_input_one_line_naming_the_key(run_ftl_sim, sets, key):
    args = [*LAB, *READS]
    for s in sets:
        args += ["--set", s]
    proc = run_ftl_sim(*args, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and f"{key}:" in lines[0], proc.stderr
