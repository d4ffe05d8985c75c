"""The Key Value command set over qtest (kv_ns_mb): each command's fields and statuses
against hand-computed cases, and after every error the keys as they were (List and Exist).
Field positions and status values: KV Command Set 1.0 (cmd/io/kv.c)."""
import struct

import pytest

from kv_qtest import (FEAT_KV_CONFIG, KV_DELETE, KV_EXIST, KV_LIST, KV_MB, KV_NSID, KV_STORE,
                      NVM_NSID, SC_CAPACITY_EXCEEDED, SC_INVALID_FIELD, SC_INVALID_KEY_SIZE,
                      SC_INVALID_OPCODE, SC_INVALID_VALUE_SIZE, SC_KEY_EXISTS,
                      SC_KEY_NOT_EXIST, SO_NO_COMPRESSION, SO_NO_OVERWRITE,
                      SO_OVERWRITE_ONLY, all_keys, delete, exist, kv_cmd, kv_device,
                      list_raw, parse_list, retrieve, store)
from nvme_qtest import Command, femu_only, nvme_qemu, pattern, start  # noqa: F401

pytestmark = femu_only()

IO_WRITE_ZEROES, IO_READ = 0x08, 0x02


def test_key_bytes_come_from_cdw2_3_and_cdw14_15_in_order(start):
    """A 13-byte key: bytes 0-7 from CDW2-3, 8-11 from CDW14, 12 from CDW15 bits 7:0; List
    returns them as stored, and a key differing only in byte 12 is another."""
    nvme, sq = kv_device(start)
    key = b"ABCDEFGHIJKLM"
    assert store(nvme, sq, key, b"v1").ok
    assert all_keys(nvme, sq) == [key]
    assert exist(nvme, sq, key).ok
    assert exist(nvme, sq, b"ABCDEFGHIJKLN").code == SC_KEY_NOT_EXIST
    assert exist(nvme, sq, key[:12]).code == SC_KEY_NOT_EXIST     # a prefix is another key
    # the same bytes placed as the dwords say: byte 8 'I' is CDW14 bits 7:0
    cmd = kv_cmd(KV_EXIST, key)
    assert cmd.cdw2 == struct.unpack("<I", b"ABCD")[0] and cmd.cdw14 & 0xFF == ord("I")
    full = bytes(range(0x30, 0x40))                               # 16 bytes: all four dwords
    assert store(nvme, sq, full, b"x").ok
    assert full in all_keys(nvme, sq)


def test_retrieve_returns_the_full_size_in_dw0_and_moves_min_of_buffer_and_value(start):
    nvme, sq = kv_device(start)
    value = pattern(5000, 3)                # crosses a host page: PRP2 carries the rest
    assert store(nvme, sq, b"k", value).ok
    cqe, got = retrieve(nvme, sq, b"k", 8192)
    assert cqe.ok and cqe.dw0 == 5000
    assert got[:5000] == value and got[5000:] == b"\xEE" * (8192 - 5000)
    cqe, got = retrieve(nvme, sq, b"k", 100)        # a smaller buffer: its 100 bytes only
    assert cqe.ok and cqe.dw0 == 5000 and got == value[:100]
    cqe, _ = retrieve(nvme, sq, b"k", 0)            # no buffer: the size alone
    assert cqe.ok and cqe.dw0 == 5000
    assert store(nvme, sq, b"k", b"short").ok       # replace: the new size and bytes
    cqe, got = retrieve(nvme, sq, b"k", 16)
    assert cqe.dw0 == 5 and got[:5] == b"short" and got[5:] == b"\xEE" * 11


def test_key_length_0_or_over_16_is_invalid_key_size_on_every_command(start):
    nvme, sq = kv_device(start)
    assert store(nvme, sq, b"keep", b"1").ok
    for kl in (0, 17, 255):
        assert store(nvme, sq, b"x", b"v", kl=kl).code == SC_INVALID_KEY_SIZE
        assert retrieve(nvme, sq, b"x", 16, kl=kl)[0].code == SC_INVALID_KEY_SIZE
        assert exist(nvme, sq, b"x", kl=kl).code == SC_INVALID_KEY_SIZE
        assert delete(nvme, sq, b"keep", kl=kl).code == SC_INVALID_KEY_SIZE
        cqe = list_raw(nvme, sq, b"x", kl=kl)[0]
        assert cqe.code == SC_INVALID_KEY_SIZE and cqe.dnr
    assert all_keys(nvme, sq) == [b"keep"]


def test_value_over_the_maximum_is_invalid_value_size_and_stores_nothing(start):
    nvme, sq = kv_device(start, "kv_max_value=8192")
    cqe = store(nvme, sq, b"big", b"", size=8193)
    assert cqe.code == SC_INVALID_VALUE_SIZE and cqe.dnr
    assert exist(nvme, sq, b"big").code == SC_KEY_NOT_EXIST
    assert store(nvme, sq, b"big", pattern(8192, 1)).ok        # the maximum itself fits


def test_store_options(start):
    nvme, sq = kv_device(start)
    # Overwrite Only on a missing key: KV Key Does Not Exist, nothing stored
    assert store(nvme, sq, b"a", b"1", SO_OVERWRITE_ONLY).code == SC_KEY_NOT_EXIST
    assert all_keys(nvme, sq) == []
    assert store(nvme, sq, b"a", b"1", SO_NO_OVERWRITE).ok
    # No Overwrite on an existing key: KV Key Exists, the old value stays
    assert store(nvme, sq, b"a", b"2", SO_NO_OVERWRITE).code == SC_KEY_EXISTS
    assert retrieve(nvme, sq, b"a", 4)[1][:1] == b"1"
    assert store(nvme, sq, b"a", b"3", SO_OVERWRITE_ONLY).ok
    assert retrieve(nvme, sq, b"a", 4)[1][:1] == b"3"
    assert store(nvme, sq, b"a", b"4", SO_NO_COMPRESSION).ok   # accepted, no effect
    assert retrieve(nvme, sq, b"a", 4)[1][:1] == b"4"
    both = store(nvme, sq, b"a", b"5", SO_OVERWRITE_ONLY | SO_NO_OVERWRITE)
    assert both.code == SC_INVALID_FIELD
    assert retrieve(nvme, sq, b"a", 4)[1][:1] == b"4"


def test_missing_keys_and_delete_under_feature_20h(start):
    nvme, sq = kv_device(start)
    assert retrieve(nvme, sq, b"nope", 16)[0].code == SC_KEY_NOT_EXIST
    assert exist(nvme, sq, b"nope").code == SC_KEY_NOT_EXIST
    assert nvme.get_features(FEAT_KV_CONFIG).dw0 & 1 == 0     # EDNEK 0 at power-on
    assert delete(nvme, sq, b"nope").ok                         # then no error
    assert nvme.set_features(FEAT_KV_CONFIG, 1).ok
    assert nvme.get_features(FEAT_KV_CONFIG).dw0 & 1 == 1
    cqe = delete(nvme, sq, b"nope")
    assert cqe.code == SC_KEY_NOT_EXIST and cqe.dnr
    assert store(nvme, sq, b"yes", b"v").ok
    assert delete(nvme, sq, b"yes").ok
    assert exist(nvme, sq, b"yes").code == SC_KEY_NOT_EXIST
    assert all_keys(nvme, sq) == []


def test_list_layout_order_start_key_and_truncation(start):
    nvme, sq = kv_device(start)
    for key in (b"eeeee", b"a", b"ccc", b"bb", b"dddd", b"b"):
        assert store(nvme, sq, key, b"v").ok
    cqe, buf = list_raw(nvme, sq, b"b", 64)
    assert cqe.ok
    # hand-computed: count 5, then "b" (2+1 -> 4 bytes), "bb" (2+2 -> 4), "ccc" (2+3 -> 8),
    # "dddd" (2+4 -> 8), "eeeee" (2+5 -> 8): 4 + 32 = 36 bytes, the rest untouched by keys
    expect = (struct.pack("<I", 5) + b"\x01\x00b\x00" + b"\x02\x00bb" +
              b"\x03\x00ccc\x00\x00\x00" + b"\x04\x00dddd\x00\x00" + b"\x05\x00eeeee\x00")
    assert buf[:36] == expect
    assert parse_list(buf) == [b"b", b"bb", b"ccc", b"dddd", b"eeeee"]
    # a start key that does not exist: the next one up
    assert parse_list(list_raw(nvme, sq, b"bc", 64)[1]) == [b"ccc", b"dddd", b"eeeee"]
    assert parse_list(list_raw(nvme, sq, b"f", 64)[1]) == []
    # a small buffer: as many whole entries as fit (4 + 4 + 4 = 12 bytes: "a" and "b")
    assert parse_list(list_raw(nvme, sq, b"a", 12)[1]) == [b"a", b"b"]
    assert parse_list(list_raw(nvme, sq, b"a", 15)[1]) == [b"a", b"b"]
    assert parse_list(list_raw(nvme, sq, b"a", 16)[1]) == [b"a", b"b", b"bb"]
    assert parse_list(list_raw(nvme, sq, b"a", 4)[1]) == []


def test_capacity_exceeded_changes_nothing(start):
    """Capacity Exceeded for a new key past kv_max_keys and for live bytes past the
    capacity (kv_ns_mb=4); a replace of an existing key is no new key."""
    nvme, sq = kv_device(start, "kv_max_keys=3,kv_max_value=2097152")
    for key in (b"k0", b"k1", b"k2"):
        assert store(nvme, sq, key, b"v").ok
    cqe = store(nvme, sq, b"k3", b"v")
    assert cqe.code == SC_CAPACITY_EXCEEDED and cqe.dnr
    assert all_keys(nvme, sq) == [b"k0", b"k1", b"k2"]
    assert store(nvme, sq, b"k0", b"w").ok
    third = (KV_MB << 20) // 3 + 4096           # two fit, three are past the capacity
    assert store(nvme, sq, b"k0", b"A", size=third).ok
    assert store(nvme, sq, b"k1", b"B", size=third).ok
    cqe = store(nvme, sq, b"k2", b"C", size=third)
    assert cqe.code == SC_CAPACITY_EXCEEDED and cqe.dnr
    cqe, got = retrieve(nvme, sq, b"k2", 8)
    assert cqe.dw0 == 1 and got[:1] == b"v"     # the old value, unchanged


def test_opcodes_of_the_other_set_are_invalid_opcode(start):
    nvme, sq = kv_device(start)
    assert store(nvme, sq, b"k", b"v").ok
    # an NVM command on the KV namespace
    cqe = nvme.run(sq, Command(IO_WRITE_ZEROES, nsid=KV_NSID, cdw12=0))
    assert cqe.code == SC_INVALID_OPCODE and cqe.dnr
    # KV commands on the NVM namespace (Store and Retrieve share 01h/02h with Write/Read)
    for opcode in (KV_LIST, KV_DELETE, KV_EXIST):
        cqe = nvme.run(sq, kv_cmd(opcode, b"k", nsid=NVM_NSID))
        assert cqe.code == SC_INVALID_OPCODE and cqe.dnr, hex(opcode)
    assert all_keys(nvme, sq) == [b"k"]


def test_without_kv_ns_mb_the_kv_opcodes_are_unknown(start):
    nvme = start().nvme
    nvme.enable(css=0)              # CAP.CSS offers no other I/O command set
    sq = nvme.io_queue_pair(1)
    for opcode in (KV_LIST, KV_DELETE, KV_EXIST):
        assert nvme.run(sq, kv_cmd(opcode, b"k", nsid=1)).code == SC_INVALID_OPCODE
    assert nvme.get_features(FEAT_KV_CONFIG).code == SC_INVALID_FIELD


@pytest.mark.parametrize("props, words", [
    ("kv_ns_mb=100000", ["kv_ns_mb", "does not fit"]),
    ("kv_ns_mb=4,placement=fdp", ["kv_ns_mb", "placement=fdp"]),
])
def test_bad_kv_configuration_fails_realize_with_one_line(launch, props, words):
    from nvme_qtest import SMALL_GEOMETRY
    proc = launch(f"femu,{SMALL_GEOMETRY},{props}")
    assert proc.returncode == 1, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
