"""A synthetic trace written to a file: `femu-lab trace generate`.

The request stream (requests.synthetic) goes through one format's writer into OUT,
compressed by OUT's suffix (.gz, .xz), written beside it and renamed into place at the
end, so a failed or interrupted run leaves no half file; only a regular file (or a new
path) is replaced (femu_lab.output_file). Nothing is held in memory but the pages
touched, 64 to a bit mask, so 10 million records stream through and memory follows the
requests, not the footprint (an exabyte footprint costs nothing up front); a live line on
stderr counts them on long runs.
"""
import gzip
import io
import lzma
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Dict, Iterable, Iterator, TextIO

from femu_common.cli_args import shown
from femu_common.errors import RunFailure
from femu_common.progress import LiveLine

from .. import output_file
from . import requests as stream
from .requests import PAGE, Request
from .writers import WRITERS

LIVE_LINE_RECORDS = 200_000    # smaller traces take under a second: no progress line
MASK_PAGES = 64                # pages per bit mask of _TouchedPages


class TraceWriteError(RunFailure):
    """OUT could not be written (a full disk, an I/O error); one line."""


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


class _TouchedPages:
    """The distinct pages requests touched: a bit mask per MASK_PAGES pages, made only
    when one of them is touched (a bitmap of the whole footprint was allocated up front:
    a MemoryError for a large one)."""

    def __init__(self) -> None:
        self.masks: Dict[int, int] = {}
        self.count = 0

    def add(self, first: int, pages: int) -> None:
        while pages > 0:
            group, bit = divmod(first, MASK_PAGES)
            run = min(pages, MASK_PAGES - bit)
            mask = ((1 << run) - 1) << bit
            old = self.masks.get(group, 0)
            self.count += bin(mask & ~old).count("1")
            self.masks[group] = old | mask
            first, pages = first + run, pages - run


def _counted(requests: Iterable[Request], counts: TraceCounts) -> Iterator[Request]:
    touched = _TouchedPages()
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
        touched.add(r.offset // PAGE, r.length // PAGE)
        yield r
    counts.footprint_bytes = touched.count * PAGE


def open_for_writing(raw: BinaryIO, suffix: str) -> TextIO:
    """raw as a text stream, gzip or xz compressed when suffix is .gz or .xz."""
    if suffix == ".gz":
        return gzip.open(raw, "wt", compresslevel=6, newline="\n")
    if suffix == ".xz":
        return lzma.open(raw, "wt", preset=3, newline="\n")
    return io.TextIOWrapper(raw, encoding="ascii", newline="\n")


def _discard(partial: Path) -> None:
    """The half-written file gone (a folder someone put at its name is left alone)."""
    try:
        partial.unlink(missing_ok=True)
    except OSError:
        pass


def generate(out: Path, fmt: str, records: int, seed: int,
             footprint: int = stream.DEFAULT_FOOTPRINT,
             read_fraction: float = stream.DEFAULT_READ_FRACTION,
             progress: bool = True) -> TraceCounts:
    """Write the trace; its counts. ValueError for a bad format, footprint or fraction,
    output_file.OutputFileError for an OUT that may not be replaced (both before any
    work), TraceWriteError when writing fails."""
    if fmt not in WRITERS:
        raise ValueError(f"unknown format '{fmt}' (known: {', '.join(WRITERS)})")
    stream.check(footprint, read_fraction)
    output_file.check_replaceable(out, "OUT")
    counts = TraceCounts()
    requests = _counted(stream.synthetic(records, seed, footprint, read_fraction), counts)
    partial = out.with_name(f".{out.stem}.partial{out.suffix}")   # hidden, beside OUT
    line = None
    if progress and records >= LIVE_LINE_RECORDS:
        line = LiveLine(lambda elapsed: f"trace generate: {counts.records:,}/{records:,} "
                                        f"records [{elapsed:.0f} s]")
    if line:
        line.start()
    try:
        with output_file.new_file(partial) as raw:
            with open_for_writing(raw, out.suffix) as f:
                WRITERS[fmt](requests, f)
        output_file.replace(partial, out, "OUT")
    except OSError as error:
        raise TraceWriteError(f"OUT {shown(str(out), 200)}: {error.strerror or error}") \
            from None
    finally:
        if line:
            line.stop()
        _discard(partial)
    return counts
