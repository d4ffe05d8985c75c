"""Controller reset (CC.EN 1 -> 0) with commands in flight: dropped, never completed into
the queues created after the reset; the controller works afterwards."""
import csv
import struct
import time

from nvme_qtest import (ACQ, ADM_AER, ASQ, CC, CSTS, CSTS_CFS, IO_DSM, IO_WRITE, SC_INVALID_QID, Command,
                        femu_only, nvme_qemu, pattern, ready, start)  # noqa: F401

SETTLE = 0.5      # long after every dropped command's flash latency has passed


def test_reset_with_writes_in_flight(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    asq, acq = nvme.readq(ASQ), nvme.readq(ACQ)
    aers = [nvme.submit(nvme.asq, Command(ADM_AER)) for _ in range(4)]
    cq_addr, sq_addr = nvme.mem.alloc(256 * 16), nvme.mem.alloc(256 * 64)
    assert nvme.create_cq(1, 256, addr=cq_addr)[0].ok
    sq = nvme.create_sq(1, 256, 1, addr=sq_addr)[1]
    xfer = nvme.transfer(16384, scatter=False)
    nvme.fill(xfer, pattern(16384, 1))
    for i in range(200):
        nvme.submit(sq, nvme.rw(sq, IO_WRITE, 32 * i, 32, xfer), ring=False)
    nvme.ring_sq(sq)
    nvme.disable()                                        # at once: most still in flight

    for addr, size in ((asq, 32 * 64), (acq, 32 * 16), (cq_addr, 256 * 16),
                       (sq_addr, 256 * 64)):
        nvme.qt.memset(addr, size, 0)                     # same memory, fresh queues
    since = len(nvme.history)
    csts = nvme.enable(asq=asq, acq=acq)
    assert csts & 1 and not csts & CSTS_CFS
    nvme.asq.next_cid = 1000
    assert nvme.create_cq(1, 256, addr=cq_addr)[0].ok
    sq = nvme.create_sq(1, 256, 1, addr=sq_addr)[1]
    sq.next_cid = 1000
    time.sleep(SETTLE)
    assert nvme.qt.b64read(cq_addr, 256 * 16) == bytes(256 * 16), "stale I/O completion"

    data = pattern(4096, 2)
    assert nvme.write(sq, 0, data).ok
    cqe, got = nvme.read(sq, 0, 8)
    assert cqe.ok and got == data
    after = nvme.history[since:]
    assert [c.cid for c in after if c.sqid == 0] == [1000, 1001]      # the two creates
    assert [c.cid for c in after if c.sqid == 1] == [1000, 1001]      # the write, the read
    assert not set(aers) & {c.cid for c in after}


def test_old_queue_memory_is_left_alone_after_reset(start):
    nvme = start().nvme
    sq = ready(nvme, size=256)[0]
    cq_addr = sq.cq.addr
    xfer = nvme.transfer(4096, scatter=False)
    for i in range(150):
        nvme.submit(sq, nvme.rw(sq, IO_WRITE, 8 * i, 8, xfer), ring=False)
    nvme.ring_sq(sq)
    nvme.disable()
    snapshot = nvme.qt.b64read(cq_addr, 256 * 16)
    time.sleep(SETTLE)
    assert nvme.qt.b64read(cq_addr, 256 * 16) == snapshot


def test_reset_twice_and_shutdown_then_reenable(start):
    nvme = start().nvme
    for _ in range(2):
        sq = ready(nvme)[0]
        assert nvme.write(sq, 0, pattern(512, 1)).ok
        nvme.disable()
    sq = ready(nvme)[0]
    nvme.writel(CC, nvme.readl(CC) | 1 << 14)
    nvme.wait_csts(0xC, 0x8)
    nvme.disable()
    sq = ready(nvme)[0]
    cqe, got = nvme.read(sq, 0, 1)
    assert cqe.ok and got == pattern(512, 1)
    assert not nvme.readl(CSTS) & CSTS_CFS


@femu_only()
def test_io_queues_are_gone_after_reset(start):
    nvme = start().nvme
    ready(nvme, io_queues=2)
    nvme.disable()
    ready(nvme, io_queues=0)
    assert nvme.delete_sq(1).code == SC_INVALID_QID
    assert nvme.delete_cq(2).code == SC_INVALID_QID
    sq = nvme.io_queue_pair(1, 8)                         # qid 1 is free again
    assert nvme.write(sq, 0, pattern(512, 3)).ok


def test_qemu_exits_cleanly_with_io_in_flight(start):
    machine = start()
    nvme = machine.nvme
    sq = ready(nvme, size=256)[0]
    xfer = nvme.transfer(65536, scatter=False)
    for i in range(200):
        nvme.submit(sq, nvme.rw(sq, IO_WRITE, 128 * i, 128, xfer), ring=False)
    nvme.ring_sq(sq)
    err = machine.qt.terminate()
    assert machine.qt.returncode == 0, err


@femu_only()
def test_aer_limit_starts_over_after_reset(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    for _ in range(4):
        nvme.submit(nvme.asq, Command(ADM_AER))
    nvme.disable()
    ready(nvme, io_queues=0)
    for _ in range(4):
        nvme.submit(nvme.asq, Command(ADM_AER))
    assert nvme.identify(1)[0].ok
    fifth = nvme.admin(Command(ADM_AER))
    assert (fifth.code, fifth.dnr) == (0x105, True)


def test_writes_and_deallocates_a_reset_drops_still_reach_the_ftl(start, tmp_path):
    """Issue 29, suspected: a Deallocate (or a write) fetched before a reset has changed
    the data store already; the FTL thread skipped it once the reset made it stale, and the
    FTL went on mapping pages the store had discarded. 256 writes of a page each, then a
    Deallocate of the first 128 pages, reset at once: whatever part was fetched, the FTL's
    valid pages are the pages the device counts as written (NUSE)."""
    stats = tmp_path / "stats"
    machine = start(f"stats_dir={stats}")
    nvme = machine.nvme
    sq = ready(nvme, size=512)[0]
    xfer = nvme.transfer(4096)
    for i in range(256):
        nvme.submit(sq, nvme.rw(sq, IO_WRITE, 8 * i, 8, xfer), ring=False)
    table = nvme.buffer(struct.pack("<IIQ", 0, 1024, 0))
    nvme.submit(sq, Command(IO_DSM, nsid=1, prp1=table, cdw10=0, cdw11=1 << 2))
    nvme.disable()                                        # at once: most still queued
    ready(nvme, io_queues=0)
    _, ident = nvme.identify(0x00, nsid=1)
    nuse = struct.unpack_from("<Q", ident, 16)[0]
    machine.qt.terminate()                                # the statistics close
    with open(stats / "stats.csv") as f:
        valid_pages = int(list(csv.DictReader(f))[-1]["valid_pages"])
    assert valid_pages * 8 == nuse
