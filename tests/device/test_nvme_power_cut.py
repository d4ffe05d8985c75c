"""Power loss in the device (QMP `qom-set femu0 power-cut ...`; docs/ftl.md "Power loss").

The durability contract, pinned exactly on small cases: with the cache on and no flush
exactly the buffered sectors are lost and read back what flash holds (the last flushed
bytes, or zeroes never written); every write acknowledged before a completed Flush
survives; FUA writes and writes with the cache off survive; with plp=on nothing
acknowledged is lost; a program in flight is torn and reads back Unrecovered Read Error
until rewritten. After a cut the controller is as at power-on (CSTS.RDY 0) and is enabled
again. The lost ranges go to stats_dir/power_cut_lost.csv, which ftl-sim's --lost-out
matches when it replays the device's recording and cuts at the same instant."""
import csv
import random
import time

import pytest

from femu_lab.vm.qmp import Qmp, QmpError, qmp_args
from nvme_qtest import (CSTS, CSTS_RDY, IO_FLUSH, IO_READ, IO_WRITE, SMALL_GEOMETRY, Command,
                        femu_only, nvme_qemu, pattern, ready, start, wait_for)  # noqa: F401

pytestmark = femu_only()

DEV = "/machine/peripheral/femu0"
SECTORS = 8                  # SMALL_GEOMETRY's page: 8 sectors of 512 B
PAGE = SECTORS * 512
BUFFER = "write_buffer_sectors=1024"
FID_VWC = 0x06
FUA = 1 << 30
SC_UNRECOVERED_READ = 0x281


class Device:
    """A qtest machine with QMP, enabled, one I/O queue pair."""

    def __init__(self, start, tmp_path, props):
        self.stats = tmp_path / "stats"
        self.socket = tmp_path / "qmp.sock"
        self.machine = start(f"id=femu0,stats_dir={self.stats},{props}",
                             extra=qmp_args(self.socket))
        self.nvme = self.machine.nvme
        self.sq = ready(self.nvme)[0]
        self.qmp = Qmp(self.socket, connect_timeout=30).__enter__()

    def write(self, lba, nlb, seed, fua=False):
        xfer = self.nvme.transfer(nlb * 512)
        self.nvme.fill(xfer, pattern(nlb * 512, seed))
        cmd = self.nvme.rw(self.sq, IO_WRITE, lba, nlb, xfer)
        cmd.cdw12 |= FUA if fua else 0
        cqe = self.nvme.run(self.sq, cmd)
        assert cqe.ok, f"write {lba}+{nlb}: {cqe}"

    def read(self, lba, nlb):
        xfer = self.nvme.transfer(nlb * 512)
        cqe = self.nvme.run(self.sq, self.nvme.rw(self.sq, IO_READ, lba, nlb, xfer))
        return cqe, self.nvme.contents(xfer)

    def readback(self, lba, nlb):
        cqe, data = self.read(lba, nlb)
        assert cqe.ok, f"read {lba}+{nlb}: {cqe}"
        return data

    def host_write_commands(self):
        cqe, data = self.nvme.get_log(0x02, 512)     # SMART: counted at fetch
        assert cqe.ok, str(cqe)
        return int.from_bytes(data[80:96], "little")   # Host Write Commands

    def flush(self):
        assert self.nvme.run(self.sq, Command(IO_FLUSH, nsid=1)).ok

    def completed_or_cut(self, cids, deadline_s=120):
        """True once every command of cids completed, False once a cut came first: waits
        on either (bounded), never on a time guess, so a loaded host changes nothing."""
        pending, deadline = list(cids), time.monotonic() + deadline_s
        while True:
            self.nvme.reap(self.sq.cq)
            pending = [c for c in pending if self.nvme.done.pop((self.sq.qid, c), None) is None]
            if not pending:
                return True
            if self.status().startswith("cut "):
                return False
            assert time.monotonic() < deadline, f"commands {pending} neither completed nor cut"
            time.sleep(0.005)

    def status(self):
        return self.qmp.execute("qom-get", path=DEV, property="power-cut-status")

    def cut(self, how="now", number=1):
        """Cut (or arm) and wait for cut `number` to be done; the controller comes back
        as at power-on and is enabled again. Returns the status line."""
        self.qmp.execute("qom-set", path=DEV, property="power-cut", value=how)
        status = wait_for(lambda: self.status().startswith(f"cut {number} ") and self.status(),
                          what=f"power cut {number}", timeout=60)
        assert not self.nvme.readl(CSTS) & CSTS_RDY
        self.sq = ready(self.nvme)[0]
        return status

    def close(self):
        self.qmp.__exit__(None, None, None)


@pytest.fixture
def device(start, tmp_path):
    made = []

    def make(props=BUFFER):
        made.append(Device(start, tmp_path, props))
        return made[-1]
    yield make
    for d in made:
        d.close()


def lost_rows(stats, cut=1):
    with open(stats / "power_cut_lost.csv", newline="") as f:
        return [(r["kind"], int(r["slba"]), int(r["nlb"])) for r in csv.DictReader(f)
                if int(r["cut"]) == cut]


def cut_row(stats, cut=1):
    with open(stats / "power_cuts.csv", newline="") as f:
        return next(r for r in csv.DictReader(f) if int(r["cut"]) == cut)


def test_buffered_writes_are_lost_and_read_back_what_flash_holds(device):
    """Page 0 flushed (seed 1) then rewritten (seed 2); page 5 written once, never flushed;
    page 9 flushed (seed 5), then sectors 2-3 rewritten: exactly the buffered sectors are
    lost, each reading what the last flush put on flash, or zeroes."""
    d = device()
    d.write(0, SECTORS, 1)
    d.write(9 * SECTORS, SECTORS, 5)
    d.flush()
    d.write(0, SECTORS, 2)
    d.write(5 * SECTORS, SECTORS, 3)
    d.write(9 * SECTORS + 2, 2, 4)
    status = d.cut()
    assert "18 buffered sectors lost (3 pages), 0 pages torn" in status
    assert d.readback(0, SECTORS) == pattern(PAGE, 1)
    assert d.readback(5 * SECTORS, SECTORS) == bytes(PAGE)
    assert d.readback(9 * SECTORS, SECTORS) == pattern(PAGE, 5)
    assert lost_rows(d.stats) == [("buffered", 0, 8), ("buffered", 40, 8), ("buffered", 74, 2)]
    row = cut_row(d.stats)
    assert (row["buffered_sectors"], row["torn_pages"], row["plp"]) == ("18", "0", "0")
    # the device goes on: a new write survives the next flush and cut
    d.write(5 * SECTORS, SECTORS, 7)
    d.flush()
    assert "0 buffered sectors lost" in d.cut(number=2)
    assert d.readback(5 * SECTORS, SECTORS) == pattern(PAGE, 7)
    assert lost_rows(d.stats, cut=2) == []


def test_a_page_rewritten_many_times_in_the_buffer_reads_back_its_flushed_bytes(device):
    """Rewrites within one buffered episode keep the bytes from before the first; a flush
    starts a new episode."""
    d = device()
    for seed in range(10, 14):
        d.write(3 * SECTORS, SECTORS, seed)
    d.flush()
    for seed in range(20, 25):
        d.write(3 * SECTORS + 1, 3, seed)
    d.cut()
    assert d.readback(3 * SECTORS, SECTORS) == pattern(PAGE, 13)
    assert lost_rows(d.stats) == [("buffered", 25, 3)]


def test_fua_and_cache_off_writes_survive(device):
    d = device()
    d.write(0, SECTORS, 1, fua=True)
    assert d.nvme.set_features(FID_VWC, 0).ok
    d.write(SECTORS, SECTORS, 2)
    assert d.nvme.set_features(FID_VWC, 1).ok
    d.write(2 * SECTORS, SECTORS, 3)                 # buffered again: lost
    d.cut()
    assert d.readback(0, SECTORS) == pattern(PAGE, 1)
    assert d.readback(SECTORS, SECTORS) == pattern(PAGE, 2)
    assert d.readback(2 * SECTORS, SECTORS) == bytes(PAGE)
    assert lost_rows(d.stats) == [("buffered", 16, 8)]
    cqe = d.nvme.get_features(FID_VWC)
    assert cqe.ok and cqe.dw0 & 1, "the cache is on again after the power cycle"


def test_plp_loses_nothing_acknowledged(device):
    d = device(f"{BUFFER},plp=on")
    d.write(0, SECTORS, 1)
    d.write(4 * SECTORS + 3, 2, 2)
    status = d.cut()
    assert "0 buffered sectors lost" in status and "2 pages saved by plp" in status
    assert d.readback(0, SECTORS) == pattern(PAGE, 1)
    assert d.readback(4 * SECTORS + 3, 2) == pattern(1024, 2)
    assert lost_rows(d.stats) == []
    assert cut_row(d.stats)["plp"] == "1"


def test_a_program_in_flight_is_torn_and_reads_uncorrectable_until_rewritten(device):
    """A FUA write whose program takes 30 s is in flight when the cut comes: its page reads
    back Unrecovered Read Error; a rewrite makes it readable."""
    d = device(f"{BUFFER},pg_wr_lat=30000000000")
    xfer = d.nvme.transfer(PAGE)
    d.nvme.fill(xfer, pattern(PAGE, 1))
    cmd = d.nvme.rw(d.sq, IO_WRITE, 2 * SECTORS, SECTORS, xfer)
    cmd.cdw12 |= FUA
    d.nvme.submit(d.sq, cmd)
    wait_for(lambda: d.host_write_commands() == 1, what="the write's fetch")
    status = d.cut()
    assert "1 pages torn" in status
    assert lost_rows(d.stats) == [("torn", 16, 8)]
    cqe, _ = d.read(2 * SECTORS, SECTORS)
    assert cqe.code == SC_UNRECOVERED_READ, str(cqe)
    d.write(2 * SECTORS, SECTORS, 9)                # buffered: readable again
    assert d.readback(2 * SECTORS, SECTORS) == pattern(PAGE, 9)
    assert d.qmp.execute("qom-get", path=DEV, property="power-cuts") == 1


def test_an_armed_cut_comes_right_after_the_nth_acknowledged_write(device):
    d = device()
    d.qmp.execute("qom-set", path=DEV, property="power-cut", value="after-writes=3")
    assert d.status() == "armed: after-writes=3"
    with pytest.raises(QmpError, match="already armed"):
        d.qmp.execute("qom-set", path=DEV, property="power-cut", value="now")
    for lpn in range(3):
        d.write(lpn * SECTORS, SECTORS, lpn + 1)
    wait_for(lambda: d.status().startswith("cut 1 "), what="the armed cut")
    d.sq = ready(d.nvme)[0]
    assert lost_rows(d.stats) == [("buffered", 0, 24)]
    # after-flushes: the flush's pages are on flash, the write after it is not yet acked
    d.write(0, SECTORS, 4)
    d.qmp.execute("qom-set", path=DEV, property="power-cut", value="after-flushes=1")
    d.flush()
    wait_for(lambda: d.status().startswith("cut 2 "), what="the armed flush cut")
    d.sq = ready(d.nvme)[0]
    assert lost_rows(d.stats, cut=2) == []
    assert d.readback(0, SECTORS) == pattern(PAGE, 4)


@pytest.mark.parametrize("value,message", [
    ("soon", "want now, after-writes=N"), ("after-writes=0", "want now"),
    ("after-flushes=-1", "want now"), ("after-writes=99999999999", "want now"),
    ("after-writes=1x", "want now")])
def test_bad_power_cut_values_are_refused(device, value, message):
    d = device()
    with pytest.raises(QmpError, match=message):
        d.qmp.execute("qom-set", path=DEV, property="power-cut", value=value)
    assert d.status() == "idle"
    d.qmp.execute("qom-set", path=DEV, property="power-cut", value="off")
    assert d.status() == "disarmed"


# ---- the device and ftl-sim agree on what a cut loses

def test_ftl_sim_replaying_the_recording_loses_exactly_what_the_device_lost(
        start, run_ftl_sim, tmp_path):
    """The device records its FTL's requests (trace_out) through a run at queue depth 8 of
    writes of 1-24 sectors, Write Zeroes, FUA writes and flushes, armed to cut after the
    300th acknowledged write; ftl-sim replays the recording and cuts at the instant
    power_cuts.csv gives: the lost ranges are the same. (What lost sectors read back is
    pinned by the hand-computed cases above.)"""
    props = f"{BUFFER},buf_flush_pcent=50"
    trace = tmp_path / "run.trace"
    d = Device(start, tmp_path, f"{props},trace_out={trace}")
    rng = random.Random(17)
    d.qmp.execute("qom-set", path=DEV, property="power-cut", value="after-writes=300")
    lbas = 4096                                   # a 2 MiB window: pages are rewritten
    xfer = d.nvme.transfer(24 * 512)
    d.nvme.fill(xfer, pattern(24 * 512, 3))
    sent = 0
    while not d.status().startswith("cut 1 "):
        cids = []
        for _ in range(8):
            roll, nlb = rng.random(), rng.randint(1, 24)
            lba = rng.randrange(lbas - nlb)
            if roll < 0.05:
                cmd = Command(IO_FLUSH, nsid=1)
            else:
                cmd = d.nvme.rw(d.sq, IO_WRITE, lba, nlb, xfer)
                cmd.cdw12 |= FUA if roll < 0.12 else 0
            cids.append(d.nvme.submit(d.sq, cmd))
        sent += len(cids)
        if not d.completed_or_cut(cids):
            break                                  # the cut took the rest
        assert sent < 2000, "the armed cut never came"
    assert d.status().startswith("cut 1 ")
    d.close()
    d.machine.qt.terminate()                       # closes the trace
    at_ns = int(cut_row(d.stats)["at_ns"])
    device_lost = lost_rows(d.stats)
    assert any(kind == "buffered" for kind, _, _ in device_lost), device_lost

    sets = [a for kv in (SMALL_GEOMETRY + "," + props).split(",") for a in ("--set", kv)]
    sim_lost = tmp_path / "sim-lost.csv"
    run_ftl_sim(*sets, "--trace", trace, "--power-cut-at", f"{at_ns}ns",
                "--lost-out", sim_lost)
    with open(sim_lost, newline="") as f:
        sim = [(r["kind"], int(r["slba"]), int(r["nlb"])) for r in csv.DictReader(f)]
    print(f"\n{len(device_lost)} lost ranges at {at_ns} ns after {sent} commands")
    assert sim == device_lost


def test_a_write_larger_than_the_buffer_keeps_the_flash_bytes_of_its_buffered_tail(device):
    """Write Zeroes of 4096 sectors over flushed data with a 1024-sector buffer: the buffer
    keeps only the command's tail (it evicts least recently written first), the device
    keeps only that tail's old bytes, and a cut puts exactly those back."""
    d = device("write_buffer_sectors=1024")
    for lba in range(0, 4096, 64):
        d.write(lba, 64, lba)
    d.flush()
    cqe = d.nvme.write_zeroes(d.sq, 0, 4096)
    assert cqe.ok, str(cqe)
    status = d.cut()
    assert "kept no flash bytes" not in status
    lost = lost_rows(d.stats)
    assert lost and all(kind == "buffered" for kind, _, _ in lost)
    first = lost[0][1]
    assert sum(nlb for _, _, nlb in lost) == 4096 - first and 0 < first < 4096
    for lba in range(0, 4096, 64):
        data = d.readback(lba, 64)
        for i in range(64):
            sector = data[i * 512:(i + 1) * 512]
            want = pattern(64 * 512, lba)[i * 512:(i + 1) * 512] if lba + i >= first \
                else bytes(512)
            assert sector == want, f"sector {lba + i} (lost from {first})"


def test_plp_with_an_energy_budget_saves_the_oldest_pages_and_loses_the_rest(device):
    """plp_budget_pages=2: of three buffered pages the two written first are programmed
    at the cut; the last is lost and reads back its flushed bytes."""
    d = device(f"{BUFFER},plp=on,plp_budget_pages=2")
    d.write(6 * SECTORS, SECTORS, 60)
    d.flush()
    d.write(0, SECTORS, 1)
    d.write(3 * SECTORS, SECTORS, 2)
    d.write(6 * SECTORS, SECTORS, 3)
    status = d.cut()
    assert "8 buffered sectors lost (1 pages)" in status and "2 pages saved by plp" in status
    assert d.readback(0, SECTORS) == pattern(PAGE, 1)
    assert d.readback(3 * SECTORS, SECTORS) == pattern(PAGE, 2)
    assert d.readback(6 * SECTORS, SECTORS) == pattern(PAGE, 60)
    assert lost_rows(d.stats) == [("buffered", 48, 8)]
