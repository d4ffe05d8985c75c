"""Register accesses and controller state changes: BAR0 writes and what femu makes of
them, config space, resets, toggles, shutdowns, enables good and bad, the idle check and
the final exit. A mixin of Executor (executor.py)."""
import time

import nvme_qtest
from nvme_qtest import CAP, CC, CSTS, AQA, ASQ, ACQ, VS

from . import target as target_module
from .failure import Failure
from .layout import DATA_END, MSI_RAM, classify, cq_slot, sq_slot
from .model import Cq, Sq
from .target import sanitizer_report

CC_IOQES = 6 << 16 | 4 << 20    # IOSQES 64 bytes, IOCQES 16 bytes


def _pieces(off: int, width: int):
    """How QEMU's memory core cuts an access for a region of at most 8-byte accesses
    without unaligned support: (offset, size) pieces, each naturally aligned."""
    end = off + width
    while off < end:
        size = min(end - off, 8, (off & -off) or 8)
        size = 1 << (size.bit_length() - 1)
        yield off, size
        off += size


class ControllerActions:
    def do_reg(self, rec: dict) -> None:
        """A BAR0 write. QEMU splits it into naturally aligned pieces of at most 8 bytes
        (an 8-byte write at 0x14 is two dword writes); femu drops pieces under 4 bytes,
        stores register dwords, and takes doorbells as single dwords only."""
        self._flush_mem()
        off, width, value = rec["off"], rec["w"], rec["v"]
        self.t.reg_command(f"write{'bwlq'[width.bit_length() - 1]} "
                           f"{self.nvme.bar0 + off:#x} {value:#x}")
        for piece_off, size in _pieces(off, width):
            piece = (value >> (8 * (piece_off - off))) & ((1 << (8 * size)) - 1)
            if size < 4:
                continue
            if piece_off >= 0x1000:
                if size == 4:
                    self._doorbell_effect(piece_off, piece)
                continue
            for i in range(0, size, 4):
                if piece_off + i == CC:
                    self._cc_effect((piece >> (8 * i)) & 0xFFFF_FFFF)

    def _doorbell_effect(self, off: int, value: int) -> None:
        m = self.m
        qid, is_cq = (off - 0x1000) // 8, bool((off - 0x1000) // 4 & 1)
        queue = (m.cqs if is_cq else m.sqs).get(qid)
        if queue is None:
            return   # no such queue: the write is ignored (or the queue not ours)
        value &= 0xFFFF
        expected = queue.head if is_cq else queue.rung_tail
        if value >= queue.size or value == expected:
            return   # out of range: ignored
        # An I/O queue's doorbell can only make the device run (or skip) I/O entries.
        self._scramble(f"doorbell {off:#x} = {value} (host meant {expected})",
                       io_only=qid != 0)

    def _cc_effect(self, cc: int) -> None:
        m = self.m
        if (cc ^ m.cc) & (1 | 3 << 14):
            m.tainted = True        # enable/shutdown behind the model's back
            self._scramble("CC EN/SHN written")
        m.cc = cc

    def do_rd(self, rec: dict) -> None:
        width = rec["w"]
        self.qt.command(f"read{'bwlq'[width.bit_length() - 1]} {self.nvme.bar0 + rec['off']:#x}")

    def do_cfg(self, rec: dict) -> None:
        """PCI config space write of our function (command register, BARs, MSI-X...)."""
        self._flush_mem()
        self.qt.pci_config_writel(nvme_qtest.SLOT, rec["off"], rec["v"])
        self.m.tainted = True
        self._scramble("PCI config space written")

    def do_mmio(self, rec: dict) -> None:
        """A write to another BAR of ours (the MSI-X table and PBA). With MSI-X on, a
        table entry may now send interrupts anywhere, our own registers included."""
        base = self.nvme.bars.get(rec["bar"], (0, 0))[0]
        if base:
            self.qt.writel(base + rec["off"], rec["v"])
            if self.msix_on:
                self.m.tainted = self.msix_wild = True
                self._scramble("MSI-X table written while enabled")

    def do_msix(self, rec: dict) -> None:
        """MSI-X on (every vector programmed: the record's entries, the rest at the
        LAPIC window) or off (pin interrupts again). An interrupt is a DMA write to the
        entry's address: at our own BARs or config space it rewrites registers."""
        self._flush_mem()
        nvme = self.nvme
        if not rec["on"]:
            self._msix_off()
            return
        nvme.msix_enable()
        entries = {v: (0xFEE0_0000, 0, False) for v in range(nvme.msix_vectors)}
        for vector, addr, data, masked in rec.get("vec", ()):
            if vector < nvme.msix_vectors:
                entries[vector] = (addr, data, masked)
        for vector, (addr, data, masked) in entries.items():
            nvme.msix_vector(vector, addr, data, masked)
        if rec.get("fmask"):
            cap = nvme.pci.capability(0x11)
            nvme.pci.writew(cap + 2, nvme.pci.readw(cap + 2) | 0x4000)
        self.msix_on = True
        if any(not self._harmless_msi(addr) for addr, _, _ in entries.values()):
            self.m.tainted = self.msix_wild = True
            self._scramble("MSI-X vector aimed at our registers or at RAM the host uses")

    def _harmless_msi(self, addr: int) -> bool:
        """Whether interrupts written to addr leave the host's view alone: the LAPIC
        window, the RAM kept for them, nothing, or MMIO other than our own function."""
        own = [*self.nvme.bars.values(), (0xB000_0000 + (nvme_qtest.SLOT << 15), 0x8000)]
        if any(base <= addr < base + size for base, size in own):
            return False
        if MSI_RAM <= addr < DATA_END or 0xFEE0_0000 <= addr < 0xFEF0_0000:
            return True
        return classify(addr, self.nvme.bars.values()) not in ("ram", "low")

    def _msix_off(self) -> None:
        cap = self.nvme.pci.capability(0x11)
        self.nvme.pci.writew(cap + 2, self.nvme.pci.readw(cap + 2) & ~0xC000)
        self.msix_on = self.msix_wild = False

    def do_stop(self, rec: dict) -> None:
        """SIGTERM, as when a user quits: exit handlers run (statistics, the LPN dump,
        the threads stop). QEMU must exit, cleanly and without sanitizer reports. After
        power cuts it must first still answer, every cut counted (power.py)."""
        self.check_process()
        self._power_final()
        code, text = self.t.stop()
        report = sanitizer_report(text)
        if report:
            raise Failure("sanitizer", report)
        if code is None:
            raise Failure("exit-hang", "QEMU did not exit within "
                          f"{target_module.EXIT_TIMEOUT:g} s of SIGTERM")
        if code != 0:
            tail = "\n".join(text.strip().splitlines()[-8:])
            raise Failure("exit-status", f"QEMU exited {code} after SIGTERM: {tail}")

    def do_remap(self, rec: dict) -> None:
        self.t.remap()

    def do_stall(self, rec: dict) -> None:
        self.do_ring({})
        time.sleep(rec.get("s", 0.2))
        self.check_process()

    def do_idle(self, rec: dict) -> None:
        self.check_process()
        share = self.t.idle_cpu_busy()
        if share is not None:
            raise Failure("busy-idle", f"QEMU kept using {share:.0%} of a core with the host "
                          f"doing nothing ({len(self.m.pending)} commands outstanding)")

    # ------------------------------------------------------------------ controller state

    def _wait_csts(self, what: str, done) -> int:
        deadline = time.monotonic() + self.deadline
        while True:
            csts = self.nvme.readl(CSTS)
            if done(csts):
                return csts
            if time.monotonic() > deadline:
                raise Failure("csts-stuck", f"{what}: CSTS {csts:#x} after {self.deadline:g} s")
            self.check_process()
            time.sleep(0.0005)

    def _untaint(self) -> None:
        """Before a state change: if a DMA or a config write may have moved our BARs or
        turned bus mastering off, put them back first, or the reset goes nowhere."""
        if self.m.tainted:
            self.t.remap()
            if self.msix_wild:      # or the next interrupt writes our registers again
                self._msix_off()

    def _forget(self) -> None:
        self.m.forget_queues()
        self.m.enabled = False
        self.ghosts = set()
        self.m.pred = (set(), {})
        self.mem_ops = [(a, d) for a, d in self.mem_ops if not isinstance(d, int)]
        self.m.sqs = {}

    def do_disable(self, rec: dict) -> None:
        """CC.EN = 0 (a controller reset): synchronous, so RDY reads 0 at once."""
        self._untaint()
        self._flush_mem()
        self.m.cc &= ~(1 | 3 << 14)
        self.nvme.writel(CC, self.m.cc)
        csts = self.nvme.readl(CSTS)
        if csts & nvme_qtest.CSTS_RDY:
            raise Failure("csts", f"CSTS {csts:#x} right after CC.EN = 0: RDY still set "
                          "(CONTROLLER.md: the reset is synchronous)")
        self._forget()

    def _program_admin(self, rec: dict) -> int:
        asqs, acqs, mps = rec["asqs"], rec["acqs"], rec.get("mps", 0)
        self.mem_ops.append((cq_slot(0), acqs * 16))
        self._flush_mem()
        self.nvme.writel(AQA, (acqs - 1) << 16 | (asqs - 1))
        self.nvme.writeq(ASQ, sq_slot(0))
        self.nvme.writeq(ACQ, cq_slot(0))
        return 1 | mps << 7 | CC_IOQES | self.variant.css << 4

    def _ready(self, rec: dict, cc: int, what: str) -> None:
        """After CC.EN = 1 with good values: RDY, nothing else, registers as written."""
        csts = self._wait_csts(what, lambda c: c & (nvme_qtest.CSTS_RDY | nvme_qtest.CSTS_CFS))
        if csts != nvme_qtest.CSTS_RDY:
            raise Failure("csts", f"{what}: CSTS {csts:#x} after enabling with valid values "
                          "(want RDY alone: no CFS, SHST 0)")
        asqs, acqs = rec["asqs"], rec["acqs"]
        seen = (self.nvme.readl(CC), self.nvme.readl(AQA), self.nvme.readq(ASQ),
                self.nvme.readq(ACQ), self.nvme.readq(CAP), self.nvme.readl(VS))
        want = (cc, (acqs - 1) << 16 | (asqs - 1), sq_slot(0), cq_slot(0), self.cap, self.vs)
        if seen != want:
            raise Failure("registers", f"{what}: CC/AQA/ASQ/ACQ/CAP/VS read "
                          f"{[hex(v) for v in seen]}, want {[hex(v) for v in want]}")
        m = self.m
        m.enabled, m.cc, m.page_size = True, cc, 4096 << rec.get("mps", 0)
        m.cqs = {0: Cq(0, acqs, cq_slot(0))}
        m.sqs = {0: Sq(0, asqs, sq_slot(0), 0)}

    def do_enable(self, rec: dict) -> None:
        if self.m.enabled:
            self.do_disable(rec)
        cc = self._program_admin(rec)
        self.nvme.writel(CC, cc)
        self._ready(rec, cc, "enable")

    def do_toggle(self, rec: dict) -> None:
        """CC.EN 1 -> 0 -> 1 without waiting for RDY in between (a fast reset): the
        controller must come back reset, on the new admin queue."""
        self._untaint()
        self._flush_mem()
        self.nvme.writel(CC, self.m.cc & ~(1 | 3 << 14))
        self._forget()
        cc = self._program_admin(rec)
        self.nvme.writel(CC, cc)
        self._ready(rec, cc, "toggle")

    def do_shutdown(self, rec: dict) -> None:
        """CC.SHN = normal shutdown with commands in flight: SHST must reach complete."""
        m = self.m
        if not m.enabled or m.tainted:
            return      # after a CC write of the host's own (EN/SHN) the start is unknown
        self.do_ring({})
        m.cc = (m.cc & ~(3 << 14)) | 1 << 14
        self.nvme.writel(CC, m.cc)
        m.shut_down = True
        m.release_all()
        self._wait_csts("shutdown", lambda c: (c >> 2) & 3 == 2)

    def do_bad_enable(self, rec: dict) -> None:
        """Enable with one invalid value: the controller must report CFS, not RDY."""
        if self.m.enabled:
            self.do_disable(rec)
        self._flush_mem()
        self.nvme.writel(AQA, rec["aqa"])
        self.nvme.writeq(ASQ, rec["asq"])
        self.nvme.writeq(ACQ, rec["acq"])
        self.nvme.writel(CC, rec["cc"])
        csts = self._wait_csts("bad enable",
                               lambda c: c & (nvme_qtest.CSTS_RDY | nvme_qtest.CSTS_CFS))
        self.nvme.writel(CC, 0)
        self.m.cc = 0
        if not csts & nvme_qtest.CSTS_CFS:
            raise Failure("status", f"enable with {rec['why']} gave CSTS {csts:#x}, "
                          "want CFS (enable must fail)")
        self._wait_csts("disable after a failed enable", lambda c: not c & nvme_qtest.CSTS_RDY)
