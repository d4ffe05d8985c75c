"""Media errors: Write Uncorrectable, Compare, Verify, reads of unreadable LBAs (Unrecovered
Read Error, the error log, SMART media errors), what clears the marks, Get LBA Status and
the LBA Status Information log, and the FTL's injected read failures (read_uncor_ppm)."""
import struct
import time

import pytest

from nvme_qtest import (ADM_AER, ADM_GET_LBA_STATUS, ADM_GET_LOG, IO_COMPARE, IO_READ, IO_VERIFY, IO_WRITE,
                        IO_WRITE_UNCOR, PAGE, SC_COMPARE_FAILURE, SC_DATA_TRANSFER_ERROR,
                        SC_INVALID_FIELD, SC_INVALID_NS, SC_LBA_OUT_OF_RANGE,
                        SC_UNRECOVERED_READ, Command, femu_only, nvme_qemu, pattern, ready,
                        shared, start)  # noqa: F401

pytestmark = femu_only()

NSZE = (64 << 20) // 512                # SMALL_GEOMETRY, one namespace of 512 B LBAs
LBAS_PER_PAGE = 8                       # secs_per_pg=8: 4 KiB flash pages
BROADCAST = 0xFFFFFFFF
LOG_ERROR, LOG_SMART, LOG_LBA_STATUS = 0x01, 0x02, 0x0E
ATYPE_SCAN, ATYPE_TRACKED = 0x10, 0x11
CMPC_INCOMPLETE, CMPC_COMPLETE = 1, 2
PRINFO_PRCHK_GUARD = 1 << 28            # CDW12 bits 29:26
STC = 1 << 24
VSL_BYTES = PAGE << 10                  # femu's Verify Size Limit: 2^10 pages of 4 KiB


# ---------------------------------------------------------------- commands

def lba_cmd(opcode: int, slba: int, nlb: int, nsid: int = 1, xfer=None, cdw12: int = 0):
    """An I/O command over [slba, slba + nlb) (nlb 1-based), with xfer's PRPs if given."""
    return Command(opcode, nsid=nsid, prp1=xfer.prp1 if xfer else 0,
                   prp2=xfer.prp2 if xfer else 0, cdw10=slba & 0xFFFFFFFF, cdw11=slba >> 32,
                   cdw12=((nlb - 1) & 0xFFFF) | cdw12)


def write_uncor(nvme, sq, slba: int, nlb: int, nsid: int = 1):
    return nvme.run(sq, lba_cmd(IO_WRITE_UNCOR, slba, nlb, nsid))


def verify(nvme, sq, slba: int, nlb: int, nsid: int = 1, cdw12: int = 0):
    return nvme.run(sq, lba_cmd(IO_VERIFY, slba, nlb, nsid, cdw12=cdw12))


def compare(nvme, sq, slba: int, data: bytes, nsid: int = 1, cdw12: int = 0,
            lba_size: int = 512):
    xfer = nvme.transfer(len(data))
    nvme.fill(xfer, data)
    return nvme.run(sq, lba_cmd(IO_COMPARE, slba, len(data) // lba_size, nsid, xfer, cdw12))


def read_into(nvme, sq, slba: int, nlb: int, nsid: int = 1, lba_size: int = 512):
    """Read into a buffer filled with A5h first: (CQE, what the buffer holds after)."""
    xfer = nvme.transfer(nlb * lba_size)
    nvme.fill(xfer, b"\xA5" * (nlb * lba_size))
    cqe = nvme.run(sq, lba_cmd(IO_READ, slba, nlb, nsid, xfer))
    return cqe, nvme.contents(xfer)


def get_lba_status(nvme, slba: int = 0, mndw: int = 1023, rl: int = 0,
                   atype: int = ATYPE_TRACKED, nsid: int = 1):
    """Get LBA Status into a buffer of (MNDW + 1) dwords pre-filled with A5h: (CQE,
    NLSD, CMPC, [(DSLBA, NLB 1-based)], the raw buffer)."""
    length = (mndw + 1) * 4
    xfer = nvme.transfer(length, scatter=False)
    nvme.fill(xfer, b"\xA5" * length)
    cqe = nvme.admin(Command(ADM_GET_LBA_STATUS, nsid=nsid, prp1=xfer.prp1, prp2=xfer.prp2,
                             cdw10=slba & 0xFFFFFFFF, cdw11=slba >> 32, cdw12=mndw,
                             cdw13=rl | atype << 24))
    raw = nvme.contents(xfer)
    if not cqe.ok or length < 8:
        return cqe, None, None, [], raw
    nlsd, cmpc = struct.unpack_from("<IB", raw, 0)
    descs = []
    for i in range(nlsd):
        dslba, nlb = struct.unpack_from("<QI", raw, 8 + 16 * i)
        descs.append((dslba, nlb + 1))
    return cqe, nlsd, cmpc, descs, raw


def lba_status_log(nvme, length: int = 8192, rae: bool = False):
    """The LBA Status Information log: (header dict, {NEID: (NLRD, RATYPE, ranges)}) with
    ranges as [(RSLBA, RNLB 1-based)]."""
    cqe, data = nvme.get_log(LOG_LBA_STATUS, length, lsp=0x80 if rae else 0)   # RAE: bit 15
    assert cqe.ok, str(cqe)
    lslplen, nlslne, estulb, lsgc = struct.unpack_from("<III2xH", data, 0)
    elements, off = {}, 16
    for _ in range(nlslne):
        neid, nlrd, ratype = struct.unpack_from("<IIB", data, off)
        off += 16
        ranges = []
        if nlrd != 0xFFFFFFFF:
            for _ in range(nlrd):
                rslba, rnlb = struct.unpack_from("<QI", data, off)
                ranges.append((rslba, rnlb + 1))
                off += 16
        elements[neid] = (nlrd, ratype, ranges)
    header = {"lslplen": lslplen, "nlslne": nlslne, "estulb": estulb, "lsgc": lsgc,
              "end": off}
    return header, elements


def newest_error(nvme):
    """The newest Error Information log entry: (count, sqid, cid, status, lba, nsid)."""
    cqe, data = nvme.get_log(LOG_ERROR, 64)
    assert cqe.ok, str(cqe)
    count, sqid, cid, status = struct.unpack_from("<QHHH", data, 0)
    lba, nsid = struct.unpack_from("<QI", data, 16)
    return count, sqid, cid, status >> 1, lba, nsid


def media_errors(nvme, nsid: int = BROADCAST) -> int:
    cqe, data = nvme.get_log(LOG_SMART, 512, nsid=nsid)
    assert cqe.ok, str(cqe)
    return struct.unpack_from("<Q", data, 160)[0]


def smart_reads(nvme):
    """SMART (Data Units Read in thousands of 512 B, Host Read Commands)."""
    cqe, data = nvme.get_log(LOG_SMART, 512)
    assert cqe.ok, str(cqe)
    return struct.unpack_from("<Q", data, 32)[0], struct.unpack_from("<Q", data, 64)[0]


def nuse(nvme, nsid: int = 1) -> int:
    cqe, ident = nvme.identify(0x00, nsid)
    assert cqe.ok, str(cqe)
    return struct.unpack_from("<Q", ident, 16)[0]


def assert_unreadable(cqe):
    assert cqe.code == SC_UNRECOVERED_READ and cqe.dnr, str(cqe)


@pytest.fixture
def fresh(start):
    """A controller of its own (nothing marked yet) with I/O queue pair 1."""
    machine = start()
    machine.sq = ready(machine.nvme)[0]
    return machine


# ---------------------------------------------------------------- field checks

NEW_IO = {
    "write_uncorrectable": lambda nvme, sq, nsid: nvme.run(
        sq, lba_cmd(IO_WRITE_UNCOR, 0, 1, nsid)),
    "compare": lambda nvme, sq, nsid: compare(nvme, sq, 0, bytes(512), nsid),
    "verify": lambda nvme, sq, nsid: verify(nvme, sq, 0, 1, nsid),
    "get_lba_status": lambda nvme, sq, nsid: get_lba_status(nvme, nsid=nsid)[0],
}

NSIDS = {
    # name: (NSID, status) -- 2 is a valid NSID (NN = 32) with no namespace behind it
    "zero": (0, SC_INVALID_NS),
    "broadcast": (BROADCAST, SC_INVALID_NS),
    "beyond_nn": (33, SC_INVALID_NS),
    "inactive": (2, SC_INVALID_FIELD),
}


@pytest.mark.parametrize("nsid,status", NSIDS.values(), ids=list(NSIDS))
@pytest.mark.parametrize("command", NEW_IO.values(), ids=list(NEW_IO))
def test_nsid_checks(shared, command, nsid, status):
    cqe = command(shared.nvme, shared.sq, nsid)
    assert cqe.code == status and cqe.dnr, str(cqe)


RANGES = {
    # name: (SLBA, NLB)
    "slba_at_nsze": (NSZE, 1),
    "past_the_end": (NSZE - 4, 8),
    "slba_huge": (1 << 63, 1),
}


@pytest.mark.parametrize("slba,nlb", RANGES.values(), ids=list(RANGES))
@pytest.mark.parametrize("opcode", [IO_WRITE_UNCOR, IO_COMPARE, IO_VERIFY],
                         ids=["write_uncorrectable", "compare", "verify"])
def test_lba_out_of_range(shared, opcode, slba, nlb):
    nvme, sq = shared.nvme, shared.sq
    xfer = nvme.transfer(nlb * 512) if opcode == IO_COMPARE else None
    cqe = nvme.run(sq, lba_cmd(opcode, slba, nlb, xfer=xfer))
    assert cqe.code == SC_LBA_OUT_OF_RANGE and cqe.dnr, str(cqe)


@pytest.mark.parametrize("slba", [NSZE, NSZE + 100, 1 << 63])
def test_get_lba_status_slba_out_of_range(shared, slba):
    cqe = get_lba_status(shared.nvme, slba=slba)[0]
    assert cqe.code == SC_LBA_OUT_OF_RANGE and cqe.dnr, str(cqe)


@pytest.mark.parametrize("atype", [0x00, 0x01, 0x02, 0x0F, 0x12, 0xFF])
def test_get_lba_status_unknown_action_type(shared, atype):
    cqe = get_lba_status(shared.nvme, atype=atype)[0]
    assert cqe.code == SC_INVALID_FIELD and cqe.dnr, str(cqe)


@pytest.mark.parametrize("cdw12", [PRINFO_PRCHK_GUARD, 1 << 29, STC],
                         ids=["prinfo_prchk", "prinfo_pract", "stc"])
@pytest.mark.parametrize("opcode", [IO_COMPARE, IO_VERIFY], ids=["compare", "verify"])
def test_protection_information_refused(shared, opcode, cdw12):
    nvme, sq = shared.nvme, shared.sq
    xfer = nvme.transfer(512) if opcode == IO_COMPARE else None
    cqe = nvme.run(sq, lba_cmd(opcode, 0, 1, xfer=xfer, cdw12=cdw12))
    assert cqe.code == SC_INVALID_FIELD and cqe.dnr, str(cqe)


@pytest.mark.parametrize("opcode", [IO_COMPARE, IO_VERIFY], ids=["compare", "verify"])
def test_fua_and_limited_retry_accepted(shared, opcode):
    nvme, sq = shared.nvme, shared.sq
    xfer = nvme.transfer(512) if opcode == IO_COMPARE else None
    cqe = nvme.run(sq, lba_cmd(opcode, 120000, 1, xfer=xfer, cdw12=1 << 31 | 1 << 30))
    assert cqe.ok, str(cqe)


def test_identify_reports_the_verify_size_limit(shared):
    cqe, ident = shared.nvme.identify(0x06)
    assert cqe.ok, str(cqe)
    assert ident[0] == 10                   # VSL: 2^10 minimum-size (4 KiB) pages
    assert ident[1] == 0 and ident[2] == 0  # WZSL, WUSL: no limit


# ---------------------------------------------------------------- Compare

def test_compare_match(shared):
    nvme, sq = shared.nvme, shared.sq
    data = pattern(8 * 512, 31)
    assert nvme.write(sq, 1000, data).ok
    cqe = compare(nvme, sq, 1000, data)
    assert cqe.ok, str(cqe)


def test_compare_of_unwritten_blocks_matches_zeroes(shared):
    cqe = compare(shared.nvme, shared.sq, 110000, bytes(4 * 512))
    assert cqe.ok, str(cqe)


def test_compare_mismatch_is_logged_with_the_first_differing_lba(shared):
    nvme, sq = shared.nvme, shared.sq
    data = pattern(8 * 512, 32)
    assert nvme.write(sq, 1100, data).ok
    wrong = bytearray(data)
    wrong[5 * 512 + 17] ^= 1                # LBA 1105 differs
    cqe = compare(nvme, sq, 1100, bytes(wrong))
    assert cqe.code == SC_COMPARE_FAILURE and cqe.dnr, str(cqe)
    _, sqid, cid, status, lba, nsid = newest_error(nvme)
    assert (sqid, cid, status & 0x7FF, lba, nsid) == (1, cqe.cid, SC_COMPARE_FAILURE, 1105, 1)
    # the data is unchanged by a compare
    cqe, got = nvme.read(sq, 1100, 8)
    assert cqe.ok and got == data


def test_compare_beyond_mdts(shared):
    nvme, sq = shared.nvme, shared.sq
    _, ident = nvme.identify(1)
    nlb = (PAGE << ident[77]) // 512 + 1
    xfer = nvme.transfer(PAGE)                  # never read: the size is refused first
    cqe = nvme.run(sq, lba_cmd(IO_COMPARE, 0, nlb, xfer=xfer))
    assert cqe.code == SC_INVALID_FIELD and cqe.dnr, str(cqe)


def test_compare_counts_as_a_host_read(shared):
    nvme, sq = shared.nvme, shared.sq
    _, before = smart_reads(nvme)
    assert compare(nvme, sq, 1200, bytes(512)).ok
    assert verify(nvme, sq, 1200, 1).ok         # Data Units Read, not a read command
    _, after = smart_reads(nvme)
    assert after == before + 1


# ---------------------------------------------------------------- Verify

def test_verify_written_and_unwritten(shared):
    nvme, sq = shared.nvme, shared.sq
    assert nvme.write(sq, 1300, pattern(16 * 512, 33)).ok
    assert verify(nvme, sq, 1300, 16).ok
    assert verify(nvme, sq, 100000, 64).ok


def test_verify_ignores_the_prps(shared):
    nvme, sq = shared.nvme, shared.sq
    cmd = lba_cmd(IO_VERIFY, 1300, 8)
    cmd.prp1, cmd.prp2 = 0xFFFF_FFFF_F000, 3     # nothing to transfer, nothing looked at
    assert nvme.run(sq, cmd).ok


def test_verify_size_limit(shared):
    nvme, sq = shared.nvme, shared.sq
    assert verify(nvme, sq, 0, VSL_BYTES // 512).ok
    cqe = verify(nvme, sq, 0, VSL_BYTES // 512 + 1)
    assert cqe.code == SC_INVALID_FIELD and cqe.dnr, str(cqe)


# ---------------------------------------------------------------- Write Uncorrectable

def test_write_uncorrectable_then_read_fails(shared):
    nvme, sq = shared.nvme, shared.sq
    data = pattern(16 * 512, 34)
    assert nvme.write(sq, 2000, data).ok
    errors, ns_errors = media_errors(nvme), media_errors(nvme, nsid=1)
    count = newest_error(nvme)[0]
    assert write_uncor(nvme, sq, 2004, 4).ok
    cqe, got = read_into(nvme, sq, 2000, 16)
    assert_unreadable(cqe)
    assert got == b"\xA5" * (16 * 512)          # no data reached the guest
    entry = newest_error(nvme)
    assert entry[0] == count + 1
    assert entry[1:] == (1, cqe.cid, SC_UNRECOVERED_READ | 1 << 14, 2004, 1)
    assert media_errors(nvme) == errors + 1
    assert media_errors(nvme, nsid=1) == ns_errors + 1
    # the LBAs around the marked ones still read
    cqe, got = nvme.read(sq, 2000, 4)
    assert cqe.ok and got == data[:4 * 512]
    cqe, got = nvme.read(sq, 2008, 8)
    assert cqe.ok and got == data[8 * 512:]


@pytest.mark.parametrize("opcode", [IO_READ, IO_COMPARE], ids=["read", "compare"])
def test_marked_lbas_still_have_their_prps_checked(shared, opcode):
    nvme, sq = shared.nvme, shared.sq
    assert write_uncor(nvme, sq, 2050, 8).ok
    cmd = lba_cmd(opcode, 2050, 8, xfer=nvme.transfer(4096))
    cmd.prp1 = 0                                        # a needed PRP entry of 0
    cqe = nvme.run(sq, cmd)
    assert cqe.code == SC_INVALID_FIELD and cqe.dnr, str(cqe)
    cmd.prp1 = 0x4_0000_0000                            # not guest RAM: nothing there
    cqe = nvme.run(sq, cmd)
    assert cqe.code == SC_DATA_TRANSFER_ERROR and cqe.dnr, str(cqe)
    _, ident = nvme.identify(1)
    cqe = nvme.run(sq, lba_cmd(opcode, 0, (PAGE << ident[77]) // 512 + 1,
                               xfer=nvme.transfer(4096)))
    assert cqe.code == SC_INVALID_FIELD and cqe.dnr, str(cqe)   # beyond MDTS


def test_compare_and_verify_of_marked_lbas_fail(shared):
    nvme, sq = shared.nvme, shared.sq
    data = pattern(8 * 512, 35)
    assert nvme.write(sq, 2100, data).ok
    assert write_uncor(nvme, sq, 2107, 1).ok
    errors = media_errors(nvme)
    assert_unreadable(compare(nvme, sq, 2100, data))
    assert_unreadable(verify(nvme, sq, 2100, 8))
    assert verify(nvme, sq, 2100, 7).ok
    assert compare(nvme, sq, 2100, data[:7 * 512]).ok
    assert media_errors(nvme) == errors + 2


def test_write_clears_the_marks_it_covers(shared):
    nvme, sq = shared.nvme, shared.sq
    assert write_uncor(nvme, sq, 2200, 8).ok
    assert nvme.write(sq, 2200, pattern(4 * 512, 36)).ok       # 2200..2203
    cqe, got = nvme.read(sq, 2200, 4)
    assert cqe.ok and got == pattern(4 * 512, 36)
    assert_unreadable(nvme.read(sq, 2204, 1)[0])
    assert_unreadable(nvme.read(sq, 2200, 5)[0])
    assert nvme.write(sq, 2204, pattern(4 * 512, 37)).ok
    cqe, got = nvme.read(sq, 2200, 8)
    assert cqe.ok and got == pattern(4 * 512, 36) + pattern(4 * 512, 37)


def test_deallocate_clears_exactly_the_named_lbas(shared):
    nvme, sq = shared.nvme, shared.sq
    assert write_uncor(nvme, sq, 2300, 16).ok
    assert nvme.dsm_deallocate(sq, [(2304, 4), (2310, 1)]).ok
    for slba, nlb in ((2304, 4), (2310, 1)):
        cqe, got = nvme.read(sq, slba, nlb)
        assert cqe.ok and got == bytes(nlb * 512)
    for slba in (2300, 2303, 2308, 2309, 2311, 2315):
        assert_unreadable(nvme.read(sq, slba, 1)[0])


@pytest.mark.parametrize("deac", [False, True])
def test_write_zeroes_clears_the_marks(shared, deac):
    nvme, sq = shared.nvme, shared.sq
    slba = 2400 + 100 * int(deac)
    assert write_uncor(nvme, sq, slba, 8).ok
    assert nvme.write_zeroes(sq, slba, 8, deac=deac).ok
    cqe, got = nvme.read(sq, slba, 8)
    assert cqe.ok and got == bytes(8 * 512)


def test_write_uncorrectable_counts_as_allocated(fresh):
    nvme, sq = fresh.nvme, fresh.sq
    assert nuse(nvme) == 0
    assert write_uncor(nvme, sq, 500, 10).ok
    assert nuse(nvme) == 10
    assert nvme.write(sq, 505, pattern(10 * 512, 38)).ok       # 505..514: 5 more
    assert nuse(nvme) == 15
    assert nvme.dsm_deallocate(sq, [(500, 15)]).ok
    assert nuse(nvme) == 0


def test_write_uncorrectable_costs_no_data_units(shared):
    nvme, sq = shared.nvme, shared.sq
    cqe, before = nvme.get_log(LOG_SMART, 512)
    assert write_uncor(nvme, sq, 30000, 0x8000).ok              # 16 MiB at once
    cqe, after = nvme.get_log(LOG_SMART, 512)
    assert before[48:64] == after[48:64] and before[80:96] == after[80:96]
    assert nvme.write_zeroes(sq, 30000, 0x8000, deac=True).ok


# ---------------------------------------------------------------- Get LBA Status

def test_get_lba_status_lists_the_marked_runs(fresh):
    nvme, sq = fresh.nvme, fresh.sq
    cqe, nlsd, cmpc, descs, _ = get_lba_status(nvme)
    assert cqe.ok and (nlsd, cmpc, descs) == (0, CMPC_COMPLETE, [])
    for slba, nlb in ((10, 5), (100, 1), (200, 30), (NSZE - 2, 2)):
        assert write_uncor(nvme, sq, slba, nlb).ok
    expected = [(10, 5), (100, 1), (200, 30), (NSZE - 2, 2)]
    for atype in (ATYPE_TRACKED, ATYPE_SCAN):
        cqe, nlsd, cmpc, descs, raw = get_lba_status(nvme, atype=atype)
        assert cqe.ok, str(cqe)
        assert (nlsd, cmpc, descs) == (4, CMPC_COMPLETE, expected)
        assert raw[5:8] == bytes(3)                         # reserved
        for i in range(4):                                  # rsvd, status 01h, rsvd
            assert raw[20 + 16 * i:24 + 16 * i] == b"\x00\x01\x00\x00"
        assert raw[8 + 16 * 4:] == b"\xA5" * (len(raw) - 8 - 16 * 4)   # nothing more sent
    # From inside a run: it starts at SLBA.
    assert get_lba_status(nvme, slba=12)[3] == [(12, 3), (100, 1), (200, 30), (NSZE - 2, 2)]
    assert get_lba_status(nvme, slba=15)[3] == [(100, 1), (200, 30), (NSZE - 2, 2)]
    # A range length: runs cut at its end, later runs left out, and still complete.
    _, nlsd, cmpc, descs, _ = get_lba_status(nvme, slba=0, rl=205)
    assert (nlsd, cmpc, descs) == (3, CMPC_COMPLETE, [(10, 5), (100, 1), (200, 5)])
    _, nlsd, cmpc, descs, _ = get_lba_status(nvme, slba=101, rl=99)
    assert (nlsd, cmpc, descs) == (0, CMPC_COMPLETE, [])
    # A range past the end of the namespace stops there.
    assert get_lba_status(nvme, slba=NSZE - 1, rl=100)[3] == [(NSZE - 1, 1)]


def test_get_lba_status_merges_adjacent_runs(fresh):
    nvme, sq = fresh.nvme, fresh.sq
    assert write_uncor(nvme, sq, 300, 2).ok
    assert write_uncor(nvme, sq, 302, 2).ok
    assert write_uncor(nvme, sq, 305, 1).ok
    assert get_lba_status(nvme)[3] == [(300, 4), (305, 1)]


def test_get_lba_status_mndw_truncates(fresh):
    nvme, sq = fresh.nvme, fresh.sq
    for slba in (10, 20, 30):
        assert write_uncor(nvme, sq, slba, 2).ok
    # MNDW is 0-based: (8 + 2 * 16) / 4 - 1 = 9 holds the header and two descriptors.
    cqe, nlsd, cmpc, descs, raw = get_lba_status(nvme, mndw=9)
    assert cqe.ok and (nlsd, cmpc, descs) == (2, CMPC_INCOMPLETE, [(10, 2), (20, 2)])
    # One dword short of the second descriptor: only the first.
    _, nlsd, cmpc, descs, raw = get_lba_status(nvme, mndw=8)
    assert (nlsd, cmpc, descs) == (1, CMPC_INCOMPLETE, [(10, 2)])
    assert raw[24:] == b"\xA5" * 12
    # The header alone.
    _, nlsd, cmpc, descs, _ = get_lba_status(nvme, mndw=1)
    assert (nlsd, cmpc, descs) == (0, CMPC_INCOMPLETE, [])
    # Exactly room for all three: complete.
    _, nlsd, cmpc, descs, _ = get_lba_status(nvme, mndw=13)
    assert (nlsd, cmpc) == (3, CMPC_COMPLETE)
    # The host goes on from after the last descriptor it got.
    assert get_lba_status(nvme, slba=22, mndw=9)[1:4] == (1, CMPC_COMPLETE, [(30, 2)])


def test_get_lba_status_with_one_dword(fresh):
    nvme, sq = fresh.nvme, fresh.sq
    assert write_uncor(nvme, sq, 10, 2).ok
    cqe, _, _, _, raw = get_lba_status(nvme, mndw=0)
    assert cqe.ok and raw == struct.pack("<I", 0)        # NLSD only


def test_get_lba_status_after_clearing(fresh):
    nvme, sq = fresh.nvme, fresh.sq
    assert write_uncor(nvme, sq, 40, 10).ok
    assert nvme.write(sq, 42, pattern(2 * 512, 39)).ok
    assert nvme.dsm_deallocate(sq, [(47, 1)]).ok
    assert get_lba_status(nvme)[3] == [(40, 2), (44, 3), (48, 2)]
    assert nvme.write_zeroes(sq, 40, 10).ok
    assert get_lba_status(nvme)[1:4] == (0, CMPC_COMPLETE, [])


# ---------------------------------------------------------------- the LBA Status log

def test_lba_status_log_lists_the_marked_ranges(fresh):
    nvme, sq = fresh.nvme, fresh.sq
    header, elements = lba_status_log(nvme)
    assert (header["lslplen"], header["nlslne"], header["estulb"]) == (16, 0, 0)
    assert elements == {}
    gen = header["lsgc"]
    assert write_uncor(nvme, sq, 7, 3).ok
    assert write_uncor(nvme, sq, 1000, 1).ok
    header, elements = lba_status_log(nvme)
    assert header["lslplen"] == 16 + 16 + 2 * 16 == header["end"]
    assert (header["nlslne"], header["estulb"]) == (1, 4)
    assert header["lsgc"] == (gen + 1) & 0xFFFF     # new LBAs since the last read: once
    assert elements == {1: (2, ATYPE_TRACKED, [(7, 3), (1000, 1)])}
    # Reading it changes nothing; marking marked LBAs again adds nothing.
    assert write_uncor(nvme, sq, 7, 1).ok
    again, elements = lba_status_log(nvme)
    assert again == header and elements == {1: (2, ATYPE_TRACKED, [(7, 3), (1000, 1)])}
    # A write clears part of it: fewer LBAs, the same generation.
    assert nvme.write(sq, 8, pattern(512, 40)).ok
    header, elements = lba_status_log(nvme)
    assert header["lsgc"] == (gen + 1) & 0xFFFF
    assert elements == {1: (3, ATYPE_TRACKED, [(7, 1), (9, 1), (1000, 1)])}
    assert header["estulb"] == 3
    # Marked again after that read: new to the host, the generation moves.
    assert write_uncor(nvme, sq, 8, 1).ok
    header, elements = lba_status_log(nvme)
    assert header["lsgc"] == (gen + 2) & 0xFFFF
    assert elements == {1: (2, ATYPE_TRACKED, [(7, 3), (1000, 1)])}


def test_lba_status_log_keeps_what_a_read_with_rae_saw(fresh):
    nvme, sq = fresh.nvme, fresh.sq
    assert write_uncor(nvme, sq, 20, 2).ok
    seen = lba_status_log(nvme, rae=True)
    assert seen[1] == {1: (1, ATYPE_TRACKED, [(20, 2)])}
    assert write_uncor(nvme, sq, 30, 1).ok                      # added meanwhile
    assert nvme.write(sq, 20, pattern(512, 44)).ok              # and partly cleared
    assert lba_status_log(nvme, rae=True) == seen               # unchanged for RAE reads
    header, elements = lba_status_log(nvme)                     # without RAE: as it is now
    assert elements == {1: (2, ATYPE_TRACKED, [(21, 1), (30, 1)])}
    assert header["lsgc"] == (seen[0]["lsgc"] + 1) & 0xFFFF     # more to look at
    assert lba_status_log(nvme, rae=True) == (header, elements)  # a new page to keep


def test_lba_status_information_alert(fresh):
    nvme, sq = fresh.nvme, fresh.sq
    cid = nvme.submit(nvme.asq, Command(ADM_AER))
    assert write_uncor(nvme, sq, 50, 1).ok                      # notices off: no alert
    nvme.assert_no_completion(nvme.asq, cid, 0.2)
    assert nvme.set_features(0x0B, 1 << 13).ok                  # LBA status info notices
    assert write_uncor(nvme, sq, 60, 1).ok                      # LSGC moved since: alert
    cqe = nvme.wait(nvme.asq, cid)
    assert cqe.ok and cqe.dw0 == 0x02 | 0x05 << 8 | LOG_LBA_STATUS << 16
    # Outstanding until the log is read without RAE: more marks raise nothing.
    cid = nvme.submit(nvme.asq, Command(ADM_AER))
    assert write_uncor(nvme, sq, 70, 1).ok
    lba_status_log(nvme, rae=True)
    assert write_uncor(nvme, sq, 80, 1).ok
    nvme.assert_no_completion(nvme.asq, cid, 0.2)
    _, elements = lba_status_log(nvme)
    assert elements[1][2] == [(50, 1), (60, 1), (70, 1), (80, 1)]
    assert nvme.write(sq, 50, pattern(512, 45)).ok              # a clear is no alert
    assert write_uncor(nvme, sq, 70, 1).ok                      # nor marking marked LBAs
    nvme.assert_no_completion(nvme.asq, cid, 0.2)
    assert write_uncor(nvme, sq, 90, 1).ok
    cqe = nvme.wait(nvme.asq, cid)
    assert cqe.ok and cqe.dw0 >> 8 == 0x05 | LOG_LBA_STATUS << 8


def test_a_failed_lba_status_read_changes_nothing(fresh):
    """A read without RAE that cannot reach the host (its PRP is the device's registers)
    neither drops the page kept for RAE reads nor re-arms the alert (issue 29, fault 5)."""
    nvme, sq = fresh.nvme, fresh.sq
    assert write_uncor(nvme, sq, 50, 1).ok
    kept = lba_status_log(nvme, rae=True)
    assert write_uncor(nvme, sq, 60, 1).ok                      # not in the kept page
    cqe = nvme.admin(Command(ADM_GET_LOG, nsid=0xFFFFFFFF, prp1=nvme.bar0 + 0x1000,
                             cdw10=LOG_LBA_STATUS | (512 // 4 - 1) << 16))
    assert cqe.code == SC_DATA_TRANSFER_ERROR
    assert lba_status_log(nvme, rae=True) == kept               # still the kept page
    _, elements = lba_status_log(nvme)                          # read: a fresh page
    assert elements[1][2] == [(50, 1), (60, 1)]


def test_lba_status_log_offset_reads_the_rest(fresh):
    nvme, sq = fresh.nvme, fresh.sq
    assert write_uncor(nvme, sq, 70, 2).ok
    _, whole = nvme.get_log(LOG_LBA_STATUS, 48)
    cqe, tail = nvme.get_log(LOG_LBA_STATUS, 16, offset=32)
    assert cqe.ok and tail == whole[32:48]
    cqe, _ = nvme.get_log(LOG_LBA_STATUS, 16, offset=48)        # past its 48 bytes
    assert cqe.code == SC_INVALID_FIELD and cqe.dnr, str(cqe)


def test_lba_status_log_caps_the_ranges_of_a_namespace(fresh):
    nvme, sq = fresh.nvme, fresh.sq
    for i in range(257):                    # 257 runs: one more than an element lists
        assert write_uncor(nvme, sq, 2 * i, 1).ok
    header, elements = lba_status_log(nvme)
    assert elements == {1: (0xFFFFFFFF, ATYPE_TRACKED, [])}     # examine the namespace
    assert header["lslplen"] == 32 and header["estulb"] == 257
    cqe, nlsd, cmpc, descs, _ = get_lba_status(nvme, mndw=2 + 4 * 300)
    assert cqe.ok and (nlsd, cmpc) == (257, CMPC_COMPLETE)
    assert descs == [(2 * i, 1) for i in range(257)]
    assert nvme.write(sq, 0, pattern(2 * 512, 41)).ok           # 256 runs left: listed
    _, elements = lba_status_log(nvme)
    assert elements[1][0] == 256 and elements[1][2] == [(2 * i, 1) for i in range(1, 257)]


def test_namespaces_are_separate(start):
    machine = start("namespaces=2")
    nvme = machine.nvme
    sq = ready(nvme)[0]
    half = NSZE // 2
    assert write_uncor(nvme, sq, 5, 1, nsid=2).ok
    assert write_uncor(nvme, sq, half - 1, 1, nsid=1).ok
    assert_unreadable(verify(nvme, sq, 5, 1, nsid=2))
    assert verify(nvme, sq, 5, 1, nsid=1).ok
    assert verify(nvme, sq, 0, 1, nsid=2).ok
    assert get_lba_status(nvme, nsid=1)[3] == [(half - 1, 1)]
    assert get_lba_status(nvme, nsid=2)[3] == [(5, 1)]
    _, elements = lba_status_log(nvme)
    assert elements == {1: (1, ATYPE_TRACKED, [(half - 1, 1)]),
                        2: (1, ATYPE_TRACKED, [(5, 1)])}
    errors = media_errors(nvme, nsid=2)
    cqe, _ = read_into(nvme, sq, 4, 2, nsid=2)
    assert_unreadable(cqe)
    assert newest_error(nvme)[4:] == (5, 2)
    assert media_errors(nvme, nsid=2) == errors + 1
    assert media_errors(nvme, nsid=1) == 0


# ---------------------------------------------------------------- injected read failures

def test_every_read_of_written_data_fails_with_read_uncor_ppm(start):
    machine = start("read_uncor_ppm=1000000")
    nvme = machine.nvme
    sq = ready(nvme)[0]
    data = pattern(4 * LBAS_PER_PAGE * 512, 42)         # four flash pages from LBA 64
    assert nvme.write(sq, 64, data).ok
    # Never written: no flash page is read, nothing fails.
    cqe, got = nvme.read(sq, 4096, 8)
    assert cqe.ok and got == bytes(8 * 512)
    assert get_lba_status(nvme)[3] == []
    # A read of part of a page fails, and the whole page becomes tracked.
    cqe = nvme.read(sq, 66, 2)[0]
    assert_unreadable(cqe)
    assert newest_error(nvme)[1:] == (1, cqe.cid, SC_UNRECOVERED_READ | 1 << 14, 66, 1)
    assert media_errors(nvme) == 1 and media_errors(nvme, nsid=1) == 1
    assert get_lba_status(nvme)[3] == [(64, 8)]
    # Verify reads the flash too: the next page fails as well.
    assert_unreadable(verify(nvme, sq, 72, 8))
    assert get_lba_status(nvme)[3] == [(64, 16)]
    _, elements = lba_status_log(nvme)
    assert elements == {1: (1, ATYPE_TRACKED, [(64, 16)])}
    # A read of two fresh pages: the first page that failed is tracked.
    assert_unreadable(nvme.read(sq, 80, 16)[0])
    assert newest_error(nvme)[4:] == (80, 1)
    assert get_lba_status(nvme)[3] == [(64, 24)]
    assert media_errors(nvme) == 3
    # Rewriting clears the marks; the next read rolls the dice again (and fails).
    assert nvme.write(sq, 64, data).ok
    assert get_lba_status(nvme)[3] == []
    assert_unreadable(compare(nvme, sq, 88, data[24 * 512:]))
    assert get_lba_status(nvme)[3] == [(88, 8)]


def test_failing_reads_take_the_flash_time(start):
    """Reads of marked LBAs still go to the FTL: they complete after the flash reads."""
    machine = start("pg_rd_lat=50000000")        # 50 ms per page read
    nvme = machine.nvme
    sq = ready(nvme)[0]
    assert nvme.write(sq, 0, pattern(8 * 512, 43)).ok
    assert write_uncor(nvme, sq, 0, 8).ok
    for command in (lambda: nvme.read(sq, 0, 8)[0], lambda: verify(nvme, sq, 0, 8),
                    lambda: compare(nvme, sq, 0, bytes(8 * 512))):
        began = time.monotonic()
        assert_unreadable(command())
        assert time.monotonic() - began >= 0.045
