"""Log pages (SMART, error information, firmware slot), features, AER and Abort."""
import struct

import pytest

from nvme_qtest import (ADM_ABORT, ADM_AER, SC_AER_LIMIT, SC_INVALID_OPCODE, SC_INVALID_NS, Command,
                        femu_only, nvme_qemu, pattern, ready, shared, start)  # noqa: F401

pytestmark = femu_only()

LID_ERROR, LID_SMART, LID_FIRMWARE = 0x01, 0x02, 0x03


def u128(data, off):
    lo, hi = struct.unpack_from("<QQ", data, off)
    return lo | hi << 64


def smart(nvme, nsid=0xFFFFFFFF):
    cqe, data = nvme.get_log(LID_SMART, 512, nsid=nsid)
    assert cqe.ok, str(cqe)
    return {
        "critical": data[0], "temperature": struct.unpack_from("<H", data, 1)[0],
        "spare": data[3], "spare_threshold": data[4],
        "units_read": u128(data, 32), "units_written": u128(data, 48),
        "reads": u128(data, 64), "writes": u128(data, 80), "power_cycles": u128(data, 112),
    }


def test_smart_static_fields(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    log = smart(nvme)
    assert log["critical"] == 0
    assert log["temperature"] == 310
    assert (log["spare"], log["spare_threshold"]) == (100, 10)
    assert log["power_cycles"] == 1
    assert (log["units_read"], log["units_written"], log["reads"], log["writes"]) == (0, 0, 0, 0)


@pytest.mark.parametrize("nsid", [0, 1, 0xFFFFFFFF])
def test_smart_namespace_ids(shared, nsid):
    assert smart(shared.nvme, nsid)["temperature"] == 310


def test_smart_counters_grow_with_io(start):
    nvme = start().nvme
    sq = ready(nvme)[0]
    assert nvme.write(sq, 0, pattern(512, 1)).ok                  # 1 sector
    log = smart(nvme)
    assert (log["writes"], log["units_written"]) == (1, 1)       # 1/1000 rounds up
    for i in range(10):                                         # 10 x 100 sectors
        assert nvme.write(sq, 1000 + 100 * i, pattern(100 * 512, i)).ok
    cqe, _ = nvme.read(sq, 0, 8)
    assert cqe.ok
    log = smart(nvme)
    assert (log["writes"], log["units_written"]) == (11, 2)      # 1001 sectors
    assert (log["reads"], log["units_read"]) == (1, 1)


def test_log_offset_reads_part_of_the_page(shared):
    nvme = shared.nvme
    _, whole = nvme.get_log(LID_SMART, 512)
    cqe, part = nvme.get_log(LID_SMART, 64, offset=64)
    assert cqe.ok and part == whole[64:128]


def test_error_log_newest_first(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    first = nvme.admin(Command(0x03))
    second = nvme.identify(0, nsid=0x40)[0]                       # above NN: invalid
    assert (first.code, second.code) == (SC_INVALID_OPCODE, SC_INVALID_NS)
    cqe, data = nvme.get_log(LID_ERROR, 4 * 64)
    assert cqe.ok
    entries = [struct.unpack_from("<QHHH", data, 64 * i) for i in range(4)]
    (count0, sqid0, cid0, status0), (count1, sqid1, cid1, status1) = entries[:2]
    assert (sqid0, cid0, status0 >> 1 & 0x7FF) == (0, second.cid, SC_INVALID_NS)
    assert (sqid1, cid1, status1 >> 1 & 0x7FF) == (0, first.cid, SC_INVALID_OPCODE)
    assert count0 > count1 > 0
    assert entries[2][0] == entries[3][0] == 0                    # nothing else logged


def test_error_log_keeps_four_entries(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    cids = [nvme.admin(Command(0x03)).cid for _ in range(6)]
    cqe, data = nvme.get_log(LID_ERROR, 4 * 64)
    assert cqe.ok
    logged = [struct.unpack_from("<QHH", data, 64 * i)[2] for i in range(4)]
    assert logged == cids[::-1][:4]


def test_firmware_slot_log(shared):
    cqe, data = shared.nvme.get_log(LID_FIRMWARE, 512)
    assert cqe.ok
    assert data[0] & 0x7 == 1                                     # AFI: slot 1 active
    assert data[8:16].rstrip(b" \x00") == b"1.0"                  # FRS1


NS_SPECIFIC = {0x05}             # error recovery: Get/Set name an active namespace


def nsid_for(fid):
    return 1 if fid in NS_SPECIFIC else 0


FEATURE_VALUES = {
    # fid: value to set (cdw11), read back as dw0
    0x01: 0x03030302,            # arbitration: AB 2, LPW/MPW/HPW 3
    0x04: 350,                   # temperature threshold 350 K
    0x05: 0x000A,                # error recovery: TLER 10
    0x08: 0x0A05,                # interrupt coalescing: time 10, threshold 5
    0x0A: 1,                     # write atomicity normal
    0x0B: 0x100,                 # async event config: firmware activation notices
}


@pytest.mark.parametrize("fid", FEATURE_VALUES, ids=[f"fid_{f:02x}" for f in FEATURE_VALUES])
def test_set_then_get_feature(shared, fid):
    nvme, nsid = shared.nvme, nsid_for(fid)
    before = nvme.get_features(fid, nsid=nsid)
    assert before.ok, str(before)
    assert nvme.set_features(fid, FEATURE_VALUES[fid], nsid=nsid).ok
    got = nvme.get_features(fid, nsid=nsid)
    assert got.ok and got.dw0 == FEATURE_VALUES[fid]
    assert nvme.set_features(fid, before.dw0, nsid=nsid).ok       # leave the default


def test_power_state_0_and_iv_config(shared):
    nvme = shared.nvme
    assert nvme.set_features(0x02, 0).ok
    assert nvme.get_features(0x02).dw0 & 0x1F == 0
    assert nvme.set_features(0x09, 1 | 1 << 16).ok               # IV 1, coalescing disabled
    got = nvme.get_features(0x09, cdw11=1)
    assert got.ok and got.dw0 & 0xFFFF == 1 and got.dw0 >> 16 & 1


def test_number_of_queues(start):
    """(Volatile Write Cache, 06h, exists only with a write buffer:
    test_nvme_write_cache.py.)"""
    nvme = start("queues=4").nvme
    ready(nvme, io_queues=0)
    got = nvme.get_features(0x07)
    assert got.ok and got.dw0 == 3 | 3 << 16
    got = nvme.set_features(0x07, 1 | 1 << 16)
    assert got.ok and got.dw0 == 3 | 3 << 16                      # allocated: all four


@pytest.mark.parametrize("fid", [0x01, 0x02, 0x04, 0x05, 0x07, 0x08, 0x09, 0x0A, 0x0B])
def test_get_supported_capabilities(shared, fid):
    got = shared.nvme.get_features(fid, sel=3, cdw11=0, nsid=nsid_for(fid))
    # changeable, namespace specific only for error recovery, not saveable (only FDP's
    # features are: test_nvme_fdp.py)
    assert got.ok and got.dw0 == (0b110 if fid in NS_SPECIFIC else 0b100), str(got)


def test_features_back_to_defaults_after_reset(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    def current():
        return {fid: nvme.get_features(fid, nsid=nsid_for(fid)).dw0 for fid in FEATURE_VALUES}
    defaults = current()
    for fid, value in FEATURE_VALUES.items():
        assert nvme.set_features(fid, value, nsid=nsid_for(fid)).ok
    nvme.disable()
    ready(nvme, io_queues=0)
    assert current() == defaults


def test_aer_is_held_while_later_commands_complete(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    aers = [nvme.submit(nvme.asq, Command(ADM_AER)) for _ in range(4)]
    assert nvme.identify(1)[0].ok
    fifth = nvme.run(nvme.asq, Command(ADM_AER))
    assert (fifth.code, fifth.dnr) == (SC_AER_LIMIT, True)
    assert nvme.identify(0, nsid=1)[0].ok
    for cid in aers:
        nvme.assert_no_completion(nvme.asq, cid, 0.05)


def test_abort_reports_not_aborted(start):
    nvme = start().nvme
    sq = ready(nvme)[0]
    cid = nvme.submit(nvme.asq, Command(ADM_AER))
    got = nvme.admin(Command(ADM_ABORT, cdw10=0 | cid << 16))
    assert got.ok and got.dw0 & 1 == 1
    got = nvme.admin(Command(ADM_ABORT, cdw10=sq.qid | 0x1234 << 16))
    assert got.ok and got.dw0 & 1 == 1
    nvme.assert_no_completion(nvme.asq, cid, 0.05)


def test_smart_data_units_are_512_bytes_with_4k_sectors(start):
    nvme = start("secsz=4096,secs_per_pg=1").nvme
    sq = ready(nvme)[0]
    assert nvme.write(sq, 0, pattern(125 * 4096, 1), lba_size=4096).ok     # 1000 units
    assert smart(nvme)["units_written"] == 1
    assert nvme.write(sq, 200, pattern(4096, 2), lba_size=4096).ok         # 1008 units
    assert smart(nvme)["units_written"] == 2
