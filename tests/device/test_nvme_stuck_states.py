"""The poller sleeps whenever it cannot make progress: in every stuck state (CQ full,
request pool empty with shadow doorbells, controller disabled mid-I/O, a guest that went
quiet) the poller thread's CPU time stays near zero. A spinning poller burns a whole core
(on a loaded host at least a large share of one), a sleeping one a few ticks: the bound
below sits far from both, so host speed does not decide the outcome."""
import base64
import time

from nvme_qtest import (CC, CSTS_RDY, IO_FLUSH, IO_WRITE, Command, femu_only,  # noqa: F401
                        nvme_qemu, ready, start, thread_cpu_seconds, trace_args, traced,
                        wait_for)

pytestmark = femu_only()

SETTLE = 1.0          # the device takes what it can
WINDOW = 2.0          # then the poller's CPU time is measured over this long
MAX_SHARE = 0.15      # of one core; a spinning poller is near 1.0


def poller_share(machine) -> float:
    time.sleep(SETTLE)
    before = thread_cpu_seconds(machine.qt.pid, "femu-poller")
    time.sleep(WINDOW)
    share = (thread_cpu_seconds(machine.qt.pid, "femu-poller") - before) / WINDOW
    print(f"poller CPU: {100 * share:.1f} % of a core")
    return share


def fill_sq_with_flushes(nvme, sq, count: int) -> None:
    """count Flush commands in one guest-memory write (the CIDs stay unique per SQ)."""
    entries = b"".join(Command(IO_FLUSH, nsid=1).pack(cid + 1) for cid in range(count))
    nvme.qt.command(f"b64write {sq.addr:#x} {len(entries):#x} "
                    f"{base64.b64encode(entries).decode()}")
    sq.tail = count % sq.size


def test_idle_controller_sleeps(start):
    machine = start()
    ready(machine.nvme, io_queues=2)
    assert poller_share(machine) < MAX_SHARE


def test_full_completion_queue_sleeps(start):
    """A 2-entry CQ the guest never consumes: completions wait, the poller must not."""
    machine = start()
    nvme = machine.nvme
    ready(nvme, io_queues=0)
    assert nvme.create_cq(1, 2)[0].ok
    sq = nvme.create_sq(1, 256, 1)[1]
    fill_sq_with_flushes(nvme, sq, 200)
    nvme.ring_sq(sq)
    assert poller_share(machine) < MAX_SHARE


def test_exhausted_request_pool_with_shadow_doorbells_sleeps(start):
    """More commands than the device's request pool (16384), all completing into a
    2-entry CQ nobody consumes, announced through shadow doorbells: the poller used to
    spin on SQs it could not fetch from."""
    queues = 9                                   # 9 x 2047 entries > the pool
    machine = start(f"queues={queues}")
    nvme = machine.nvme
    ready(nvme, io_queues=0)
    assert nvme.create_cq(1, 2)[0].ok
    sqs = [nvme.create_sq(q, 2048, 1)[1] for q in range(1, queues + 1)]
    assert nvme.doorbell_buffer_config().ok
    for sq in sqs:
        fill_sq_with_flushes(nvme, sq, 2047)
        nvme.ring_sq(sq)
    assert poller_share(machine) < MAX_SHARE
    assert nvme.readl(0x1C) & CSTS_RDY


def test_shutdown_with_every_request_held_still_saves(start, tmp_path):
    """Issue 29, fault 6: with the request pool exhausted by completions a 2-entry CQ never
    takes, CC.SHN reported "shutdown complete" at once, without the save of the per-LPN
    counts (and without draining a write buffer). The pool keeps one request for it: the
    shutdown completes once lpn_access_count.csv is written."""
    queues, stats, log = 9, tmp_path / "stats", tmp_path / "trace.log"
    machine = start(f"queues={queues},stats_dir={stats}", extra=trace_args(log, "femu_cmd"))
    nvme = machine.nvme
    ready(nvme, io_queues=0)
    assert nvme.create_cq(1, 2)[0].ok
    sqs = [nvme.create_sq(q, 2048, 1)[1] for q in range(1, queues + 1)]
    for sq in sqs:                               # 9 x 2047 Flushes > the pool
        fill_sq_with_flushes(nvme, sq, 2047)
        nvme.ring_sq(sq)
    # every request the guest can have is fetched: the pool's 16383 held, one posted
    wait_for(lambda: traced(log, "femu_cmd sqid ") >= 16384, timeout=120,
             what="the request pool to run out")
    nvme.writel(CC, nvme.readl(CC) | 1 << 14)    # normal shutdown
    nvme.wait_csts(0xC, 0x8, timeout=60)         # SHST complete
    assert (stats / "lpn_access_count.csv").exists()


def queue_writes(nvme, sq, count: int) -> None:
    xfer = nvme.transfer(4096)
    for i in range(count):
        nvme.submit(sq, nvme.rw(sq, IO_WRITE, 8 * i, 8, xfer), ring=False)
    nvme.ring_sq(sq)


def test_disabled_mid_io_sleeps(start):
    machine = start("pg_wr_lat=50000000")         # 50 ms per page: all still in flight
    nvme = machine.nvme
    queue_writes(nvme, ready(nvme, size=512)[0], 500)
    nvme.disable()
    assert poller_share(machine) < MAX_SHARE


def test_quiet_guest_with_io_outstanding_sleeps(start):
    """The guest stops mid-I/O: completions it never reaps, doorbells it never rings."""
    machine = start("pg_wr_lat=1000000")
    queue_writes(machine.nvme, ready(machine.nvme, size=64)[0], 63)
    assert poller_share(machine) < MAX_SHARE
