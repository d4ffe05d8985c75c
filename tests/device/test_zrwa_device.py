"""Zone Random Write Areas on the device over qtest (zrwa_zones > 0): the Identify
Namespace (zoned) fields, Open with ZRWAA, writes and rewrites in the window, implicit and
explicit commits moving the reported write pointer by whole ZRWAFG units, the statuses of
every ZRWA rule, that a refused command changes nothing, and that a power cut without plp
loses what the windows held.

Geometry (test_nvme_zns.ZNS): zones of 2048 LBAs of 512 bytes, 4 KiB flash pages. Here
ZRWAFG = 8 KiB = 16 LBAs and ZRWAS = 32 KiB = 64 LBAs, two ZRWA resources."""
import struct

from femu_lab.vm.qmp import Qmp, qmp_args
from nvme_qtest import Command, femu_only, pattern, start, wait_for  # noqa: F401
from test_nvme_zns import (CLOSE, CNS_CS_NS, CSI_ZONED, CSS_ALL, EMPTY, EXP_OPEN, FINISH, FULL,
                           IO_ZONE_RECV, OPEN, RESET, SC_INVALID_FIELD, SC_ZONE_BOUNDARY,
                           SC_ZONE_INVALID_WRITE, ZNS, ZONE, ZNS_NSID, append, enable,
                           identify, read, write, zoned)
from test_nvme_zns import send as plain_send

pytestmark = femu_only()

ZRWA = "zrwa_zones=2,zrwa_flush_gran=8k,zrwa_size=32k"
FG, WINDOW = 16, 64                     # ZRWAFG and ZRWAS in LBAs
FLUSH = 0x11                            # Flush Explicit ZRWA Range
ZSASO_ALLOC = 1 << 9                    # CDW13: ZRWA allocation
ZA_ZRWAV = 1 << 3
SC_INVALID_ZONE_OP, SC_NO_ZRWA = 0x1B6, 0x1B7


def send(nvme, sq, zsa, slba=0, alloc=False, select_all=False):
    """Zone Management Send with ZSASO's allocation bit when alloc."""
    return plain_send(nvme, sq, zsa | (ZSASO_ALLOC if alloc else 0), slba, select_all)


def zone(nvme, sq, index):
    """(ZS, ZA, WP) of a zone from Report Zones."""
    xfer = nvme.transfer(128, scatter=False)
    slba = index * ZONE
    cqe = nvme.run(sq, Command(IO_ZONE_RECV, nsid=ZNS_NSID, prp1=xfer.prp1, prp2=xfer.prp2,
                               cdw10=slba, cdw12=128 // 4 - 1))
    assert cqe.ok, str(cqe)
    desc = nvme.contents(xfer)[64:128]
    return desc[1] >> 4, desc[2], struct.unpack_from("<Q", desc, 24)[0]


def test_identify_shows_the_zrwa_fields(start):
    nvme, _ = zoned(start, ZRWA, io_queues=0)
    cqe, data = identify(nvme, CNS_CS_NS, ZNS_NSID, CSI_ZONED)
    assert cqe.ok, str(cqe)
    assert struct.unpack_from("<H", data, 2)[0] == 0b11          # OZCS: RAZB, ZRWASUP
    assert struct.unpack_from("<IHHB", data, 44) == (1, FG, WINDOW, 1)  # 0's based, LBAs


def test_without_zrwa_the_actions_are_invalid_field(start):
    nvme, sq = zoned(start)
    cqe, data = identify(nvme, CNS_CS_NS, ZNS_NSID, CSI_ZONED)
    assert cqe.ok and struct.unpack_from("<H", data, 2)[0] == 1
    assert data[44:53] == bytes(9)
    assert send(nvme, sq, OPEN, 0, alloc=True).code == SC_INVALID_FIELD
    assert send(nvme, sq, FLUSH, 15).code == SC_INVALID_FIELD
    assert zone(nvme, sq, 0) == (EMPTY, 0, 0)


def test_window_writes_commits_and_errors(start):
    nvme, sq = zoned(start, ZRWA)
    assert send(nvme, sq, OPEN, 0, alloc=True).ok
    assert zone(nvme, sq, 0) == (EXP_OPEN, ZA_ZRWAV, 0)
    # write at WP, rewrite inside the window, write further in: WP stays (nothing commits)
    assert write(nvme, sq, 0, 8, seed=1).ok
    assert write(nvme, sq, 4, 4, seed=2).ok
    assert write(nvme, sq, 10, 2, seed=3).ok
    assert zone(nvme, sq, 0) == (EXP_OPEN, ZA_ZRWAV, 0)
    cqe, data = read(nvme, sq, 0, 8)
    assert cqe.ok and data == pattern(8 * 512, 1)[:2048] + pattern(4 * 512, 2)
    # ending past WP + 2 x ZRWAS (128): Zone Invalid Write, nothing commits
    assert write(nvme, sq, 100, 29).code == SC_ZONE_INVALID_WRITE
    assert zone(nvme, sq, 0)[2] == 0
    # ending at 81, past WP + ZRWAS: the fewest whole units that bring 81 inside the window
    # are two (WP 32: 32 + 64 >= 81; WP 16 would leave 80)
    assert write(nvme, sq, 60, 21, seed=4).ok
    assert zone(nvme, sq, 0) == (EXP_OPEN, ZA_ZRWAV, 2 * FG)
    # below the committed WP: Zone Invalid Write; append: Invalid Zone Operation Request
    assert write(nvme, sq, 31, 1).code == SC_ZONE_INVALID_WRITE
    assert append(nvme, sq, 0, 1).code == SC_INVALID_ZONE_OP
    # explicit flush up to LBA 47: 47 - 32 + 1 = 16, one unit -> WP 48
    assert send(nvme, sq, FLUSH, 47).ok
    assert zone(nvme, sq, 0) == (EXP_OPEN, ZA_ZRWAV, 48)
    # off a unit boundary (3 LBAs): Invalid Field; outside [48, 112): Zone Boundary Error
    assert send(nvme, sq, FLUSH, 50).code == SC_INVALID_FIELD
    assert send(nvme, sq, FLUSH, 112).code == SC_ZONE_BOUNDARY
    assert send(nvme, sq, FLUSH, 47).code == SC_ZONE_BOUNDARY
    assert send(nvme, sq, FLUSH, 63, select_all=True).code == SC_INVALID_FIELD
    assert zone(nvme, sq, 0) == (EXP_OPEN, ZA_ZRWAV, 48)
    # what was written and committed reads back newest
    cqe, data = read(nvme, sq, 60, 21)
    assert cqe.ok and data == pattern(21 * 512, 4)
    cqe, data = read(nvme, sq, 0, 8)
    assert cqe.ok and data == pattern(8 * 512, 1)[:2048] + pattern(4 * 512, 2)


def test_resources_and_their_release(start):
    nvme, sq = zoned(start, ZRWA)
    assert send(nvme, sq, OPEN, 0, alloc=True).ok
    assert send(nvme, sq, OPEN, ZONE, alloc=True).ok
    # both held: Zone Random Write Area Resources Unavailable, zone 2 untouched
    assert send(nvme, sq, OPEN, 2 * ZONE, alloc=True).code == SC_NO_ZRWA
    assert zone(nvme, sq, 2) == (EMPTY, 0, 2 * ZONE)
    # a zone already holding one just opens; ZSASO on another action: Invalid Field
    assert send(nvme, sq, OPEN, 0, alloc=True).ok
    assert send(nvme, sq, CLOSE, 0, alloc=True).code == SC_INVALID_FIELD
    assert send(nvme, sq, OPEN, 0, alloc=True, select_all=True).code == SC_INVALID_FIELD
    # a flush in a zone without a ZRWA: Invalid Field
    assert send(nvme, sq, FLUSH, 3 * ZONE + 15).code == SC_INVALID_FIELD
    # Finish commits the window and frees the ZRWA: the zone is full, no ZRWAV
    assert write(nvme, sq, 0, 20, seed=5).ok
    assert send(nvme, sq, FINISH, 0).ok
    assert zone(nvme, sq, 0) == (FULL, 0, ZONE)
    cqe, data = read(nvme, sq, 0, 20)
    assert cqe.ok and data == pattern(20 * 512, 5)
    assert send(nvme, sq, OPEN, 2 * ZONE, alloc=True).ok
    # Reset drops the window and frees it
    assert write(nvme, sq, ZONE, 8, seed=6).ok
    assert send(nvme, sq, RESET, ZONE).ok
    assert zone(nvme, sq, 1) == (EMPTY, 0, ZONE)
    cqe, data = read(nvme, sq, ZONE, 8)
    assert cqe.ok and data == bytes(8 * 512)
    assert send(nvme, sq, OPEN, 3 * ZONE, alloc=True).ok
    assert zone(nvme, sq, 3) == (EXP_OPEN, ZA_ZRWAV, 3 * ZONE)


def test_power_cut_without_plp_loses_the_window(start, tmp_path):
    """LBAs 0-31 written, 0-15 committed by a flush: a cut (plp off) loses the 16 the
    window held; they read back unwritten (zeroes), the committed ones stay, and the zone
    keeps its ZRWA and its write pointer, so the host can write at 16 again."""
    sock = tmp_path / "qmp.sock"
    nvme = start(f"id=femu0,{ZNS},{ZRWA},plp=off", extra=qmp_args(sock)).nvme
    sq = enable(nvme, CSS_ALL)
    with Qmp(sock, connect_timeout=30) as qmp:
        assert send(nvme, sq, OPEN, 0, alloc=True).ok
        assert write(nvme, sq, 0, 32, seed=7).ok
        assert send(nvme, sq, FLUSH, FG - 1).ok
        qmp.execute("qom-set", path="/machine/peripheral/femu0", property="power-cut",
                    value="now")

        def status():
            return qmp.execute("qom-get", path="/machine/peripheral/femu0",
                               property="power-cut-status")
        line = wait_for(lambda: status().startswith("cut 1 ") and status(),
                        what="power cut", timeout=60)
    assert "16 ZRWA sectors lost" in line, line
    sq = enable(nvme, CSS_ALL)
    _, za, wp = zone(nvme, sq, 0)
    assert (za, wp) == (ZA_ZRWAV, FG)
    cqe, data = read(nvme, sq, 0, 32)
    assert cqe.ok and data == pattern(32 * 512, 7)[:FG * 512] + bytes(16 * 512)
    assert write(nvme, sq, FG, 8, seed=8).ok
    cqe, data = read(nvme, sq, FG, 8)
    assert cqe.ok and data == pattern(8 * 512, 8)
