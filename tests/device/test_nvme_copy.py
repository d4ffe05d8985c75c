"""Copy (NVM command set opcode 19h, Simple Copy, source range descriptor format 0) on the
conventional and the zoned namespace: the data moves inside the device (every source read
before the destination is written), the limits Identify Namespace reports (MSRC, MSSRL,
MCL) by status, bad fields, ranges outside the namespace, unreadable sources, what follows
the data (NUSE, uncorrectable marks), SMART, and the FTL's copy counters.

nvme-cli (2.x) builds the same command: `nvme copy /dev/nvme0n1 --sdlba=4096
--slbs=0,64 --blocks=7,15` copies LBAs 0-7 and 64-79 to LBA 4096; --blocks takes NLB as
the entry holds it, 0-based, and --format defaults to 0."""
import csv
import struct
from pathlib import Path

import pytest

from nvme_qtest import (IO_READ, IO_WRITE, IO_WRITE_UNCOR, SC_INVALID_FIELD,
                        SC_LBA_OUT_OF_RANGE, SC_UNRECOVERED_READ, Command, femu_only,
                        nvme_qemu, pattern, ready, shared, start, wait_for)  # noqa: F401

pytestmark = femu_only()

IO_COPY = 0x19
SC_CMD_SIZE_LIMIT = 0x183
SC_ZONE_INVALID_WRITE = 0x1BC
NSZE = (64 << 20) // 512                # SMALL_GEOMETRY: one namespace of 512 B LBAs
LBA = 512
BROADCAST = 0xFFFFFFFF
LOG_ERROR, LOG_SMART = 0x01, 0x02
ADM_FORMAT = 0x80
# The limits femu reports for 512 B LBAs: 2 MiB per command, a quarter per range.
MSRC, MSSRL, MCL = 127, 1024, 4096
PRINFOR_SHIFT, PRINFOW_SHIFT, STCW = 12, 26, 1 << 24


# ---------------------------------------------------------------- commands

def source_ranges(ranges) -> bytes:
    """Source Range Entries, format 0 (32 bytes: SLBA at 8, NLB 0-based at 16)."""
    return b"".join(struct.pack("<8xQH14x", slba, nlb - 1) for slba, nlb in ranges)


def copy_cmd(nvme, sdlba: int, ranges, *, nsid: int = 1, nr=None, cdw12: int = 0) -> Command:
    """A Copy of (slba, nlb) ranges (nlb 1-based) to sdlba; NR from the list unless given."""
    addr = nvme.buffer(source_ranges(ranges))
    nr = len(ranges) - 1 if nr is None else nr
    return Command(IO_COPY, nsid=nsid, prp1=addr, cdw10=sdlba & 0xFFFFFFFF,
                   cdw11=sdlba >> 32, cdw12=nr | cdw12)


def copy(nvme, sq, sdlba: int, ranges, **kwargs):
    return nvme.run(sq, copy_cmd(nvme, sdlba, ranges, **kwargs))


def rw(opcode: int, slba: int, nlb: int, nsid: int = 1, xfer=None) -> Command:
    return Command(opcode, nsid=nsid, prp1=xfer.prp1 if xfer else 0,
                   prp2=xfer.prp2 if xfer else 0, cdw10=slba & 0xFFFFFFFF, cdw11=slba >> 32,
                   cdw12=(nlb - 1) & 0xFFFF)


def write(nvme, sq, slba: int, data: bytes, nsid: int = 1):
    xfer = nvme.transfer(len(data))
    nvme.fill(xfer, data)
    cqe = nvme.run(sq, rw(IO_WRITE, slba, len(data) // LBA, nsid, xfer))
    assert cqe.ok, f"write at {slba}: {cqe}"


def read(nvme, sq, slba: int, nlb: int, nsid: int = 1) -> bytes:
    xfer = nvme.transfer(nlb * LBA)
    nvme.fill(xfer, b"\xA5" * (nlb * LBA))
    cqe = nvme.run(sq, rw(IO_READ, slba, nlb, nsid, xfer))
    assert cqe.ok, f"read at {slba}: {cqe}"
    return nvme.contents(xfer)


def assert_status(cqe, code: int) -> None:
    assert (cqe.code, cqe.dnr) == (code, True), str(cqe)


def nuse(nvme, nsid: int = 1) -> int:
    cqe, ident = nvme.identify(0, nsid=nsid)
    assert cqe.ok, str(cqe)
    return struct.unpack_from("<Q", ident, 16)[0]


def u128(data: bytes, off: int) -> int:
    lo, hi = struct.unpack_from("<QQ", data, off)
    return lo | hi << 64


def smart(nvme) -> dict:
    cqe, data = nvme.get_log(LOG_SMART, 512, nsid=BROADCAST)
    assert cqe.ok, str(cqe)
    return {"units_read": u128(data, 32), "units_written": u128(data, 48),
            "reads": u128(data, 64), "writes": u128(data, 80),
            "media_errors": u128(data, 160)}


def newest_error(nvme):
    """The newest error log entry: (sqid, cid, status code without phase, lba, nsid)."""
    cqe, data = nvme.get_log(LOG_ERROR, 64)
    assert cqe.ok, str(cqe)
    _, sqid, cid, status = struct.unpack_from("<QHHH", data, 0)
    lba, nsid = struct.unpack_from("<QI", data, 16)
    return sqid, cid, (status >> 1) & 0x7FF, lba, nsid


# ---------------------------------------------------------------- Identify

def test_identify_reports_copy_and_its_limits(shared):
    nvme = shared.nvme
    cqe, ctrl = nvme.identify(1)
    assert cqe.ok, str(cqe)
    oncs, = struct.unpack_from("<H", ctrl, 520)
    ocfs, = struct.unpack_from("<H", ctrl, 534)
    assert oncs & 1 << 8, f"ONCS {oncs:#x}: no Copy"
    assert ocfs == 1, f"OCFS {ocfs:#x}: format 0 only"
    cqe, ns = nvme.identify(0, nsid=1)
    assert cqe.ok, str(cqe)
    mssrl, mcl, msrc = struct.unpack_from("<HIB", ns, 74)
    assert (mssrl, mcl, msrc) == (MSSRL, MCL, MSRC)


def test_limits_follow_the_lba_size(start):
    """4 KiB LBAs (Format NVM to LBA format 1): the same 2 MiB per command is 512 LBAs,
    a quarter of it per range; a copy of 4 KiB blocks moves them whole."""
    nvme = start().nvme
    sq = ready(nvme)[0]
    cqe = nvme.admin(Command(ADM_FORMAT, nsid=1, cdw10=1), timeout=30)
    assert cqe.ok, str(cqe)
    cqe, ns = nvme.identify(0, nsid=1)
    assert cqe.ok and ns[26] & 0xF == 1, f"FLBAS {ns[26]:#x}"
    assert struct.unpack_from("<HIB", ns, 74) == (128, 512, MSRC)
    data = pattern(2 * 4096, 20)
    xfer = nvme.transfer(len(data))
    nvme.fill(xfer, data)
    assert nvme.run(sq, rw(IO_WRITE, 10, 2, 1, xfer)).ok
    assert copy(nvme, sq, 100, [(11, 1), (10, 1)]).ok
    assert_status(copy(nvme, sq, 200, [(0, 129)]), SC_CMD_SIZE_LIMIT)
    xfer = nvme.transfer(len(data))
    assert nvme.run(sq, rw(IO_READ, 100, 2, 1, xfer)).ok
    assert nvme.contents(xfer) == data[4096:] + data[:4096]


# ---------------------------------------------------------------- data

def test_one_range(shared):
    nvme, sq = shared.nvme, shared.sq
    data = pattern(16 * LBA, 1)
    write(nvme, sq, 1000, data)
    cqe = copy(nvme, sq, 3000, [(1000, 16)])
    assert cqe.ok, str(cqe)
    assert read(nvme, sq, 3000, 16) == data
    assert read(nvme, sq, 1000, 16) == data            # the source stays


def test_many_ranges_land_in_order(shared):
    nvme, sq = shared.nvme, shared.sq
    parts = {5000: pattern(8 * LBA, 2), 5100: pattern(3 * LBA, 3), 5200: pattern(21 * LBA, 4)}
    for slba, data in parts.items():
        write(nvme, sq, slba, data)
    ranges = [(5200, 21), (5000, 8), (5100, 3), (5000, 2)]      # a source twice, any order
    cqe = copy(nvme, sq, 6000, ranges)
    assert cqe.ok, str(cqe)
    expected = parts[5200] + parts[5000] + parts[5100] + parts[5000][:2 * LBA]
    assert read(nvme, sq, 6000, 34) == expected


def test_overlapping_destination_gets_the_sources_before_the_copy(shared):
    nvme, sq = shared.nvme, shared.sq
    data = pattern(16 * LBA, 5)
    write(nvme, sq, 7000, data)
    assert copy(nvme, sq, 7008, [(7000, 16)]).ok             # forward overlap
    assert read(nvme, sq, 7000, 24) == data[:8 * LBA] + data
    write(nvme, sq, 7100, data)
    assert copy(nvme, sq, 7092, [(7100, 16)]).ok             # backward overlap
    assert read(nvme, sq, 7092, 24) == data + data[8 * LBA:]
    # The second range's source is the first range's destination: read first, it holds
    # what it held before the command, not the first range's data.
    write(nvme, sq, 7200, data)
    assert copy(nvme, sq, 7208, [(7200, 8), (7208, 8)]).ok
    assert read(nvme, sq, 7200, 24) == data[:8 * LBA] + data


def test_unwritten_source_deallocates_the_destination(shared):
    nvme, sq = shared.nvme, shared.sq
    write(nvme, sq, 14000, pattern(8 * LBA, 6))
    write(nvme, sq, 14104, pattern(2 * LBA, 7))              # source: 2 of 8 LBAs written
    before = nuse(nvme)
    assert copy(nvme, sq, 14000, [(14100, 8)]).ok
    assert read(nvme, sq, 14000, 8) == bytes(4 * LBA) + pattern(2 * LBA, 7) + bytes(2 * LBA)
    assert nuse(nvme) == before - 6


# ---------------------------------------------------------------- limits

def test_msrc_ranges_and_no_more(shared):
    nvme, sq = shared.nvme, shared.sq
    data = pattern(128 * LBA, 8)
    write(nvme, sq, 20000, data)
    ranges = [(20000 + 127 - i, 1) for i in range(MSRC + 1)]     # reversed, one LBA each
    assert copy(nvme, sq, 21000, ranges).ok
    got = read(nvme, sq, 21000, 128)
    assert got == b"".join(data[(127 - i) * LBA:(128 - i) * LBA] for i in range(128))
    cqe = copy(nvme, sq, 22000, ranges + [(20000, 1)])
    assert_status(cqe, SC_CMD_SIZE_LIMIT)
    assert read(nvme, sq, 22000, 1) == bytes(LBA)                # nothing written


def test_mssrl_per_range(shared):
    nvme, sq = shared.nvme, shared.sq
    write(nvme, sq, 30000, pattern(MSSRL * LBA, 9))
    assert copy(nvme, sq, 40000, [(30000, MSSRL)]).ok
    assert read(nvme, sq, 40000 + MSSRL - 1, 1) == pattern(MSSRL * LBA, 9)[-LBA:]
    assert_status(copy(nvme, sq, 42000, [(30000, MSSRL + 1)]), SC_CMD_SIZE_LIMIT)
    assert_status(copy(nvme, sq, 42000, [(0, 1), (30000, MSSRL + 1)]), SC_CMD_SIZE_LIMIT)


def test_mcl_over_all_ranges(shared):
    nvme, sq = shared.nvme, shared.sq
    full = [(50000 + i * MSSRL, MSSRL) for i in range(MCL // MSSRL)]
    assert copy(nvme, sq, 60000, full).ok
    assert_status(copy(nvme, sq, 60000, full + [(0, 1)]), SC_CMD_SIZE_LIMIT)
    assert_status(copy(nvme, sq, 60000, [(0, 1)] + full), SC_CMD_SIZE_LIMIT)


# ---------------------------------------------------------------- bad fields and ranges

@pytest.mark.parametrize("cdw12", [
    1 << 8, 2 << 8, 3 << 8, 0xF << 8,                        # descriptor formats 1..3, reserved
    1 << PRINFOR_SHIFT, 8 << PRINFOR_SHIFT,                  # PRINFOR
    1 << PRINFOW_SHIFT, 8 << PRINFOW_SHIFT,                  # PRINFOW
    STCW,
], ids=["format1", "format2", "format3", "format15", "prinfor1", "prinfor8", "prinfow1",
        "prinfow8", "stcw"])
def test_invalid_fields(shared, cdw12):
    nvme, sq = shared.nvme, shared.sq
    write(nvme, sq, 70000, pattern(LBA, 10))
    assert_status(copy(nvme, sq, 70100, [(70000, 1)], cdw12=cdw12), SC_INVALID_FIELD)
    assert read(nvme, sq, 70100, 1) == bytes(LBA)


@pytest.mark.parametrize("sdlba,ranges", [
    (0, [(NSZE - 4, 8)]),                       # a source past the end
    (0, [(NSZE, 1)]),                           # a source starting at the end
    (0, [(16, 1), ((1 << 64) - 1, 2)]),         # a source wrapping around 2^64
    (NSZE - 4, [(16, 8)]),                      # the destination past the end
    (NSZE, [(16, 1)]),
    ((1 << 64) - 1, [(16, 2)]),
], ids=["source_tail", "source_at_end", "source_wraps", "dest_tail", "dest_at_end",
        "dest_wraps"])
def test_lba_out_of_range(shared, sdlba, ranges):
    nvme, sq = shared.nvme, shared.sq
    assert_status(copy(nvme, sq, sdlba, ranges), SC_LBA_OUT_OF_RANGE)


def test_unreadable_source_writes_nothing(shared):
    nvme, sq = shared.nvme, shared.sq
    source, dest = pattern(8 * LBA, 11), pattern(8 * LBA, 12)
    write(nvme, sq, 80000, source)
    write(nvme, sq, 80100, dest)
    assert nvme.run(sq, rw(IO_WRITE_UNCOR, 80003, 1)).ok
    before = smart(nvme)
    cmd = copy_cmd(nvme, 80100, [(80200, 1), (80000, 8)])
    cid = nvme.submit(sq, cmd)
    cqe = nvme.wait(sq, cid)
    assert_status(cqe, SC_UNRECOVERED_READ)
    assert read(nvme, sq, 80100, 8) == dest
    assert newest_error(nvme) == (sq.qid, cid, SC_UNRECOVERED_READ, 80003, 1)
    assert smart(nvme)["media_errors"] == before["media_errors"] + 1


def test_destination_marks_are_cleared(shared):
    nvme, sq = shared.nvme, shared.sq
    data = pattern(4 * LBA, 13)
    write(nvme, sq, 81000, data)
    assert nvme.run(sq, rw(IO_WRITE_UNCOR, 81101, 2)).ok
    assert copy(nvme, sq, 81100, [(81000, 4)]).ok
    assert read(nvme, sq, 81100, 4) == data


# ---------------------------------------------------------------- accounting

def test_smart_counts_a_write_command_without_data_units(shared):
    nvme, sq = shared.nvme, shared.sq
    before = smart(nvme)
    cqe = copy(nvme, sq, 100000, [(90000 + i * MSSRL, MSSRL) for i in range(4)])  # 2 MiB
    assert cqe.ok, str(cqe)
    after = smart(nvme)
    assert after["writes"] == before["writes"] + 1
    assert {k: after[k] for k in ("units_read", "units_written", "reads")} == \
        {k: before[k] for k in ("units_read", "units_written", "reads")}


def csv_rows(path: Path):
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def csv_total(path: Path, column: str) -> int:
    return sum(int(r[column]) for r in csv_rows(path))


def test_ftl_counts_the_copy(start, tmp_path):
    """Two 4 KiB flash pages copied: one copy command, two copy pages, each destination
    page moved by copyback or by a read across LUNs (the only reads of the run)."""
    stats = tmp_path / "stats"
    machine = start(f"stats_dir={stats}")
    nvme = machine.nvme
    sq = ready(nvme)[0]
    write(nvme, sq, 0, pattern(16 * LBA, 14))                # 2 flash pages
    assert copy(nvme, sq, 2048, [(0, 16)]).ok                # to 2 whole pages
    assert read(nvme, sq, 2048, 16) == pattern(16 * LBA, 14)
    machine.qt.terminate()
    nand = stats / "nand.csv"
    if not nand.exists() or "copy_cmds" not in (csv_rows(nand) or [{}])[0]:
        pytest.skip("nand.csv with the copy counters is not in this build (statistics helper)")
    assert csv_total(nand, "copy_cmds") == 1
    assert csv_total(nand, "copy_pages") == 2
    host_read_pages = csv_total(stats / "stats.csv", "host_read_pages")
    assert csv_total(nand, "NAND_cpbk") + csv_total(nand, "NAND_read") - host_read_pages == 2


# ---------------------------------------------------------------- zoned namespace

REPO = Path(__file__).resolve().parents[2]
ZONED = ("zoned=on,zones=8,zone_luns=4,zone_cap=2M,zone_size=2M,devsz_mb=48")
ZONE_LBAS = (2 << 20) // LBA
ZNS_NSID = 2
CSS_ALL = 0b110

zoned_only = pytest.mark.skipif(not (REPO / "hw/femu/cmd/io/zns.c").exists(),
                                reason="the zoned namespace (hw/femu/cmd/io/zns.c) has not "
                                       "landed yet")


def zoned_machine(start):
    machine = start(ZONED)
    nvme = machine.nvme
    csts = nvme.enable(css=CSS_ALL)
    assert csts & 1 and not csts & 2, f"enable with CC.CSS 110b: CSTS {csts:#x}"
    return machine, nvme.io_queue_pair(1, 64)


@zoned_only
def test_zoned_copy_at_the_write_pointer(start):
    machine, sq = zoned_machine(start)
    nvme = machine.nvme
    data = pattern(24 * LBA, 15)
    write(nvme, sq, 0, data, nsid=ZNS_NSID)                  # zone 0: WP at 24
    # Zone 1 is empty: its write pointer is its start. Copy 16 LBAs there, then 8 more
    # at the moved write pointer, from both namespaces' kind of source: zone 0's data.
    cqe = copy(nvme, sq, ZONE_LBAS, [(8, 16)], nsid=ZNS_NSID)
    assert cqe.ok, str(cqe)
    cqe = copy(nvme, sq, ZONE_LBAS + 16, [(0, 8)], nsid=ZNS_NSID)
    assert cqe.ok, str(cqe)
    assert read(nvme, sq, ZONE_LBAS, 24, nsid=ZNS_NSID) == data[8 * LBA:] + data[:8 * LBA]
    # The write pointer moved past the copies: a write at 24 lands, at 23 does not.
    write(nvme, sq, ZONE_LBAS + 24, pattern(LBA, 16), nsid=ZNS_NSID)


@zoned_only
def test_zoned_copy_elsewhere_is_zone_invalid_write(start):
    machine, sq = zoned_machine(start)
    nvme = machine.nvme
    write(nvme, sq, 0, pattern(8 * LBA, 17), nsid=ZNS_NSID)
    for sdlba in (ZONE_LBAS + 8, 4, 2 * ZONE_LBAS - 1):     # past the WP, before it
        cqe = copy(nvme, sq, sdlba, [(0, 1)], nsid=ZNS_NSID)
        assert_status(cqe, SC_ZONE_INVALID_WRITE)
    assert read(nvme, sq, ZONE_LBAS + 8, 1, nsid=ZNS_NSID) == bytes(LBA)
    # Nothing moved: the write pointer of zone 0 is still 8.
    write(nvme, sq, 8, pattern(LBA, 18), nsid=ZNS_NSID)


@zoned_only
def test_zoned_limits_and_identify(start):
    machine, sq = zoned_machine(start)
    nvme = machine.nvme
    cqe, ns = nvme.identify(0, nsid=ZNS_NSID)
    assert cqe.ok, str(cqe)
    assert struct.unpack_from("<HIB", ns, 74) == (MSSRL, MCL, MSRC)
    cqe = copy(nvme, sq, 0, [(ZONE_LBAS, MSSRL + 1)], nsid=ZNS_NSID)
    assert_status(cqe, SC_CMD_SIZE_LIMIT)


@zoned_only
def test_conventional_copy_beside_the_zoned_namespace(start):
    machine, sq = zoned_machine(start)
    nvme = machine.nvme
    data = pattern(8 * LBA, 19)
    write(nvme, sq, 100, data)
    assert copy(nvme, sq, 500, [(100, 8)]).ok
    assert read(nvme, sq, 500, 8) == data
    assert read(nvme, sq, 0, 8, nsid=ZNS_NSID) == bytes(8 * LBA)    # zones untouched
