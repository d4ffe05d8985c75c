"""blkparse's default text output for the request stream: a queue (Q) event when a
request arrives and a complete (C) event when it is done, in time order as blkparse
prints them, then the per-CPU and total summary blkparse ends with (a reader must stop
at it, or skip it).

    dev     cpu seq      seconds.nanoseconds pid action rwbs sector + sectors [process]
      8,0    0        1     0.000000000  1234  Q   W 2048 + 8 [fio]
      8,0    0        2     0.000105000     0  C   W 2048 + 8 [0]
"""
import heapq
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, TextIO, Tuple

from .requests import SECTOR, Request

DEVICE = (8, 0)       # sda's major and minor
CPUS = 2              # requests are queued on CPU 0 and 1 in turn
PROCESS = "fio"
PID = 4242


@dataclass
class _CpuCounts:
    sequence: int = 0
    queued: Dict[str, List[int]] = field(default_factory=lambda: {"R": [0, 0], "W": [0, 0]})
    completed: Dict[str, List[int]] = field(default_factory=lambda: {"R": [0, 0], "W": [0, 0]})

    def add(self, other: "_CpuCounts") -> None:
        for mine, theirs in ((self.queued, other.queued), (self.completed, other.completed)):
            for op in mine:
                mine[op][0] += theirs[op][0]
                mine[op][1] += theirs[op][1]


def _event(out: TextIO, cpu: int, counts: _CpuCounts, time_ns: int, action: str,
           r: Request) -> None:
    counts.sequence += 1
    tally = counts.queued if action == "Q" else counts.completed
    tally[r.op][0] += 1
    tally[r.op][1] += r.length
    pid, process = (PID + cpu, PROCESS) if action == "Q" else (0, "0")
    seconds, nanoseconds = divmod(time_ns, 1_000_000_000)
    out.write(f"{DEVICE[0]:3d},{DEVICE[1]:<3d} {cpu:2d} {counts.sequence:8d} "
              f"{seconds:5d}.{nanoseconds:09d} {pid:5d} {action:>2} {r.op:>3} "
              f"{r.offset // SECTOR} + {r.length // SECTOR} [{process}]\n")


def write_blkparse(requests: Iterable[Request], out: TextIO) -> None:
    cpus = [_CpuCounts() for _ in range(CPUS)]
    pending: List[Tuple[int, int, int, Request]] = []   # completions not yet printed
    last_ns = 0
    for index, r in enumerate(requests):
        while pending and pending[0][0] < r.time_ns:
            done_ns, _, cpu, done = heapq.heappop(pending)
            _event(out, cpu, cpus[cpu], done_ns, "C", done)
        cpu = index % CPUS
        _event(out, cpu, cpus[cpu], r.time_ns, "Q", r)
        heapq.heappush(pending, (r.time_ns + r.service_us * 1000, index, cpu, r))
    while pending:
        last_ns, _, cpu, done = heapq.heappop(pending)
        _event(out, cpu, cpus[cpu], last_ns, "C", done)
    _write_summary(out, cpus, last_ns)


def _kib(count_bytes: List[int]) -> str:
    return f"{count_bytes[0]:8d}, {count_bytes[1] // 1024:8d}KiB"


def _summary_block(out: TextIO, title: str, counts: _CpuCounts) -> None:
    q, c = counts.queued, counts.completed
    out.write(f"{title} ({DEVICE[0]},{DEVICE[1]}):\n"
              f" Reads Queued:    {_kib(q['R'])}\t Writes Queued:    {_kib(q['W'])}\n"
              f" Read Dispatches: {_kib([0, 0])}\t Write Dispatches: {_kib([0, 0])}\n"
              f" Reads Requeued:  {0:8d}\t\t Writes Requeued:  {0:8d}\n"
              f" Reads Completed: {_kib(c['R'])}\t Writes Completed: {_kib(c['W'])}\n"
              f" Read Merges:     {_kib([0, 0])}\t Write Merges:     {_kib([0, 0])}\n"
              f" IO unplugs:      {0:8d}        \t Timer unplugs:    {0:8d}\n")


def _write_summary(out: TextIO, cpus: List[_CpuCounts], end_ns: int) -> None:
    total = _CpuCounts()
    for number, counts in enumerate(cpus):
        out.write("\n")
        _summary_block(out, f"CPU{number}", counts)
        total.add(counts)
    out.write("\n")
    _summary_block(out, "Total", total)
    seconds = max(end_ns / 1e9, 1e-9)
    events = sum(counts.sequence for counts in cpus)
    out.write(f"\nThroughput (R/W): {total.completed['R'][1] / 1024 / seconds:.0f}KiB/s / "
              f"{total.completed['W'][1] / 1024 / seconds:.0f}KiB/s\n"
              f"Events ({DEVICE[0]},{DEVICE[1]}): {events} entries\n"
              f"Skips: 0 forward (0 -   0.0%)\n")
