"""Host CPU per completed I/O, in microseconds, for each thread group of QEMU and each
measured job: a window's ticks (cpu_windows) over the I/Os the device completed in it.
Pure arithmetic: no guest, no clock.

One boot's figures are flat keys (cpu_key) so that medians over rounds and the table
treat them as every other figure; the per-window detail (seconds, I/Os, ticks) goes to
--json under "cpu".
"""
from typing import Dict, List, Mapping, Optional, Tuple

from .cpu_windows import Window
from .threads import GROUPS, TOTAL

US_PER_SECOND = 1e6

# the jobs whose CPU per I/O the table shows: job name -> label
CPU_JOBS = (("randread1", "randread 4k QD1"),
            ("randread32", "randread 4k QD32"),
            ("randwrite", "randwrite 4k QD32"))
# the process less its vCPU threads: the device's side (its threads, the main loop,
# workers) without the guest's own work, which under TCG dominates the total
OUTSIDE_VCPU = "outside_vcpu"
CPU_GROUPS = GROUPS + (OUTSIDE_VCPU, TOTAL)
TICK = "tick"      # one clock tick per I/O of the window: the resolution of the others


def cpu_key(job: str, group: str) -> str:
    return f"cpu_{job}_{group}_us"


CPU_KEYS = tuple(cpu_key(job, group) for job, _ in CPU_JOBS for group in CPU_GROUPS + (TICK,))


def us_per_io(window: Window, ticks_per_second: int) -> Dict[str, float]:
    """Microseconds of host CPU per completed I/O of each group the process has,
    OUTSIDE_VCPU (when it has vCPU threads), TOTAL, and TICK (what one tick adds to any of
    them). ValueError for a window without I/Os."""
    if window.ios <= 0:
        raise ValueError(f"{window.job}: the device completed {window.ios} I/Os in its "
                         "window")
    tick_us = US_PER_SECOND / ticks_per_second
    ticks = dict(window.ticks)
    if "vcpu" in ticks:
        ticks[OUTSIDE_VCPU] = ticks[TOTAL] - ticks["vcpu"]
    figures = {group: ticks[group] * tick_us / window.ios for group in CPU_GROUPS
               if group in ticks}
    figures[TICK] = tick_us / window.ios
    return figures


def boot_cpu_figures(windows: Mapping[str, Window], fio_ios: Mapping[str, Optional[int]],
                     ticks_per_second: int) -> Tuple[Dict[str, float], Dict[str, dict],
                                                     List[str]]:
    """(flat figures by cpu_key, detail per window, notes) of one boot. fio_ios: the I/Os
    fio reported for each job (its ramp excluded), a lower bound of the device's count
    over the window: a window that counted fewer is dropped with a note, as is a job of
    CPU_JOBS without a window."""
    flat: Dict[str, float] = {}
    detail: Dict[str, dict] = {}
    notes: List[str] = []
    for job, window in windows.items():
        detail[job] = {"seconds": round(window.seconds, 3), "ios": window.ios,
                       "fio_ios": fio_ios.get(job), "ticks": dict(window.ticks)}
    for job, _ in CPU_JOBS:
        window = windows.get(job)
        if window is None:
            notes.append(f"CPU of {job}: no window")
            continue
        reported = fio_ios.get(job)
        if reported is not None and window.ios < reported:
            notes.append(f"CPU of {job}: the device completed {window.ios} I/Os in the "
                         f"window, fewer than fio's {reported}: not counted")
            continue
        try:
            figures = us_per_io(window, ticks_per_second)
        except ValueError as error:
            notes.append(f"CPU of {error}: not counted")
            continue
        detail[job]["us_per_io"] = {group: round(value, 3) for group, value in figures.items()}
        flat.update({cpu_key(job, group): value for group, value in figures.items()})
    return flat, detail, notes
