"""Interrupts: MSI-X messages land in guest RAM (the vector's address points there), masked
vectors stay pending until unmasked; pin interrupt fallback without MSI-X."""
import time

from nvme_qtest import (INTMC, INTMS, IO_FLUSH, Command, femu_only, nvme_qemu, ready,
                        start)  # noqa: F401

DATA = 0x4E560000


def wait_word(nvme, addr, value, timeout=5.0):
    deadline = time.monotonic() + timeout
    while nvme.qt.readl(addr) != value:
        assert time.monotonic() < deadline, f"{addr:#x} holds {nvme.qt.readl(addr):#x}"
        time.sleep(0.001)


def msix_machine(start, props=""):
    nvme = start(props).nvme
    nvme.msix_enable()
    mailbox = nvme.mem.alloc(4096)
    for v in range(nvme.msix_vectors):
        nvme.msix_vector(v, mailbox + 16 * v, DATA | v)
    return nvme, mailbox


@femu_only()
def test_msix_table_has_a_vector_per_queue_plus_admin(start):
    nvme = start("queues=4").nvme
    nvme.msix_enable()
    assert nvme.msix_vectors == 5
    cap = nvme.pci.capability(0x11)
    assert nvme.pci.readl(cap + 4) & 7 == 4 and nvme.pci.readl(cap + 8) & 7 == 4


def test_admin_completion_signals_vector_0(start):
    nvme, mailbox = msix_machine(start)
    ready(nvme, io_queues=0)
    assert nvme.identify(1)[0].ok
    wait_word(nvme, mailbox, DATA | 0)


def test_io_completion_signals_its_queue_vector(start):
    nvme, mailbox = msix_machine(start)
    ready(nvme, io_queues=0)
    assert nvme.create_cq(1, 16, ien=True, iv=2)[0].ok
    assert nvme.create_cq(2, 16, ien=True, iv=3)[0].ok
    sq1 = nvme.create_sq(1, 16, 1)[1]
    nvme.create_sq(2, 16, 2)
    nvme.qt.memset(mailbox, 4096, 0)
    assert nvme.run(sq1, Command(IO_FLUSH, nsid=1)).ok
    wait_word(nvme, mailbox + 16 * 2, DATA | 2)
    time.sleep(0.05)
    assert nvme.qt.readl(mailbox + 16 * 3) == 0           # the other queue's vector is quiet


def test_queue_without_ien_sends_no_message(start):
    nvme, mailbox = msix_machine(start)
    ready(nvme, io_queues=0)
    assert nvme.create_cq(1, 16, ien=False, iv=1)[0].ok
    sq = nvme.create_sq(1, 16, 1)[1]
    for _ in range(3):
        assert nvme.run(sq, Command(IO_FLUSH, nsid=1)).ok
    time.sleep(0.1)
    assert nvme.qt.readl(mailbox + 16) == 0


def test_masked_vector_is_pending_until_unmasked(start):
    nvme, mailbox = msix_machine(start)
    ready(nvme, io_queues=0)
    nvme.msix_vector(1, mailbox + 16, DATA | 1, masked=True)
    assert nvme.create_cq(1, 16, ien=True, iv=1)[0].ok
    sq = nvme.create_sq(1, 16, 1)[1]
    assert nvme.run(sq, Command(IO_FLUSH, nsid=1)).ok
    deadline = time.monotonic() + 5
    while not nvme.msix_pending(1):
        assert time.monotonic() < deadline, "vector 1 never became pending"
        time.sleep(0.001)
    assert nvme.qt.readl(mailbox + 16) == 0
    nvme.msix_vector(1, mailbox + 16, DATA | 1, masked=False)
    wait_word(nvme, mailbox + 16, DATA | 1)
    assert not nvme.msix_pending(1)


def _irq_lines(nvme, kind, timeout):
    """Wait for an `IRQ <kind> N` (N >= 16: PCI pins on the IOAPIC); return N or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for i, line in enumerate(nvme.qt.irq_events):
            _, what, num = line.split()
            if what == kind and int(num) >= 16:
                del nvme.qt.irq_events[:i + 1]
                return int(num)
        nvme.qt.readl(nvme.bar0)                            # let IRQ lines arrive
        time.sleep(0.002)
    return None


@femu_only()
def test_pin_interrupt_without_msix(start):
    nvme = start().nvme
    nvme.qt.irq_intercept_in("ioapic")
    ready(nvme, io_queues=0)
    nvme.qt.irq_events.clear()
    cid = nvme.submit(nvme.asq, Command(0x06, prp1=nvme.mem.alloc(4096), cdw10=1))
    pin = _irq_lines(nvme, "raise", 5)
    assert pin is not None, "no pin interrupt for an admin completion"
    assert nvme.wait(nvme.asq, cid).ok                      # consumes: head doorbell
    assert _irq_lines(nvme, "lower", 5) == pin
    nvme.writel(INTMS, 1)                                   # masked: no interrupt
    nvme.qt.irq_events.clear()
    cid = nvme.submit(nvme.asq, Command(0x06, prp1=nvme.mem.alloc(4096), cdw10=1))
    deadline = time.monotonic() + 5
    while not nvme.reap(nvme.cqs[0], update_head=False):   # completion posted, unconsumed
        assert time.monotonic() < deadline
    assert _irq_lines(nvme, "raise", 0.1) is None
    nvme.writel(INTMC, 1)                                   # unmasked: unconsumed entry
    assert _irq_lines(nvme, "raise", 5) == pin
