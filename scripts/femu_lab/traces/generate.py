"""A synthetic trace written to a file: `femu-lab trace generate`.

The request stream (requests.synthetic) goes through one format's writer into OUT,
compressed by OUT's suffix (.gz, .xz), written beside it and renamed into place at the
end, so a failed or interrupted run leaves no half file. Nothing is held in memory but a
bitmap of the pages touched (footprint / 32 KiB bytes), so 10 million records stream
through; a live line on stderr counts them on long runs.
"""
import gzip
import lzma
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, Iterator, TextIO

from femu_common.progress import LiveLine

from . import requests as stream
from .requests import PAGE, Request
from .writers import WRITERS

LIVE_LINE_RECORDS = 200_000    # smaller traces take under a second: no progress line


@dataclass
class TraceCounts:
    """What the generator wrote, in femu-trace info's terms."""
    records: int = 0
    reads: int = 0
    writes: int = 0
    bytes_read: int = 0
    bytes_written: int = 0
    span_ns: int = 0
    footprint_bytes: int = 0                  # distinct 4 KiB pages touched, in bytes
    sizes: Dict[int, int] = field(default_factory=dict)   # request bytes -> count

    def as_info(self) -> Dict[str, int]:
        return {"records": self.records, "reads": self.reads, "writes": self.writes,
                "bytes_read": self.bytes_read, "bytes_written": self.bytes_written,
                "span_ns": self.span_ns, "footprint_bytes": self.footprint_bytes}


def _counted(requests: Iterable[Request], counts: TraceCounts,
             footprint: int) -> Iterator[Request]:
    touched = bytearray((footprint // PAGE + 7) // 8)
    pages = 0
    for r in requests:
        counts.records += 1
        if r.is_read:
            counts.reads += 1
            counts.bytes_read += r.length
        else:
            counts.writes += 1
            counts.bytes_written += r.length
        counts.span_ns = r.time_ns
        counts.sizes[r.length] = counts.sizes.get(r.length, 0) + 1
        for page in range(r.offset // PAGE, (r.offset + r.length) // PAGE):
            bit = 1 << (page & 7)
            if not touched[page >> 3] & bit:
                touched[page >> 3] |= bit
                pages += 1
        yield r
    counts.footprint_bytes = pages * PAGE


def open_for_writing(path: Path) -> TextIO:
    """path as a text file, gzip or xz compressed when its name ends in .gz or .xz."""
    if path.suffix == ".gz":
        return gzip.open(path, "wt", compresslevel=6, newline="\n")
    if path.suffix == ".xz":
        return lzma.open(path, "wt", preset=3, newline="\n")
    return open(path, "w", newline="\n")


def generate(out: Path, fmt: str, records: int, seed: int,
             footprint: int = stream.DEFAULT_FOOTPRINT,
             read_fraction: float = stream.DEFAULT_READ_FRACTION,
             progress: bool = True) -> TraceCounts:
    """Write the trace; its counts. ValueError for a bad format, footprint or fraction."""
    if fmt not in WRITERS:
        raise ValueError(f"unknown format '{fmt}' (known: {', '.join(WRITERS)})")
    counts = TraceCounts()
    requests = _counted(stream.synthetic(records, seed, footprint, read_fraction), counts,
                        footprint)
    # Hidden, and with OUT's last suffix: open_for_writing compresses by it.
    partial = out.with_name(f".{out.stem}.partial{out.suffix}")
    line = None
    if progress and records >= LIVE_LINE_RECORDS:
        line = LiveLine(lambda elapsed: f"trace generate: {counts.records:,}/{records:,} "
                                        f"records [{elapsed:.0f} s]")
    if line:
        line.start()
    try:
        with open_for_writing(partial) as f:
            WRITERS[fmt](requests, f)
        os.replace(partial, out)
    finally:
        if line:
            line.stop()
        if partial.exists():
            partial.unlink()
    return counts
