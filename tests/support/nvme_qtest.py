"""A small NVMe host driver over QEMU's qtest protocol, for guest-less tests of the femu
controller (tests/device/test_nvme_*.py).

No guest runs: the test is the host. It programs PCI config space, maps the BARs into the
q35 PCI hole, keeps queues and data buffers in guest RAM (a bump allocator), writes SQEs
and rings doorbells over MMIO (or shadow doorbells), and polls completion queue phase tags
in guest memory against a real-time deadline: the device completes after real flash
latency, on its own thread.

Targets: `femu` (default) or QEMU's stock `nvme` device (FEMU_NVME_TARGET=stock), which
follows the same spec for the basics and keeps the harness honest. FEMU_QEMU=PATH uses an
existing binary instead of building one through the session's `qemu` fixture.
"""
from __future__ import annotations

import os
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import pytest

from femu_lab.vm.qtest import QTest

PAGE = 4096
SLOT = 4
RAM_MB = 256
RAM_START = 0x0100_0000          # allocations start at 16 MiB, clear of firmware areas
RAM_END = RAM_MB << 20
BAR_BASE = 0xE000_0000           # q35 PCI hole, above RAM and the MMCONFIG window
POLL_SLEEP = 0.0002
DEFAULT_TIMEOUT = 10.0

TARGET = os.environ.get("FEMU_NVME_TARGET", "femu")
# A small SSD: 2 ch x 2 LUN x 64 blk x 128 pg x 4 KiB = 128 MiB raw, 64 MiB logical.
SMALL_GEOMETRY = ("secsz=512,secs_per_pg=8,pgs_per_blk=128,blks_per_pl=64,pls_per_lun=1,"
                  "luns_per_ch=2,nchs=2,devsz_mb=64")

# registers
CAP, VS, INTMS, INTMC, CC, CSTS, AQA, ASQ, ACQ = 0x0, 0x8, 0xC, 0x10, 0x14, 0x1C, 0x24, 0x28, 0x30
CC_EN = 1
CSTS_RDY, CSTS_CFS = 1, 2

# admin opcodes
ADM_DELETE_SQ, ADM_CREATE_SQ, ADM_GET_LOG = 0x00, 0x01, 0x02
ADM_DELETE_CQ, ADM_CREATE_CQ = 0x04, 0x05
ADM_IDENTIFY, ADM_ABORT, ADM_SET_FEATURES, ADM_GET_FEATURES = 0x06, 0x08, 0x09, 0x0A
ADM_AER, ADM_DBBUF = 0x0C, 0x7C
ADM_VENDOR_LPN_COUNTS, ADM_VENDOR_PHASE = 0xC0, 0xC1
ADM_GET_LBA_STATUS = 0x86
# I/O opcodes
IO_FLUSH, IO_WRITE, IO_READ, IO_WRITE_ZEROES, IO_DSM = 0x00, 0x01, 0x02, 0x08, 0x09
IO_WRITE_UNCOR, IO_COMPARE, IO_VERIFY = 0x04, 0x05, 0x0C

# status codes (SCT << 8 | SC)
SC_SUCCESS = 0x000
SC_INVALID_OPCODE = 0x001
SC_INVALID_FIELD = 0x002
SC_DATA_TRANSFER_ERROR = 0x004
SC_INVALID_NS = 0x00B
SC_PRP_OFFSET_INVALID = 0x013
SC_LBA_OUT_OF_RANGE = 0x080
SC_CQ_INVALID = 0x100
SC_INVALID_QID = 0x101
SC_INVALID_QSIZE = 0x102
SC_AER_LIMIT = 0x105
SC_INVALID_IV = 0x108
SC_INVALID_LOG_PAGE = 0x109
SC_INVALID_QUEUE_DELETION = 0x10C
SC_FEATURE_NOT_SAVEABLE = 0x10D
SC_UNRECOVERED_READ = 0x281
SC_COMPARE_FAILURE = 0x285


class NvmeTimeout(AssertionError):
    """The controller did not do something within its deadline."""


def need_event(event_idx: int, new: int, old: int) -> bool:
    """Linux's nvme_dbbuf_need_event: ring the MMIO doorbell when the device's EventIdx
    lies in [old, new) (16-bit wrap-around arithmetic)."""
    return ((new - event_idx - 1) & 0xFFFF) < ((new - old) & 0xFFFF)


# ---------------------------------------------------------------- commands and completions

@dataclass
class Command:
    """One 64-byte submission queue entry (the CID is filled in at submission)."""
    opcode: int
    nsid: int = 0
    prp1: int = 0
    prp2: int = 0
    cdw10: int = 0
    cdw11: int = 0
    cdw12: int = 0
    cdw13: int = 0
    cdw14: int = 0
    cdw15: int = 0
    fuse: int = 0
    psdt: int = 0
    mptr: int = 0

    def pack(self, cid: int) -> bytes:
        dw0 = self.opcode | (self.fuse << 8) | (self.psdt << 14) | (cid << 16)
        return struct.pack("<IIIIQQQ6I", dw0, self.nsid, 0, 0, self.mptr, self.prp1, self.prp2,
                           self.cdw10, self.cdw11, self.cdw12, self.cdw13, self.cdw14,
                           self.cdw15)


@dataclass
class Cqe:
    dw0: int
    dw1: int
    sqhd: int
    sqid: int
    cid: int
    status: int       # the 15-bit status field (DW3 bits 31:17)
    phase: int

    @classmethod
    def unpack(cls, raw: bytes) -> "Cqe":
        dw0, dw1, dw2, dw3 = struct.unpack("<4I", raw)
        return cls(dw0, dw1, dw2 & 0xFFFF, dw2 >> 16, dw3 & 0xFFFF, dw3 >> 17, (dw3 >> 16) & 1)

    @property
    def code(self) -> int:
        """SCT << 8 | SC."""
        return self.status & 0x7FF

    @property
    def dnr(self) -> bool:
        return bool(self.status >> 14 & 1)

    @property
    def ok(self) -> bool:
        return self.code == 0

    def __str__(self) -> str:
        return (f"CQE(cid={self.cid}, sqid={self.sqid}, status={self.code:#05x}, dnr={self.dnr},"
                f" dw0={self.dw0:#x}, sqhd={self.sqhd})")


# ---------------------------------------------------------------- guest memory

class Allocator:
    """Bump allocator over guest RAM; allocations are page aligned and zeroed."""

    def __init__(self, qt: QTest, start: int = RAM_START, end: int = RAM_END):
        self.qt, self.next, self.end = qt, start, end
        self.align = PAGE            # the host memory page size once CC.MPS is chosen

    def alloc(self, size: int, align: int = 0, zero: bool = True) -> int:
        align = align or self.align
        addr = (self.next + align - 1) & ~(align - 1)
        size = max(size, 1)
        if addr + size > self.end:
            raise MemoryError(f"guest RAM exhausted allocating {size} bytes")
        self.next = addr + size
        if zero:
            self.qt.memset(addr, size, 0)
        return addr


@dataclass
class Transfer:
    """A data buffer described by PRPs: its guest segments in transfer order."""
    prp1: int
    prp2: int
    segments: List[Tuple[int, int]]
    list_pages: List[int] = field(default_factory=list)

    @property
    def length(self) -> int:
        return sum(n for _, n in self.segments)


# ---------------------------------------------------------------- PCI

class PciFunction:
    """Config space and BARs of one function (bus 0 unless given: a bus behind a bridge
    the test has numbered)."""

    def __init__(self, qt: QTest, slot: int = SLOT, function: int = 0, bus: int = 0):
        self.qt, self.slot, self.fn, self.bus = qt, slot, function, bus
        self.bars: Dict[int, Tuple[int, int]] = {}

    def _port(self, off: int) -> int:
        """Select the dword holding off (type 1 mechanism); return the data port."""
        self.qt.outl(0xCF8, 0x80000000 | self.bus << 16 | self.slot << 11 | self.fn << 8
                     | (off & 0xFC))
        return 0xCFC + (off & 3)

    def readl(self, off): return self.qt.inl(self._port(off))
    def readw(self, off): return self.qt.inw(self._port(off))
    def readb(self, off): return self.qt.inb(self._port(off))
    def writel(self, off, v): self.qt.outl(self._port(off), v)
    def writew(self, off, v): self.qt.outw(self._port(off), v)
    def writeb(self, off, v): self.qt.outb(self._port(off), v)

    def capability(self, cap_id: int) -> Optional[int]:
        """Offset of the first capability with this ID, or None."""
        if not self.readw(0x06) & 0x10:
            return None
        off = self.readb(0x34) & 0xFC
        seen = 0
        while off and seen < 48:
            if self.readb(off) == cap_id:
                return off
            off = self.readb(off + 1) & 0xFC
            seen += 1
        return None

    def map_bars(self, base: int = BAR_BASE) -> Dict[int, Tuple[int, int]]:
        """Give every memory BAR an address from base up (naturally aligned); enable
        memory space and bus mastering. Returns {bar: (address, size)}."""
        index, addr = 0, base
        while index < 6:
            reg = 0x10 + 4 * index
            original = self.readl(reg)
            self.writel(reg, 0xFFFFFFFF)
            probe = self.readl(reg)
            is64 = not original & 1 and (original >> 1) & 3 == 2
            if original & 1 or probe == 0:
                self.writel(reg, original)
                index += 1
                continue
            mask = probe & ~0xF
            if is64:
                self.writel(reg + 4, 0xFFFFFFFF)
                mask |= self.readl(reg + 4) << 32
                size = (~mask & 0xFFFFFFFFFFFFFFFF) + 1
            else:
                size = (~mask & 0xFFFFFFFF) + 1
            addr = (addr + size - 1) & ~(size - 1)
            self.writel(reg, addr & 0xFFFFFFFF)
            if is64:
                self.writel(reg + 4, addr >> 32)
            self.bars[index] = (addr, size)
            addr += size
            index += 2 if is64 else 1
        self.writew(0x04, self.readw(0x04) | 0x6)   # memory space + bus master
        return self.bars


# ---------------------------------------------------------------- queues

@dataclass
class CompletionQueue:
    qid: int
    size: int
    addr: int
    iv: int = 0
    ien: bool = True
    head: int = 0
    phase: int = 1


@dataclass
class SubmissionQueue:
    qid: int
    size: int
    addr: int
    cq: CompletionQueue
    tail: int = 0
    next_cid: int = 1


class Nvme:
    """The host side of one NVMe controller."""

    def __init__(self, qt: QTest, slot: int = SLOT, pci: Optional[PciFunction] = None):
        self.qt = qt
        self.pci = pci or PciFunction(qt, slot)
        self.mem = Allocator(qt)
        self.bars = self.pci.map_bars()
        self.bar0 = self.bars[0][0]
        self.cap = self.readq(CAP)
        self.dstrd = (self.cap >> 32) & 0xF
        self.sqs: Dict[int, SubmissionQueue] = {}
        self.cqs: Dict[int, CompletionQueue] = {}
        self.done: Dict[Tuple[int, int], Cqe] = {}     # (sqid, cid) -> its completion
        self.history: List[Cqe] = []                   # every CQE reaped, in order
        self.dbbuf: Optional[Tuple[int, int]] = None   # (shadow, eventidx) buffers
        self.mmio_rings = 0
        self.mmio_skipped = 0
        self.always_ring = False                       # shadow mode: ring MMIO every time
        self.asq: Optional[SubmissionQueue] = None
        self.page_size = PAGE                          # 2^(12 + CC.MPS)

    # -- registers

    def readl(self, off): return self.qt.readl(self.bar0 + off)
    def readq(self, off): return self.qt.readq(self.bar0 + off)
    def writel(self, off, v): self.qt.writel(self.bar0 + off, v)
    def writeq(self, off, v): self.qt.writeq(self.bar0 + off, v)

    def doorbell(self, qid: int, cq: bool) -> int:
        return 0x1000 + (2 * qid + int(cq)) * (4 << self.dstrd)

    def wait_csts(self, mask: int, value: int, timeout: Optional[float] = None) -> int:
        """Poll CSTS until (CSTS & mask) == value; return CSTS. Raises NvmeTimeout."""
        limit = timeout if timeout is not None else ((self.cap >> 24) & 0xFF) * 0.5 + 1
        deadline = time.monotonic() + limit
        while True:
            csts = self.readl(CSTS)
            if csts & mask == value:
                return csts
            if time.monotonic() > deadline:
                raise NvmeTimeout(f"CSTS {csts:#x}: wanted {value:#x} under mask {mask:#x}")
            time.sleep(0.001)

    # -- controller state

    def enable(self, asq_entries: int = 32, acq_entries: int = 32, *, mps: int = 0, css: int = 0,
               ams: int = 0, asq: Optional[int] = None, acq: Optional[int] = None,
               wait: bool = True) -> int:
        """Program the admin queue and set CC.EN. With wait, poll until RDY or CFS and
        return CSTS (check CSTS_CFS when probing bad settings)."""
        self.page_size = self.mem.align = PAGE << mps
        asq = self.mem.alloc(asq_entries * 64) if asq is None else asq
        acq = self.mem.alloc(acq_entries * 16) if acq is None else acq
        self.writel(AQA, ((acq_entries - 1) << 16 | (asq_entries - 1)) & 0x0FFF0FFF)
        self.writeq(ASQ, asq)
        self.writeq(ACQ, acq)
        self.cqs = {0: CompletionQueue(0, acq_entries, acq)}
        self.asq = SubmissionQueue(0, asq_entries, asq, self.cqs[0])
        self.sqs = {0: self.asq}
        self.dbbuf = None
        self.writel(CC, CC_EN | css << 4 | mps << 7 | ams << 11 | 6 << 16 | 4 << 20)
        if not wait:
            return 0
        return self._wait_ready_or_fatal()

    def _wait_ready_or_fatal(self) -> int:
        limit = ((self.cap >> 24) & 0xFF) * 0.5 + 1
        deadline = time.monotonic() + limit
        while True:
            csts = self.readl(CSTS)
            if csts & (CSTS_RDY | CSTS_CFS):
                return csts
            if time.monotonic() > deadline:
                raise NvmeTimeout(f"CSTS {csts:#x}: neither RDY nor CFS after enable")
            time.sleep(0.001)

    def disable(self) -> int:
        """CC.EN = 0 (a controller reset); wait for RDY = 0. Host queue state is dropped."""
        self.writel(CC, self.readl(CC) & ~CC_EN)
        csts = self.wait_csts(CSTS_RDY, 0)
        self.sqs, self.cqs, self.asq, self.dbbuf = {}, {}, None, None
        return csts

    # -- submission and completion

    def submit(self, sq: SubmissionQueue, cmd: Command, cid: Optional[int] = None,
               ring: bool = True) -> int:
        """Write cmd into sq's next slot and (with ring) publish the new tail."""
        if cid is None:
            cid = sq.next_cid
            sq.next_cid = sq.next_cid % 0xFFFE + 1
        self.qt.memwrite(sq.addr + sq.tail * 64, cmd.pack(cid))
        sq.tail = (sq.tail + 1) % sq.size
        if ring:
            self.ring_sq(sq)
        return cid

    def _publish(self, qid: int, cq: bool, value: int) -> None:
        """A new SQ tail / CQ head: MMIO, or for I/O queues in shadow doorbell mode the
        shadow buffer plus MMIO only when EventIdx asks (or always_ring is set)."""
        if self.dbbuf is None or qid == 0:
            self.writel(self.doorbell(qid, cq), value)
            self.mmio_rings += 1
            return
        shadow, eventidx = self.dbbuf
        slot = (2 * qid + int(cq)) * 4
        old = self.qt.readl(shadow + slot)
        self.qt.writel(shadow + slot, value)
        if self.always_ring or need_event(self.qt.readl(eventidx + slot), value, old):
            self.writel(self.doorbell(qid, cq), value)
            self.mmio_rings += 1
        else:
            self.mmio_skipped += 1

    def ring_sq(self, sq: SubmissionQueue) -> None:
        self._publish(sq.qid, False, sq.tail)

    def reap(self, cq: CompletionQueue, update_head: bool = True) -> List[Cqe]:
        """Take every posted CQE from cq (phase tag check); publish the new head."""
        got: List[Cqe] = []
        while True:
            count = min(cq.size - cq.head, 16)
            raw = self.qt.memread(cq.addr + cq.head * 16, count * 16)
            taken = 0
            for i in range(count):
                cqe = Cqe.unpack(raw[i * 16:(i + 1) * 16])
                if cqe.phase != cq.phase:
                    break
                got.append(cqe)
                self.done[(cqe.sqid, cqe.cid)] = cqe
                self.history.append(cqe)
                taken += 1
            cq.head += taken
            if cq.head == cq.size:
                cq.head, cq.phase = 0, cq.phase ^ 1
            if taken < count:
                break
        if got and update_head:
            self._publish(cq.qid, True, cq.head)
        return got

    def wait(self, sq: SubmissionQueue, cid: int, timeout: float = DEFAULT_TIMEOUT) -> Cqe:
        """Poll sq's CQ until the completion of cid arrives."""
        deadline = time.monotonic() + timeout
        key = (sq.qid, cid)
        while key not in self.done:
            if not self.reap(sq.cq):
                if time.monotonic() > deadline:
                    raise NvmeTimeout(f"no completion for cid {cid} on SQ {sq.qid} "
                                      f"within {timeout} s")
                time.sleep(POLL_SLEEP)
        return self.done.pop(key)

    def wait_all(self, sq: SubmissionQueue, cids: Iterable[int],
                 timeout: float = DEFAULT_TIMEOUT) -> List[Cqe]:
        deadline = time.monotonic() + timeout
        return [self.wait(sq, cid, max(deadline - time.monotonic(), 0.01)) for cid in cids]

    def run(self, sq: SubmissionQueue, cmd: Command, timeout: float = DEFAULT_TIMEOUT) -> Cqe:
        return self.wait(sq, self.submit(sq, cmd), timeout)

    def admin(self, cmd: Command, timeout: float = DEFAULT_TIMEOUT) -> Cqe:
        return self.run(self.asq, cmd, timeout)

    def assert_no_completion(self, sq: SubmissionQueue, cid: int, seconds: float) -> None:
        """Poll for `seconds` and fail if cid completes."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.reap(sq.cq)
            assert (sq.qid, cid) not in self.done, f"unexpected {self.done[(sq.qid, cid)]}"
            time.sleep(0.005)

    # -- data buffers and PRPs

    def transfer(self, length: int, *, offset: int = 0, list_offset: int = 0,
                 scatter: bool = True) -> Transfer:
        """A buffer of `length` bytes starting `offset` bytes into its first page, with
        PRP1/PRP2 (and PRP lists, their first page starting `list_offset` bytes in) set
        up. With scatter, data pages are allocated in descending order so no two are
        adjacent: the device must follow the PRPs, not guess contiguity."""
        page = self.page_size
        npages = (offset + length + page - 1) // page
        if scatter:
            block = self.mem.alloc(2 * npages * page)
            pages = [block + 2 * (npages - 1 - i) * page for i in range(npages)]
        else:
            block = self.mem.alloc(npages * page)
            pages = [block + i * page for i in range(npages)]
        segments, left = [], length
        for i, base in enumerate(pages):
            start = offset if i == 0 else 0
            n = min(page - start, left)
            segments.append((base + start, n))
            left -= n
        prp1 = pages[0] + offset
        if npages == 1:
            return Transfer(prp1, 0, segments)
        if npages == 2:
            return Transfer(prp1, pages[1], segments)
        prp2, list_pages = self.prp_list(pages[1:], list_offset)
        return Transfer(prp1, prp2, segments, list_pages)

    def prp_list(self, entries: Sequence[int], list_offset: int = 0) -> Tuple[int, List[int]]:
        """Write entries as a PRP list (chained across list pages as needed, the first
        page's list starting at list_offset); return (pointer, list pages)."""
        page_size = self.page_size
        pages: List[int] = []
        rest = list(entries)
        pointer = None
        prev_slot = None
        offset = list_offset
        while rest:
            page = self.mem.alloc(page_size)
            pages.append(page)
            start = page + offset
            if prev_slot is None:
                pointer = start
            else:
                self.qt.writeq(prev_slot, start)
            room = (page_size - offset) // 8
            if len(rest) <= room:
                chunk, rest = rest, []
                prev_slot = None
            else:
                chunk, rest = rest[:room - 1], rest[room - 1:]
                prev_slot = start + (room - 1) * 8
            self.qt.memwrite(start, b"".join(struct.pack("<Q", e) for e in chunk))
            offset = 0
        return pointer, pages

    def fill(self, xfer: Transfer, data: bytes) -> None:
        assert len(data) == xfer.length
        pos = 0
        for addr, n in xfer.segments:
            self._write(addr, data[pos:pos + n])
            pos += n

    def contents(self, xfer: Transfer) -> bytes:
        return b"".join(self._read(addr, n) for addr, n in xfer.segments)

    def _write(self, addr: int, data: bytes) -> None:
        (self.qt.b64write if len(data) > 256 else self.qt.memwrite)(addr, data)

    def _read(self, addr: int, n: int) -> bytes:
        return self.qt.b64read(addr, n) if n > 256 else self.qt.memread(addr, n)

    def buffer(self, data: bytes) -> int:
        """Contiguous guest copy of data (page aligned); returns its address."""
        addr = self.mem.alloc(len(data))
        self._write(addr, data)
        return addr

    # -- admin helpers

    def identify(self, cns: int, nsid: int = 0, cntid: int = 0) -> Tuple[Cqe, bytes]:
        buf = self.mem.alloc(PAGE)
        cqe = self.admin(Command(ADM_IDENTIFY, nsid=nsid, prp1=buf, cdw10=cns | cntid << 16))
        return cqe, self.qt.b64read(buf, PAGE)

    def get_log(self, lid: int, length: int, *, nsid: int = 0xFFFFFFFF, offset: int = 0,
                lsp: int = 0) -> Tuple[Cqe, bytes]:
        xfer = self.transfer(length, scatter=False)
        numd = length // 4 - 1
        cqe = self.admin(Command(ADM_GET_LOG, nsid=nsid, prp1=xfer.prp1, prp2=xfer.prp2,
                                 cdw10=lid | lsp << 8 | (numd & 0xFFFF) << 16,
                                 cdw11=numd >> 16, cdw12=offset & 0xFFFFFFFF,
                                 cdw13=offset >> 32))
        return cqe, self.contents(xfer)

    def get_features(self, fid: int, sel: int = 0, cdw11: int = 0, nsid: int = 0) -> Cqe:
        return self.admin(Command(ADM_GET_FEATURES, nsid=nsid, cdw10=fid | sel << 8,
                                  cdw11=cdw11))

    def set_features(self, fid: int, cdw11: int, save: bool = False, nsid: int = 0) -> Cqe:
        return self.admin(Command(ADM_SET_FEATURES, nsid=nsid,
                                  cdw10=fid | int(save) << 31, cdw11=cdw11))

    def create_cq(self, qid: int, size: int, *, iv: int = 0, ien: bool = False,
                  addr: Optional[int] = None, pc: bool = True) -> Tuple[Cqe, CompletionQueue]:
        addr = self.mem.alloc(size * 16) if addr is None else addr
        cqe = self.admin(Command(ADM_CREATE_CQ, prp1=addr, cdw10=qid | (size - 1) << 16,
                                 cdw11=int(pc) | int(ien) << 1 | iv << 16))
        cq = CompletionQueue(qid, size, addr, iv, ien)
        if cqe.ok:
            self.cqs[qid] = cq
        return cqe, cq

    def create_sq(self, qid: int, size: int, cqid: int, *, addr: Optional[int] = None,
                  pc: bool = True, prio: int = 0) -> Tuple[Cqe, SubmissionQueue]:
        addr = self.mem.alloc(size * 64) if addr is None else addr
        cqe = self.admin(Command(ADM_CREATE_SQ, prp1=addr, cdw10=qid | (size - 1) << 16,
                                 cdw11=int(pc) | prio << 1 | cqid << 16))
        sq = SubmissionQueue(qid, size, addr, self.cqs.get(cqid) or CompletionQueue(cqid, 1, 0))
        if cqe.ok:
            self.sqs[qid] = sq
        return cqe, sq

    def delete_sq(self, qid: int) -> Cqe:
        cqe = self.admin(Command(ADM_DELETE_SQ, cdw10=qid))
        if cqe.ok:
            self.sqs.pop(qid, None)
        return cqe

    def delete_cq(self, qid: int) -> Cqe:
        cqe = self.admin(Command(ADM_DELETE_CQ, cdw10=qid))
        if cqe.ok:
            self.cqs.pop(qid, None)
        return cqe

    def io_queue_pair(self, qid: int = 1, size: int = 64, *, iv: int = 0,
                      ien: bool = False) -> SubmissionQueue:
        cqe, _ = self.create_cq(qid, size, iv=iv, ien=ien)
        assert cqe.ok, f"Create I/O CQ {qid}: {cqe}"
        cqe, sq = self.create_sq(qid, size, qid)
        assert cqe.ok, f"Create I/O SQ {qid}: {cqe}"
        return sq

    def doorbell_buffer_config(self) -> Cqe:
        shadow, eventidx = self.mem.alloc(PAGE), self.mem.alloc(PAGE)
        cqe = self.admin(Command(ADM_DBBUF, prp1=shadow, prp2=eventidx))
        if cqe.ok:
            self.dbbuf = (shadow, eventidx)
            for sq in self.sqs.values():       # shadows start equal to the registers
                if sq.qid:
                    self.qt.writel(shadow + 2 * sq.qid * 4, sq.tail)
            for cq in self.cqs.values():
                if cq.qid:
                    self.qt.writel(shadow + (2 * cq.qid + 1) * 4, cq.head)
        return cqe

    # -- I/O helpers

    def rw(self, sq: SubmissionQueue, opcode: int, slba: int, nlb: int, xfer: Transfer,
           nsid: int = 1) -> Command:
        """A Read or Write command (nlb 1-based) for xfer; not submitted."""
        return Command(opcode, nsid=nsid, prp1=xfer.prp1, prp2=xfer.prp2,
                       cdw10=slba & 0xFFFFFFFF, cdw11=slba >> 32, cdw12=(nlb - 1) & 0xFFFF)

    def write(self, sq: SubmissionQueue, slba: int, data: bytes, lba_size: int = 512,
              **layout) -> Cqe:
        xfer = self.transfer(len(data), **layout)
        self.fill(xfer, data)
        return self.run(sq, self.rw(sq, IO_WRITE, slba, len(data) // lba_size, xfer))

    def read(self, sq: SubmissionQueue, slba: int, nlb: int, lba_size: int = 512,
             **layout) -> Tuple[Cqe, bytes]:
        xfer = self.transfer(nlb * lba_size, **layout)
        self.qt.memset(xfer.segments[0][0], 1, 0xA5)      # something the read must replace
        cqe = self.run(sq, self.rw(sq, IO_READ, slba, nlb, xfer))
        return cqe, self.contents(xfer)

    def dsm_deallocate(self, sq: SubmissionQueue, ranges: Sequence[Tuple[int, int]],
                       nsid: int = 1) -> Cqe:
        """Dataset Management with AD for (slba, nlb) ranges (nlb 1-based)."""
        table = b"".join(struct.pack("<IIQ", 0, nlb, slba) for slba, nlb in ranges)
        addr = self.buffer(table)
        return self.run(sq, Command(IO_DSM, nsid=nsid, prp1=addr, cdw10=len(ranges) - 1,
                                    cdw11=1 << 2))

    def write_zeroes(self, sq: SubmissionQueue, slba: int, nlb: int, deac: bool = False,
                     nsid: int = 1) -> Cqe:
        return self.run(sq, Command(IO_WRITE_ZEROES, nsid=nsid, cdw10=slba & 0xFFFFFFFF,
                                    cdw11=slba >> 32, cdw12=(nlb - 1) | int(deac) << 25))

    # -- MSI-X

    def msix_enable(self) -> int:
        """Turn MSI-X on (function unmasked); return the table's address."""
        cap = self.pci.capability(0x11)
        assert cap is not None, "no MSI-X capability"
        table = self.pci.readl(cap + 4)
        self.msix_table = self.bars[table & 7][0] + (table & ~7)
        pba = self.pci.readl(cap + 8)
        self.msix_pba = self.bars[pba & 7][0] + (pba & ~7)
        self.msix_vectors = (self.pci.readw(cap + 2) & 0x7FF) + 1
        self.pci.writew(cap + 2, (self.pci.readw(cap + 2) | 0x8000) & ~0x4000)
        return self.msix_table

    def msix_vector(self, vector: int, addr: int, data: int, masked: bool = False) -> None:
        """Point an MSI-X vector at guest RAM: the message becomes a DMA write there."""
        entry = self.msix_table + 16 * vector
        self.qt.writel(entry + 0, addr & 0xFFFFFFFF)
        self.qt.writel(entry + 4, addr >> 32)
        self.qt.writel(entry + 8, data)
        self.qt.writel(entry + 12, int(masked))

    def msix_pending(self, vector: int) -> bool:
        return bool(self.qt.readl(self.msix_pba + 4 * (vector // 32)) >> (vector % 32) & 1)


# ---------------------------------------------------------------- starting QEMU

def device_args(tmp_path: Path, props: str = "", target: str = TARGET) -> List[str]:
    """-device arguments (and a backing image for the stock device)."""
    if target == "stock":
        image = tmp_path / "nvme.img"
        with open(image, "wb") as f:
            f.truncate(64 << 20)
        extra = "," + props if props else ""
        drive = f"file={image},if=none,id=d0,format=raw,discard=unmap,detect-zeroes=unmap"
        return ["-drive", drive,
                "-device", f"nvme,drive=d0,serial=deadbeef,addr={SLOT:#x}{extra}"]
    extra = "," + props if props else ""
    return ["-device", f"femu,{SMALL_GEOMETRY},addr={SLOT:#x}{extra}"]


class Machine:
    """A qtest QEMU with one controller; the context manager kills QEMU at the end."""

    def __init__(self, qemu: Path, tmp_path: Path, props: str = "", *, target: str = TARGET,
                 extra: Sequence[str] = ()):
        # Named threads, so tests can find femu-poller in /proc.
        self.qt = QTest(qemu, ["-m", str(RAM_MB), "-name", "femu,debug-threads=on", *extra,
                               *device_args(tmp_path, props, target)])
        self.nvme = Nvme(self.qt)

    def __enter__(self) -> "Machine":
        return self

    def __exit__(self, *exc) -> None:
        self.qt.close()


def ready(nvme: Nvme, io_queues: int = 1, size: int = 64) -> List[SubmissionQueue]:
    """Enable nvme and create io_queues I/O queue pairs (qid 1..)."""
    csts = nvme.enable()
    assert csts & CSTS_RDY and not csts & CSTS_CFS, f"enable: CSTS {csts:#x}"
    return [nvme.io_queue_pair(q, size) for q in range(1, io_queues + 1)]


def femu_only() -> "pytest.MarkDecorator":
    return pytest.mark.skipif(TARGET != "femu", reason="femu contract, not the stock device")


@pytest.fixture(scope="session")
def nvme_qemu(request) -> Path:
    """The QEMU binary: FEMU_QEMU when set (no build), else the session's built one."""
    given = os.environ.get("FEMU_QEMU")
    if given:
        return Path(given)
    return request.getfixturevalue("qemu")


def thread_cpu_seconds(pid: int, name: str) -> float:
    """User + system CPU time of the process's thread called name (e.g. femu-poller)."""
    tick = os.sysconf("SC_CLK_TCK")
    for task in Path(f"/proc/{pid}/task").iterdir():
        stat = (task / "stat").read_text()
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        if comm == name:
            fields = stat[stat.rindex(")") + 2:].split()
            return (int(fields[11]) + int(fields[12])) / tick     # utime, stime
    raise AssertionError(f"no thread {name!r} in process {pid}")


def wait_for(check, timeout: float = 8.0, what: str = "condition"):
    """Poll check() every 50 ms until it returns something true (which is returned);
    assert when `timeout` seconds pass first. For effects the device's threads make
    later, such as statistics rows: a bound on waiting, never a measured time."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def pattern(nbytes: int, seed: int) -> bytes:
    """Recognisable data: every 8 bytes hold (seed, offset)."""
    return b"".join(struct.pack("<II", seed, i) for i in range(0, nbytes, 8))[:nbytes]


def trace_args(log: Path, *events: str) -> List[str]:
    """QEMU options sending the named trace events (e.g. femu_cmd) to log: QEMU writes
    each line out as it logs it, so a test can poll the file while QEMU runs."""
    return [*(arg for event in events for arg in ("-trace", event)), "-D", str(log)]


def traced(log: Path, line_start: str) -> int:
    """How many lines of the trace log start with line_start (0 before the file exists)."""
    if not log.exists():
        return 0
    return sum(line.startswith(line_start) for line in log.read_text().splitlines())


@pytest.fixture
def start(nvme_qemu, tmp_path):
    """start(props="", extra=()) -> a Machine (not yet enabled) with QEMU options extra;
    every one is killed at the end."""
    machines: List[Machine] = []

    def run(props: str = "", target: str = TARGET, extra: Sequence[str] = ()) -> Machine:
        machines.append(Machine(nvme_qemu, tmp_path, props, target=target, extra=extra))
        return machines[-1]
    yield run
    for machine in machines:
        machine.qt.close()


@pytest.fixture(scope="module")
def shared(nvme_qemu, tmp_path_factory):
    """One enabled controller with I/O queue pair 1 (`shared.sq`) for a whole module, for
    tests whose commands leave no state another test depends on."""
    with Machine(nvme_qemu, tmp_path_factory.mktemp("nvme")) as machine:
        machine.sq = ready(machine.nvme)[0]
        yield machine
