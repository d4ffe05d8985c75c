"""Shadow doorbells (Doorbell Buffer Config): the host writes SQ tails and CQ heads to a
buffer in its memory and rings MMIO only when the device's EventIdx asks for it."""
import time

from nvme_qtest import (IO_FLUSH, IO_READ, IO_WRITE, PAGE, Command, femu_only, nvme_qemu, pattern,
                        ready, start)  # noqa: F401


def _burst_io(nvme, sq, base, rounds, burst):
    """Write then read back rounds x burst 4 KiB blocks, burst commands at a time."""
    for r in range(rounds):
        batch = []
        for b in range(burst):
            lba = base + 8 * (r * burst + b)
            xfer = nvme.transfer(4096)
            nvme.fill(xfer, pattern(4096, lba))
            batch.append(nvme.submit(sq, nvme.rw(sq, IO_WRITE, lba, 8, xfer)))
        assert all(c.ok for c in nvme.wait_all(sq, batch))
    for r in range(rounds):
        batch = []
        for b in range(burst):
            lba = base + 8 * (r * burst + b)
            xfer = nvme.transfer(4096)
            batch.append((lba, xfer, nvme.submit(sq, nvme.rw(sq, IO_READ, lba, 8, xfer))))
        for lba, xfer, cid in batch:
            assert nvme.wait(sq, cid).ok
            assert nvme.contents(xfer) == pattern(4096, lba)


def _setup(start, sq_size=4, cq_size=2, pairs=2):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    cqe = nvme.doorbell_buffer_config()
    assert cqe.ok, str(cqe)
    sqs = []
    for qid in range(1, pairs + 1):
        assert nvme.create_cq(qid, cq_size)[0].ok
        cqe, sq = nvme.create_sq(qid, sq_size, qid)
        assert cqe.ok
        sqs.append(sq)
    return nvme, sqs


def test_io_through_shadow_doorbells_tiny_queues(start):
    """A 2-entry CQ holds one completion: the device must learn every head update, so a
    host following the EventIdx rule hangs unless the device maintains it correctly."""
    nvme, (sq1, sq2) = _setup(start)
    _burst_io(nvme, sq1, 0, rounds=10, burst=3)
    _burst_io(nvme, sq2, 4096, rounds=10, burst=1)
    assert nvme.mmio_rings + nvme.mmio_skipped > 0


def test_io_through_shadow_doorbells_deep_queue(start):
    nvme, (sq,) = _setup(start, sq_size=64, cq_size=64, pairs=1)
    _burst_io(nvme, sq, 0, rounds=4, burst=40)


def test_device_writes_event_indices(start):
    nvme, (sq,) = _setup(start, sq_size=16, cq_size=16, pairs=1)
    for _ in range(5):
        assert nvme.run(sq, Command(IO_FLUSH, nsid=1)).ok
    _, eventidx = nvme.dbbuf
    deadline = time.monotonic() + 5
    while nvme.qt.readl(eventidx + 2 * sq.qid * 4) == 0:
        assert time.monotonic() < deadline, "the SQ's EventIdx was never written"
        time.sleep(0.01)
    assert nvme.qt.readl(eventidx + 2 * sq.qid * 4) < sq.size


def test_mmio_doorbells_keep_working(start):
    nvme, (sq,) = _setup(start, sq_size=8, cq_size=8, pairs=1)
    nvme.always_ring = True
    _burst_io(nvme, sq, 0, rounds=5, burst=4)


def test_admin_queue_ignores_the_shadow_buffer(start):
    nvme, _ = _setup(start, pairs=1)
    shadow, _ = nvme.dbbuf
    nvme.qt.writel(shadow + 0, 0x17)                # garbage in the admin slots
    nvme.qt.writel(shadow + 4, 0x3)
    for _ in range(40):                             # wraps the 32-entry admin queue
        assert nvme.identify(1)[0].ok


@femu_only()
def test_reset_drops_the_shadow_buffers(start):
    nvme, _ = _setup(start, pairs=1)
    shadow, _ = nvme.dbbuf
    nvme.disable()
    nvme.qt.writel(shadow + 8, 3)                   # a stale SQ 1 tail of 3 empty entries
    sq = ready(nvme, io_queues=1, size=16)[0]
    data = pattern(PAGE, 5)
    assert nvme.write(sq, 0, data).ok
    cqe, got = nvme.read(sq, 0, 8)
    assert cqe.ok and got == data
    time.sleep(0.2)
    nvme.reap(sq.cq)
    assert [c.cid for c in nvme.history if c.sqid == 1] == [1, 2]
