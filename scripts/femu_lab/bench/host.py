"""Host-side figures of a running QEMU: its process, found by a path unique to one run,
and the CPU time it uses (utime + stime from /proc/PID/stat) over an interval.

Shared by `femu-lab bench` (idle QEMU CPU) and `femu-lab device-figures idle-cpu`.
"""
import os
import time
from pathlib import Path
from typing import Optional

from .threads import parse_stat


def cpu_ticks(stat_text: str) -> int:
    """utime + stime (clock ticks) from the text of /proc/PID/stat (threads.parse_stat:
    the command name may hold blanks and parentheses); ValueError if it is not one."""
    return parse_stat(stat_text)[1]


def cpu_percent(ticks_before: int, ticks_after: int, seconds: float,
                ticks_per_second: Optional[int] = None) -> float:
    """CPU time between two samples as % of one core."""
    hz = ticks_per_second or os.sysconf("SC_CLK_TCK")
    return 100.0 * (ticks_after - ticks_before) / hz / seconds


def find_qemu_pid(marker: str, proc: Path = Path("/proc"),
                  program: Optional[str] = None) -> Optional[int]:
    """The QEMU process whose command line mentions marker (a path unique to one run):
    argv[0] is a qemu-system-* binary, or exactly `program` (a QEMU under another name)."""
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if not argv:
            continue
        is_qemu = (os.path.basename(argv[0]).startswith(b"qemu-system")
                   or (program is not None and argv[0] == program.encode()))
        if is_qemu and any(marker.encode() in arg for arg in argv[1:]):
            return int(entry.name)
    return None


def sample_cpu_percent(pid: int, seconds: float) -> float:
    """% of one core the process `pid` uses over the next `seconds` (wall clock)."""
    stat = Path(f"/proc/{pid}/stat")
    before, started = cpu_ticks(stat.read_text()), time.monotonic()
    time.sleep(seconds)
    after, ended = cpu_ticks(stat.read_text()), time.monotonic()
    return cpu_percent(before, after, ended - started)
