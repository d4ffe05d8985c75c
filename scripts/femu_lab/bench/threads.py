"""QEMU's CPU time per thread, from the host: /proc/PID/task/*/stat read at two moments,
each thread put in a group by its name. QEMU names its threads only when started with
`-name LABEL,debug-threads=on` (NAME_ARGUMENTS); without it every thread carries the
process's name and all but the main thread land in "other".

    poller  femu's "femu-poller" (upstream FEMU's pollers have the same name)
    ftl     femu's "femu-ftl", upstream FEMU's "FEMU-FTL-Thread"
    vcpu    QEMU's vCPU threads, "CPU N/TCG" or "CPU N/KVM"
    main    the main loop: the thread whose id is the process's
    other   the rest (femu-save, worker pools, RCU, ...): the process's total less the
            named groups, so threads that ended inside the window still count
"""
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Mapping, Tuple

GROUPS = ("poller", "ftl", "vcpu", "main", "other")
TOTAL = "total"
NAME_ARGUMENTS = ("-name", "{label},debug-threads=on")


def name_arguments(label: str) -> list:
    """QEMU's arguments that give its threads their names (label: the device's name)."""
    return [NAME_ARGUMENTS[0], NAME_ARGUMENTS[1].format(label=label)]


def parse_stat(text: str) -> Tuple[str, int]:
    """(command name, utime + stime in clock ticks) of one /proc stat line. The name sits
    between the first '(' and the last ')' and may itself hold blanks and parentheses;
    the numbered fields are counted after that last ')'."""
    try:
        opening, closing = text.index("("), text.rindex(")")
        fields = text[closing + 2:].split()
        return text[opening + 1:closing], int(fields[11]) + int(fields[12])
    except (ValueError, IndexError):
        raise ValueError(f"not a /proc stat line: {text.strip()[:60]!r}") from None


def group_of(comm: str, tid: int, pid: int) -> str:
    """The group (GROUPS) of the thread `tid` named `comm` in process `pid`. The kernel
    keeps 15 bytes of a name: prefixes only."""
    lower = comm.lower()
    if tid == pid:
        return "main"
    if lower.startswith("femu-poller"):
        return "poller"
    if lower.startswith("femu-ftl"):
        return "ftl"
    if comm.startswith("CPU ") and "/" in comm:
        return "vcpu"
    return "other"


@dataclass(frozen=True)
class Sample:
    """One reading of a process: its own utime + stime (every thread it ever had) and each
    live thread's name and ticks."""
    process_ticks: int
    threads: Mapping[int, Tuple[str, int]]     # tid -> (comm, ticks)


def sample(pid: int, proc: Path = Path("/proc")) -> Sample:
    """Reads process `pid` now. A thread that ends while its folder is read is skipped
    (its time is in the process's total). OSError when the process is gone."""
    threads: Dict[int, Tuple[str, int]] = {}
    for task in (proc / str(pid) / "task").iterdir():
        try:
            threads[int(task.name)] = parse_stat((task / "stat").read_text())
        except (OSError, ValueError):
            continue
    _, process_ticks = parse_stat((proc / str(pid) / "stat").read_text())
    return Sample(process_ticks, threads)


def window_ticks(before: Sample, after: Sample, pid: int) -> Dict[str, int]:
    """Ticks of each group and of the process (TOTAL) between two samples; a named group
    without a thread (stock nvme has no poller) is absent, not 0. A thread born inside
    the window counts from 0. "other" is the total less the named groups, never below 0
    (a sample reads the threads and the process a moment apart)."""
    ticks: Dict[str, int] = {}
    for tid, (comm, now) in after.threads.items():
        group = group_of(comm, tid, pid)
        if group != "other":
            ticks[group] = ticks.get(group, 0) + now - before.threads.get(tid, (comm, 0))[1]
    total = after.process_ticks - before.process_ticks
    ticks["other"] = max(0, total - sum(ticks.values()))
    ticks[TOTAL] = total
    return ticks


def ticks_per_second() -> int:
    return os.sysconf("SC_CLK_TCK")
