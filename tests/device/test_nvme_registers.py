"""Bring-up: PCI BARs, controller registers, enable/disable/shutdown, doorbell rules."""
import time

import pytest

from nvme_qtest import (ACQ, AQA, ASQ, CAP, CC, CSTS, CSTS_CFS, CSTS_RDY, INTMC, INTMS, PAGE, VS,
                        femu_only, nvme_qemu, ready, start)  # noqa: F401


@femu_only()
def test_bar0_is_a_64_bit_16k_memory_bar_and_msix_has_bar4(start):
    nvme = start().nvme
    bar0 = nvme.pci.readl(0x10)
    assert bar0 & 1 == 0 and (bar0 >> 1) & 3 == 2, "64-bit memory BAR"
    assert not bar0 & 8, "non-prefetchable"
    assert nvme.bars[0][1] == 0x4000
    assert 4 in nvme.bars
    assert nvme.pci.readw(0x04) & 0x6 == 0x6


@femu_only()
def test_capabilities_and_version(start):
    nvme = start().nvme
    cap = nvme.readq(CAP)
    assert cap & 0xFFFF == 2047                       # MQES, 0-based
    assert cap >> 16 & 1 == 1                         # CQR
    assert cap >> 17 & 3 == 0                         # AMS
    assert cap >> 24 & 0xFF == 30                     # TO: 15 s
    assert cap >> 32 & 0xF == 0                       # DSTRD
    assert cap >> 36 & 1 == 0                         # NSSRS
    assert cap >> 37 & 1 == 1                         # CSS: NVM command set
    assert cap >> 48 & 0xF == 0                       # MPSMIN
    assert cap >> 52 & 0xF == 4                       # MPSMAX
    assert nvme.readl(VS) == 0x00010400


def test_enable_then_disable(start):
    nvme = start().nvme
    assert nvme.readl(CSTS) & CSTS_RDY == 0
    csts = nvme.enable()
    assert csts & CSTS_RDY and not csts & CSTS_CFS
    assert nvme.readl(CC) & 1
    cqe, _ = nvme.identify(1)
    assert cqe.ok
    nvme.disable()
    assert nvme.readl(CSTS) & CSTS_RDY == 0


BAD_ENABLES = {
    "asqs_0": dict(asq_entries=1),
    "acqs_0": dict(acq_entries=1),
    "asq_unaligned": dict(asq=0x2000800),
    "acq_unaligned": dict(acq=0x2000800),
    "asq_zero": dict(asq=0),
    "acq_zero": dict(acq=0),
    "mps_above_max": dict(mps=5),
    "css_not_nvm": dict(css=1),
    "ams_not_rr": dict(ams=1),
}


@femu_only()
@pytest.mark.parametrize("settings", BAD_ENABLES.values(), ids=list(BAD_ENABLES))
def test_bad_enable_is_fatal_and_never_ready(start, settings):
    nvme = start().nvme
    csts = nvme.enable(**settings)
    assert csts & CSTS_CFS and not csts & CSTS_RDY, f"CSTS {csts:#x}"


def test_admin_registers_survive_reset(start):
    nvme = start().nvme
    ready(nvme, io_queues=1)
    aqa, asq, acq = nvme.readl(AQA), nvme.readq(ASQ), nvme.readq(ACQ)
    nvme.disable()
    assert (nvme.readl(AQA), nvme.readq(ASQ), nvme.readq(ACQ)) == (aqa, asq, acq)


@pytest.mark.parametrize("shn", [1, 2], ids=["normal", "abrupt"])
def test_shutdown_reports_complete(start, shn):
    nvme = start().nvme
    ready(nvme)
    nvme.writel(CC, nvme.readl(CC) | shn << 14)
    csts = nvme.wait_csts(0xC, 0x8)                   # SHST = 10b
    assert csts >> 2 & 3 == 2


def _no_stray_completions(nvme, expected: int, seconds: float = 0.3) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        nvme.reap(nvme.cqs[0])
        time.sleep(0.01)
    assert len(nvme.history) == expected, [str(c) for c in nvme.history]


def test_doorbell_before_ready_is_ignored(start):
    nvme = start().nvme
    nvme.writel(nvme.doorbell(0, False), 5)
    ready(nvme, io_queues=0)
    cqe, _ = nvme.identify(1)
    assert cqe.ok and cqe.sqhd == 1
    _no_stray_completions(nvme, 1)


@femu_only()
def test_doorbell_beyond_queue_size_is_ignored(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)                          # admin SQ of 32 entries
    nvme.writel(nvme.doorbell(0, False), 40)
    cqe, _ = nvme.identify(1)
    assert cqe.ok and cqe.sqhd == 1
    _no_stray_completions(nvme, 1)
    assert not nvme.readl(CSTS) & CSTS_CFS


@femu_only()
def test_doorbell_of_missing_queue_is_ignored(start):
    nvme = start().nvme
    ready(nvme, io_queues=1)
    nvme.writel(nvme.doorbell(5, False), 3)
    nvme.writel(nvme.doorbell(5, True), 3)
    cqe, _ = nvme.identify(1)
    assert cqe.ok
    assert not nvme.readl(CSTS) & CSTS_CFS


def test_admin_queue_wraps(start):
    nvme = start().nvme
    nvme.enable(asq_entries=4, acq_entries=3)
    for _ in range(10):
        cqe, _ = nvme.identify(1)
        assert cqe.ok
    assert (nvme.cqs[0].head, nvme.cqs[0].phase) == (1, 0)   # 10 entries through 3 slots


def test_64_bit_registers_through_32_bit_accesses(start):
    """Linux reads CAP and writes ASQ/ACQ as two dwords (lo_hi_readq/writeq)."""
    nvme = start().nvme
    assert nvme.readl(CAP) | nvme.readl(CAP + 4) << 32 == nvme.readq(CAP)
    asq, acq = nvme.mem.alloc(PAGE), nvme.mem.alloc(PAGE)
    nvme.writel(ASQ, asq & 0xFFFFFFFF)
    nvme.writel(ASQ + 4, asq >> 32)
    nvme.writel(ACQ, acq & 0xFFFFFFFF)
    nvme.writel(ACQ + 4, acq >> 32)
    assert (nvme.readq(ASQ), nvme.readq(ACQ)) == (asq, acq)
    csts = nvme.enable(asq=asq, acq=acq)
    assert csts & CSTS_RDY and not csts & CSTS_CFS
    assert nvme.identify(1)[0].ok


@femu_only()
def test_interrupt_mask_set_and_clear(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    nvme.writel(INTMS, 1)
    assert nvme.readl(INTMS) & 1 and nvme.readl(INTMC) & 1
    nvme.writel(INTMC, 1)
    assert not nvme.readl(INTMS) & 1 and not nvme.readl(INTMC) & 1
