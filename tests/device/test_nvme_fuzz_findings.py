"""Regressions found by the fuzzer (tests/fuzz): each replays the finding's essence."""
import time

from nvme_qtest import (CC, CSTS, CSTS_RDY, IO_FLUSH, IO_READ, SC_DATA_TRANSFER_ERROR, Command,
                        femu_only, nvme_qemu, ready, start)  # noqa: F401
from test_nvme_reset_sync import busy_reads

pytestmark = femu_only()

BIOS_ROM = 0xFFFF_0000          # the firmware image mapped below 4 GiB: ROM


def test_invalid_doorbell_value_does_not_hide_the_valid_one_before_it(start):
    """Fuzzer finding F1: the host consumes a CQE, writes the new head, then writes an
    out-of-range value to the same doorbell before the device looked. The invalid value
    is ignored and the valid one stands, so the held completion is posted."""
    nvme = start("mdts=0").nvme
    busy_sq, sq = ready(nvme, io_queues=2)
    cqe, cq = nvme.create_cq(3, 2)
    assert cqe.ok
    cqe, small = nvme.create_sq(3, 16, 3)
    assert cqe.ok
    first = nvme.submit(small, Command(IO_FLUSH, nsid=1))
    second = nvme.submit(small, Command(IO_FLUSH, nsid=1))
    deadline = time.monotonic() + 10
    while (3, first) not in nvme.done:                     # the CQ holds one entry
        nvme.reap(cq, update_head=False)
        assert time.monotonic() < deadline
    busy_reads(nvme, busy_sq, 8)                           # the poller copies meanwhile
    nvme.writel(nvme.doorbell(3, True), cq.head)           # valid: one entry consumed
    nvme.writel(nvme.doorbell(3, True), 9915)              # invalid: beyond the queue
    assert nvme.wait(small, second, timeout=10).ok


def test_read_into_rom_fails_and_a_reset_after_it_completes(start):
    """Fuzzer finding F2: a Read whose PRP1 is ROM took QEMU's MMIO path (and the BQL) on
    the poller while a vCPU held the BQL waiting for the poller to reset: a deadlock.
    ROM is not writable RAM: Data Transfer Error, no BQL, and the reset returns."""
    nvme = start().nvme
    sq = ready(nvme)[0]
    for addr in (BIOS_ROM, 0xF0000):
        cqe = nvme.run(sq, Command(IO_READ, nsid=1, prp1=addr, cdw12=7))
        assert cqe.code == SC_DATA_TRANSFER_ERROR, hex(addr)
    for _ in range(20):
        nvme.submit(sq, Command(IO_READ, nsid=1, prp1=BIOS_ROM, cdw12=7), ring=False)
    nvme.ring_sq(sq)
    cc = nvme.readl(CC)
    nvme.writel(CC, cc & ~1)
    nvme.writel(CC, cc)
    nvme.wait_csts(CSTS_RDY, CSTS_RDY)
    assert nvme.readl(CSTS) & CSTS_RDY
