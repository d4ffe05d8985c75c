"""Flexible Data Placement (placement=fdp) over qtest: Identify, the Commands Supported and
Effects log, log pages 20h-23h (fields, the endurance group in LSI, partial reads), features
1Dh and 1Eh (their saved values, and what a controller reset makes of them), I/O Management
Receive (RUH Status) and Send (RUH Update), writes naming a placement identifier, the
events the device records, and what a device without FDP says."""
import random
import struct

import pytest

from nvme_qtest import (ADM_GET_LOG, ADM_GET_FEATURES, ADM_SET_FEATURES, IO_READ,
                        IO_WRITE, IO_WRITE_ZEROES, PAGE, SC_FEATURE_NOT_SAVEABLE,
                        SC_INVALID_FIELD, SC_INVALID_LOG_PAGE, SC_INVALID_NS,
                        SC_INVALID_OPCODE, Command, femu_only, nvme_qemu, pattern, ready,
                        start, wait_for)  # noqa: F401

pytestmark = femu_only()

FDP = "placement=fdp,fdp_ruhs=4"
RU_BYTES = 2 * 2 * 128 * 4096           # SMALL_GEOMETRY's line: 4 LUNs x 128 pages of 4 KiB
RU_PAGES = RU_BYTES // 4096
LBA = 512
LID_EFFECTS, LID_OCP = 0x05, 0xC0
LID_CONFIGS, LID_USAGE, LID_STATS, LID_EVENTS = 0x20, 0x21, 0x22, 0x23
FID_FDP, FID_FDP_EVENTS = 0x1D, 0x1E
IO_MGMT_RECV, IO_MGMT_SEND = 0x12, 0x1D
ADM_NS_MGMT, ADM_NS_ATTACH = 0x0D, 0x15
SC_CMD_SEQ_ERROR, SC_FDP_DISABLED, SC_INVALID_PHL = 0x00C, 0x029, 0x02A
SC_INVALID_FORMAT = 0x10A
EVT_NOT_FULLY_WRITTEN, EVT_TIME_LIMIT, EVT_RESET, EVT_INVALID_PID = 0, 1, 2, 3
PIV, NSIDV, LV = 1, 2, 4
BROADCAST = 0xFFFFFFFF


# ---------------------------------------------------------------- commands

def get_log(nvme, lid, length, *, lsi=1, lsp=0, offset=0, nsid=0):
    xfer = nvme.transfer(length, scatter=False)
    numd = length // 4 - 1
    cqe = nvme.admin(Command(ADM_GET_LOG, nsid=nsid, prp1=xfer.prp1, prp2=xfer.prp2,
                             cdw10=lid | lsp << 8 | (numd & 0xFFFF) << 16,
                             cdw11=numd >> 16 | lsi << 16, cdw12=offset & 0xFFFFFFFF,
                             cdw13=offset >> 32))
    return cqe, nvme.contents(xfer)


def log_ok(nvme, lid, length, **kw):
    cqe, data = get_log(nvme, lid, length, **kw)
    assert cqe.ok, f"log {lid:#x}: {cqe}"
    return data


def set_fdp(nvme, enable, cidx=0, endgid=1, save=False):
    return nvme.admin(Command(ADM_SET_FEATURES, cdw10=FID_FDP | int(save) << 31,
                              cdw11=endgid, cdw12=int(enable) | cidx << 8))


def get_fdp(nvme, endgid=1, sel=0):
    return nvme.admin(Command(ADM_GET_FEATURES, cdw10=FID_FDP | sel << 8, cdw11=endgid))


def set_events(nvme, types, enable, phndl=0, nsid=1, save=False):
    addr = nvme.buffer(bytes(types).ljust(PAGE, b"\0"))
    return nvme.admin(Command(ADM_SET_FEATURES, nsid=nsid, prp1=addr,
                              cdw10=FID_FDP_EVENTS | int(save) << 31,
                              cdw11=phndl | len(types) << 16, cdw12=int(enable)))


def get_events(nvme, phndl=0, nsid=1, noet=255, sel=0):
    addr = nvme.mem.alloc(PAGE)
    cqe = nvme.admin(Command(ADM_GET_FEATURES, nsid=nsid, prp1=addr,
                             cdw10=FID_FDP_EVENTS | sel << 8, cdw11=phndl | noet << 16))
    raw = nvme.qt.memread(addr, 2 * 255)
    return cqe, {raw[2 * i]: raw[2 * i + 1] & 1 for i in range(cqe.dw0 if cqe.ok else 0)}


def enable_events(nvme, types, phndl=0, nsid=1, save=False):
    cqe = set_events(nvme, types, True, phndl, nsid, save)
    assert cqe.ok, str(cqe)


def reset(nvme):
    """A controller reset (CC.EN 1 -> 0), then enabled again with one I/O queue pair."""
    nvme.disable()
    return ready(nvme)[0]


def ruh_status(nvme, sq, nsid=1, length=PAGE, mo=1):
    xfer = nvme.transfer(length, scatter=False)
    cqe = nvme.run(sq, Command(IO_MGMT_RECV, nsid=nsid, prp1=xfer.prp1, prp2=xfer.prp2,
                               cdw10=mo, cdw11=length // 4 - 1))
    return cqe, nvme.contents(xfer)


def handles(nvme, sq, nsid=1):
    """{pid: (ruhid, earutr, ruamw)} from I/O Management Receive's RUH Status."""
    cqe, data = ruh_status(nvme, sq, nsid)
    assert cqe.ok, str(cqe)
    count = struct.unpack_from("<H", data, 14)[0]
    found = {}
    for i in range(count):
        pid, ruhid, earutr, ruamw = struct.unpack_from("<HHIQ", data, 16 + 32 * i)
        assert data[16 + 32 * i + 16:16 + 32 * i + 32] == bytes(16)
        found[pid] = (ruhid, earutr, ruamw)
    return found


def ruh_update(nvme, sq, pids, nsid=1, mo=1, npid=None):
    addr = nvme.buffer(struct.pack(f"<{len(pids)}H", *pids).ljust(PAGE, b"\0"))
    npid = len(pids) - 1 if npid is None else npid
    return nvme.run(sq, Command(IO_MGMT_SEND, nsid=nsid, prp1=addr, cdw10=mo | npid << 16))


def write(nvme, sq, slba, data, *, pid=None, dtype=2, nsid=1, opcode=IO_WRITE):
    xfer = nvme.transfer(len(data))
    nvme.fill(xfer, data)
    cmd = nvme.rw(sq, opcode, slba, len(data) // LBA, xfer, nsid=nsid)
    if pid is not None:
        cmd.cdw12 |= dtype << 20
        cmd.cdw13 = pid << 16
    return nvme.run(sq, cmd)


def events(nvme, host=True):
    """The FDP events log: [{type, flags, pid, ms, nsid, rgid, ruhid, unwritten, ru}]."""
    data = log_ok(nvme, LID_EVENTS, 4096, lsp=int(host))
    count = struct.unpack_from("<I", data, 0)[0]
    assert data[4:64] == bytes(60)
    found = []
    for i in range(count):
        rec = data[64 * (i + 1):64 * (i + 2)]
        etype, flags, pid, ts, nsid = struct.unpack_from("<BBHQI", rec, 0)
        rgid, ruhid = struct.unpack_from("<HB", rec, 32)
        unwritten, ru = struct.unpack_from("<QI", rec, 40)
        found.append(dict(type=etype, flags=flags, pid=pid, ms=ts & (1 << 48) - 1, nsid=nsid,
                          rgid=rgid, ruhid=ruhid, unwritten=unwritten, ru=ru,
                          specific=rec[16:32]))
    assert data[64 * (count + 1):] == bytes(4096 - 64 * (count + 1))
    return found


def create_ns(nvme, nsze, *, handles_list=None, nphndls=None, flbas=0, endgid=0):
    ident = bytearray(PAGE)
    struct.pack_into("<QQ", ident, 0, nsze, nsze)
    ident[26] = flbas
    struct.pack_into("<H", ident, 102, endgid)
    handles_list = handles_list or []
    struct.pack_into("<H", ident, 392, len(handles_list) if nphndls is None else nphndls)
    for i, ruh in enumerate(handles_list):
        struct.pack_into("<H", ident, 512 + 2 * i, ruh)
    return nvme.admin(Command(ADM_NS_MGMT, prp1=nvme.buffer(bytes(ident)), cdw10=0))


def attach(nvme, nsid):
    table = struct.pack("<HH", 1, 0).ljust(PAGE, b"\0")
    return nvme.admin(Command(ADM_NS_ATTACH, nsid=nsid, cdw10=0, prp1=nvme.buffer(table)))


def delete_all(nvme):
    cqe = nvme.admin(Command(ADM_NS_MGMT, nsid=BROADCAST, cdw10=1))
    assert cqe.ok, str(cqe)


def allocated(nvme):
    cqe, data = nvme.identify(0x10)
    assert cqe.ok
    ids = struct.unpack("<1024I", data)
    return [i for i in ids if i]


def usage(nvme):
    data = log_ok(nvme, LID_USAGE, PAGE)
    count = struct.unpack_from("<H", data, 0)[0]
    return [data[8 + 8 * i] for i in range(count)]


def u128(data, off):
    lo, hi = struct.unpack_from("<QQ", data, off)
    return lo | hi << 64


def stats(nvme):
    data = log_ok(nvme, LID_STATS, 64)
    assert data[48:64] == bytes(16)
    return u128(data, 0), u128(data, 16), u128(data, 32)


def fdp_machine(start, props=FDP, queues=1):
    nvme = start(props).nvme
    sqs = ready(nvme, io_queues=queues)
    return nvme, (sqs[0] if sqs else None)


# ---------------------------------------------------------------- identify, effects, offer

def test_identify_reports_fdp_and_the_endurance_group(start):
    nvme, _ = fdp_machine(start, queues=0)
    cqe, ctrl = nvme.identify(1)
    assert cqe.ok
    assert struct.unpack_from("<I", ctrl, 96)[0] >> 19 & 1          # CTRATT.FDPS
    assert struct.unpack_from("<H", ctrl, 340)[0] == 1               # ENDGIDMAX
    cqe, ns = nvme.identify(0, nsid=1)
    assert cqe.ok and struct.unpack_from("<H", ns, 102)[0] == 1     # ENDGID
    data = log_ok(nvme, LID_EFFECTS, 4096, nsid=0)
    iocs = struct.unpack_from("<256I", data, 1024)
    assert iocs[IO_MGMT_RECV] & 1 and iocs[IO_MGMT_SEND] & 1


def test_without_placement_fdp_nothing_is_offered(start):
    nvme, sq = fdp_machine(start, props="")
    _, ctrl = nvme.identify(1)
    assert struct.unpack_from("<I", ctrl, 96)[0] >> 19 & 1 == 0
    assert struct.unpack_from("<H", ctrl, 340)[0] == 0
    _, ns = nvme.identify(0, nsid=1)
    assert struct.unpack_from("<H", ns, 102)[0] == 0
    for lid in (LID_CONFIGS, LID_USAGE, LID_STATS, LID_EVENTS):
        assert get_log(nvme, lid, 64)[0].code == SC_INVALID_LOG_PAGE
    assert get_fdp(nvme).code == SC_INVALID_FIELD
    assert set_fdp(nvme, True).code == SC_INVALID_FIELD
    assert get_events(nvme)[0].code == SC_INVALID_FIELD
    assert ruh_status(nvme, sq)[0].code == SC_INVALID_OPCODE
    assert ruh_update(nvme, sq, [0]).code == SC_INVALID_OPCODE
    iocs = struct.unpack_from("<256I", log_ok(nvme, LID_EFFECTS, 4096, nsid=0), 1024)
    assert iocs[IO_MGMT_RECV] == iocs[IO_MGMT_SEND] == 0
    cqe = write(nvme, sq, 0, pattern(4096, 1), pid=0)               # DTYPE 2: no directive
    assert cqe.code == SC_INVALID_FIELD and cqe.dnr


# ---------------------------------------------------------------- log pages

@pytest.mark.parametrize("ruh_type,ruht,limit", [("persistent", 2, 0), ("initial", 1, 30)])
def test_configurations_log_fields(start, ruh_type, ruht, limit):
    nvme, _ = fdp_machine(start, f"{FDP},fdp_ruh_type={ruh_type},fdp_ru_time_limit_s={limit}",
                          queues=0)
    data = log_ok(nvme, LID_CONFIGS, 512)
    numfdpc, version, size = struct.unpack_from("<HBxI", data, 0)
    assert (numfdpc, version, size) == (0, 0, 16 + 80)              # one configuration
    (dsze, fdpa, vss, nrg, nruh, maxpids, nnss, runs,
     erutl) = struct.unpack_from("<HBBIHHIQI", data, 16)
    assert dsze == 64 + 4 * 4
    assert fdpa == 0x80                                             # valid, RGIF 0, no VWC
    assert (vss, nrg, nruh, maxpids, nnss) == (0, 1, 4, 3, 32)
    assert runs == RU_BYTES
    assert erutl == limit
    assert data[44:80] == bytes(36)
    assert [data[80 + 4 * i] for i in range(4)] == [ruht] * 4
    assert data[96:] == bytes(512 - 96)


def test_configurations_log_with_odd_handles_and_a_write_buffer(start):
    nvme, _ = fdp_machine(start, "placement=fdp,fdp_ruhs=3,write_buffer_sectors=256",
                          queues=0)
    data = log_ok(nvme, LID_CONFIGS, 512)
    dsze, fdpa = struct.unpack_from("<HB", data, 16)
    assert dsze == 80                        # 64 + 3 x 4, padded to 8 bytes
    assert struct.unpack_from("<I", data, 4)[0] == 16 + dsze
    assert fdpa == 0x80 | 0x10               # FDPVWC: a volatile write cache


@pytest.mark.parametrize("lsi", [0, 2, 0xFFFF])
def test_logs_name_endurance_group_1(start, lsi):
    nvme, _ = fdp_machine(start, queues=0)
    for lid in (LID_CONFIGS, LID_USAGE, LID_STATS, LID_EVENTS):
        cqe, _ = get_log(nvme, lid, 64, lsi=lsi)
        assert cqe.code == SC_INVALID_FIELD and cqe.dnr, f"{lid:#x}: {cqe}"


def test_log_offsets_read_slices_of_the_page(start):
    nvme, sq = fdp_machine(start)
    enable_events(nvme, [EVT_NOT_FULLY_WRITTEN, EVT_INVALID_PID])
    for i in range(3):                                         # a few events to read
        assert write(nvme, sq, 8 * i, pattern(4096, i), pid=9).ok
    assert write(nvme, sq, 64, pattern(4096, 5), pid=0).ok
    assert ruh_update(nvme, sq, [0]).ok
    for lid, size, lsp in ((LID_CONFIGS, 96, 0), (LID_USAGE, 40, 0), (LID_STATS, 64, 0),
                           (LID_EVENTS, 4096, 1)):
        whole = log_ok(nvme, lid, size, lsp=lsp)
        for offset, length in ((0, 4), (4, 8), (16, 20), (size - 8, 8), (60, 4)):
            if offset + length > size:
                continue
            part = log_ok(nvme, lid, length, lsp=lsp, offset=offset)
            assert part == whole[offset:offset + length], (lid, offset, length)
        longer = log_ok(nvme, lid, size + 64, lsp=lsp)          # past the end: not written
        assert longer[:size] == whole
        for offset in (size, size + 4, 2):                      # beyond, unaligned
            cqe, _ = get_log(nvme, lid, 4, lsp=lsp, offset=offset)
            assert cqe.code == SC_INVALID_FIELD, (lid, offset, str(cqe))


def test_ruh_usage_follows_the_namespaces(start):
    nvme, _ = fdp_machine(start, queues=0)
    assert usage(nvme) == [1, 1, 1, 1]          # the namespace made at realize: every handle
    delete_all(nvme)
    assert usage(nvme) == [0, 0, 0, 0]
    cqe = create_ns(nvme, 1024, handles_list=[1, 3])
    assert cqe.ok, str(cqe)
    assert usage(nvme) == [0, 1, 0, 1]
    first = create_ns(nvme, 1024)                              # no list: the controller's
    second = create_ns(nvme, 1024)
    assert first.ok and second.ok
    assert usage(nvme) == [2, 1, 0, 1]                         # both share handle 0
    cqe = create_ns(nvme, 1024, handles_list=[0])              # the controller's handle
    assert cqe.code == SC_INVALID_PHL and cqe.dnr
    assert len(allocated(nvme)) == 3


# ---------------------------------------------------------------- statistics

def test_statistics_count_host_and_media_bytes(start):
    nvme, sq = fdp_machine(start)
    assert stats(nvme) == (0, 0, 0)
    for i in range(4):
        assert write(nvme, sq, 8 * i, pattern(4096, i), pid=i % 4).ok
    hbmw, mbmw, mbe = stats(nvme)
    assert hbmw == 4 * 4096
    assert mbmw == 4 * 4096                    # no GC yet: one program per host page
    assert mbe == 0
    ocp = log_ok(nvme, LID_OCP, 512)
    assert u128(ocp, 0) == mbmw                # physical media units written


SMALL_GC = f"{FDP},fdp_ruhs=2,pgs_per_blk=32,blks_per_pl=32,devsz_mb=8,gc_mode=line"


def test_statistics_media_over_host_is_the_waf(start, tmp_path):
    """Overwrite a small device through two handles until GC runs: MBMW / HBMW is the WAF
    the FTL's own counters give (stats.csv), and MBE counts the erased blocks."""
    stats_dir = tmp_path / "stats"
    machine = start(f"{SMALL_GC},stats_dir={stats_dir}")
    nvme = machine.nvme
    sq = ready(nvme, size=256)[0]
    chunk = 64 * 1024
    xfer = nvme.transfer(chunk, scatter=False)
    nvme.fill(xfer, pattern(chunk, 3))
    region = 7 << 20
    slots = random.Random(7)
    for rnd in range(4):                     # 28 MiB at random 64 KiB slots of 7 MiB
        cids = []
        for i in range(region // chunk):
            slot = slots.randrange(region // chunk)
            cmd = nvme.rw(sq, IO_WRITE, slot * chunk // LBA, chunk // LBA, xfer)
            cmd.cdw12 |= 2 << 20
            cmd.cdw13 = (slot % 2) << 16     # two handles
            cids.append(nvme.submit(sq, cmd))
        assert all(c.ok for c in nvme.wait_all(sq, cids, timeout=60))
    hbmw, mbmw, mbe = stats(nvme)
    machine.qt.terminate()
    rows = list(csv_rows(stats_dir / "stats.csv"))
    host_pages = sum(int(r["host_write_pages"]) for r in rows)
    programs = sum(int(r["nand_user_programs"]) + int(r["nand_gc_programs"]) for r in rows)
    erased = sum(int(r["gc_erased_blocks"]) for r in rows)
    assert host_pages == 4 * region // 4096 and hbmw == host_pages * 4096
    assert mbmw == programs * 4096
    assert programs > host_pages                         # GC ran
    assert mbmw / hbmw == pytest.approx(programs / host_pages, rel=1e-9)
    assert mbe == erased * 32 * 4096 and erased > 0


def csv_rows(path):
    import csv
    with open(path) as f:
        yield from csv.DictReader(f)


def test_statistics_count_copybacks_as_media_writes(start, tmp_path):
    """Copy's destination pages are host bytes (HBMW) and programs (MBMW) alike, those a
    copyback programs (source and destination on one LUN) included: with no GC, MBMW =
    HBMW. (The fuzzer's fdp variant found MBMW < HBMW: copybacks were left out, so MBMW /
    HBMW was not the FTL's WAF.)"""
    stats_dir = tmp_path / "stats"
    machine = start(f"{FDP},stats_dir={stats_dir}")
    nvme = machine.nvme
    sq = ready(nvme)[0]
    for i in range(8):                       # pages 0-7 on handle 0: LUNs 0, 1, 2, 3, ...
        assert write(nvme, sq, 8 * i, pattern(4096, i), pid=0).ok
    for i in range(8):                       # each to the next page of handle 0: same LUN
        addr = nvme.buffer(struct.pack("<8xQH14x", 8 * i, 7))
        cqe = nvme.run(sq, Command(0x19, nsid=1, prp1=addr, cdw10=8 * (1024 + i)))
        assert cqe.ok, str(cqe)
    hbmw, mbmw, mbe = stats(nvme)
    assert hbmw == 16 * 4096
    assert mbmw == hbmw                      # one program per host and per copied page
    machine.qt.terminate()
    nand = list(csv_rows(stats_dir / "nand.csv"))
    assert sum(int(r["NAND_cpbk"]) for r in nand) > 0      # copybacks did happen


# ---------------------------------------------------------------- RUH status and update

def test_ruh_status_lists_the_namespace_handles(start):
    nvme, sq = fdp_machine(start)
    full = RU_BYTES // LBA
    assert handles(nvme, sq) == {p: (p, 0, full) for p in range(4)}
    assert write(nvme, sq, 0, pattern(8 * 4096, 1), pid=1).ok      # 8 pages
    got = handles(nvme, sq)
    assert got[1] == (1, 0, full - 64)
    assert (got[0], got[2], got[3]) == ((0, 0, full), (2, 0, full), (3, 0, full))
    cqe, data = ruh_status(nvme, sq, length=16 + 32)              # room for one descriptor
    assert cqe.ok and struct.unpack_from("<H", data, 14)[0] == 4
    assert struct.unpack_from("<HH", data, 16) == (0, 0)


def test_ruh_status_reports_the_time_left(start):
    nvme, sq = fdp_machine(start, f"{FDP},fdp_ru_time_limit_s=100")
    assert handles(nvme, sq)[0][1] == 100                      # no RU open: the whole limit
    assert write(nvme, sq, 0, pattern(4096, 1), pid=0).ok
    assert 0 < handles(nvme, sq)[0][1] <= 100


def test_ruh_status_counts_in_the_namespace_lbas(start):
    nvme, sq = fdp_machine(start, queues=1)
    delete_all(nvme)
    cqe = create_ns(nvme, 1024, handles_list=[3, 1], flbas=1)     # 4 KiB LBAs
    assert cqe.ok, str(cqe)
    assert attach(nvme, cqe.dw0).ok
    got = handles(nvme, sq, nsid=cqe.dw0)
    assert got == {0: (3, 0, RU_BYTES // 4096), 1: (1, 0, RU_BYTES // 4096)}


def test_ruh_update_of_a_partly_written_ru(start):
    nvme, sq = fdp_machine(start)
    enable_events(nvme, [EVT_NOT_FULLY_WRITTEN], phndl=2)
    assert write(nvme, sq, 0, pattern(8 * 4096, 1), pid=2).ok
    assert handles(nvme, sq)[2][2] == RU_BYTES // LBA - 64
    assert ruh_update(nvme, sq, [2]).ok
    assert handles(nvme, sq)[2][2] == RU_BYTES // LBA          # a fresh RU next
    got = events(nvme)
    assert len(got) == 1
    e = got[0]
    assert (e["type"], e["flags"], e["pid"], e["nsid"]) == (0, PIV | NSIDV | LV, 2, 1)
    assert (e["rgid"], e["ruhid"], e["unwritten"]) == (0, 2, RU_PAGES - 8)
    assert e["specific"] == bytes(16)
    assert events(nvme, host=False) == []                      # no controller events
    assert ruh_update(nvme, sq, [2]).ok                        # nothing open: no event
    assert len(events(nvme)) == 1
    cqe, data = nvme.read(sq, 0, 64)
    assert cqe.ok and data == pattern(8 * 4096, 1)


def test_ruh_update_refuses_bad_input_and_changes_nothing(start):
    nvme, sq = fdp_machine(start)
    enable_events(nvme, [EVT_NOT_FULLY_WRITTEN], phndl=0)
    assert write(nvme, sq, 0, pattern(4096, 1), pid=0).ok
    before = handles(nvme, sq)
    for cqe in (ruh_update(nvme, sq, [0, 4]),                  # placement handle 4: none
                ruh_update(nvme, sq, [0], npid=4),             # NPID above MAXPIDS
                ruh_update(nvme, sq, [0], mo=2)):              # no such operation
        assert cqe.code == SC_INVALID_FIELD and cqe.dnr, str(cqe)
    assert ruh_update(nvme, sq, [0], nsid=0).code == SC_INVALID_NS
    assert ruh_update(nvme, sq, [0], nsid=BROADCAST).code == SC_INVALID_NS
    assert ruh_status(nvme, sq, mo=7)[0].code == SC_INVALID_FIELD
    assert ruh_status(nvme, sq, nsid=0)[0].code == SC_INVALID_NS
    assert handles(nvme, sq) == before and events(nvme) == []
    assert ruh_update(nvme, sq, [0], mo=0).ok and ruh_status(nvme, sq, mo=0)[0].ok


# ---------------------------------------------------------------- writes

def test_write_with_an_invalid_placement_identifier(start):
    nvme, sq = fdp_machine(start)
    assert write(nvme, sq, 0, pattern(4096, 1), pid=9).ok      # not enabled: no event
    assert events(nvme) == []
    enable_events(nvme, [EVT_INVALID_PID], phndl=0)
    full = RU_BYTES // LBA
    before = handles(nvme, sq)
    assert write(nvme, sq, 8, pattern(2 * 4096, 2), pid=0x1234).ok
    after = handles(nvme, sq)
    assert after[0][2] == before[0][2] - 16                    # placement handle 0 took it
    assert all(after[p] == before[p] for p in (1, 2, 3)) and after[1][2] == full
    got = events(nvme)
    assert len(got) == 1
    e = got[0]
    assert (e["type"], e["flags"], e["pid"], e["nsid"], e["ruhid"]) == \
        (EVT_INVALID_PID, PIV | NSIDV | LV, 0x1234, 1, 0)
    cqe, data = nvme.read(sq, 8, 16)
    assert cqe.ok and data == pattern(2 * 4096, 2)


def test_write_zeroes_is_placed_too(start):
    nvme, sq = fdp_machine(start)
    cmd = Command(IO_WRITE_ZEROES, nsid=1, cdw10=0, cdw12=63 | 2 << 20, cdw13=3 << 16)
    assert nvme.run(sq, cmd).ok
    assert handles(nvme, sq)[3][2] == RU_BYTES // LBA - 64
    assert stats(nvme)[0] == 8 * 4096


def test_other_directive_types_are_invalid(start):
    nvme, sq = fdp_machine(start)
    for dtype in (1, 3, 0xF):
        cqe = write(nvme, sq, 0, pattern(4096, 1), pid=0, dtype=dtype)
        assert cqe.code == SC_INVALID_FIELD and cqe.dnr, (dtype, str(cqe))
    assert write(nvme, sq, 0, pattern(4096, 1), pid=3, dtype=0).ok    # DTYPE 0: handle 0
    assert handles(nvme, sq)[0][2] == RU_BYTES // LBA - 8
    cqe = nvme.run(sq, Command(IO_READ, nsid=1, prp1=nvme.mem.alloc(PAGE), cdw12=0 | 2 << 20,
                               cdw13=1 << 16))
    assert cqe.ok                                              # reserved on reads


# ---------------------------------------------------------------- feature 1Dh

def test_fdp_feature_get_and_rules(start):
    nvme, _ = fdp_machine(start, queues=0)
    got = get_fdp(nvme)
    assert got.ok and got.dw0 == 1                             # FDPE, configuration 0
    assert get_fdp(nvme, sel=1).dw0 == 1
    caps = nvme.admin(Command(ADM_GET_FEATURES, cdw10=FID_FDP | 3 << 8))
    assert caps.ok and caps.dw0 == 0b101                       # changeable, saveable
    for endgid in (0, 2):
        assert get_fdp(nvme, endgid=endgid).code == SC_INVALID_FIELD
        assert set_fdp(nvme, True, endgid=endgid).code == SC_INVALID_FIELD
        assert set_fdp(nvme, True, endgid=endgid, save=True).code == SC_INVALID_FIELD
    assert set_fdp(nvme, True, save=True).ok                   # unchanged: saved
    assert set_fdp(nvme, True).ok                              # unchanged: fine
    for save in (False, True):
        cqe = set_fdp(nvme, False, save=save)                  # namespace 1 exists
        assert cqe.code == SC_CMD_SEQ_ERROR and cqe.dnr
    assert get_fdp(nvme).dw0 == 1 and get_fdp(nvme, sel=2).dw0 == 1    # nothing changed


def test_fdp_off_and_on_again(start):
    nvme, sq = fdp_machine(start)
    enable_events(nvme, [EVT_INVALID_PID])
    assert write(nvme, sq, 0, pattern(4096, 1), pid=7).ok
    assert stats(nvme)[0] == 4096 and len(events(nvme)) == 1
    delete_all(nvme)
    assert set_fdp(nvme, True, cidx=1).code == SC_INVALID_FIELD   # no configuration 1
    assert set_fdp(nvme, False).ok
    assert get_fdp(nvme).dw0 == 0 and get_fdp(nvme, sel=1).dw0 == 1
    assert log_ok(nvme, LID_CONFIGS, 96)[16 + 2] == 0x80           # still readable
    for lid in (LID_USAGE, LID_STATS, LID_EVENTS):
        assert get_log(nvme, lid, 64)[0].code == SC_FDP_DISABLED
    cqe = create_ns(nvme, 2048, handles_list=[1])             # the list is reserved now
    assert cqe.ok, str(cqe)
    nsid = cqe.dw0
    assert attach(nvme, nsid).ok
    assert ruh_status(nvme, sq, nsid=nsid)[0].code == SC_FDP_DISABLED
    assert ruh_update(nvme, sq, [0], nsid=nsid).code == SC_FDP_DISABLED
    assert get_events(nvme, nsid=nsid)[0].code == SC_FDP_DISABLED
    assert set_events(nvme, [0], True, nsid=nsid).code == SC_FDP_DISABLED
    cqe = write(nvme, sq, 0, pattern(4096, 2), pid=0, nsid=nsid)   # DTYPE 2, FDP off
    assert cqe.code == SC_INVALID_FIELD and cqe.dnr
    assert write(nvme, sq, 0, pattern(4096, 2), nsid=nsid).ok
    assert set_fdp(nvme, True).code == SC_CMD_SEQ_ERROR           # a namespace again
    delete_all(nvme)
    assert set_fdp(nvme, True).ok
    assert stats(nvme) == (0, 0, 0) and events(nvme) == []       # a new configuration
    assert usage(nvme) == [0, 0, 0, 0]
    cqe = create_ns(nvme, 2048, handles_list=[2, 0])
    assert cqe.ok and attach(nvme, cqe.dw0).ok
    _, events_state = get_events(nvme, nsid=cqe.dw0)
    assert events_state == {0: 0, 1: 0, 2: 0, 3: 0}             # enables cleared too
    got = handles(nvme, sq, nsid=cqe.dw0)
    assert got[0] == (2, 0, RU_BYTES // LBA) and got[1][0] == 0


def test_fdp_feature_saved_value_and_resets(start):
    """SV sets the saved value too, SEL 2 reads it (the default, on, until one is saved);
    a controller reset makes the saved value current when the group has no namespace."""
    nvme, sq = fdp_machine(start)
    assert get_fdp(nvme, sel=2).dw0 == 1                       # nothing saved: the default
    delete_all(nvme)
    assert set_fdp(nvme, False, save=True).ok
    assert [get_fdp(nvme, sel=sel).dw0 for sel in (0, 1, 2)] == [0, 1, 0]
    assert set_fdp(nvme, True).ok                              # current only
    assert [get_fdp(nvme, sel=sel).dw0 for sel in (0, 1, 2)] == [1, 1, 0]
    sq = reset(nvme)                                           # no namespace: the saved value
    assert [get_fdp(nvme, sel=sel).dw0 for sel in (0, 2)] == [0, 0]
    assert get_log(nvme, LID_STATS, 64)[0].code == SC_FDP_DISABLED
    assert set_fdp(nvme, True, save=True).ok
    assert [get_fdp(nvme, sel=sel).dw0 for sel in (0, 2)] == [1, 1]
    sq = reset(nvme)
    assert [get_fdp(nvme, sel=sel).dw0 for sel in (0, 2)] == [1, 1]
    assert stats(nvme) == (0, 0, 0)


def test_a_reset_keeps_the_configuration_its_namespaces_were_made_under(start):
    """FDP saved off, on for now, a namespace made with two handles: a reset cannot take
    the saved value (1Dh changes only without namespaces), so FDP stays on and the
    namespace keeps its handles, its data and the statistics; once it is deleted the next
    reset turns FDP off."""
    nvme, sq = fdp_machine(start)
    delete_all(nvme)
    assert set_fdp(nvme, False, save=True).ok and set_fdp(nvme, True).ok
    cqe = create_ns(nvme, 2048, handles_list=[2, 1])
    assert cqe.ok and attach(nvme, cqe.dw0).ok
    nsid = cqe.dw0
    assert write(nvme, sq, 0, pattern(4096, 6), pid=1, nsid=nsid).ok
    before = stats(nvme)
    sq = reset(nvme)
    assert [get_fdp(nvme, sel=sel).dw0 for sel in (0, 2)] == [1, 0]
    got = handles(nvme, sq, nsid=nsid)
    assert [got[p][0] for p in (0, 1)] == [2, 1]
    assert usage(nvme) == [0, 1, 1, 0] and stats(nvme) == before
    xfer = nvme.transfer(4096)
    assert nvme.run(sq, nvme.rw(sq, IO_READ, 0, 8, xfer, nsid=nsid)).ok
    assert nvme.contents(xfer) == pattern(4096, 6)
    delete_all(nvme)
    assert get_fdp(nvme).dw0 == 1                              # deleting changes nothing
    reset(nvme)
    assert [get_fdp(nvme, sel=sel).dw0 for sel in (0, 2)] == [0, 0]


# ---------------------------------------------------------------- feature 1Eh, events

def test_events_feature_enables_and_gates_events(start):
    nvme, sq = fdp_machine(start)
    cqe, state = get_events(nvme, phndl=1)
    assert cqe.ok and cqe.dw0 == 4 and state == {0: 0, 1: 0, 2: 0, 3: 0}
    caps = nvme.admin(Command(ADM_GET_FEATURES, nsid=1, cdw10=FID_FDP_EVENTS | 3 << 8))
    assert caps.ok and caps.dw0 == 0b111          # namespace specific, changeable, saveable
    enable_events(nvme, [EVT_NOT_FULLY_WRITTEN, EVT_INVALID_PID], phndl=1)
    assert get_events(nvme, phndl=1)[1] == {0: 1, 1: 0, 2: 0, 3: 1}
    assert get_events(nvme, phndl=1, sel=1)[1] == {0: 0, 1: 0, 2: 0, 3: 0}   # default
    assert get_events(nvme, phndl=0)[1] == {0: 0, 1: 0, 2: 0, 3: 0}          # its own
    cqe, some = get_events(nvme, phndl=1, noet=2)
    assert cqe.dw0 == 2 and some == {0: 1, 1: 0}
    assert write(nvme, sq, 0, pattern(4096, 1), pid=1).ok
    assert ruh_update(nvme, sq, [1]).ok
    assert [e["type"] for e in events(nvme)] == [EVT_NOT_FULLY_WRITTEN]
    assert set_events(nvme, [EVT_NOT_FULLY_WRITTEN], False, phndl=1).ok
    assert write(nvme, sq, 0, pattern(4096, 1), pid=1).ok
    assert ruh_update(nvme, sq, [1]).ok
    assert len(events(nvme)) == 1                              # disabled: not recorded
    for cqe in (set_events(nvme, [0, 0x80], True, phndl=1),   # a type femu never raises
                set_events(nvme, [0], True, phndl=4),         # no placement handle 4
                get_events(nvme, phndl=4)[0]):
        assert cqe.code == SC_INVALID_FIELD and cqe.dnr, str(cqe)
    assert get_events(nvme, phndl=1)[1] == {0: 0, 1: 0, 2: 0, 3: 1}          # unchanged
    assert set_events(nvme, [0], True, nsid=BROADCAST).code == SC_INVALID_NS


def test_events_feature_saved_enables(start):
    """SV saves the listed types' enables (the others keep their saved state); SEL 2 reads
    them, SEL 1 the default (none); namespaces sharing a handle share them."""
    nvme, sq = fdp_machine(start)
    enable_events(nvme, [EVT_NOT_FULLY_WRITTEN, EVT_INVALID_PID], phndl=1)       # current
    enable_events(nvme, [EVT_TIME_LIMIT, EVT_INVALID_PID], phndl=1, save=True)
    assert get_events(nvme, phndl=1)[1] == {0: 1, 1: 1, 2: 0, 3: 1}
    assert get_events(nvme, phndl=1, sel=2)[1] == {0: 0, 1: 1, 2: 0, 3: 1}
    assert get_events(nvme, phndl=1, sel=1)[1] == {0: 0, 1: 0, 2: 0, 3: 0}
    assert set_events(nvme, [EVT_INVALID_PID], False, phndl=1, save=True).ok
    assert get_events(nvme, phndl=1)[1] == {0: 1, 1: 1, 2: 0, 3: 0}
    assert get_events(nvme, phndl=1, sel=2)[1] == {0: 0, 1: 1, 2: 0, 3: 0}
    assert get_events(nvme, phndl=0, sel=2)[1] == {0: 0, 1: 0, 2: 0, 3: 0}   # its own
    cqe = set_events(nvme, [EVT_RESET, 0x80], True, phndl=2, save=True)      # refused whole
    assert cqe.code == SC_INVALID_FIELD
    assert get_events(nvme, phndl=2, sel=2)[1] == {0: 0, 1: 0, 2: 0, 3: 0}
    delete_all(nvme)
    first, second = create_ns(nvme, 1024, handles_list=[3]), create_ns(nvme, 1024,
                                                                       handles_list=[0, 3])
    assert first.ok and second.ok and attach(nvme, first.dw0).ok and attach(nvme, second.dw0).ok
    enable_events(nvme, [EVT_RESET], phndl=0, nsid=first.dw0, save=True)     # RUH 3
    assert get_events(nvme, phndl=1, nsid=second.dw0, sel=2)[1][EVT_RESET] == 1


def test_a_reset_brings_back_the_saved_enables(start):
    """After a controller reset every handle's enables are the saved ones. The reset's own
    Controller Level Reset events follow the enables the handles had when it came: a type
    enabled without SV still reports that reset, not the next."""
    nvme, sq = fdp_machine(start)
    enable_events(nvme, [EVT_RESET], phndl=0)                                 # current only
    enable_events(nvme, [EVT_RESET, EVT_INVALID_PID], phndl=2, save=True)
    enable_events(nvme, [EVT_NOT_FULLY_WRITTEN], phndl=3)
    for pid in (0, 2, 3):
        assert write(nvme, sq, 8 * pid, pattern(4096, pid), pid=pid).ok
    sq = reset(nvme)
    got = wait_for(lambda: len(events(nvme)) == 2 and events(nvme), what="reset events")
    assert sorted((e["type"], e["ruhid"]) for e in got) == [(EVT_RESET, 0), (EVT_RESET, 2)]
    assert get_events(nvme, phndl=0)[1] == {0: 0, 1: 0, 2: 0, 3: 0}
    assert get_events(nvme, phndl=2)[1] == {0: 0, 1: 0, 2: 1, 3: 1}
    assert get_events(nvme, phndl=3)[1] == {0: 0, 1: 0, 2: 0, 3: 0}
    for pid in (0, 2):
        assert write(nvme, sq, 64 + 8 * pid, pattern(4096, pid), pid=pid).ok
    sq = reset(nvme)
    got = wait_for(lambda: len(events(nvme)) == 3 and events(nvme), what="reset events")
    assert (got[2]["type"], got[2]["ruhid"]) == (EVT_RESET, 2)     # handle 0 no more


def test_a_configuration_change_clears_current_enables_not_saved_ones(start):
    nvme, sq = fdp_machine(start)
    enable_events(nvme, [EVT_INVALID_PID], phndl=1, save=True)
    delete_all(nvme)
    assert set_fdp(nvme, False).ok and set_fdp(nvme, True).ok
    cqe = create_ns(nvme, 1024, handles_list=[1])
    assert cqe.ok and attach(nvme, cqe.dw0).ok
    assert get_events(nvme, nsid=cqe.dw0)[1] == {0: 0, 1: 0, 2: 0, 3: 0}
    assert get_events(nvme, nsid=cqe.dw0, sel=2)[1] == {0: 0, 1: 0, 2: 0, 3: 1}
    reset(nvme)
    assert get_events(nvme, nsid=cqe.dw0)[1] == {0: 0, 1: 0, 2: 0, 3: 1}


@pytest.mark.parametrize("fid,value,nsid", [(0x01, 0x0203, 0), (0x02, 0, 0), (0x04, 300, 0),
                                            (0x05, 10, 1), (0x07, 0, 0),
                                            (0x08, 0x0101, 0), (0x0A, 1, 0), (0x0B, 0, 0),
                                            (0x15, 0, 0)])
def test_other_features_are_not_saveable(start, fid, value, nsid):
    """Only 1Dh and 1Eh take SV: every other feature refuses it and keeps its value."""
    nvme, _ = fdp_machine(start, queues=0)
    caps = nvme.admin(Command(ADM_GET_FEATURES, nsid=nsid, cdw10=fid | 3 << 8))
    assert caps.ok and not caps.dw0 & 1
    before = nvme.admin(Command(ADM_GET_FEATURES, nsid=nsid, cdw10=fid)).dw0
    cqe = nvme.admin(Command(ADM_SET_FEATURES, nsid=nsid, cdw10=fid | 1 << 31, cdw11=value))
    assert cqe.code == SC_FEATURE_NOT_SAVEABLE and cqe.dnr, str(cqe)
    assert nvme.admin(Command(ADM_GET_FEATURES, nsid=nsid, cdw10=fid)).dw0 == before


def test_events_keep_the_latest_63(start):
    nvme, sq = fdp_machine(start)
    enable_events(nvme, [EVT_INVALID_PID])
    for i in range(70):
        assert write(nvme, sq, 0, pattern(512, i), pid=100 + i).ok
    got = events(nvme)
    assert len(got) == 63
    assert [e["pid"] for e in got] == list(range(107, 170))    # oldest first, oldest dropped
    assert [e["ms"] for e in got] == sorted(e["ms"] for e in got)


def test_controller_reset_closes_open_rus(start):
    nvme, sq = fdp_machine(start)
    enable_events(nvme, [EVT_RESET], phndl=0)
    enable_events(nvme, [EVT_RESET], phndl=3)
    assert write(nvme, sq, 0, pattern(4 * 4096, 1), pid=0).ok
    assert write(nvme, sq, 64, pattern(4096, 2), pid=3).ok
    assert write(nvme, sq, 128, pattern(4096, 3), pid=1).ok       # open, not enabled
    nvme.disable()
    sq = ready(nvme)[0]
    got = wait_for(lambda: len(events(nvme)) == 2 and events(nvme), what="reset events")
    assert sorted((e["type"], e["flags"], e["ruhid"], e["pid"], e["nsid"], e["unwritten"])
                  for e in got) == [(EVT_RESET, LV, 0, 0, 0, RU_PAGES - 4),
                                    (EVT_RESET, LV, 3, 0, 0, RU_PAGES - 1)]
    assert all(h[2] == RU_BYTES // LBA for h in handles(nvme, sq).values())
    cqe, data = nvme.read(sq, 0, 32)
    assert cqe.ok and data == pattern(4 * 4096, 1)


def test_time_limit_event(start):
    nvme, sq = fdp_machine(start, f"{FDP},fdp_ru_time_limit_s=1")
    enable_events(nvme, [EVT_TIME_LIMIT], phndl=2)
    assert write(nvme, sq, 0, pattern(4096, 1), pid=2).ok
    wait_for(lambda: handles(nvme, sq)[2][1] == 0, timeout=10, what="the RU's time to end")
    assert write(nvme, sq, 8, pattern(4096, 2), pid=2).ok       # closes it, then writes
    got = events(nvme)
    assert len(got) == 1
    e = got[0]
    assert (e["type"], e["flags"], e["pid"], e["nsid"], e["ruhid"], e["unwritten"]) == \
        (EVT_TIME_LIMIT, PIV | NSIDV | LV, 2, 1, 2, RU_PAGES - 1)
    assert handles(nvme, sq)[2][2] == RU_BYTES // LBA - 8


# ---------------------------------------------------------------- namespace management

def test_create_with_placement_handle_lists(start):
    nvme, sq = fdp_machine(start)
    delete_all(nvme)
    bad = {
        "handle beyond NRUH": dict(handles_list=[0, 4]),
        "a handle twice": dict(handles_list=[1, 2, 1]),
        "more than NRUH": dict(handles_list=[0, 1, 2, 3, 0]),
        "NPHNDLS beyond the list's room": dict(handles_list=[0], nphndls=200),
    }
    for what, kw in bad.items():
        cqe = create_ns(nvme, 1024, **kw)
        assert cqe.code == SC_INVALID_PHL and cqe.dnr, (what, str(cqe))
    assert create_ns(nvme, 1024, handles_list=[0], endgid=2).code == SC_INVALID_FIELD
    assert allocated(nvme) == []
    cqe = create_ns(nvme, 1024, handles_list=[3], endgid=1)
    assert cqe.ok, str(cqe)
    cqe = create_ns(nvme, 128, handles_list=[3, 2], flbas=1)    # shares 3 in another format
    assert cqe.code == SC_INVALID_FORMAT and cqe.dnr
    cqe = create_ns(nvme, 128, handles_list=[2], flbas=1)
    assert cqe.ok and attach(nvme, cqe.dw0).ok
    assert handles(nvme, sq, nsid=cqe.dw0) == {0: (2, 0, RU_BYTES // 4096)}
    assert len(allocated(nvme)) == 2


def test_create_without_a_list_when_every_handle_is_the_hosts(start):
    nvme, _ = fdp_machine(start, queues=0)
    cqe = nvme.admin(Command(ADM_NS_MGMT, nsid=1, cdw10=1))    # free some capacity
    assert cqe.ok
    assert create_ns(nvme, 1024, handles_list=[0, 1, 2, 3]).ok
    cqe = create_ns(nvme, 1024)                                # no handle left to choose
    assert cqe.code == SC_INVALID_PHL and cqe.dnr


# ---------------------------------------------------------------- configurations

@pytest.mark.parametrize("props", ["placement=fdp,fdp_ruhs=17", "placement=fdp,fdp_ruhs=0",
                                   "placement=fdp,fdp_ruh_type=initial,fdp_ruhs=16",
                                   "placement=fdp,fdp_ruh_type=sometimes"])
def test_bad_fdp_configuration_fails_realize_with_one_line(launch, props):
    proc = launch(f"femu,{props}")
    assert proc.returncode == 1, f"exit {proc.returncode}: {proc.stderr}"
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "fdp_ruh" in lines[0], proc.stderr


def test_zoned_namespace_is_outside_the_endurance_group(start):
    nvme = start(f"{FDP},pgs_per_blk=64,devsz_mb=24,zoned=on,zones=16").nvme
    ready(nvme, io_queues=0)
    _, ns1 = nvme.identify(0, nsid=1)
    assert struct.unpack_from("<H", ns1, 102)[0] == 1
    assert allocated(nvme) == [1, 2]
    _, zoned = nvme.identify(0x11, nsid=2)             # allocated: CC.CSS selects NVM only
    assert struct.unpack_from("<H", zoned, 102)[0] == 0
    assert set_fdp(nvme, False).code == SC_CMD_SEQ_ERROR
    assert nvme.admin(Command(ADM_NS_MGMT, nsid=1, cdw10=1)).ok
    assert set_fdp(nvme, False).ok                     # the zoned namespace does not count


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_random_fdp_commands_always_complete(start, seed):
    """Random fields in every FDP command: each completes, and the device still serves
    I/O and its logs afterwards."""
    nvme, sq = fdp_machine(start)
    rng = random.Random(seed)
    buf = nvme.transfer(2 * PAGE, scatter=False)
    nvme.fill(buf, bytes(rng.getrandbits(8) for _ in range(2 * PAGE)))

    def u32():
        return rng.choice([0, 1, 2, 0xFFFF, 0x10000, 0xFFFFFFFF, rng.getrandbits(32)])

    for _ in range(400):
        kind = rng.randrange(5)
        nsid = rng.choice([0, 1, 2, 33, BROADCAST])
        fields = dict(nsid=nsid, prp1=buf.prp1, prp2=buf.prp2, cdw11=u32(), cdw12=u32(),
                      cdw13=u32())
        if kind == 0:
            cmd = Command(ADM_GET_LOG, cdw10=rng.choice([0x20, 0x21, 0x22, 0x23]) |
                          (u32() & 0xFFFFFF00), **fields)
        elif kind in (1, 2):
            cmd = Command(rng.choice([ADM_GET_FEATURES, ADM_SET_FEATURES]),
                          cdw10=rng.choice([FID_FDP, FID_FDP_EVENTS]) | (u32() & 0xFFFFFF00),
                          **fields)
        else:
            opcode = rng.choice([IO_MGMT_RECV, IO_MGMT_SEND, IO_WRITE])
            if opcode == IO_WRITE:
                fields["cdw12"] = (fields["cdw12"] & 0xFFF00000) | rng.randrange(16)
            cmd = Command(opcode, cdw10=u32(), **fields)
        target = nvme.asq if kind < 3 else sq
        cqe = nvme.run(target, cmd)
        assert cqe.code in (0, SC_INVALID_FIELD, SC_INVALID_NS, SC_CMD_SEQ_ERROR,
                            SC_FDP_DISABLED, 0x10F, 0x080, 0x004), str(cqe)   # SV taken
    nvme.disable()
    sq = ready(nvme)[0]
    assert write(nvme, sq, 0, pattern(4096, 1), pid=0).ok
    assert log_ok(nvme, LID_CONFIGS, 96)[16 + 2] & 0x80
