"""I/O queues: create, use, share a CQ, wrap around, delete and re-create."""
import time

from nvme_qtest import (IO_FLUSH, IO_READ, IO_WRITE, Command, femu_only, nvme_qemu, pattern, ready,
                        start)  # noqa: F401


def test_several_queue_pairs_carry_io(start):
    nvme = start().nvme
    sqs = ready(nvme, io_queues=3, size=16)
    for i, sq in enumerate(sqs):
        assert nvme.write(sq, 8 * i, pattern(4096, i)).ok
    for i, sq in enumerate(reversed(sqs)):
        cqe, got = nvme.read(sq, 8 * (2 - i), 8)
        assert cqe.ok and cqe.sqid == sq.qid and got == pattern(4096, 2 - i)


def test_two_submission_queues_share_a_completion_queue(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    cqe, cq = nvme.create_cq(1, 32)
    assert cqe.ok
    sq_a = nvme.create_sq(1, 8, 1)[1]
    sq_b = nvme.create_sq(2, 8, 1)[1]
    assert sq_a.cq is cq and sq_b.cq is cq
    cids_a = [nvme.submit(sq_a, Command(IO_FLUSH, nsid=1)) for _ in range(5)]
    cids_b = [nvme.submit(sq_b, Command(IO_FLUSH, nsid=1)) for _ in range(5)]
    done_a = nvme.wait_all(sq_a, cids_a)
    done_b = nvme.wait_all(sq_b, cids_b)
    assert all(c.ok and c.sqid == 1 for c in done_a)
    assert all(c.ok and c.sqid == 2 for c in done_b)


def test_small_queues_wrap_many_times(start):
    nvme = start().nvme
    sq = ready(nvme, size=3)[0]                    # 2 commands in flight at most
    for i in range(25):
        data = pattern(512, i)
        assert nvme.write(sq, i, data).ok
    assert nvme.cqs[1].head == 25 % 3 and sq.tail == 25 % 3
    for i in range(25):
        cqe, got = nvme.read(sq, i, 1)
        assert cqe.ok and got == pattern(512, i)


def test_full_submission_queue(start):
    nvme = start().nvme
    sq = ready(nvme, size=8)[0]
    xfers = [nvme.transfer(4096) for _ in range(7)]
    for i, xfer in enumerate(xfers):
        nvme.fill(xfer, pattern(4096, i))
    cids = [nvme.submit(sq, nvme.rw(sq, IO_WRITE, 8 * i, 8, xfer), ring=False)
            for i, xfer in enumerate(xfers)]
    nvme.ring_sq(sq)                                # one doorbell for 7 entries
    assert all(c.ok for c in nvme.wait_all(sq, cids))
    for i in range(7):
        cqe, got = nvme.read(sq, 8 * i, 8)
        assert cqe.ok and got == pattern(4096, i)


def test_delete_and_recreate(start):
    nvme = start().nvme
    sq = ready(nvme, size=16)[0]
    assert nvme.write(sq, 0, pattern(1024, 1)).ok
    assert nvme.delete_sq(1).ok
    assert nvme.delete_cq(1).ok
    sq = nvme.io_queue_pair(1, 4)
    cqe, got = nvme.read(sq, 0, 2)
    assert cqe.ok and got == pattern(1024, 1)


def test_queue_of_maximum_size(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    mqes = (nvme.cap & 0xFFFF) + 1
    sq = nvme.io_queue_pair(1, mqes)
    for _ in range(2):                               # the second round wraps the ring
        cids = [nvme.submit(sq, Command(IO_FLUSH, nsid=1), ring=False)
                for _ in range(mqes - 100)]
        nvme.ring_sq(sq)                             # one doorbell, many fetch bursts
        done = nvme.wait_all(sq, cids, timeout=30)
        assert all(c.ok for c in done)
        last_posted = [c for c in nvme.history if c.sqid == 1][-1]
        assert last_posted.sqhd == sq.tail          # posted after every entry was fetched


def test_reads_and_writes_interleave_across_queues(start):
    nvme = start().nvme
    sq1, sq2 = ready(nvme, io_queues=2, size=64)
    expected = {}
    pending = []
    for i in range(24):
        sq = (sq1, sq2)[i % 2]
        xfer = nvme.transfer(4096)
        expected[i] = pattern(4096, 100 + i)
        nvme.fill(xfer, expected[i])
        pending.append((sq, nvme.submit(sq, nvme.rw(sq, IO_WRITE, 8 * i, 8, xfer))))
    assert all(nvme.wait(sq, cid).ok for sq, cid in pending)
    reads = []
    for i in range(24):
        sq = (sq2, sq1)[i % 2]
        xfer = nvme.transfer(4096)
        reads.append((i, xfer, sq, nvme.submit(sq, nvme.rw(sq, IO_READ, 8 * i, 8, xfer))))
    for i, xfer, sq, cid in reads:
        assert nvme.wait(sq, cid).ok
        assert nvme.contents(xfer) == expected[i]


def test_every_offered_queue_pair(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    queues = (nvme.get_features(0x07).dw0 & 0xFFFF) + 1
    sqs = [nvme.io_queue_pair(q, 4) for q in range(1, queues + 1)]
    for i, sq in enumerate(sqs):
        assert nvme.write(sq, 8 * i, pattern(512, i)).ok
    for i, sq in enumerate(sqs):
        cqe, got = nvme.read(sq, 8 * i, 1)
        assert cqe.ok and got == pattern(512, i)


def test_completion_queue_smaller_than_its_submission_queues(start):
    """Three 64-entry SQs on one 4-entry CQ: the device must hold completions until the
    host frees CQ slots, losing and overwriting none."""
    nvme = start().nvme
    ready(nvme, io_queues=0)
    assert nvme.create_cq(1, 4)[0].ok
    sqs = [nvme.create_sq(q, 64, 1)[1] for q in (1, 2, 3)]
    xfer = nvme.transfer(4096)
    nvme.fill(xfer, pattern(4096, 6))
    pending = []
    for i in range(60):
        for sq in sqs:
            pending.append((sq, nvme.submit(sq, nvme.rw(sq, IO_WRITE, 8 * i, 8, xfer),
                                            ring=False)))
    for sq in sqs:
        nvme.ring_sq(sq)
    assert all(nvme.wait(sq, cid).ok for sq, cid in pending)
    assert len({(c.sqid, c.cid) for c in nvme.history if c.sqid}) == 180


def test_deleted_queue_leaves_no_completions_in_its_successor(start):
    nvme = start().nvme
    sq = ready(nvme, size=256)[0]
    cq_addr, sq_addr = sq.cq.addr, sq.addr
    xfer = nvme.transfer(16384, scatter=False)
    for i in range(200):
        nvme.submit(sq, nvme.rw(sq, IO_WRITE, 32 * i, 32, xfer), ring=False)
    nvme.ring_sq(sq)
    assert nvme.delete_sq(1).ok                      # writes still in flight
    assert nvme.delete_cq(1).ok
    nvme.qt.memset(cq_addr, 256 * 16, 0)
    nvme.qt.memset(sq_addr, 256 * 64, 0)
    assert nvme.create_cq(1, 256, addr=cq_addr)[0].ok
    sq = nvme.create_sq(1, 256, 1, addr=sq_addr)[1]
    time.sleep(0.5)
    assert nvme.qt.b64read(cq_addr, 256 * 16) == bytes(256 * 16)
    sq.next_cid = 5000
    cqe, got = nvme.read(sq, 0, 8)
    assert cqe.ok and cqe.cid == 5000


@femu_only()
def test_interrupt_vector_is_not_checked_without_ien(start):
    nvme = start("queues=4").nvme
    ready(nvme, io_queues=0)
    cqe, _ = nvme.create_cq(1, 8, ien=False, iv=9)
    assert cqe.ok, str(cqe)
    cqe, sq = nvme.create_sq(1, 8, 1)
    assert cqe.ok and nvme.run(sq, Command(IO_FLUSH, nsid=1)).ok
