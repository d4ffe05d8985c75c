"""SMART / Health Information (log page 02h) under the Key Value command set, over qtest.

The KV Command Set 1.0 names Retrieve its SMART Host Read Command and SMART Data Units
Read Command, and Store its User Data Out Command (the base specification's Host Write
Commands and Data Units Written); Delete, Exist and List are none of them. So a served
Retrieve counts one read and the bytes it moved to the host, a served Store one write and
its value's bytes, in units of 1000 x 512 bytes rounded up, in the controller's log and the
KV namespace's; a refused command counts nothing (as NVM I/O refused before it runs).
Every count below is worked out by hand in the comments."""
import struct

from kv_qtest import (KV_NSID, NVM_NSID, SC_INVALID_KEY_SIZE, SC_INVALID_VALUE_SIZE,
                      SC_KEY_EXISTS, SC_KEY_NOT_EXIST, SO_NO_OVERWRITE, delete, exist,
                      kv_device, list_raw, retrieve, store)
from nvme_qtest import femu_only, nvme_qemu, pattern, start  # noqa: F401

pytestmark = femu_only()

LID_SMART = 0x02
ALL = 0xFFFFFFFF
UNIT = 512 * 1000          # one Data Unit: 1000 x 512 bytes
BIG = 64000                # under kv_max_value's default 64 KiB


def counters(nvme, nsid=ALL):
    """(host reads, data units read, host writes, data units written) of log page 02h."""
    cqe, data = nvme.get_log(LID_SMART, 512, nsid=nsid)
    assert cqe.ok, str(cqe)

    def u128(off):
        lo, hi = struct.unpack_from("<QQ", data, off)
        return lo | hi << 64
    return u128(64), u128(32), u128(80), u128(48)


def test_store_counts_one_write_and_its_value_bytes(start):
    nvme, sq = kv_device(start)
    assert counters(nvme) == (0, 0, 0, 0)
    assert store(nvme, sq, b"k", b"x").ok                   # 1 byte: rounds up to 1 unit
    assert counters(nvme) == (0, 0, 1, 1)
    for i in range(7):                                      # 1 + 7 x 64000 = 448001 bytes
        assert store(nvme, sq, b"k", pattern(BIG, i)).ok
    assert store(nvme, sq, b"k", pattern(63999, 9)).ok      # 512000 bytes: exactly 1 unit
    assert counters(nvme) == (0, 0, 9, 1)
    assert store(nvme, sq, b"empty", b"", size=0).ok        # a write of no bytes
    assert counters(nvme) == (0, 0, 10, 1)
    assert store(nvme, sq, b"k", b"y").ok                   # 512001 bytes: 2 units
    assert counters(nvme) == (0, 0, 11, 2)
    # refused Stores count nothing
    assert store(nvme, sq, b"k", b"z", SO_NO_OVERWRITE).code == SC_KEY_EXISTS
    assert store(nvme, sq, b"k", b"z", kl=17).code == SC_INVALID_KEY_SIZE
    assert store(nvme, sq, b"huge", b"", size=64 * 1024 + 1).code == SC_INVALID_VALUE_SIZE
    # Exist, List, Delete: no host read or write
    assert exist(nvme, sq, b"k").ok
    assert list_raw(nvme, sq, b"\0")[0].ok
    assert delete(nvme, sq, b"empty").ok
    assert counters(nvme) == (0, 0, 11, 2)
    # the KV namespace's log has them all, the NVM namespace's none
    assert counters(nvme, KV_NSID) == (0, 0, 11, 2)
    assert counters(nvme, NVM_NSID) == (0, 0, 0, 0)
    # an NVM Write of 1 sector: the controller adds it (512513 bytes: 2 units), the NVM
    # namespace has it alone, the KV namespace's figures stay
    assert nvme.write(sq, 0, pattern(512, 1)).ok
    assert counters(nvme) == (0, 0, 12, 2)
    assert counters(nvme, NVM_NSID) == (0, 0, 1, 1)
    assert counters(nvme, KV_NSID) == (0, 0, 11, 2)


def test_retrieve_counts_one_read_and_the_bytes_it_moved(start):
    nvme, sq = kv_device(start)
    assert store(nvme, sq, b"v", pattern(BIG, 1)).ok
    assert retrieve(nvme, sq, b"v", 8192)[0].ok             # 8192 of the value's 64000
    assert counters(nvme) == (1, 1, 1, 1)
    cqe, _ = retrieve(nvme, sq, b"v", 0)                    # the size alone: no bytes
    assert cqe.ok and cqe.dw0 == BIG
    assert retrieve(nvme, sq, b"v", 65536)[0].ok            # the whole value: 64000 bytes
    for _ in range(6):                                      # 72192 + 6 x 64000 = 456192
        assert retrieve(nvme, sq, b"v", BIG)[0].ok
    assert retrieve(nvme, sq, b"v", 55808)[0].ok            # 512000 bytes: exactly 1 unit
    assert counters(nvme) == (10, 1, 1, 1)
    assert retrieve(nvme, sq, b"v", 1)[0].ok                # 512001 bytes: 2 units
    assert counters(nvme) == (11, 2, 1, 1)
    # refused Retrieves count nothing; Exist and List read no user data
    assert retrieve(nvme, sq, b"none", 16)[0].code == SC_KEY_NOT_EXIST
    assert retrieve(nvme, sq, b"v", 16, kl=0)[0].code == SC_INVALID_KEY_SIZE
    assert exist(nvme, sq, b"v").ok
    assert list_raw(nvme, sq, b"\0", 4096)[0].ok
    assert counters(nvme) == (11, 2, 1, 1)
    assert counters(nvme, KV_NSID) == (11, 2, 1, 1)
    assert counters(nvme, NVM_NSID) == (0, 0, 0, 0)
