"""Zone Random Write Areas on the device over qtest (zrwa_zones > 0): the Identify
Namespace (zoned) fields, Open with ZRWAA, writes and rewrites in the window, implicit and
explicit commits moving the reported write pointer by whole ZRWAFG units, the statuses of
every ZRWA rule, that a refused command changes nothing, that a power cut without plp
loses what the windows held, that a state file keeps a ZRWA zone and its window, and that
a recorded ZRWA run replays in ftl-sim to identical statistics files.

Geometry (test_nvme_zns.ZNS): zones of 2048 LBAs of 512 bytes, 4 KiB flash pages. Here
ZRWAFG = 8 KiB = 16 LBAs and ZRWAS = 32 KiB = 64 LBAs, two ZRWA resources."""
import csv
import struct

from femu_lab.vm.qmp import Qmp, qmp_args
from nvme_qtest import (SMALL_GEOMETRY, Command, femu_only, pattern, start,  # noqa: F401
                        wait_for)
from test_nvme_stats import phase
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


def test_without_zrwa_the_actions_are_invalid_zone_operation(start):
    nvme, sq = zoned(start)
    cqe, data = identify(nvme, CNS_CS_NS, ZNS_NSID, CSI_ZONED)
    assert cqe.ok and struct.unpack_from("<H", data, 2)[0] == 1
    assert data[44:53] == bytes(9)
    # OZCS.ZRWASUP clear: either ZRWA action is Invalid Zone Operation Request (QEMU's
    # hw/nvme answers so), ZSASO with Close still Invalid Field
    assert send(nvme, sq, OPEN, 0, alloc=True).code == SC_INVALID_ZONE_OP
    assert send(nvme, sq, FLUSH, 15).code == SC_INVALID_ZONE_OP
    assert send(nvme, sq, CLOSE, 0, alloc=True).code == SC_INVALID_FIELD
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


def test_a_zrwa_zone_and_its_window_survive_a_state_file(start, tmp_path):
    """Saved at a clean exit with 32 LBAs committed and LBAs 60-80 still in the window,
    restored: the zone keeps its ZRWA and committed WP, the window's data reads back, and
    the window's rules go on (a rewrite in it, a flush by whole units)."""
    state = tmp_path / "zrwa.state"
    machine = start(f"{ZNS},{ZRWA},state_out={state}")
    nvme = machine.nvme
    sq = enable(nvme, CSS_ALL)
    assert send(nvme, sq, OPEN, 0, alloc=True).ok
    assert write(nvme, sq, 0, 8, seed=1).ok
    assert write(nvme, sq, 60, 21, seed=4).ok          # commits two units: WP 32
    assert zone(nvme, sq, 0) == (EXP_OPEN, ZA_ZRWAV, 2 * FG)
    assert machine.qt.terminate() is not None and state.exists()

    nvme = start(f"{ZNS},{ZRWA},state_in={state}").nvme
    sq = enable(nvme, CSS_ALL)
    assert zone(nvme, sq, 0) == (EXP_OPEN, ZA_ZRWAV, 2 * FG)
    cqe, data = read(nvme, sq, 60, 21)
    assert cqe.ok and data == pattern(21 * 512, 4)
    assert write(nvme, sq, 40, 4, seed=9).ok           # a rewrite in the window
    cqe, data = read(nvme, sq, 40, 4)
    assert cqe.ok and data == pattern(4 * 512, 9)
    assert write(nvme, sq, 31, 1).code == SC_ZONE_INVALID_WRITE
    assert send(nvme, sq, FLUSH, 47).ok                # one unit: WP 48
    assert zone(nvme, sq, 0) == (EXP_OPEN, ZA_ZRWAV, 48)


STATS_FILES = ("stats.csv", "IOPSData.csv", "throughputData.csv", "GCData.csv",
               "WAFData.csv", "statistics.csv", "phases.csv", "lpn_access_count.csv")


def test_a_recorded_zrwa_run_replays_to_identical_statistics(start, run_ftl_sim, tmp_path):
    """Open with ZRWAA, window writes and rewrites, an implicit and an explicit commit, a
    Finish: recorded by the device (ZM open-zrwa / zrwa-flush records) and replayed by
    ftl-sim with the same FTL configuration, every statistics file byte for byte."""
    stats, trace = tmp_path / "device", tmp_path / "zrwa.trace"
    props = f"{ZNS},{ZRWA}"
    machine = start(f"{props},stats_dir={stats},trace_out={trace}")
    nvme = machine.nvme
    sq = enable(nvme, CSS_ALL)
    assert phase(nvme, b"journal").ok          # phases of its own: replayed as recorded
    assert send(nvme, sq, OPEN, 0, alloc=True).ok
    for version in range(8):                            # one block rewritten in the window
        assert write(nvme, sq, 0, 8, seed=version).ok
    assert write(nvme, sq, 60, 21, seed=4).ok           # implicit commit: WP 32
    assert send(nvme, sq, FLUSH, 47).ok                 # explicit: WP 48
    assert send(nvme, sq, FINISH, 0).ok
    assert machine.qt.terminate() is not None
    records = [line.split() for line in trace.read_text().splitlines()
               if line and not line.startswith("#")]
    actions = [r[3] for r in records if r[0] == "ZM"]
    assert actions == ["open-zrwa", "zrwa-flush", "finish"], actions
    # the device's whole FTL configuration: start's base geometry, then the properties
    sets = [arg for kv in f"{SMALL_GEOMETRY},{props}".split(",") for arg in ("--set", kv)]
    replay = tmp_path / "replay"
    run_ftl_sim(*sets, "--trace", trace, "--stats-dir", replay)
    with open(stats / "stats.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert sum(int(r["zrwa_overwrites"]) for r in rows) > 0
    for name in STATS_FILES:
        assert (replay / name).read_text() == (stats / name).read_text(), name


def test_zrwa_fields_and_flush_in_4_kib_lbas(start):
    """secsz=4096: a zone is 256 LBAs, ZRWAFG 2 and ZRWAS 8 LBAs of 4 KiB; Identify gives
    them in those LBAs and a flush commits whole units of them."""
    nvme, sq = zoned(start, "secsz=4096,secs_per_pg=1," + ZRWA)
    cqe, data = identify(nvme, CNS_CS_NS, ZNS_NSID, CSI_ZONED)
    assert cqe.ok, str(cqe)
    assert struct.unpack_from("<IHHB", data, 44) == (1, 2, 8, 1)
    zone4k = ZONE * 512 // 4096

    def write4k(slba, nlb, seed):
        xfer = nvme.transfer(nlb * 4096)
        nvme.fill(xfer, pattern(nlb * 4096, seed))
        return nvme.run(sq, Command(0x01, nsid=ZNS_NSID, prp1=xfer.prp1, prp2=xfer.prp2,
                                    cdw10=slba, cdw12=nlb - 1))

    base = zone4k
    assert send(nvme, sq, OPEN, base, alloc=True).ok
    assert write4k(base, 3, seed=1).ok and write4k(base + 1, 1, seed=2).ok
    assert send(nvme, sq, FLUSH, base + 2).code == SC_INVALID_FIELD     # 3 LBAs: not a unit
    assert send(nvme, sq, FLUSH, base + 8).code == SC_ZONE_BOUNDARY     # past the window
    assert send(nvme, sq, FLUSH, base + 1).ok                           # one unit: WP + 2
    xfer = nvme.transfer(128, scatter=False)
    cqe = nvme.run(sq, Command(IO_ZONE_RECV, nsid=ZNS_NSID, prp1=xfer.prp1, prp2=xfer.prp2,
                               cdw10=base, cdw12=128 // 4 - 1))
    desc = nvme.contents(xfer)[64:128]
    assert cqe.ok and (desc[1] >> 4, desc[2]) == (EXP_OPEN, ZA_ZRWAV)
    assert struct.unpack_from("<Q", desc, 24)[0] == base + 2
    xfer = nvme.transfer(3 * 4096)
    cqe = nvme.run(sq, Command(0x02, nsid=ZNS_NSID, prp1=xfer.prp1, prp2=xfer.prp2,
                               cdw10=base, cdw12=2))
    want = pattern(3 * 4096, 1)
    assert cqe.ok and nvme.contents(xfer) == want[:4096] + pattern(4096, 2) + want[8192:]
