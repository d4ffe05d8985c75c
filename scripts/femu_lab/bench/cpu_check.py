"""The CPU-per-I/O check of `femu-lab bench`: femu's figure of each thread and job may
exceed the reference by at most 20 % (LIMIT), plus one clock tick per I/O of this run
(the resolution of the figure: without it a thread that used 0 ticks in the reference
and 1 now would fail on rounding).

    with --cpu-baseline FILE   the reference is femu's medians in FILE (an earlier
                               --json): poller, ftl thread and QEMU outside its vCPUs at
                               each job
    without                    the reference is stock nvme's QEMU outside its vCPUs in this
                               run, for femu's at each job (stock has no poller or FTL
                               thread to hold femu's against)

Not the QEMU total: under TCG most of it is the vCPUs running the guest's own work (fio,
its kernel), whose cost per I/O swings with the guest's latency and the host's load.

A figure missing on either side is a MISSING line, never a PASS.
"""
import json
from dataclasses import dataclass
from pathlib import Path
from typing import List, Mapping, Optional

from femu_common.cli_args import UsageError

from .cpu_figures import CPU_JOBS, OUTSIDE_VCPU, TICK, cpu_key

LIMIT = 1.2
# (key, name); the last is also the one held against stock's
CHECKED_GROUPS = (("poller", "poller"), ("ftl", "ftl thread"),
                  (OUTSIDE_VCPU, "QEMU outside vCPUs"))


@dataclass(frozen=True)
class CpuCheck:
    what: str                   # e.g. "femu poller CPU per I/O at randread 4k QD1"
    value: Optional[float]      # us
    reference: Optional[float]  # us
    reference_name: str         # "baseline" | "stock"
    tick: Optional[float]       # us: one clock tick per I/O of this run

    @property
    def limit(self) -> Optional[float]:
        if self.reference is None or self.value is None:
            return None
        return LIMIT * self.reference + (self.tick or 0.0)

    @property
    def status(self) -> str:
        if self.limit is None:
            return "MISSING"
        return "PASS" if self.value <= self.limit else "FAIL"

    def line(self) -> str:
        def us(value: Optional[float]) -> str:
            return "-" if value is None else f"{value:.2f} us"
        if self.status == "MISSING":
            absent = "this run" if self.value is None else self.reference_name
            return (f"MISSING  {self.what}: {us(self.value)}, {self.reference_name} "
                    f"{us(self.reference)} (no figure in {absent})")
        return (f"{self.status}  {self.what}: {us(self.value)} <= {LIMIT:g} x "
                f"{self.reference_name} {us(self.reference)} + {us(self.tick)} (one tick) "
                f"= {us(self.limit)}")


def baseline_checks(femu: Mapping[str, Optional[float]],
                    baseline: Mapping[str, Optional[float]]) -> List[CpuCheck]:
    """femu's poller, ftl thread and QEMU outside vCPUs at each job against the
    baseline's."""
    return [CpuCheck(f"femu {name} CPU per I/O at {label}", femu.get(cpu_key(job, group)),
                     baseline.get(cpu_key(job, group)), "baseline",
                     femu.get(cpu_key(job, TICK)))
            for job, label in CPU_JOBS for group, name in CHECKED_GROUPS]


def stock_checks(femu: Mapping[str, Optional[float]],
                 stock: Mapping[str, Optional[float]]) -> List[CpuCheck]:
    """femu's QEMU outside vCPUs at each job against stock's in the same run."""
    key, name = CHECKED_GROUPS[-1]
    return [CpuCheck(f"femu {name} CPU per I/O at {label}", femu.get(cpu_key(job, key)),
                     stock.get(cpu_key(job, key)), "stock", femu.get(cpu_key(job, TICK)))
            for job, label in CPU_JOBS]


def load_baseline(path: Path) -> Mapping[str, Optional[float]]:
    """femu's medians from an earlier `femu-lab bench --json`; UsageError (one line) when
    the file is unreadable or has none."""
    try:
        report = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UsageError(f"--cpu-baseline {path}: {error}") from None
    medians = report.get("medians") if isinstance(report, dict) else None
    femu = medians.get("femu") if isinstance(medians, dict) else None
    if not isinstance(femu, dict):
        raise UsageError(f"--cpu-baseline {path}: no medians.femu in it (not the --json "
                         "of femu-lab bench?)")
    return femu
