"""How long a run's measured part (its `workload` phase) will take, as far as it is known
before it runs, and how long it took (params.json records both).

Most workloads run fio for RUNTIME seconds, `runs` times: a clock length. Some end with
their I/O instead (write-cliff writes 1920 MiB, however long that takes, and idles
RUNTIME s after each 640 MiB round; a fast trace replay issues its requests back to back):
then only the I/O and the idle time inside are known, and the progress line shows the
I/O done against the planned bytes instead of a made-up total. A workload file says which
with its `# length:` header, terms joined by `+`:

    N x RUNTIME     N timed stretches of RUNTIME seconds (fio runs or idle time)
    RUNTIME / N     a part of RUNTIME (zns-fio measures its second half)
    SIZE of I/O     host bytes read and written, SIZE as 640m, 2g (k, m, g: KiB, MiB, GiB)
    its work        a fixed task whose size the host does not know (zns-compaction's
                    copies): no total is shown

Without the header the length is `runs x RUNTIME`.
"""
import csv
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from femu_common.errors import InputError

GIB = 1 << 30
MIB = 1 << 20
# A job's time limit allows for I/O at this rate at least (a slow TCG guest).
SLOW_BYTES_PER_S = 4 << 20
_SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
_TERM = re.compile(r"^(?:(\d+)\s*x\s*RUNTIME|RUNTIME\s*/\s*(\d+)|RUNTIME|"
                   r"(\d+)([kmg]?)\s+of\s+I/O|(its work))$", re.IGNORECASE)


class LengthError(InputError):
    """A `# length:` header that cannot be read (one line)."""


@dataclass(frozen=True)
class Length:
    seconds: int = 0                  # clock time inside the phase (timed runs, idle)
    io_bytes: Optional[int] = None    # host bytes it ends with, when size-bound
    at_most_s: Optional[int] = None   # a limit that stops a size-bound phase earlier
    budget_s: Optional[int] = None    # the time to allow for it (a job's time limit)
    open_ended: bool = False          # ends with a task of unknown size ('its work')

    @property
    def timed(self) -> bool:
        """Its length is a clock length, known before it runs."""
        return self.io_bytes is None and not self.open_ended

    def text(self) -> str:
        """In words, for the line that opens a run: '60 s', '1.88 GiB of I/O + 60 s idle'."""
        if self.timed:
            return f"{self.seconds} s"
        if self.io_bytes is None:
            return "as long as its work takes"
        return f"{_size(self.io_bytes)} of I/O" + self._tail()

    def progress(self, phase_seconds: float, io_done: Optional[int]) -> str:
        """'31/60 s', or for a size-bound phase '85 s, 1.21/1.88 GiB + 60 s idle'."""
        if self.timed:
            return f"{phase_seconds:.0f}/{self.seconds} s"
        if self.io_bytes is None:
            return f"{phase_seconds:.0f} s (until its work is done)"
        done = _size(io_done, self.io_bytes).split()[0] if io_done is not None else "?"
        return f"{phase_seconds:.0f} s, {done}/{_size(self.io_bytes)}" + self._tail()

    def _tail(self) -> str:
        """' + 60 s idle (at most 300 s)': what a size-bound phase adds to its bytes."""
        text = f" + {self.seconds} s idle" if self.seconds else ""
        if self.at_most_s:
            text += f" (at most {self.at_most_s} s)"
        return text

    def allowance_s(self) -> int:
        """Seconds a job may need for this phase (its time limit is built on it)."""
        if self.budget_s is not None:
            return self.budget_s
        io_s = math.ceil((self.io_bytes or 0) / SLOW_BYTES_PER_S)
        return self.seconds + io_s if self.at_most_s is None else min(
            self.at_most_s, self.seconds + io_s)

    def params(self) -> dict:
        """What params.json records of the plan: the planned seconds (None when the phase
        ends with its I/O) and the planned I/O (None when it ends with the clock)."""
        return {"planned_workload_s": self.seconds if self.timed else None,
                "planned_io_bytes": self.io_bytes,
                "planned_idle_s": self.seconds if not self.timed and self.seconds else None,
                "planned_at_most_s": self.at_most_s}


def _size(value: int, scale_of: Optional[int] = None) -> str:
    """Bytes in GiB (or MiB below 1 GiB); scale_of: the number whose unit to use."""
    unit = GIB if (scale_of if scale_of is not None else value) >= GIB else MIB
    return f"{value / unit:.2f} {'GiB' if unit == GIB else 'MiB'}"


def parse(text: str, runtime: int) -> Length:
    """The `# length:` header with RUNTIME = runtime; LengthError when malformed."""
    seconds, io_bytes, open_ended = 0, None, False
    for term in text.split("+"):
        match = _TERM.match(term.strip())
        if not match:
            raise LengthError(f"'{term.strip()}' is not N x RUNTIME, RUNTIME / N, "
                              "SIZE of I/O or its work")
        times, divisor, size, unit, work = match.groups()
        if work is not None:
            open_ended = True
        elif size is not None:
            io_bytes = (io_bytes or 0) + int(size) * _SIZE_UNITS[unit.lower()]
        elif divisor is not None:
            if int(divisor) < 1:
                raise LengthError(f"'{term.strip()}': divides by zero")
            seconds += max(1, runtime // int(divisor))
        else:
            seconds += runtime * int(times or 1)
    return Length(seconds=seconds, io_bytes=io_bytes, open_ended=open_ended)


def measured_workload_seconds(stats_dir: Path) -> Optional[float]:
    """How long the `workload` phase ran: from its marker in phases.csv to the next
    phase's marker, or to the end of stats.csv when none followed; None without one."""
    phases = _rows(stats_dir / "phases.csv")
    starts = [i for i, row in enumerate(phases) if row.get("phase") == "workload"]
    if not starts:
        return None
    begin = _number(phases[starts[0]].get("time_s"))
    if starts[0] + 1 < len(phases):
        end = _number(phases[starts[0] + 1].get("time_s"))
    else:
        stats = _rows(stats_dir / "stats.csv")
        end = _number(stats[-1].get("time_s")) if stats else begin
    return round(max(0.0, end - begin), 1)


def _rows(path: Path) -> list:
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def _number(text: Optional[str]) -> float:
    try:
        return float(text or 0)
    except ValueError:
        return 0.0
