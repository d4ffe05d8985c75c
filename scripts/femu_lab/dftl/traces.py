"""The DFTL study's traces: version-1 block traces (hw/femu/ftl/include/femu_ftl/trace.h) of 4 KiB writes
tagged H (hot) or C (cold), plus some reads, made from a seed and sized from the device's
logical capacity.

    shape = TraceShape.for_capacity(96 << 20)          # lab-dftl.conf's 96 MiB
    trace = generate("interleaved", shape, seed=1)
    trace.write(Path("interleaved.trace"))

The logical space is cut into 4 KiB slots (8 sectors each). A random `hot_fraction` of
them (scattered over the space, not one extent) is the hot set; the rest is cold. Every
trace writes `capacity_writes` times the logical capacity in all: each cold slot exactly
once, the remaining writes uniformly over the hot set, so a hot slot is rewritten
about (capacity_writes - 1 + hot_fraction) / hot_fraction times.

- interleaved: cold and hot writes mixed at random positions through the whole trace;
  tagged by what they are (hot slot: H, cold slot: C).
- phased: the same writes in alternating phases, `phases` cold phases (a share of the cold
  slots each) each followed by a hot phase (a share of the hot writes); tagged correctly.
- mistagged: interleaved's very requests (the same slots in the same order) with each
  write's tag a fair coin flip, independent of how often its slot is written. Builds
  without stream placement ignore tags, so they see interleaved exactly.

Reads follow the writes: with `read_fraction`, a request is a read of the slot of a
uniformly chosen earlier write (hot data is read as often as it is written), never of a
slot not yet written. The same shape and seed give the same file, byte for byte.
"""
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Tuple

from femu_common.errors import InputError

SECTOR_BYTES = 512           # femu_ftl/trace.h: lba and nsect count 512-byte sectors
IO_BYTES = 4096              # every request moves 4 KiB
IO_SECTORS = IO_BYTES // SECTOR_BYTES
KINDS = ("interleaved", "phased", "mistagged")
HOT, COLD = "H", "C"


class TraceError(InputError):
    """A shape that cannot make a trace; the message is one line."""


@dataclass(frozen=True)
class TraceShape:
    slots: int                       # 4 KiB slots of the logical space
    capacity_writes: float = 4.0     # writes in all, in multiples of `slots`
    hot_fraction: float = 0.15       # share of the slots in the hot set
    read_fraction: float = 0.1       # share of the requests that are reads
    phases: int = 8                  # phased: cold/hot phase pairs

    @classmethod
    def for_capacity(cls, logical_bytes: int, **options) -> "TraceShape":
        return cls(slots=logical_bytes // IO_BYTES, **options)

    @property
    def hot_slots(self) -> int:
        return max(1, round(self.slots * self.hot_fraction))

    @property
    def cold_slots(self) -> int:
        return self.slots - self.hot_slots

    @property
    def writes(self) -> int:
        return round(self.slots * self.capacity_writes)

    def check(self) -> None:
        if self.slots < 2:
            raise TraceError(f"a logical space of {self.slots} 4 KiB slot(s) is too small "
                             "for a hot and a cold set")
        if not 0 < self.hot_fraction < 1:
            raise TraceError(f"hot fraction {self.hot_fraction} is not between 0 and 1")
        if self.cold_slots < 1:
            raise TraceError(f"hot fraction {self.hot_fraction} leaves no cold slot")
        if not 0 <= self.read_fraction < 1:
            raise TraceError(f"read fraction {self.read_fraction} is not in [0, 1)")
        if self.phases < 1 or self.phases > self.cold_slots:
            raise TraceError(f"{self.phases} phases for {self.cold_slots} cold slots")
        if self.writes < self.slots:
            raise TraceError(f"{self.capacity_writes} x the capacity is fewer writes "
                             f"({self.writes}) than slots ({self.slots}): each cold slot is "
                             "written once and the hot set at least as often")


@dataclass
class Trace:
    kind: str
    shape: TraceShape
    seed: int
    hot: frozenset                                    # the hot set, slot numbers
    ops: List[Tuple[str, int, str]] = field(default_factory=list)   # (W|R, slot, tag|"")

    def lines(self) -> List[str]:
        out = [f"# femu-lab dftl-study trace '{self.kind}': {self.shape.slots} slots of 4 KiB, "
               f"{len(self.hot)} hot, {self.shape.writes} writes "
               f"({self.shape.capacity_writes:g} x capacity)",
               f"S {self.seed}"]
        for op, slot, tag in self.ops:
            lba = slot * IO_SECTORS
            out.append(f"W {lba} {IO_SECTORS} {tag}" if op == "W" else f"R {lba} {IO_SECTORS}")
        return out

    def write(self, path: Path) -> Path:
        path.write_text("\n".join(self.lines()) + "\n")
        return path

    def counts(self) -> Dict[str, int]:
        writes = [slot for op, slot, _ in self.ops if op == "W"]
        hot_writes = sum(1 for slot in writes if slot in self.hot)
        return {"writes": len(writes), "reads": len(self.ops) - len(writes),
                "hot_writes": hot_writes, "cold_writes": len(writes) - hot_writes,
                "tagged_hot": sum(1 for op, _, tag in self.ops if op == "W" and tag == HOT),
                "hot_slots": len(self.hot), "slots": self.shape.slots}


def generate(kind: str, shape: TraceShape, seed: int) -> Trace:
    """The trace `kind` (one of KINDS) for `shape` from `seed`."""
    if kind not in KINDS:
        raise TraceError(f"unknown trace '{kind}' (want {', '.join(KINDS)})")
    shape.check()
    rng = random.Random(seed)
    order = list(range(shape.slots))
    rng.shuffle(order)
    hot_list = sorted(order[:shape.hot_slots])
    cold_order = order[shape.hot_slots:]           # the order cold slots are written in
    hot_writes = shape.writes - len(cold_order)
    if kind == "phased":
        slots = _phased(rng, hot_list, cold_order, hot_writes, shape.phases)
    else:
        slots = _interleaved(rng, hot_list, cold_order, hot_writes)
    hot = frozenset(hot_list)
    if kind == "mistagged":
        coin = random.Random(f"{seed}/mistagged-tags")   # its own stream: same requests
        tags = [HOT if coin.random() < 0.5 else COLD for _ in slots]
    else:
        tags = [HOT if slot in hot else COLD for slot in slots]
    trace = Trace(kind=kind, shape=shape, seed=seed, hot=hot)
    trace.ops = _with_reads(rng, slots, tags, shape.read_fraction)
    return trace


def _interleaved(rng: random.Random, hot: List[int], cold_order: List[int],
                 hot_writes: int) -> List[int]:
    """Cold writes at uniformly random positions among all writes, hot ones elsewhere."""
    total = len(cold_order) + hot_writes
    cold_at = set(rng.sample(range(total), len(cold_order)))
    cold = iter(cold_order)
    return [next(cold) if index in cold_at else rng.choice(hot) for index in range(total)]


def _phased(rng: random.Random, hot: List[int], cold_order: List[int], hot_writes: int,
            phases: int) -> List[int]:
    """`phases` rounds of (a share of the cold slots, then a share of the hot writes)."""
    slots: List[int] = []
    for phase in range(phases):
        cold_share = cold_order[_share(len(cold_order), phases, phase):
                                _share(len(cold_order), phases, phase + 1)]
        hot_share = _share(hot_writes, phases, phase + 1) - _share(hot_writes, phases, phase)
        slots += cold_share
        slots += [rng.choice(hot) for _ in range(hot_share)]
    return slots


def _share(total: int, parts: int, index: int) -> int:
    """Where part `index` of `total` split into `parts` near-equal parts starts."""
    return total * index // parts


def _with_reads(rng: random.Random, slots: List[int], tags: List[str],
                read_fraction: float) -> List[Tuple[str, int, str]]:
    """Writes in order, each request before a write a read with `read_fraction` (of an
    already written slot, chosen as a uniformly random earlier write)."""
    ops: List[Tuple[str, int, str]] = []
    for index, (slot, tag) in enumerate(zip(slots, tags)):
        while index and rng.random() < read_fraction:
            ops.append(("R", slots[rng.randrange(index)], ""))
        ops.append(("W", slot, tag))
    return ops


def write_traces(folder: Path, shape: TraceShape, seed: int) -> Dict[str, Path]:
    """Every kind into folder/KIND.trace; {kind: path}."""
    folder.mkdir(parents=True, exist_ok=True)
    return {kind: generate(kind, shape, seed).write(folder / f"{kind}.trace") for kind in KINDS}
