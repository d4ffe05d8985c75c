"""The CPU windows of one boot: at each `femu-bench: io begin|end NAME <block stat>` line
of the console (bench_jobs.io_line) the host samples QEMU's threads (threads.sample);
a begin and its end make the window of job NAME: the ticks of each thread group, the
wall seconds and the I/Os the device completed in between (reads + writes completed, from
the guest's block-layer counters, so the same span as the ticks: fio's ramp included).

The host sees a line within its poll interval (runner.POLL_SECONDS): the window starts
and ends that late at most, a small slice of a job of seconds. A mark seen late (the
runner was busy sampling idle CPU) would shift the window by seconds: its job gets no
window and a note says why.
"""
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

from . import threads
from .jobs import IO_MARKER

READS_COMPLETED, WRITES_COMPLETED = 0, 4     # fields of /sys/block/DEV/stat


@dataclass(frozen=True)
class IoMark:
    kind: str          # begin | end
    job: str
    ios: int           # reads + writes the device had completed since boot


@dataclass(frozen=True)
class Window:
    job: str
    seconds: float
    ios: int
    ticks: Dict[str, int]      # threads.GROUPS and threads.TOTAL -> clock ticks


def parse_io_mark(line: str) -> Optional[IoMark]:
    """The io mark in a console line (anything before it is ignored), None if the line
    has none. ValueError if it has one that cannot be read."""
    at = line.find(IO_MARKER)
    if at < 0:
        return None
    words = line[at + len(IO_MARKER):].split()
    if len(words) < 2 + WRITES_COMPLETED + 1 or words[0] not in ("begin", "end"):
        raise ValueError(f"unreadable io mark: {line[at:at + 80]!r}")
    try:
        counters = [int(word) for word in words[2:]]
    except ValueError:
        raise ValueError(f"unreadable io mark: {line[at:at + 80]!r}") from None
    return IoMark(words[0], words[1],
                  counters[READS_COMPLETED] + counters[WRITES_COMPLETED])


class CpuWindows:
    """Collects the windows of one boot from the io marks, in the order they arrive.
    find_pid() gives QEMU's pid (None while not found); sample(pid) reads its threads."""

    def __init__(self, find_pid: Callable[[], Optional[int]],
                 sample: Callable[[int], threads.Sample] = threads.sample,
                 clock: Callable[[], float] = time.monotonic):
        self.find_pid, self.sample, self.clock = find_pid, sample, clock
        self.pid: Optional[int] = None
        self.open: Dict[str, tuple] = {}          # job -> (mark, sample, time)
        self.windows: Dict[str, Window] = {}
        self.notes: List[str] = []

    def line(self, text: str, late: bool = False) -> None:
        """One console line; late: seen long after the guest printed it."""
        try:
            mark = parse_io_mark(text)
        except ValueError as error:
            self.notes.append(f"CPU windows: {error}")
            return
        if mark is None:
            return
        if late:
            self.open.pop(mark.job, None)
            self.notes.append(f"CPU of {mark.job}: its {mark.kind} mark was seen late; "
                              "not counted")
            return
        try:
            now = self._sample()
        except OSError as error:
            self.notes.append(f"CPU of {mark.job}: QEMU's threads unreadable ({error})")
            self.open.pop(mark.job, None)
            return
        if now is None:
            self.notes.append(f"CPU of {mark.job}: QEMU process not found")
            return
        if mark.kind == "begin":
            self.open[mark.job] = (mark, now, self.clock())
            return
        if mark.job not in self.open:
            return   # its begin was dropped: noted then
        begin, before, started = self.open.pop(mark.job)
        self.windows[mark.job] = Window(mark.job, self.clock() - started,
                                        mark.ios - begin.ios,
                                        threads.window_ticks(before, now, self.pid))

    def _sample(self) -> Optional[threads.Sample]:
        if self.pid is None:
            self.pid = self.find_pid()
            if self.pid is None:
                return None
        return self.sample(self.pid)
