"""Reset is synchronous for the guest: once the register write that resets (CC.EN 1->0)
returns, the controller has reset, so CSTS.RDY already reads 0, nothing of the old epoch
reaches guest memory, and a 1->0->1 toggle faster than the poller still resets."""
import time

from nvme_qtest import (ACQ, AQA, ASQ, CC, CSTS, CSTS_RDY, IO_READ, SC_INVALID_QID, Command,
                        CompletionQueue, SubmissionQueue, femu_only, nvme_qemu, ready,  # noqa: F401
                        start)

pytestmark = femu_only()

BIG_READ_LBAS = 65536        # 32 MiB at 512-byte LBAs: milliseconds of copying each


def busy_reads(nvme, sq, count: int) -> None:
    """Queue reads that keep the poller copying for tens of milliseconds."""
    xfer = nvme.transfer(BIG_READ_LBAS * 512, scatter=False)
    for _ in range(count):
        nvme.submit(sq, nvme.rw(sq, IO_READ, 0, BIG_READ_LBAS, xfer), ring=False)
    nvme.ring_sq(sq)


def test_rdy_reads_zero_as_soon_as_the_disable_returns(start):
    nvme = start("mdts=0").nvme
    sq = ready(nvme)[0]
    busy_reads(nvme, sq, 8)
    cq_addr = sq.cq.addr
    nvme.writel(CC, nvme.readl(CC) & ~1)
    assert not nvme.readl(CSTS) & CSTS_RDY                 # no polling needed
    snapshot = nvme.qt.b64read(cq_addr, 64 * 16)
    time.sleep(0.5)
    assert nvme.qt.b64read(cq_addr, 64 * 16) == snapshot, "a CQE after the reset"


def test_fast_toggle_resets_and_latches_the_new_admin_queue(start):
    """CC.EN 1->0->1 back to back while the poller is busy: the old I/O queues are gone
    and the admin queue registers written before the toggle are the ones in use."""
    nvme = start("mdts=0").nvme
    sq = ready(nvme)[0]
    busy_reads(nvme, sq, 8)
    new_asq, new_acq = nvme.mem.alloc(32 * 64), nvme.mem.alloc(32 * 16)
    nvme.writeq(ASQ, new_asq)
    nvme.writeq(ACQ, new_acq)
    cc = nvme.readl(CC)
    nvme.writel(CC, cc & ~1)
    nvme.writel(CC, cc)
    nvme.wait_csts(CSTS_RDY, CSTS_RDY)
    assert nvme.readl(AQA) == (31 << 16 | 31)
    # the host side follows the new admin queue
    nvme.cqs = {0: CompletionQueue(0, 32, new_acq)}
    nvme.asq = SubmissionQueue(0, 32, new_asq, nvme.cqs[0])
    nvme.sqs = {0: nvme.asq}
    cqe, _ = nvme.identify(1)
    assert cqe.ok
    cqe = nvme.admin(Command(0x00, cdw10=1))                # delete SQ 1: it is gone
    assert cqe.code == SC_INVALID_QID
