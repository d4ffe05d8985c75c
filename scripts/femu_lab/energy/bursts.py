"""The APST lab's bursty trace: groups of requests separated by idle gaps, written in MSR
Cambridge's layout (femu-lab trace generate's msr writer), seeded.

    bursts(count, requests, gap_ms=(5, 4000), footprint=..., read_fraction=1.0, seed=1)

Burst after burst: `requests` requests of 4 KiB at random 4 KiB-aligned offsets inside
the footprint, arriving with exponential gaps of mean BURST_GAP_US (a busy host at
about 20,000 IOPS), each a read with chance read_fraction; then an idle gap, drawn
log-uniformly between gap_ms's bounds (every decade of idle time as likely as the next),
before the next burst. The default 5 ms to 4 s spans both sides of the idle times APST
tables wait (Linux's: 100 ms and 2 s with its default tolerances; an aggressive table's
few ms), so some gaps let the drive reach its deepest state and some do not. Times are
whole microseconds from 0, as the trace writers want them.
"""
import io
import math
import random
from pathlib import Path
from typing import Iterator, List, Tuple

from femu_common.cli_args import UsageError

from .. import output_file
from ..traces.requests import PAGE, Request
from ..traces.writers import write_msr

BURST_GAP_US = 50               # mean time between arrivals inside a burst
DEFAULT_GAP_MS = (5.0, 4000.0)
TRACE_NAME = "bursty.csv"


def check(count: int, requests: int, gap_ms: Tuple[float, float], footprint: int,
          read_fraction: float) -> None:
    """UsageError (one line naming the option) for a trace no run can use."""
    low, high = gap_ms
    if not 0 < low <= high:
        raise UsageError(f"--gap-ms {low:g}:{high:g}: want 0 < MIN <= MAX")
    if count < 1 or requests < 1:
        raise UsageError("--bursts and --burst-requests must be 1 or more")
    if footprint < PAGE:
        raise UsageError(f"the footprint ({footprint} bytes) is below one 4 KiB page")
    if not 0.0 <= read_fraction <= 1.0:
        raise UsageError(f"--read-fraction {read_fraction:g}: not between 0 and 1")


def bursts(count: int, requests: int, gap_ms: Tuple[float, float], footprint: int,
           read_fraction: float, seed: int) -> Iterator[Request]:
    check(count, requests, gap_ms, footprint, read_fraction)
    rng = random.Random(seed)
    pages = footprint // PAGE
    low, high = math.log(gap_ms[0]), math.log(gap_ms[1])
    time_us = 0
    for burst in range(count):
        if burst:
            time_us += round(math.exp(rng.uniform(low, high)) * 1000)
        for index in range(requests):
            if index:
                time_us += max(1, round(rng.expovariate(1.0 / BURST_GAP_US)))
            op = "R" if rng.random() < read_fraction else "W"
            yield Request(time_us, op, rng.randrange(pages) * PAGE, PAGE)


def idle_gaps_ms(count: int, requests: int, gap_ms: Tuple[float, float], footprint: int,
                 read_fraction: float, seed: int) -> List[float]:
    """The idle gaps between bursts (ms, from the last request of one burst to the first
    of the next), for the lab's notes."""
    gaps, last, previous_burst = [], None, 0
    for number, request in enumerate(bursts(count, requests, gap_ms, footprint,
                                            read_fraction, seed)):
        burst = number // requests
        if last is not None and burst != previous_burst:
            gaps.append((request.time_us - last) / 1000)
        last, previous_burst = request.time_us, burst
    return gaps


def write(path: Path, count: int, requests: int, gap_ms: Tuple[float, float],
          footprint: int, read_fraction: float, seed: int) -> Path:
    """The trace into path (written beside it, then renamed over it)."""
    text = io.StringIO()
    write_msr(bursts(count, requests, gap_ms, footprint, read_fraction, seed), text)
    beside = path.with_name(f".{path.name}.new")
    with output_file.new_file(beside) as raw:
        raw.write(text.getvalue().encode("ascii"))
    output_file.replace(beside, path, "-o")
    return path
