"""Where the fuzzer keeps things in guest RAM, and the address classes a pointer is drawn
from. Fixed addresses (not an allocator) so that a recorded action means the same thing
when it is replayed alone, and so that thousands of resets never run out of memory.

Every region is 64 KiB aligned: CC.MPS may choose host pages of up to 64 KiB, and queues
and doorbell buffers must be page aligned.
"""
import random
from typing import Iterable, List, Tuple

import nvme_qtest

RAM_END = nvme_qtest.RAM_END            # 256 MiB of guest RAM
QUEUE_BASE = 0x0100_0000                # qid q: SQ at QUEUE_BASE + q * QUEUE_STRIDE
QUEUE_STRIDE = 0x4_0000                 # 256 KiB: an SQ of 2048 entries is 128 KiB
CQ_OFFSET = 0x2_0000                    # the qid's CQ follows its SQ slot
MAX_SLOTS = 65                          # qid 0..64 (FEMU_MAX_QUEUES)
DBBUF_SHADOW = 0x0280_0000              # the well-formed Doorbell Buffer Config pair
DBBUF_EVENTIDX = 0x0281_0000
DATA_BASE, DATA_END = 0x0300_0000, 0x0A00_0000     # data buffers: contents do not matter
MSI_RAM = DATA_END - 0x40_0000          # the arena's top 4 MiB, never a buffer: MSI targets
META_BASE, META_END = 0x0A00_0000, 0x0C00_0000     # PRP lists and DSM range tables
# Everything the fuzzer uses stays below 192 MiB: a DMA write into the MCH's config
# space may enable TSEG, which hides the top of RAM from devices.

# MMIO the device must never reach by DMA. The device's own BARs come from the live
# machine; MMCONFIG is enabled at start-up (target.py), as firmware would.
MMCONFIG = 0xB000_0000
FIXED_MMIO = [(MMCONFIG, 0x0100_0000),       # bus 0 of the ECAM window
              (0xFEC0_0000, 0x1000),         # IOAPIC
              (0xFED0_0000, 0x400),          # HPET
              (0xFEE0_0000, 0x1000)]         # LAPIC / MSI window
UNASSIGNED = [(0xF000_0000, 0x0E00_0000),    # PCI hole above the BARs
              (RAM_END, 0x1000_0000),        # just above RAM
              (0x4_0000_0000, 0x1_0000_0000),
              (0xFFFF_FFFF_FFFF_0000, 0x1_0000),   # where a PRP walk would wrap
              (1 << 52, 1 << 20)]
ROM = [(0xC_0000, 0x4_0000), (0xFFFC_0000, 0x4_0000)]
RAM_EDGE = RAM_END - 0x1000             # the last RAM page: transfers run off its end


def sq_slot(qid: int) -> int:
    return QUEUE_BASE + qid * QUEUE_STRIDE


def cq_slot(qid: int) -> int:
    return sq_slot(qid) + CQ_OFFSET


def slot_owner(addr: int) -> int:
    """The qid whose queue slot holds addr, or -1."""
    if QUEUE_BASE <= addr < QUEUE_BASE + MAX_SLOTS * QUEUE_STRIDE:
        return (addr - QUEUE_BASE) // QUEUE_STRIDE
    return -1


# Classes a pointer can come from. 'data' and 'meta' are the fuzzer's own scratch memory;
# writing there harms nothing. 'ram' and 'queue' may land on live queues, 'mmio' on
# registers: both change what the host model can trust (see executor.py).
SAFE = ("data", "meta")
RAM_LIKE = ("ram", "queue", "edge")
DEVICE_LIKE = ("mmio", "unassigned", "rom", "zero")


class Picker:
    """Draws addresses of a class; the machine's own BARs are given by the target."""

    def __init__(self, rng: random.Random, bars: Iterable[Tuple[int, int]],
                 skip: Iterable[str] = ()):
        self.rng = rng
        self.skip = set(skip)      # classes wild pointers never come from
        self.mmio: List[Tuple[int, int]] = [*bars, *FIXED_MMIO]
        self.live_queues: List[int] = []   # addresses of live queue rings (set by the caller)

    def _in(self, spans, align: int) -> int:
        base, size = self.rng.choice(spans)
        off = self.rng.randrange(0, max(size, align)) & ~(align - 1)
        return (base + off) & 0xFFFF_FFFF_FFFF_FFFF

    def address(self, cls: str, align: int = 4) -> int:
        r = self.rng
        if cls == "data":
            return self._in([(DATA_BASE, MSI_RAM - DATA_BASE)], align)
        if cls == "msi":
            return self._in([(MSI_RAM, DATA_END - MSI_RAM)], align)
        if cls == "meta":
            return self._in([(META_BASE, META_END - META_BASE)], align)
        if cls == "ram":
            return self._in([(0x10_0000, META_END - 0x10_0000)], align)
        if cls == "queue":
            base = r.choice(self.live_queues) if self.live_queues else sq_slot(r.randrange(17))
            return base + (r.randrange(0, 0x8000) & ~(align - 1))
        if cls == "edge":
            return RAM_EDGE + (r.randrange(0, 0x1000) & ~(align - 1))
        if cls == "mmio":
            return self._in(self.mmio, align)
        if cls == "unassigned":
            return self._in(UNASSIGNED, align)
        if cls == "rom":
            return self._in(ROM, align)
        if cls == "zero":
            return r.choice([0, 0, align if align < 0x1000 else 0, max(0, 0x1000 - align)])
        raise ValueError(cls)

    def wild_class(self) -> str:
        """A class for a mutated pointer: mostly somewhere harmful or odd."""
        weights = {"mmio": 30, "unassigned": 18, "ram": 10, "queue": 10, "edge": 8,
                   "rom": 6, "zero": 8, "data": 10}
        names = [c for c in weights if c not in self.skip] or ["data"]
        return self.rng.choices(names, [weights[c] for c in names])[0]


def classify(addr: int, bars: Iterable[Tuple[int, int]]) -> str:
    """'ram' (guest RAM above 1 MiB), 'low' (under 1 MiB: RAM, ROM shadows, holes),
    'mmio', 'rom' (the BIOS) or 'unassigned': where a queue or buffer at addr lives."""
    if 0x10_0000 <= addr < RAM_END:
        return "ram"
    if addr < 0x10_0000:
        return "low"
    for base, size in [*bars, *FIXED_MMIO]:
        if base <= addr < base + size:
            return "mmio"
    if ROM[1][0] <= addr < ROM[1][0] + ROM[1][1]:
        return "rom"
    return "unassigned"
