"""Wear in the logs: SMART / Health Information (02h) percentage used, available spare,
media errors and the per-namespace counters; the OCP "SMART / Health Information
Extended" log (C0h): GUID and version, every field femu fills, physical media units
against the FTL's statistics files after GC, offset and length reads."""
import csv
import random
import struct

import pytest

from nvme_qtest import (IO_READ, IO_WRITE, SC_INVALID_FIELD, SC_INVALID_NS, SMALL_GEOMETRY,
                        Command, femu_only, nvme_qemu, pattern, ready, start)  # noqa: F401

pytestmark = femu_only()

LID_SMART, LID_OCP = 0x02, 0xC0
BROADCAST = 0xFFFFFFFF
OCP_GUID = bytes.fromhex("c5af1028eabff2a49c4f6f7cc914d5af")    # bytes 496..511
OCP_VERSION = 3                                                 # OCP 2.0
SC_UNRECOVERED_READ = 0x281
ADM_NS_ATTACHMENT = 0x15

# SMALL_GEOMETRY: 4 LUNs x 64 blocks of 128 pages of 4 KiB; 64 MiB logical = 128 blocks.
GEOMETRY = dict(kv.split("=") for kv in SMALL_GEOMETRY.split(","))
PAGE_BYTES = int(GEOMETRY["secsz"]) * int(GEOMETRY["secs_per_pg"])
PGS_PER_BLK = int(GEOMETRY["pgs_per_blk"])
LUNS = int(GEOMETRY["nchs"]) * int(GEOMETRY["luns_per_ch"])
BLKS_PER_LUN = int(GEOMETRY["blks_per_pl"]) * int(GEOMETRY["pls_per_lun"])
BLOCKS = LUNS * BLKS_PER_LUN
SPARE_BLOCKS = BLOCKS - (int(GEOMETRY["devsz_mb"]) << 20) // (PAGE_BYTES * PGS_PER_BLK)


def u128(data, off):
    lo, hi = struct.unpack_from("<QQ", data, off)
    return lo | hi << 64


def u48(data, off):
    return int.from_bytes(data[off:off + 6], "little")


def smart(nvme, nsid=BROADCAST):
    cqe, data = nvme.get_log(LID_SMART, 512, nsid=nsid)
    assert cqe.ok, f"NSID {nsid:#x}: {cqe}"
    return {
        "critical": data[0], "spare": data[3], "spare_threshold": data[4], "used": data[5],
        "units_read": u128(data, 32), "units_written": u128(data, 48),
        "reads": u128(data, 64), "writes": u128(data, 80), "media_errors": u128(data, 160),
    }


# Every field femu fills: name -> (offset, decoder). The rest of the page is zero.
OCP_FIELDS = {
    "physical_written": (0, 16), "physical_read": (16, 16),
    "bad_user_raw": (32, 6), "bad_user_normalized": (38, 2),
    "bad_system_raw": (40, 6), "bad_system_normalized": (46, 2),
    "uncorrectable_reads": (56, 8),
    "erase_max": (88, 4), "erase_min": (92, 4),
    "free_blocks_percent": (120, 1),
    "total_nuse": (152, 8),
    "endurance_estimate": (176, 16),
    "version": (494, 2), "guid": (496, 16),
}


def ocp_raw(nvme, nsid=BROADCAST):
    cqe, data = nvme.get_log(LID_OCP, 512, nsid=nsid)
    assert cqe.ok, str(cqe)
    return data


def ocp(nvme):
    data = ocp_raw(nvme)
    fields = {name: int.from_bytes(data[off:off + size], "little")
              for name, (off, size) in OCP_FIELDS.items() if name != "guid"}
    fields["guid"] = data[496:512]
    covered = set()
    for off, size in OCP_FIELDS.values():
        covered.update(range(off, off + size))
    fields["other_bytes"] = bytes(data[i] for i in range(512) if i not in covered)
    return fields


def churn(nvme, sq, overwrites=2500, chunk=32 * 1024, batch=64):
    """Fill the 64 MiB namespace, then overwrite 32 KiB chunks at random: the lines GC
    collects still hold valid pages, so it moves some (a WAF above 1)."""
    chunks = (int(GEOMETRY["devsz_mb"]) << 20) // chunk
    rng = random.Random(7)
    order = list(range(chunks)) + [rng.randrange(chunks) for _ in range(overwrites)]
    xfer = nvme.transfer(chunk, scatter=False)
    for start_at in range(0, len(order), batch):
        cids = [nvme.submit(sq, nvme.rw(sq, IO_WRITE, i * chunk // 512, chunk // 512, xfer))
                for i in order[start_at:start_at + batch]]
        assert all(c.ok for c in nvme.wait_all(sq, cids, timeout=60))


def csv_total(path, column):
    with open(path, newline="") as f:
        return sum(int(row[column] or 0) for row in csv.DictReader(f))


def detach(nvme, nsid, cntlid=0):
    data = nvme.buffer(struct.pack("<HH", 1, cntlid).ljust(4096, b"\0"))
    return nvme.admin(Command(ADM_NS_ATTACHMENT, nsid=nsid, prp1=data, cdw10=1))


# ---- OCP C0h


def test_ocp_log_of_a_new_device(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    log = ocp(nvme)
    assert (log["guid"], log["version"]) == (OCP_GUID, OCP_VERSION)
    assert log["physical_written"] == log["physical_read"] == 0
    assert (log["bad_user_raw"], log["bad_user_normalized"]) == (0, 100)
    assert (log["bad_system_raw"], log["bad_system_normalized"]) == (0, 100)
    assert log["erase_max"] == log["erase_min"] == log["uncorrectable_reads"] == 0
    assert 90 <= log["free_blocks_percent"] <= 100               # an open line or two
    assert log["total_nuse"] == 0
    assert log["endurance_estimate"] == BLOCKS * PGS_PER_BLK * PAGE_BYTES * 3000
    assert log["other_bytes"] == bytes(len(log["other_bytes"]))  # reserved and unfilled: 0


def test_ocp_log_counts_flash_work_as_the_statistics_do(start, tmp_path):
    """After GC on the small device: physical media units are (host + GC) page programs
    and reads times the page size, as stats.csv / WAFData.csv count them, so physical
    over host bytes is the FTL's WAF; erase counts drive SMART's percentage used."""
    stats = tmp_path / "stats"
    machine = start(f"stats_dir={stats},pe_cycles=2")
    nvme = machine.nvme
    sq = ready(nvme, size=256)[0]
    churn(nvme, sq)
    assert nvme.read(sq, 100000, 64)[0].ok
    log, health = ocp(nvme), smart(nvme)
    _, id_ns = nvme.identify(0, nsid=1)
    machine.qt.terminate()                                      # the last partial rows

    user_programs = csv_total(stats / "stats.csv", "nand_user_programs")
    gc_programs = csv_total(stats / "stats.csv", "nand_gc_programs")
    reads = (csv_total(stats / "stats.csv", "nand_user_reads") +
             csv_total(stats / "stats.csv", "nand_gc_reads"))
    assert gc_programs > 0, "no GC: the test needs more writes"
    assert csv_total(stats / "WAFData.csv", "GCWrite") == gc_programs
    assert user_programs == csv_total(stats / "stats.csv", "host_write_pages")
    assert log["physical_written"] == (user_programs + gc_programs) * PAGE_BYTES
    assert log["physical_read"] == reads * PAGE_BYTES
    waf = (user_programs + gc_programs) / user_programs
    assert log["physical_written"] / (user_programs * PAGE_BYTES) == pytest.approx(waf)

    assert log["erase_max"] >= log["erase_min"] and log["erase_max"] > 0
    assert 0 <= log["free_blocks_percent"] < 100
    assert log["total_nuse"] == struct.unpack_from("<Q", id_ns, 16)[0] > 0
    assert log["other_bytes"] == bytes(len(log["other_bytes"]))
    # SMART: percentage used from the most erased block against pe_cycles=2, capped at 255
    assert health["used"] == min(255, log["erase_max"] * 100 // 2)
    assert bool(health["critical"] & 1 << 2) == (health["used"] >= 100)
    assert health["spare"] == 100 and not health["critical"] & 1


def test_ocp_log_offset_and_length(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    whole = ocp_raw(nvme)
    cqe, part = nvme.get_log(LID_OCP, 64, offset=448)
    assert cqe.ok and part == whole[448:512]
    cqe, part = nvme.get_log(LID_OCP, 16, offset=496)
    assert cqe.ok and part == OCP_GUID
    cqe, longer = nvme.get_log(LID_OCP, 4096)                   # only the page is written
    assert cqe.ok and longer[:512] == whole and longer[512:] == bytes(4096 - 512)
    for offset in (2, 512, 1 << 32):
        cqe, _ = nvme.get_log(LID_OCP, 64, offset=offset)
        assert (cqe.code, cqe.dnr) == (SC_INVALID_FIELD, True), f"offset {offset}: {cqe}"
    for nsid in (0, 1):                                         # subsystem-wide: NSID unused
        assert ocp_raw(nvme, nsid=nsid) == whole


# ---- SMART 02h


@pytest.mark.parametrize("props,bad,spare,warning", [
    ("bad_blk_pcent=0", 0, 100, False),
    ("bad_blk_pcent=10", 4 * 6, (SPARE_BLOCKS - 24) * 100 // SPARE_BLOCKS, False),
    # 9 % < threshold 10; a smaller GC reserve (one line) lets that many blocks be bad
    ("bad_blk_pcent=46,gc_thres_pcent_high=98", 4 * 29,
     (SPARE_BLOCKS - 116) * 100 // SPARE_BLOCKS, True),
], ids=["none", "10_percent", "46_percent"])
def test_available_spare_follows_bad_blocks(start, props, bad, spare, warning):
    nvme = start(props).nvme
    ready(nvme, io_queues=0)
    health, log = smart(nvme), ocp(nvme)
    assert (health["spare"], health["spare_threshold"]) == (spare, 10)
    assert bool(health["critical"] & 1) == warning
    assert (log["bad_user_raw"], log["bad_user_normalized"]) == (bad, spare)
    assert log["endurance_estimate"] == (BLOCKS - bad) * PGS_PER_BLK * PAGE_BYTES * 3000


def write_ns(nvme, sq, nsid, slba, nbytes, seed):
    xfer = nvme.transfer(nbytes)
    nvme.fill(xfer, pattern(nbytes, seed))
    return nvme.run(sq, nvme.rw(sq, IO_WRITE, slba, nbytes // 512, xfer, nsid=nsid))


def read_ns(nvme, sq, nsid, slba, nlb):
    xfer = nvme.transfer(nlb * 512)
    return nvme.run(sq, nvme.rw(sq, IO_READ, slba, nlb, xfer, nsid=nsid))


def test_smart_per_namespace(start):
    nvme = start("namespaces=2").nvme
    sq = ready(nvme)[0]
    for i in range(3):
        assert write_ns(nvme, sq, 1, 8 * i, 4096, i).ok         # ns 1: 3 x 8 sectors
    assert write_ns(nvme, sq, 2, 0, 512 * 1000, 9).ok           # ns 2: 1000 sectors
    assert read_ns(nvme, sq, 2, 0, 8).ok
    assert read_ns(nvme, sq, 2, 8, 8).ok
    ns1, ns2, total = smart(nvme, 1), smart(nvme, 2), smart(nvme, BROADCAST)
    assert (ns1["writes"], ns1["units_written"], ns1["reads"]) == (3, 1, 0)
    assert (ns2["writes"], ns2["units_written"], ns2["reads"], ns2["units_read"]) == (1, 1, 2, 1)
    assert (total["writes"], total["units_written"], total["reads"]) == (4, 2, 2)   # 1024 sectors
    assert smart(nvme, 0) == total
    for got in (ns1, ns2):                                      # wear is the controller's
        assert (got["spare"], got["used"], got["critical"]) == (100, 0, 0)


@pytest.mark.parametrize("nsid,code", [
    (3, SC_INVALID_FIELD),          # valid, unallocated: inactive
    (2, SC_INVALID_FIELD),          # allocated, detached: inactive
    (0x21, SC_INVALID_NS),          # above NN
    (0xFFFFFFFE, SC_INVALID_NS),
], ids=["unallocated", "detached", "above_nn", "fffffffe"])
def test_smart_nsid_rules(start, nsid, code):
    nvme = start("namespaces=2").nvme
    ready(nvme, io_queues=0)
    assert detach(nvme, 2).ok
    cqe, _ = nvme.get_log(LID_SMART, 512, nsid=nsid)
    assert (cqe.code, cqe.dnr) == (code, True), str(cqe)


def test_media_errors_count_unrecovered_reads(start):
    nvme = start("read_uncor_ppm=1000000").nvme                 # every flash read fails
    sq = ready(nvme)[0]
    assert nvme.write(sq, 0, pattern(4096, 1)).ok
    for _ in range(2):
        cqe, _ = nvme.read(sq, 0, 8)                            # one flash page
        assert (cqe.code, cqe.dnr) == (SC_UNRECOVERED_READ, True), str(cqe)
    assert smart(nvme)["media_errors"] == 2
    assert smart(nvme, 1)["media_errors"] == 2
    assert ocp(nvme)["uncorrectable_reads"] == 2                # failed flash page reads
