"""PRP data pointers for the fuzzer's commands: well-formed ones over scattered pages of
the data arena, with the PRP list in the scratch arena, and the ways to bend them
(a pointer somewhere odd, a list entry at the list itself, a chain that loops)."""
import struct
from dataclasses import dataclass, field
from typing import List, Optional, Set, Tuple

from .layout import DATA_BASE, META_BASE, META_END, MSI_RAM, Picker


@dataclass
class Pointers:
    prp1: int
    prp2: int
    mem: List[Tuple[int, bytes]] = field(default_factory=list)   # list pages to write
    classes: Set[str] = field(default_factory=lambda: {"data"})  # where the data goes
    list_class: Optional[str] = None       # where the PRP list is read from, if any
    prp1_class: str = "data"
    prp2_class: str = "data"
    entries: List[int] = field(default_factory=list)   # list entries, in order
    entry_slots: List[int] = field(default_factory=list)   # their guest addresses


class Scratch:
    """Bump allocator over the scratch arena, wrapping around. Old contents may still be
    read by a command the host gave up on; that is only more noise for the device."""

    def __init__(self):
        self.next = META_BASE

    def alloc(self, size: int, align: int) -> int:
        addr = (self.next + align - 1) & ~(align - 1)
        if addr + size > META_END:
            addr = META_BASE
        self.next = addr + size
        return addr


def data_page(picker: Picker, page: int) -> int:
    span = (MSI_RAM - DATA_BASE) // page
    return DATA_BASE + picker.rng.randrange(span) * page


def build(picker: Picker, scratch: Scratch, page: int, length: int,
          offset: Optional[int] = None, taken: Optional[Set[int]] = None) -> Pointers:
    """Well-formed PRP1/PRP2 (and PRP list) for a transfer of length bytes. With taken,
    every data page is new (not in taken) and is added to it: data integrity checks
    need buffers that share no page."""
    rng = picker.rng
    if offset is None:
        offset = 0 if rng.random() < 0.7 else rng.randrange(0, page, 4)
    npages = max(1, (offset + length + page - 1) // page)
    pages = []
    while len(pages) < npages:
        candidate = data_page(picker, page)
        if taken is None:
            pages.append(candidate)
        elif candidate not in taken:
            taken.add(candidate)
            pages.append(candidate)
    ptr = Pointers(pages[0] + offset, 0)
    if npages == 2:
        ptr.prp2 = pages[1]
    elif npages > 2:
        write_list(ptr, scratch, page, pages[1:], rng.choice([0, 0, 0, 8 * rng.randrange(8)]))
    return ptr


def write_list(ptr: Pointers, scratch: Scratch, page: int, entries: List[int],
               first_offset: int) -> None:
    """Lay entries out as a PRP list (chained when a page fills up)."""
    ptr.list_class = "meta"
    ptr.entries, ptr.entry_slots, ptr.mem = list(entries), [], []
    rest, offset, prev_slot = list(entries), first_offset, None
    while rest:
        list_page = scratch.alloc(page, page)
        start = list_page + offset
        if prev_slot is None:
            ptr.prp2 = start
        else:
            ptr.mem.append((prev_slot, struct.pack("<Q", start)))
        room = (page - offset) // 8
        if len(rest) <= room:
            chunk, rest, prev_slot = rest, [], None
        else:
            chunk, rest = rest[:room - 1], rest[room - 1:]
            prev_slot = start + (room - 1) * 8
        ptr.entry_slots += [start + 8 * i for i in range(len(chunk))]
        ptr.mem.append((start, b"".join(struct.pack("<Q", e) for e in chunk)))
        offset = 0


def set_entry(ptr: Pointers, index: int, value: int) -> None:
    """Overwrite one list entry (the write goes after the list's own, so it wins)."""
    value &= 0xFFFF_FFFF_FFFF_FFFF      # an offset added at the top of the space wraps
    ptr.entries[index] = value
    ptr.mem.append((ptr.entry_slots[index], struct.pack("<Q", value)))


def bend(picker: Picker, ptr: Pointers, page: int) -> str:
    """Make one pointer of ptr wrong in one of several ways; returns what it did."""
    rng = picker.rng
    ways = ["prp1", "prp1", "prp2", "prp1-queue", "prp2=prp1"]
    if ptr.entries:
        ways += ["entry", "entry", "entry-self", "list-ptr", "list-misaligned", "entry-offset"]
    way = rng.choice(ways)
    if way == "prp1":
        cls = picker.wild_class()
        ptr.prp1 = picker.address(cls, rng.choice([1, 4, 4, page]))
        ptr.prp1_class = cls
        ptr.classes.add(cls)
    elif way == "prp1-queue":
        ptr.prp1 = picker.address("queue", 4)
        ptr.prp1_class = "queue"
        ptr.classes.add("queue")
    elif way == "prp2":
        cls = picker.wild_class()
        ptr.prp2 = picker.address(cls, rng.choice([page, page, 8, 1]))
        ptr.prp2_class = cls
        ptr.classes.add(cls)
        if ptr.entries:
            ptr.list_class = cls
    elif way == "prp2=prp1":
        ptr.prp2 = ptr.prp1 & ~(page - 1)
    elif way == "entry":
        cls = picker.wild_class()
        set_entry(ptr, rng.randrange(len(ptr.entries)), picker.address(cls, page))
        ptr.classes.add(cls)
    elif way == "entry-self":   # the list names its own page as data: a loop for a walker
        set_entry(ptr, rng.randrange(len(ptr.entries)), ptr.prp2 & ~(page - 1))
        ptr.classes.add("meta")
    elif way == "entry-offset":
        i = rng.randrange(len(ptr.entries))
        set_entry(ptr, i, ptr.entries[i] + rng.randrange(4, page, 4))
    elif way == "list-ptr":
        cls = picker.wild_class()
        ptr.prp2 = picker.address(cls, 8)
        ptr.list_class = ptr.prp2_class = cls
        ptr.classes.add(cls)
    else:   # list-misaligned
        ptr.prp2 += rng.choice([1, 2, 4, 7])
    return way
