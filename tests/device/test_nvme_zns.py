"""The zoned namespace (zoned=on) over qtest: command set selection (CAP.CSS, CC.CSS), the
Identify structures and the Commands Supported and Effects log per CSI, Report Zones with
its filters and partial reports, writes at the write pointer, Zone Append's assigned LBAs,
every zone rule violation by its status code, Select All, data gone after a reset, wear
making a zone read only then offline, what the zoned namespace refuses, realize errors,
and random zone commands that must all complete."""
import random
import struct

import pytest

from nvme_qtest import (CAP, CSTS_CFS, CSTS_RDY, IO_COMPARE, IO_DSM, IO_READ, IO_VERIFY,
                        IO_WRITE, IO_WRITE_UNCOR, IO_WRITE_ZEROES, SMALL_GEOMETRY, Command,
                        femu_only, nvme_qemu, pattern, start)  # noqa: F401

pytestmark = femu_only()

# 4 LUNs x 64 blocks of 64 pages of 4 KiB: a zone is one block on each LUN, 1 MiB.
ZONES = 16
ZNS = f"pgs_per_blk=64,devsz_mb=24,zoned=on,zones={ZONES}"
ZONE = 2048                     # LBAs of 512 bytes per zone (ZSZE = ZCAP)
ZNS_NSID = 2
CONV_BYTES = 24 << 20
CSS_NVM, CSS_ALL = 0, 6
CSI_NVM, CSI_ZONED = 0, 2

ADM_GET_LOG, ADM_IDENTIFY, ADM_AER, ADM_NS_MGMT, ADM_NS_ATTACH, ADM_FORMAT = \
    0x02, 0x06, 0x0C, 0x0D, 0x15, 0x80
IO_ZONE_SEND, IO_ZONE_RECV, IO_ZONE_APPEND, IO_COPY = 0x79, 0x7A, 0x7D, 0x19
CNS_NS, CNS_ACTIVE, CNS_DESCRIPTORS, CNS_CS_NS, CNS_CS_CTRL, CNS_CS_ACTIVE = 0, 2, 3, 5, 6, 7
CNS_IO_CMD_SETS = 0x1C
LID_EFFECTS, LID_SMART = 0x05, 0x02
BROADCAST = 0xFFFFFFFF

CLOSE, FINISH, OPEN, RESET, OFFLINE, SET_ZDE = 0x1, 0x2, 0x3, 0x4, 0x5, 0x10
EMPTY, IMP_OPEN, EXP_OPEN, CLOSED, READ_ONLY, FULL, OFFLINE_ST = 0x1, 0x2, 0x3, 0x4, 0xD, 0xE, 0xF
# Report Zones filter (ZRASF) -> the state it selects
FILTERS = {1: EMPTY, 2: IMP_OPEN, 3: EXP_OPEN, 4: CLOSED, 5: FULL, 6: READ_ONLY, 7: OFFLINE_ST}

SC_INVALID_OPCODE, SC_INVALID_FIELD, SC_INVALID_NS = 0x001, 0x002, 0x00B
SC_LBA_RANGE, SC_COMPARE_FAILURE = 0x080, 0x285
SC_ZONE_BOUNDARY, SC_ZONE_FULL, SC_ZONE_READ_ONLY, SC_ZONE_OFFLINE = 0x1B8, 0x1B9, 0x1BA, 0x1BB
SC_ZONE_INVALID_WRITE, SC_TOO_MANY_ACTIVE, SC_TOO_MANY_OPEN = 0x1BC, 0x1BD, 0x1BE
SC_ZONE_TRANSITION, SC_INVALID_ZONE_OP = 0x1BF, 0x1B6

EFF_CSUPP, EFF_LBCC, EFF_NCC, EFF_NIC, EFF_CSE_NS = 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 16


def u32(data, off):
    return struct.unpack_from("<I", data, off)[0]


def u64(data, off):
    return struct.unpack_from("<Q", data, off)[0]


def nsid_list(data):
    ids = struct.unpack("<1024I", data)
    return list(ids[:ids.index(0)] if 0 in ids else ids)


# ---------------------------------------------------------------- host helpers

def enable(nvme, css, io_queues=1):
    """Enable with CC.CSS = css; the I/O queue pair 1, or None."""
    csts = nvme.enable(css=css)
    assert csts & CSTS_RDY and not csts & CSTS_CFS, f"enable: CSTS {csts:#x}"
    return nvme.io_queue_pair(1) if io_queues else None


def zoned(start, props="", css=CSS_ALL, io_queues=1):
    """A zoned device enabled with CC.CSS = css; (nvme, sq or None)."""
    nvme = start(ZNS + ("," + props if props else "")).nvme
    return nvme, enable(nvme, css, io_queues)


def identify(nvme, cns, nsid=0, csi=0):
    buf = nvme.mem.alloc(4096)
    cqe = nvme.admin(Command(ADM_IDENTIFY, nsid=nsid, prp1=buf, cdw10=cns, cdw11=csi << 24))
    return cqe, nvme.qt.b64read(buf, 4096)


def effects(nvme, csi):
    xfer = nvme.transfer(4096, scatter=False)
    cqe = nvme.admin(Command(ADM_GET_LOG, nsid=0, prp1=xfer.prp1, prp2=xfer.prp2,
                             cdw10=LID_EFFECTS | (1023 << 16), cdw14=csi << 24))
    data = nvme.contents(xfer)
    return cqe, struct.unpack_from("<256I", data, 0), struct.unpack_from("<256I", data, 1024)


def send(nvme, sq, zsa, slba=0, select_all=False, nsid=ZNS_NSID):
    return nvme.run(sq, Command(IO_ZONE_SEND, nsid=nsid, cdw10=slba & 0xFFFFFFFF,
                                cdw11=slba >> 32, cdw13=zsa | int(select_all) << 8))


def report(nvme, sq, slba=0, zrasf=0, partial=False, length=4096, zra=0):
    """Report Zones: (cqe, Number of Zones, [(zt, zs, zcap, zslba, wp), ...])."""
    xfer = nvme.transfer(length, scatter=False)
    cqe = nvme.run(sq, Command(IO_ZONE_RECV, nsid=ZNS_NSID, prp1=xfer.prp1, prp2=xfer.prp2,
                               cdw10=slba & 0xFFFFFFFF, cdw11=slba >> 32,
                               cdw12=length // 4 - 1,
                               cdw13=zra | zrasf << 8 | int(partial) << 16))
    data = nvme.contents(xfer)
    zones = []
    for off in range(64, len(data) - 63, 64):
        zt, zs = data[off], data[off + 1] >> 4
        if zt == 0:
            break
        zones.append((zt, zs, u64(data, off + 8), u64(data, off + 16), u64(data, off + 24)))
    return cqe, int.from_bytes(data[:8], "little"), zones


def states(nvme, sq):
    cqe, nr, zones = report(nvme, sq)
    assert cqe.ok and nr == ZONES and len(zones) == ZONES, str(cqe)
    return [zs for _, zs, _, _, _ in zones]


def zone_of(nvme, sq, zone):
    cqe, _, zones = report(nvme, sq, slba=zone * ZONE, length=128)
    assert cqe.ok, str(cqe)
    return zones[0]


def write(nvme, sq, slba, nlb, seed=0, opcode=IO_WRITE, nsid=ZNS_NSID):
    data = pattern(nlb * 512, seed)
    xfer = nvme.transfer(len(data))
    nvme.fill(xfer, data)
    cmd = Command(opcode, nsid=nsid, prp1=xfer.prp1, prp2=xfer.prp2,
                  cdw10=slba & 0xFFFFFFFF, cdw11=slba >> 32, cdw12=nlb - 1)
    return nvme.run(sq, cmd)


def append(nvme, sq, zslba, nlb, seed=0):
    return write(nvme, sq, zslba, nlb, seed, opcode=IO_ZONE_APPEND)


def read(nvme, sq, slba, nlb, opcode=IO_READ):
    xfer = nvme.transfer(nlb * 512)
    cqe = nvme.run(sq, Command(opcode, nsid=ZNS_NSID, prp1=xfer.prp1, prp2=xfer.prp2,
                               cdw10=slba & 0xFFFFFFFF, cdw11=slba >> 32, cdw12=nlb - 1))
    return cqe, nvme.contents(xfer)


# ---------------------------------------------------------------- command set selection

def test_css_selects_the_zoned_namespace(start):
    nvme, sq = zoned(start, css=CSS_NVM)
    cap = nvme.readq(CAP)
    assert cap >> 37 & 0xFF == 1 << 0 | 1 << 6          # NVM, and I/O command sets
    _, active = nvme.identify(CNS_ACTIVE)
    assert nsid_list(active) == [1]                       # NVM only: zoned not active
    assert write(nvme, sq, 0, 8).code == SC_INVALID_FIELD
    assert identify(nvme, CNS_CS_NS, ZNS_NSID, CSI_ZONED)[0].code == SC_INVALID_FIELD
    assert identify(nvme, CNS_CS_CTRL, 0, CSI_ZONED)[0].code == SC_INVALID_FIELD
    assert effects(nvme, CSI_ZONED)[0].code == SC_INVALID_FIELD
    assert effects(nvme, CSI_NVM)[0].ok
    nvme.disable()
    sq = enable(nvme, CSS_ALL)
    _, active = nvme.identify(CNS_ACTIVE)
    assert nsid_list(active) == [1, 2]
    for csi, listed in ((CSI_NVM, [1]), (CSI_ZONED, [2])):
        cqe, data = identify(nvme, CNS_CS_ACTIVE, 0, csi)
        assert cqe.ok and nsid_list(data) == listed
    assert identify(nvme, CNS_CS_ACTIVE, 0, 1)[0].code == SC_INVALID_FIELD
    assert write(nvme, sq, 0, 8).ok
    nvme.disable()
    for css in (1, 7):                                     # reserved, admin only
        assert nvme.enable(css=css) & CSTS_CFS
        nvme.disable()


def test_conventional_device_offers_nvm_only(start):
    nvme = start().nvme
    assert nvme.readq(CAP) >> 37 & 0xFF == 1
    assert nvme.enable(css=CSS_ALL) & CSTS_CFS
    nvme.disable()
    assert nvme.enable() & CSTS_RDY
    cqe, data = identify(nvme, CNS_IO_CMD_SETS)
    assert cqe.ok and u64(data, 0) == 1 << CSI_NVM
    assert identify(nvme, CNS_CS_CTRL, 0, CSI_ZONED)[0].code == SC_INVALID_FIELD


def test_zoned_nsid_follows_the_conventional_ones(start):
    nvme, _ = zoned(start, "namespaces=2", io_queues=0)
    _, active = nvme.identify(CNS_ACTIVE)
    assert nsid_list(active) == [1, 2, 3]
    cqe, data = identify(nvme, CNS_CS_ACTIVE, 0, CSI_ZONED)
    assert cqe.ok and nsid_list(data) == [3]


# ---------------------------------------------------------------- Identify and effects

def test_identify_structures(start):
    nvme, _ = zoned(start, "max_open=2,max_active=3", io_queues=0)
    cqe, data = identify(nvme, CNS_CS_NS, ZNS_NSID, CSI_ZONED)
    assert cqe.ok
    zoc, ozcs, mar, mor = struct.unpack_from("<HHII", data, 0)
    assert (zoc, ozcs, mar, mor) == (0, 1, 2, 1)          # RAZB; limits 0-based
    assert u64(data, 2816) == ZONE and data[2824] == 0     # LBAFE 0: ZSZE, ZDES
    assert u64(data, 2832) == ZONE // 8                    # LBAFE 1: 4 KiB LBAs
    cqe, ns = identify(nvme, CNS_NS, ZNS_NSID)
    assert cqe.ok and u64(ns, 0) == u64(ns, 8) == ZONES * ZONE     # NSZE, NCAP
    assert identify(nvme, CNS_CS_NS, 1, CSI_ZONED)[0].code == SC_INVALID_FIELD
    cqe, nvm = identify(nvme, CNS_CS_NS, ZNS_NSID, CSI_NVM)
    assert cqe.ok and nvm == bytes(4096)
    assert identify(nvme, CNS_CS_NS, ZNS_NSID, 1)[0].code == SC_INVALID_FIELD
    assert identify(nvme, CNS_CS_NS, 0, CSI_ZONED)[0].code == SC_INVALID_NS
    cqe, ctrl = identify(nvme, CNS_CS_CTRL, 0, CSI_ZONED)
    assert cqe.ok and ctrl == bytes(4096)                  # ZASL 0: MDTS
    for nsid, csi in ((1, CSI_NVM), (ZNS_NSID, CSI_ZONED)):
        cqe, desc = identify(nvme, CNS_DESCRIPTORS, nsid)
        assert cqe.ok and desc[0:2] == bytes([3, 16])      # UUID
        assert desc[20:22] == bytes([4, 1]) and desc[24] == csi
    cqe, sets = identify(nvme, CNS_IO_CMD_SETS)
    assert cqe.ok and u64(sets, 0) == 1 << CSI_NVM | 1 << CSI_ZONED
    _, ctrl = nvme.identify(1)
    assert u64(ctrl, 280) == CONV_BYTES + ZONES * (1 << 20)        # TNVMCAP
    assert u64(ctrl, 296) == 0                                      # UNVMCAP
    assert ctrl[261] & 0x02                                          # LPA: effects log


def test_identify_without_limits(start):
    nvme, _ = zoned(start, io_queues=0)
    cqe, data = identify(nvme, CNS_CS_NS, ZNS_NSID, CSI_ZONED)
    assert cqe.ok and struct.unpack_from("<II", data, 4) == (0xFFFFFFFF, 0xFFFFFFFF)


def test_commands_supported_and_effects(start):
    """Log 05h per CSI is the command sets' tables, and the tables gate dispatch: exactly
    the opcodes without CSUPP get Invalid Command Opcode, in the admin set and in each
    namespace's I/O set."""
    nvme, sq = zoned(start)
    cqe, acs, nvm = effects(nvme, CSI_NVM)
    assert cqe.ok
    assert acs[ADM_IDENTIFY] == EFF_CSUPP and acs[ADM_GET_LOG] == EFF_CSUPP
    assert acs[ADM_FORMAT] & (EFF_CSUPP | EFF_LBCC) == EFF_CSUPP | EFF_LBCC
    assert nvm[IO_WRITE] == nvm[IO_WRITE_UNCOR] == EFF_CSUPP | EFF_LBCC
    assert nvm[IO_READ] == nvm[IO_COMPARE] == nvm[IO_VERIFY] == EFF_CSUPP
    assert nvm[IO_ZONE_APPEND] == nvm[IO_ZONE_SEND] == 0
    cqe, acs_z, zns = effects(nvme, CSI_ZONED)
    assert cqe.ok and acs_z == acs
    for op in (IO_WRITE, IO_WRITE_ZEROES, IO_COPY, IO_ZONE_SEND, IO_ZONE_APPEND):
        assert zns[op] == EFF_CSUPP | EFF_LBCC, hex(op)
    for op in (0x00, IO_READ, IO_COMPARE, IO_VERIFY, IO_DSM, IO_ZONE_RECV):
        assert zns[op] == EFF_CSUPP, hex(op)
    assert zns[IO_WRITE_UNCOR] == 0
    assert sum(1 for v in zns if v) == 11
    assert effects(nvme, 1)[0].code == SC_INVALID_FIELD
    supp, lba = EFF_CSUPP, EFF_CSUPP | EFF_LBCC
    assert {op: v for op, v in enumerate(acs) if v} == {
        0x00: supp, 0x01: supp, ADM_GET_LOG: supp, 0x04: supp, 0x05: supp,
        ADM_IDENTIFY: supp, 0x08: supp, 0x09: supp, 0x0A: supp, ADM_AER: supp,
        ADM_NS_MGMT: supp | EFF_NIC, ADM_NS_ATTACH: supp | EFF_NIC, 0x7C: supp,
        ADM_FORMAT: lba | EFF_NCC | EFF_CSE_NS, 0x86: supp,
        0xC0: supp, 0xC1: supp, 0xC2: supp}                      # vendor: dump, phase, save
    assert {op: v for op, v in enumerate(nvm) if v} == {
        0x00: supp, IO_WRITE: lba, IO_READ: supp, IO_WRITE_UNCOR: lba, IO_COMPARE: supp,
        IO_WRITE_ZEROES: lba, IO_DSM: lba, IO_VERIFY: supp, IO_COPY: lba}
    buf = nvme.mem.alloc(4096)
    for opcode in range(256):
        if opcode != ADM_AER:                                    # held until an event
            cqe = nvme.admin(Command(opcode, prp1=buf))
            assert (cqe.code == SC_INVALID_OPCODE) == (not acs[opcode] & supp), hex(opcode)
    for nsid, iocs in ((1, nvm), (ZNS_NSID, zns)):
        for opcode in range(256):
            cqe = nvme.run(sq, Command(opcode, nsid=nsid, prp1=buf))
            assert (cqe.code == SC_INVALID_OPCODE) == (not iocs[opcode] & supp), \
                (nsid, hex(opcode), str(cqe))


# ---------------------------------------------------------------- Report Zones

def test_report_zones_filters_and_partial(start):
    nvme, sq = zoned(start)
    assert write(nvme, sq, 0, 8).ok                        # zone 0 implicitly open
    assert send(nvme, sq, OPEN, 1 * ZONE).ok               # zone 1 explicitly open
    assert send(nvme, sq, OPEN, 2 * ZONE).ok and send(nvme, sq, CLOSE, 2 * ZONE).ok
    assert send(nvme, sq, FINISH, 3 * ZONE).ok             # zone 3 full
    cqe, nr, zones = report(nvme, sq)
    assert cqe.ok and nr == ZONES and len(zones) == ZONES
    assert [z[1] for z in zones[:5]] == [IMP_OPEN, EXP_OPEN, CLOSED, FULL, EMPTY]
    for i, (zt, _, zcap, zslba, wp) in enumerate(zones):
        assert (zt, zcap, zslba) == (2, ZONE, i * ZONE)
        assert wp == {0: 8, 3: 4 * ZONE}.get(i, i * ZONE)
    for zrasf, state in FILTERS.items():
        cqe, nr, got = report(nvme, sq, zrasf=zrasf)
        want = [i * ZONE for i, z in enumerate(zones) if z[1] == state]
        assert cqe.ok and nr == len(want) and [z[3] for z in got] == want, zrasf
    # Two descriptors fit: the header counts all matches, or with Partial those returned.
    cqe, nr, got = report(nvme, sq, zrasf=1, length=64 + 2 * 64)
    assert cqe.ok and nr == ZONES - 4 and [z[3] for z in got] == [4 * ZONE, 5 * ZONE]
    cqe, nr, got = report(nvme, sq, zrasf=1, length=64 + 2 * 64, partial=True)
    assert cqe.ok and nr == 2 and len(got) == 2
    cqe, nr, got = report(nvme, sq, length=64, partial=True)
    assert cqe.ok and nr == 0 and got == []
    cqe, nr, _ = report(nvme, sq, length=4)                  # NUMD 0: the first dword
    assert cqe.ok and nr == ZONES
    # from the zone holding SLBA
    cqe, nr, got = report(nvme, sq, slba=3 * ZONE + 5)
    assert cqe.ok and nr == ZONES - 3 and got[0][3] == 3 * ZONE
    assert report(nvme, sq, slba=ZONES * ZONE)[0].code == SC_LBA_RANGE
    assert report(nvme, sq, zra=1)[0].code == SC_INVALID_FIELD      # no extensions
    assert report(nvme, sq, zra=2)[0].code == SC_INVALID_FIELD
    assert report(nvme, sq, zrasf=8)[0].code == SC_INVALID_FIELD
    cqe = nvme.run(sq, Command(IO_ZONE_RECV, nsid=ZNS_NSID, prp1=nvme.mem.alloc(4096),
                               cdw12=(8 << 20) // 4 - 1))
    assert cqe.code == SC_INVALID_FIELD                                  # above MDTS


# ---------------------------------------------------------------- writes and appends

def test_writes_at_the_write_pointer_and_appends(start):
    nvme, sq = zoned(start)
    z1 = 1 * ZONE
    assert write(nvme, sq, z1, 8, seed=1).ok
    assert write(nvme, sq, z1 + 8, 8, seed=2).ok
    assert write(nvme, sq, z1 + 8, 8).code == SC_ZONE_INVALID_WRITE       # behind the WP
    assert write(nvme, sq, z1 + 24, 8).code == SC_ZONE_INVALID_WRITE      # ahead of it
    assigned = []
    for seed in (3, 4, 5):
        cqe = append(nvme, sq, z1, 4, seed)
        assert cqe.ok and cqe.dw1 == 0, str(cqe)
        assigned.append(cqe.dw0)
    assert assigned == [z1 + 16, z1 + 20, z1 + 24]
    assert append(nvme, sq, z1 + 1, 4).code == SC_INVALID_FIELD         # not a zone start
    cqe, data = read(nvme, sq, z1, 28)
    want = (pattern(4096, 1) + pattern(4096, 2) + pattern(2048, 3) + pattern(2048, 4) +
            pattern(2048, 5))
    assert cqe.ok and data == want
    cqe, data = read(nvme, sq, z1 + 28, 4)                 # above the WP: zeroes
    assert cqe.ok and data == bytes(2048)
    assert zone_of(nvme, sq, 1)[1:] == (IMP_OPEN, ZONE, z1, z1 + 28)
    # Write Zeroes is a write at the WP
    assert nvme.write_zeroes(sq, z1 + 28, 4, nsid=ZNS_NSID).ok
    assert nvme.write_zeroes(sq, z1 + 40, 4, nsid=ZNS_NSID).code == SC_ZONE_INVALID_WRITE
    assert zone_of(nvme, sq, 1)[4] == z1 + 32
    # reads across zone boundaries are allowed (RAZB)
    cqe, data = read(nvme, sq, z1 - 4, 8)
    assert cqe.ok and data == bytes(2048) + pattern(2048, 1)
    # Compare and Verify read the zones too
    xfer = nvme.transfer(4096)
    nvme.fill(xfer, pattern(4096, 1))
    assert nvme.run(sq, Command(IO_COMPARE, nsid=ZNS_NSID, prp1=xfer.prp1, cdw10=z1,
                                cdw12=7)).ok
    nvme.fill(xfer, pattern(4096, 9))
    assert nvme.run(sq, Command(IO_COMPARE, nsid=ZNS_NSID, prp1=xfer.prp1, cdw10=z1,
                                cdw12=7)).code == SC_COMPARE_FAILURE
    assert nvme.run(sq, Command(IO_VERIFY, nsid=ZNS_NSID, cdw10=z1, cdw12=31)).ok


def test_appends_to_one_zone_get_distinct_lbas(start):
    nvme, sq = zoned(start)
    cids = []
    for seed in range(32):
        data = pattern(8 * 512, seed)
        xfer = nvme.transfer(len(data))
        nvme.fill(xfer, data)
        cids.append(nvme.submit(sq, Command(IO_ZONE_APPEND, nsid=ZNS_NSID, prp1=xfer.prp1,
                                            prp2=xfer.prp2, cdw10=5 * ZONE, cdw12=7)))
    cqes = nvme.wait_all(sq, cids)
    assert all(c.ok for c in cqes)
    lbas = [c.dw0 for c in cqes]
    assert sorted(lbas) == list(range(5 * ZONE, 5 * ZONE + 32 * 8, 8))
    for seed, lba in enumerate(lbas):
        cqe, data = read(nvme, sq, lba, 8)
        assert cqe.ok and data == pattern(8 * 512, seed)
    # SMART counts the appends as host writes of the zoned namespace
    cqe, log = nvme.get_log(LID_SMART, 512, nsid=ZNS_NSID)
    assert cqe.ok and u64(log, 80) == 32


def test_zone_boundary_and_full(start):
    nvme, sq = zoned(start)
    assert write(nvme, sq, 0, ZONE - 8).ok
    assert write(nvme, sq, ZONE - 8, 16).code == SC_ZONE_BOUNDARY       # into zone 1
    assert append(nvme, sq, 0, 16).code == SC_ZONE_BOUNDARY
    assert states(nvme, sq)[:2] == [IMP_OPEN, EMPTY]                     # nothing moved
    assert append(nvme, sq, 0, 8).ok
    assert zone_of(nvme, sq, 0)[1] == FULL
    assert write(nvme, sq, 0, 8).code == SC_ZONE_FULL
    assert write(nvme, sq, ZONE, 8).ok                                   # zone 1 is fine
    assert append(nvme, sq, 0, 1).code == SC_ZONE_FULL
    assert write(nvme, sq, ZONES * ZONE - 4, 8).code == SC_LBA_RANGE
    assert append(nvme, sq, ZONES * ZONE, 1).code == SC_LBA_RANGE
    assert send(nvme, sq, FINISH, 2 * ZONE).ok                           # empty -> full
    assert write(nvme, sq, 2 * ZONE, 1).code == SC_ZONE_FULL


def test_open_and_active_limits(start):
    nvme, sq = zoned(start, "max_open=2,max_active=3")
    assert send(nvme, sq, OPEN, 0).ok and send(nvme, sq, OPEN, ZONE).ok
    assert send(nvme, sq, OPEN, 2 * ZONE).code == SC_TOO_MANY_OPEN
    assert write(nvme, sq, 2 * ZONE, 8).code == SC_TOO_MANY_OPEN       # explicit: kept
    assert send(nvme, sq, CLOSE, ZONE).ok                                # active 2, open 1
    assert send(nvme, sq, OPEN, 2 * ZONE).ok                             # active 3, open 2
    assert send(nvme, sq, OPEN, 3 * ZONE).code == SC_TOO_MANY_ACTIVE
    assert write(nvme, sq, 3 * ZONE, 8).code == SC_TOO_MANY_ACTIVE
    assert states(nvme, sq)[:4] == [EXP_OPEN, CLOSED, EXP_OPEN, EMPTY]
    # an implicitly open zone is closed to make room for the next write
    assert send(nvme, sq, CLOSE, 0).ok and send(nvme, sq, CLOSE, 2 * ZONE).ok
    assert send(nvme, sq, RESET, 0, select_all=True).ok
    assert write(nvme, sq, 0, 8).ok and write(nvme, sq, ZONE, 8).ok
    assert write(nvme, sq, 2 * ZONE, 8).ok
    assert states(nvme, sq)[:3] == [CLOSED, IMP_OPEN, IMP_OPEN]
    assert write(nvme, sq, 8, 8).ok                                      # reopens zone 0
    assert states(nvme, sq)[:3] == [IMP_OPEN, CLOSED, IMP_OPEN]


def test_invalid_transitions_and_fields(start):
    nvme, sq = zoned(start)
    assert send(nvme, sq, CLOSE, 0).code == SC_ZONE_TRANSITION          # empty -> closed
    assert send(nvme, sq, FINISH, 0).ok
    assert send(nvme, sq, OPEN, 0).code == SC_ZONE_TRANSITION           # full -> open
    assert send(nvme, sq, CLOSE, 0).code == SC_ZONE_TRANSITION
    assert send(nvme, sq, OFFLINE, 0).code == SC_ZONE_TRANSITION        # only read only
    assert send(nvme, sq, SET_ZDE, ZONE).code == SC_INVALID_FIELD        # ZDES 0
    for zsa in (0x00, 0x06, 0xFF):
        assert send(nvme, sq, zsa, ZONE).code == SC_INVALID_FIELD, hex(zsa)
    assert send(nvme, sq, 0x11, ZONE).code == SC_INVALID_ZONE_OP        # no ZRWA
    assert send(nvme, sq, OPEN, ZONE + 1).code == SC_INVALID_FIELD      # not a zone start
    assert send(nvme, sq, OPEN, ZONES * ZONE).code == SC_LBA_RANGE
    cqe = nvme.run(sq, Command(IO_ZONE_SEND, nsid=ZNS_NSID, cdw10=ZONE, cdw13=OPEN | 1 << 9))
    assert cqe.code == SC_INVALID_ZONE_OP                                 # no ZRWA
    assert states(nvme, sq)[:2] == [FULL, EMPTY]


def test_select_all(start):
    nvme, sq = zoned(start)
    for zone in range(4):
        assert write(nvme, sq, zone * ZONE, 8, seed=zone).ok
    assert send(nvme, sq, CLOSE, select_all=True).ok
    assert states(nvme, sq)[:5] == [CLOSED] * 4 + [EMPTY]
    assert send(nvme, sq, OPEN, select_all=True).ok                      # closed ones
    assert states(nvme, sq)[:5] == [EXP_OPEN] * 4 + [EMPTY]
    assert send(nvme, sq, FINISH, select_all=True).ok                    # active ones
    assert states(nvme, sq) == [FULL] * 4 + [EMPTY] * (ZONES - 4)
    assert send(nvme, sq, OFFLINE, select_all=True).ok                   # none read only
    assert send(nvme, sq, RESET, 0xDEAD, select_all=True).ok             # SLBA ignored
    assert states(nvme, sq) == [EMPTY] * ZONES
    for zone in range(4):
        cqe, data = read(nvme, sq, zone * ZONE, 8)
        assert cqe.ok and data == bytes(4096)


def test_open_all_needs_room_for_every_closed_zone(start):
    nvme, sq = zoned(start, "max_open=2")
    for zone in range(3):
        assert write(nvme, sq, zone * ZONE, 8).ok
        assert send(nvme, sq, CLOSE, zone * ZONE).ok
    assert send(nvme, sq, OPEN, select_all=True).code == SC_TOO_MANY_OPEN
    assert states(nvme, sq)[:3] == [CLOSED] * 3


def test_reset_drops_the_data(start):
    nvme, sq = zoned(start)
    assert write(nvme, sq, 3 * ZONE, 64, seed=7).ok
    assert read(nvme, sq, 3 * ZONE, 64)[1] == pattern(64 * 512, 7)
    _, ns = identify(nvme, CNS_NS, ZNS_NSID)
    assert u64(ns, 16) == 64                                             # NUSE
    assert send(nvme, sq, RESET, 3 * ZONE).ok
    assert zone_of(nvme, sq, 3)[1:] == (EMPTY, ZONE, 3 * ZONE, 3 * ZONE)
    cqe, data = read(nvme, sq, 3 * ZONE, 64)
    assert cqe.ok and data == bytes(64 * 512)
    _, ns = identify(nvme, CNS_NS, ZNS_NSID)
    assert u64(ns, 16) == 0
    assert write(nvme, sq, 3 * ZONE, 8, seed=8).ok                       # from the start
    assert read(nvme, sq, 3 * ZONE, 8)[1] == pattern(4096, 8)


def test_worn_zone_goes_read_only_then_offline(start):
    nvme, sq = zoned(start, "pe_cycles=3")
    z = 6 * ZONE
    for cycle in range(3):
        assert zone_of(nvme, sq, 6)[1] == EMPTY, cycle
        assert write(nvme, sq, z, 8).ok and send(nvme, sq, RESET, z).ok
    assert zone_of(nvme, sq, 6)[1] == READ_ONLY
    assert write(nvme, sq, z, 8).code == SC_ZONE_READ_ONLY
    assert append(nvme, sq, z, 8).code == SC_ZONE_READ_ONLY
    assert nvme.write_zeroes(sq, z, 8, nsid=ZNS_NSID).code == SC_ZONE_READ_ONLY
    cqe, data = read(nvme, sq, z, 8)
    assert cqe.ok and data == bytes(4096)                                # reads work
    for zsa in (OPEN, CLOSE, FINISH, RESET):
        assert send(nvme, sq, zsa, z).code == SC_ZONE_TRANSITION, zsa
    cqe, nr, got = report(nvme, sq, zrasf=6)
    assert cqe.ok and nr == 1 and got[0][3] == z
    assert send(nvme, sq, OFFLINE, z).ok
    assert zone_of(nvme, sq, 6)[1] == OFFLINE_ST
    for opcode in (IO_READ, IO_VERIFY):
        assert read(nvme, sq, z, 8, opcode)[0].code == SC_ZONE_OFFLINE
    assert read(nvme, sq, z - 4, 8)[0].code == SC_ZONE_OFFLINE          # crossing into it
    assert write(nvme, sq, z, 8).code == SC_ZONE_OFFLINE
    assert append(nvme, sq, z, 8).code == SC_ZONE_OFFLINE
    assert send(nvme, sq, RESET, z).code == SC_ZONE_TRANSITION
    assert report(nvme, sq, zrasf=7)[1] == 1
    assert write(nvme, sq, 7 * ZONE, 8).ok                               # the others work


# ---------------------------------------------------------------- what the zoned namespace refuses

def test_commands_the_namespaces_refuse(start):
    nvme, sq = zoned(start)
    assert write(nvme, sq, 0, 8, seed=3).ok
    assert write(nvme, sq, 0, 8, opcode=IO_WRITE_UNCOR).code == SC_INVALID_OPCODE
    table = struct.pack("<IIQ", 0, 8, 0)
    cqe = nvme.run(sq, Command(IO_DSM, nsid=ZNS_NSID, prp1=nvme.buffer(table), cdw11=1 << 2))
    assert cqe.ok                                                        # no effect
    assert read(nvme, sq, 0, 8)[1] == pattern(4096, 3)
    for opcode in (IO_ZONE_APPEND, IO_ZONE_SEND, IO_ZONE_RECV):          # conventional
        cqe = nvme.run(sq, Command(opcode, nsid=1, prp1=nvme.mem.alloc(4096), cdw12=0))
        assert cqe.code == SC_INVALID_OPCODE, hex(opcode)
    assert zone_of(nvme, sq, 0)[4] == 8


def test_zoned_namespace_stays(start):
    nvme, sq = zoned(start)
    assert write(nvme, sq, 0, 8, seed=4).ok
    table = struct.pack("<HH", 1, 0).ljust(4096, b"\0")
    cqe = nvme.admin(Command(ADM_NS_ATTACH, nsid=ZNS_NSID, cdw10=1, prp1=nvme.buffer(table)))
    assert cqe.code == SC_INVALID_FIELD                                  # detach
    assert nvme.admin(Command(ADM_NS_MGMT, nsid=ZNS_NSID, cdw10=1)).code == SC_INVALID_FIELD
    assert nvme.admin(Command(ADM_FORMAT, nsid=ZNS_NSID)).code == SC_INVALID_FIELD
    assert nvme.admin(Command(ADM_FORMAT, nsid=BROADCAST), timeout=30).ok
    assert nvme.admin(Command(ADM_NS_MGMT, nsid=BROADCAST, cdw10=1)).ok
    _, active = nvme.identify(CNS_ACTIVE)
    assert nsid_list(active) == [ZNS_NSID]
    assert read(nvme, sq, 0, 8)[1] == pattern(4096, 4)
    _, ctrl = nvme.identify(1)
    assert u64(ctrl, 296) == CONV_BYTES                                  # UNVMCAP


def test_bad_prp_changes_no_zone(start):
    nvme, sq = zoned(start)
    for prp1 in (0, 0xE000_0000, 0x1002):          # none, MMIO (BAR0), not dword aligned
        cqe = nvme.run(sq, Command(IO_WRITE, nsid=ZNS_NSID, prp1=prp1, cdw10=0, cdw12=7))
        assert not cqe.ok and cqe.dnr
        cqe = nvme.run(sq, Command(IO_ZONE_APPEND, nsid=ZNS_NSID, prp1=prp1, cdw12=7))
        assert not cqe.ok and cqe.dnr
    cqe = nvme.run(sq, Command(IO_ZONE_APPEND, nsid=ZNS_NSID, prp1=nvme.mem.alloc(4096),
                               cdw12=16384 - 1))
    assert cqe.code == SC_INVALID_FIELD                                  # 8 MiB: above MDTS
    assert zone_of(nvme, sq, 0)[1:] == (EMPTY, ZONE, 0, 0)


# ---------------------------------------------------------------- realize errors

@pytest.mark.parametrize("props, words", [
    ("zone_size=1572864", ["zone_size", "power of two", "Linux"]),
    ("zone_cap=2097152,zone_size=1048576", ["zone_cap", "zone_size"]),
    ("max_open=4,max_active=2", ["max_open", "max_active"]),
    ("zones=64", ["zones"]),
    ("zone_cap=786432", ["zone_cap", "flash layout"]),
    ("zone_luns=3", ["zone_luns"]),
])
def test_bad_zone_geometry_fails_realize_with_one_line(launch, props, words):
    proc = launch(f"femu,{SMALL_GEOMETRY},{ZNS},{props}")
    assert proc.returncode == 1, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    for word in words:
        assert word in lines[0], lines[0]


# ---------------------------------------------------------------- hostile input

def test_random_zone_commands_always_complete(start):
    nvme, sq = zoned(start, "max_open=3,max_active=5")
    rng = random.Random(16)
    buf = nvme.transfer(64 << 10, scatter=False)
    nvme.fill(buf, pattern(64 << 10, 1))
    statuses = set()
    for i in range(400):
        opcode = rng.choice((IO_ZONE_SEND, IO_ZONE_RECV, IO_ZONE_APPEND))
        # mostly plausible fields (so the zone rules run), sometimes any bits at all
        near = rng.randrange(ZONES + 1) * ZONE + rng.choice((0, 0, 0, 1, ZONE - 1))
        plausible = {
            IO_ZONE_SEND: (near, 0, 0, rng.randrange(7) | rng.choice((0, 0, 1 << 8))),
            IO_ZONE_RECV: (near, 0, rng.randrange(1024), rng.randrange(9) << 8 |
                           rng.choice((0, 1 << 16))),
            IO_ZONE_APPEND: (near, 0, rng.randrange(128), 0),
        }[opcode]
        cdw = [v if rng.random() < 0.8 else rng.getrandbits(32) for v in plausible]
        cdw += [rng.choice((0, rng.getrandbits(32))) for _ in range(2)]
        cmd = Command(opcode, nsid=rng.choice((ZNS_NSID,) * 6 + (1, 0, BROADCAST)),
                      prp1=buf.prp1 if rng.random() < 0.9 else rng.getrandbits(64),
                      prp2=buf.prp2 if rng.random() < 0.9 else rng.getrandbits(64),
                      cdw10=cdw[0], cdw11=cdw[1], cdw12=cdw[2], cdw13=cdw[3],
                      cdw14=cdw[4], cdw15=cdw[5])
        cqe = nvme.run(sq, cmd)
        assert cqe.ok or cqe.dnr, f"command {i}: {cqe}"
        statuses.add(cqe.code)
    assert len(statuses) > 6, sorted(hex(s) for s in statuses)
    cqe, nr, zones = report(nvme, sq)
    assert cqe.ok and nr == ZONES
    for _, zs, zcap, zslba, wp in zones:
        assert zcap == ZONE and zslba <= wp <= zslba + ZONE, (zs, zslba, wp)
    assert nvme.identify(1)[0].ok
