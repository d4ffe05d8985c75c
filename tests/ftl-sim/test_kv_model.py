"""The FTL's key-value layer against a Python dict: 10^5 random Store / Retrieve / Delete /
Exist / List operations (ftl-sim --kv-ops-file) on a store small enough that compaction
runs many times; every operation's status and result (--kv-log) and every key at the end
(--kv-dump: size and tag) must be the model's. A Store's tag is its operation's number."""
import json
import random

import pytest

# A 4 MiB device (2 LUNs of 32 blocks of 16 pages of 4 KiB), 3 MiB of it logical; values
# of at most 16 KiB, so the value log has segments to compact.
TINY = ["--set", "nchs=1", "--set", "luns_per_ch=2", "--set", "blks_per_pl=32",
        "--set", "pgs_per_blk=16", "--set", "secs_per_pg=8", "--set", "secsz=512",
        "--set", "devsz_mb=3", "--set", "kv_max_value=16384"]
OPS = 100_000
POOL = 400          # distinct keys the operations draw from
LIST_MAX = 20


def pool_keys(rng):
    """Keys of 1-16 bytes over a small alphabet, so that many are prefixes of others."""
    keys = set()
    while len(keys) < POOL:
        keys.add(bytes(rng.choice(b"\x00\x01a\xff") for _ in range(rng.randint(1, 16))))
    return sorted(keys)


def make_ops(rng, keys, max_value):
    """(kind, key, arg, flag) tuples and the file's lines."""
    ops, lines = [], []
    for _ in range(OPS):
        key = rng.choice(keys) if rng.random() < 0.95 else bytes([rng.randint(0, 255)])
        kind = rng.choices(["store", "retrieve", "delete", "exist", "list"],
                           [45, 20, 15, 8, 12])[0]
        arg, flag = 0, ""
        if kind == "store":
            arg = rng.randint(0, 16000) if rng.random() < 0.995 else max_value + 1
            flag = rng.choices(["", "exist", "absent"], [80, 10, 10])[0]
        elif kind == "list":
            arg = rng.randint(0, LIST_MAX)
        ops.append((kind, key, arg, flag))
        fields = [kind, key.hex()] + ([str(arg)] if kind in ("store", "list") else [])
        lines.append(" ".join(fields + ([flag] if flag else [])))
    return ops, lines


class Model:
    """kv.h's admission rules over a dict: key -> (size, tag)."""

    def __init__(self, capacity, max_keys, max_value):
        self.d, self.live = {}, 0
        self.capacity, self.max_keys, self.max_value = capacity, max_keys, max_value

    def store(self, key, size, flag, tag):
        old = self.d.get(key)
        if size > self.max_value:
            return "value_size"
        if flag == "exist" and old is None:
            return "no_key"
        if flag == "absent" and old is not None:
            return "key_exists"
        live = self.live - (old[0] if old else 0) + size
        if (old is None and len(self.d) >= self.max_keys) or live > self.capacity:
            return "capacity"
        self.d[key], self.live = (size, tag), live
        return "ok"

    def apply(self, n, kind, key, arg, flag):
        """The log line's fields after N and the key, as ftl-sim writes them."""
        if kind == "store":
            return [self.store(key, arg, flag, n)]
        if kind == "list":
            found = [k for k in sorted(self.d) if k >= key][:arg]
            return ["ok", str(len(found))] + [k.hex() for k in found]
        if key not in self.d:
            return ["no_key"]
        if kind == "retrieve":
            size, tag = self.d[key]
            return ["ok", str(size), str(tag)]
        if kind == "delete":
            self.live -= self.d.pop(key)[0]
        return ["ok"]


def store_limits(run_ftl_sim, tmp_path):
    """The store's capacity, key limit and largest value, from a one-operation run."""
    one = tmp_path / "one.ops"
    one.write_text("exist 00\n")
    summary = tmp_path / "limits.json"
    run_ftl_sim(*TINY, "--kv", "--kv-ops-file", one, "--summary", summary)
    kv = json.loads(summary.read_text())["kv"]
    return kv["capacity_bytes"], kv["max_keys"], kv["max_value_bytes"]


def test_a_hundred_thousand_operations_agree_with_a_dict(run_ftl_sim, tmp_path):
    capacity, max_keys, max_value = store_limits(run_ftl_sim, tmp_path)
    rng = random.Random(45)
    ops, lines = make_ops(rng, pool_keys(rng), max_value)
    ops_file, log, dump, summary = (tmp_path / n for n in ("run.ops", "run.log", "run.dump",
                                                           "run.json"))
    ops_file.write_text("# the reference model's operations\n" + "\n".join(lines) + "\n")
    run_ftl_sim(*TINY, "--kv", "--kv-ops-file", ops_file, "--kv-log", log,
                "--kv-dump", dump, "--summary", summary, "--qd", "4")

    model = Model(capacity, max_keys, max_value)
    logged = log.read_text().splitlines()
    assert len(logged) == OPS
    statuses = {}
    for n, ((kind, key, arg, flag), line) in enumerate(zip(ops, logged), start=1):
        want = [str(n), kind, key.hex()] + model.apply(n, kind, key, arg, flag)
        assert line.split() == want, f"operation {n}: {lines[n - 1]}"
        statuses[want[3]] = statuses.get(want[3], 0) + 1

    final = [(k.hex(), str(size), str(tag)) for k, (size, tag) in sorted(model.d.items())]
    assert [tuple(line.split()) for line in dump.read_text().splitlines()] == final
    kv = json.loads(summary.read_text())["kv"]
    assert kv["kv_compactions"] > 0 and kv["kv_keys"] == len(model.d)
    assert kv["kv_live_bytes"] == model.live
    # every outcome occurred, so every rule was compared
    assert set(statuses) == {"ok", "no_key", "key_exists", "capacity", "value_size"}
    assert sum(sum(c.values()) for c in kv["status"].values()) == OPS


@pytest.mark.xfail(reason="the KV layer (branch kvftl at 9e54f6e): with the value log full of "
                   "live records (64-byte values, 88-byte records) the engine answers a Store "
                   "Capacity Exceeded after admission accepted and kept it", strict=False)
def test_a_store_refused_when_the_log_is_full_is_not_kept(run_ftl_sim, tmp_path):
    log, dump, summary = tmp_path / "l.log", tmp_path / "d.dump", tmp_path / "s.json"
    run_ftl_sim(*TINY, "--set", "kv_max_keys=30000", "--kv", "--kv-mix", "c",
                "--kv-keys", "27000", "--kv-ops", "1", "--kv-value-size", "64",
                "--kv-log", log, "--kv-dump", dump, "--summary", summary)
    refused = {line.split()[2] for line in log.read_text().splitlines()
               if line.split()[1] == "store" and line.split()[3] != "ok"}
    kept = {line.split()[0] for line in dump.read_text().splitlines()}
    assert refused & kept == set()
    assert json.loads(summary.read_text())["kv"]["kv_keys"] == len(kept)
