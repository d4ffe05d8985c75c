"""One writer per trace format: write(requests, out) puts the request stream into the
text stream out as that format's lines. The field layouts are the public ones each trace
set uses (docs/ftl-sim.md, "Real-world traces"); times are the requests' exact
microseconds in each format's unit.
"""
from typing import Callable, Dict, Iterable, TextIO

from .blkparse import write_blkparse
from .requests import SECTOR, Request

Writer = Callable[[Iterable[Request], TextIO], None]

# MSR Cambridge stamps requests with Windows filetime: 100 ns ticks since 1601-01-01.
# Any recording date will do; this one is in February 2007, when the MSR traces were taken.
MSR_EPOCH_TICKS = 128_166_372_000_000_000
MSR_HOST = "hm"
FIO_FILE = "/dev/nvme0n1"


def _seconds(time_us: int) -> str:
    return f"{time_us // 1_000_000}.{time_us % 1_000_000:06d}"


def _milliseconds(time_us: int) -> str:
    return f"{time_us // 1000}.{time_us % 1000:03d}"


def write_msr(requests: Iterable[Request], out: TextIO) -> None:
    """Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime (no header line, as
    the published files have none): filetime ticks, Read/Write, bytes, ticks."""
    for r in requests:
        out.write(f"{MSR_EPOCH_TICKS + r.time_us * 10},{MSR_HOST},0,"
                  f"{'Read' if r.is_read else 'Write'},{r.offset},{r.length},"
                  f"{r.service_us * 10}\n")


def write_spc(requests: Iterable[Request], out: TextIO) -> None:
    """ASU,LBA,Size,Opcode,Timestamp (UMass Financial / WebSearch): 512-byte LBAs, size
    in bytes, r or w, seconds."""
    for r in requests:
        out.write(f"0,{r.offset // SECTOR},{r.length},{'r' if r.is_read else 'w'},"
                  f"{_seconds(r.time_us)}\n")


def write_fio_iolog_v2(requests: Iterable[Request], out: TextIO,
                       file: str = FIO_FILE) -> None:
    """fio's version-2 iolog: no times (a replay issues the requests back to back)."""
    out.write(f"fio version 2 iolog\n{file} add\n{file} open\n")
    for r in requests:
        out.write(f"{file} {'read' if r.is_read else 'write'} {r.offset} {r.length}\n")
    out.write(f"{file} close\n")


def write_fio_iolog_v3(requests: Iterable[Request], out: TextIO,
                       file: str = FIO_FILE) -> None:
    """fio's version-3 iolog: every line starts with its time in microseconds since the
    start (fio writes utime_since the log's start, and delays replays by it)."""
    out.write(f"fio version 3 iolog\n0 {file} add\n0 {file} open\n")
    last_us = 0
    for r in requests:
        out.write(f"{r.time_us} {file} {'read' if r.is_read else 'write'} "
                  f"{r.offset} {r.length}\n")
        last_us = r.time_us
    out.write(f"{last_us} {file} close\n")


def write_mqsim(requests: Iterable[Request], out: TextIO) -> None:
    """MQSim's ASCII trace: arrival_ns device start_sector size_sectors type (0 write,
    1 read)."""
    for r in requests:
        out.write(f"{r.time_ns} 0 {r.offset // SECTOR} {r.length // SECTOR} "
                  f"{1 if r.is_read else 0}\n")


def write_disksim(requests: Iterable[Request], out: TextIO) -> None:
    """DiskSim's ASCII input: time_ms devno blkno bcount flags (512-byte blocks; flags
    bit 0 set for a read)."""
    for r in requests:
        out.write(f"{_milliseconds(r.time_us)} 0 {r.offset // SECTOR} "
                  f"{r.length // SECTOR} {1 if r.is_read else 0}\n")


def write_femu(requests: Iterable[Request], out: TextIO) -> None:
    """femu's version-2 trace (hw/femu/ftl/include/femu_ftl/trace.h): W t lba nsect nsid
    stream, R t lba nsect nsid, times in ns, namespace 1, stream 0; E at the last
    arrival."""
    out.write("V 2\n# synthetic trace: femu-lab trace generate\n")
    last_ns = 0
    for r in requests:
        sectors = f"{r.offset // SECTOR} {r.length // SECTOR} 1"
        out.write(f"R {r.time_ns} {sectors}\n" if r.is_read
                  else f"W {r.time_ns} {sectors} 0\n")
        last_ns = r.time_ns
    out.write(f"E {last_ns}\n")


# What generate calls each format (femu-trace's names, but fio-iolog and fio-iolog-v2 for
# fio's timed and untimed iologs).
WRITERS: Dict[str, Writer] = {
    "msr": write_msr,
    "spc": write_spc,
    "blkparse": write_blkparse,
    "fio-iolog": write_fio_iolog_v3,
    "fio-iolog-v2": write_fio_iolog_v2,
    "mqsim": write_mqsim,
    "disksim": write_disksim,
    "femu": write_femu,
}
# The reader that reads each one back (femu-trace's --trace-format, and its info's format).
READER_FORMAT = {name: "fio-iolog" if name.startswith("fio-iolog") else name for name in WRITERS}
