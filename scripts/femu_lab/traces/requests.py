"""The request stream a synthetic trace is made of: one seeded list of reads and writes
that every format's writer receives, so the same seed gives the same requests in msr,
spc, blkparse, fio iologs, mqsim, disksim and femu traces.

Times are whole microseconds from 0 (the first request arrives at 0): every format's
time unit (100 ns filetime ticks, µs, ns, ms and s with decimals) holds them exactly,
so a reader of any format must find the very same times. Offsets and lengths are whole
4 KiB pages inside the footprint: every format's unit (bytes, 512-byte sectors) holds
them, and the guest can replay them with O_DIRECT.
"""
import random
from dataclasses import dataclass
from typing import Iterator

PAGE = 4096
SECTOR = 512
DEFAULT_FOOTPRINT = 512 << 20     # fits conf/lab-1g.conf's 768 MiB logical space
DEFAULT_READ_FRACTION = 0.3
# The readers (femu-trace, ftl-sim) hold byte addresses in 64 bits: 2^62 keeps an offset
# plus a length, and every format's sector number, far inside them (femu-trace convert's
# --device-bytes has the same bound).
MAX_FOOTPRINT = 1 << 62
MEAN_GAP_US = 200                 # mean time between arrivals (exponential gaps)
SEQUENTIAL_CHANCE = 0.3           # a request continues where the one before it ended
# Request sizes in pages and their weights: small requests dominate, as in most
# enterprise traces (MSR Cambridge's median is 4-8 KiB), with a tail up to 256 KiB.
SIZE_PAGES = (1, 2, 4, 8, 16, 32, 64)
SIZE_WEIGHTS = (40, 15, 15, 10, 10, 5, 5)


@dataclass(frozen=True)
class Request:
    time_us: int
    op: str            # "R" or "W"
    offset: int        # bytes
    length: int        # bytes

    @property
    def is_read(self) -> bool:
        return self.op == "R"

    @property
    def time_ns(self) -> int:
        return self.time_us * 1000

    @property
    def service_us(self) -> int:
        """A made-up but fixed service time: what msr's ResponseTime and blkparse's
        completion events say (no reader times the replay by it)."""
        return (60 if self.is_read else 20) + 10 * (self.length // PAGE)


def check(footprint: int, read_fraction: float) -> None:
    """ValueError (one line) for a footprint or read fraction no trace can have."""
    if footprint < SIZE_PAGES[-1] * PAGE:
        raise ValueError(f"footprint {footprint} bytes is below the largest request "
                         f"({SIZE_PAGES[-1] * PAGE} bytes)")
    if footprint > MAX_FOOTPRINT:
        raise ValueError(f"footprint {footprint} bytes is above {MAX_FOOTPRINT} (4 EiB): "
                         "the readers hold byte addresses in 64 bits")
    if not 0.0 <= read_fraction <= 1.0:
        raise ValueError(f"read fraction {read_fraction} is not between 0 and 1")


def synthetic(records: int, seed: int, footprint: int = DEFAULT_FOOTPRINT,
              read_fraction: float = DEFAULT_READ_FRACTION) -> Iterator[Request]:
    """records requests, lazily (a 10-million-request trace is never held in memory)."""
    check(footprint, read_fraction)
    rng = random.Random(seed)
    pages = footprint // PAGE
    time_us = 0
    next_page = 0
    for index in range(records):
        if index:
            time_us += round(rng.expovariate(1.0 / MEAN_GAP_US))
        size = rng.choices(SIZE_PAGES, SIZE_WEIGHTS)[0]
        op = "R" if rng.random() < read_fraction else "W"
        if rng.random() >= SEQUENTIAL_CHANCE or next_page + size > pages:
            next_page = rng.randrange(pages - size + 1)
        yield Request(time_us, op, next_page * PAGE, size * PAGE)
        next_page += size
