"""The soak's figures per pattern and the table it prints."""
from dataclasses import dataclass, field
from typing import Dict, Iterable, List

from .boot import BootOutcome


@dataclass
class PatternTotals:
    pattern: str
    boots: int = 0
    guest_boots: int = 0          # a reboot boot counts each guest start
    events: int = 0
    unplugs: int = 0              # device_del commands QEMU accepted (device-del-add)
    crashes: int = 0              # boots with at least one crash
    mismatches: int = 0           # blocks / MiB, summed over boots
    timeouts: int = 0             # nvme I/O timeout lines, summed over boots
    hangs: int = 0                # boots with at least one hang
    failed_boots: int = 0
    walls: List[float] = field(default_factory=list)

    def add(self, outcome: BootOutcome) -> None:
        self.boots += 1
        self.guest_boots += outcome.facts.guest_boots
        self.events += len(outcome.facts.events)
        self.unplugs += outcome.unplugs
        self.crashes += bool(outcome.crashes)
        self.mismatches += outcome.facts.mismatches
        self.timeouts += len(outcome.facts.timeouts)
        self.hangs += bool(outcome.hangs)
        self.failed_boots += not outcome.ok
        self.walls.append(outcome.wall_seconds)

    def as_dict(self) -> Dict[str, object]:
        walls = self.walls or [0.0]
        return {"boots": self.boots, "guest_boots": self.guest_boots, "events": self.events,
                "unplugs": self.unplugs, "crashes": self.crashes, "mismatches": self.mismatches,
                "timeouts": self.timeouts, "hangs": self.hangs,
                "failed_boots": self.failed_boots,
                "wall_seconds_mean": round(sum(walls) / len(walls), 1),
                "wall_seconds_max": round(max(walls), 1)}


COLUMNS = ["pattern", "boots", "guest_boots", "events", "unplugs", "crashes", "mismatches",
           "timeouts", "hangs", "failed_boots"]


def table(totals: Iterable[PatternTotals]) -> str:
    rows = [COLUMNS + ["wall/boot mean", "max"]]
    for t in totals:
        d = t.as_dict()
        rows.append([t.pattern] + [str(d[c]) for c in COLUMNS[1:]]
                    + [f"{d['wall_seconds_mean']:.1f} s", f"{d['wall_seconds_max']:.1f} s"])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(row, widths))) for row in rows]
    lines.append("(timeouts: nvme 'I/O ... timeout' lines in dmesg; failures only in "
                 "poweroff and reboot, reported for the reset patterns)")
    return "\n".join(lines)
