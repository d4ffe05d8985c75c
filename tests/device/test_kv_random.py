"""Random Key Value commands against a Python dict model, over qtest: every command's
status is the one the model predicts (Invalid Key Size, Invalid Value Size, Invalid
Field, KV Key Does Not Exist, KV Key Exists, Capacity Exceeded, or success), every
Retrieve returns the model's bytes and size, every List the model's keys in order as far
as the buffer holds them, and a final List and Retrieve of every key agree key for key and
value for value. Keys share prefixes (a prefix orders before its extensions), values
straddle kv_max_value, the key count reaches kv_max_keys, and feature 20h (EDNEK) flips."""
import random

import pytest

from kv_qtest import (FEAT_KV_CONFIG, SC_CAPACITY_EXCEEDED, SC_INVALID_FIELD,
                      SC_INVALID_KEY_SIZE, SC_INVALID_VALUE_SIZE, SC_KEY_EXISTS,
                      SC_KEY_NOT_EXIST, SO_NO_OVERWRITE, SO_OVERWRITE_ONLY, all_keys, delete,
                      exist, kv_device, list_raw, parse_list, retrieve, store)
from nvme_qtest import femu_only, nvme_qemu, start  # noqa: F401

pytestmark = femu_only()

MAX_VALUE, MAX_KEYS, OPS = 512, 12, 400
KEYS = [b"a", b"ab", b"abc", b"b", b"ba", b"\x00", b"\xff" * 16, b"k" * 15, b"k" * 16,
        b"m1", b"m2", b"m3", b"z", b"zz", b"q", b"r"]


def entry_bytes(key):
    return (2 + len(key) + 3) // 4 * 4


def expect_list(model, start_key, buf_len):
    keys, used = [], 4
    for key in sorted(k for k in model if k >= start_key):
        if used + entry_bytes(key) > buf_len:
            break
        keys.append(key)
        used += entry_bytes(key)
    return keys if buf_len >= 4 else []


@pytest.mark.parametrize("seed", [1, 2])
def test_random_commands_agree_with_a_dict_model(start, seed):
    r = random.Random(seed)
    nvme, sq = kv_device(start, f"kv_max_value={MAX_VALUE},kv_max_keys={MAX_KEYS}")
    model, ednek = {}, False
    for step in range(OPS):
        op = r.choice(["store"] * 4 + ["retrieve"] * 2 + ["delete", "exist", "list", "kl",
                                                           "ednek"])
        key = r.choice(KEYS)
        why = f"seed {seed} step {step}: {op} {key!r}"
        if op == "kl":                     # a key length of 0 or over 16 on any command
            kl, cmd = r.choice([0, 17, 255]), r.choice([store, retrieve, exist, delete])
            args = {store: (b"v",), retrieve: (16,), exist: (), delete: ()}[cmd]
            cqe = cmd(nvme, sq, key, *args, kl=kl)
            cqe = cqe[0] if isinstance(cqe, tuple) else cqe
            assert cqe.code == SC_INVALID_KEY_SIZE, why
        elif op == "ednek":
            ednek = not ednek
            assert nvme.set_features(FEAT_KV_CONFIG, int(ednek)).ok, why
        elif op == "store":
            size = r.choice([0, 1, 7, 100, MAX_VALUE, MAX_VALUE + 1, r.randrange(600)])
            value = bytes(r.getrandbits(8) for _ in range(size))
            opts = r.choice([0, 0, 0, SO_OVERWRITE_ONLY, SO_NO_OVERWRITE,
                             SO_OVERWRITE_ONLY | SO_NO_OVERWRITE])
            if opts == SO_OVERWRITE_ONLY | SO_NO_OVERWRITE:     # the fields first
                want = SC_INVALID_FIELD
            elif size > MAX_VALUE:
                want = SC_INVALID_VALUE_SIZE
            elif opts == SO_OVERWRITE_ONLY and key not in model:
                want = SC_KEY_NOT_EXIST
            elif opts == SO_NO_OVERWRITE and key in model:
                want = SC_KEY_EXISTS
            elif key not in model and len(model) >= MAX_KEYS:
                want = SC_CAPACITY_EXCEEDED
            else:
                want = 0
            cqe = store(nvme, sq, key, value, opts, size=size)
            assert cqe.code == want, f"{why}: {cqe}, expected {want:#x}"
            if want == 0:
                model[key] = value
        elif op == "retrieve":
            buf_len = r.choice([0, 1, 16, 300, 4096])
            cqe, got = retrieve(nvme, sq, key, buf_len)
            if key not in model:
                assert cqe.code == SC_KEY_NOT_EXIST, why
            else:
                value = model[key]
                assert cqe.ok and cqe.dw0 == len(value), f"{why}: {cqe}"
                n = min(buf_len, len(value))
                assert got[:n] == value[:n] and got[n:] == b"\xEE" * (buf_len - n), why
        elif op == "delete":
            cqe = delete(nvme, sq, key)
            want = SC_KEY_NOT_EXIST if key not in model and ednek else 0
            assert cqe.code == want, f"{why}: {cqe}"
            model.pop(key, None)
        elif op == "exist":
            assert exist(nvme, sq, key).code == (0 if key in model else SC_KEY_NOT_EXIST), why
        else:
            buf_len = r.choice([4, 8, 12, 20, 64, 4096])
            cqe, buf = list_raw(nvme, sq, key, buf_len)
            assert cqe.ok, why
            assert parse_list(buf) == expect_list(model, key, buf_len), why
    assert all_keys(nvme, sq) == sorted(model)
    for key, value in model.items():
        cqe, got = retrieve(nvme, sq, key, MAX_VALUE)
        assert cqe.dw0 == len(value) and got[:len(value)] == value, key
