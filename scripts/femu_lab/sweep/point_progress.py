"""A line now and then while a simulated sweep point runs, so a point of a minute is not
silent: after FIRST_S seconds, then every EVERY_S, the wall time so far and how far the
simulation got, read from the statistics ftl-sim writes as it goes (stats.csv grows a row
per simulated second; phases.csv marks the workload's start):

    femu-lab: [2/4] hot_threshold=6: 15 s so far, simulated 120/300 s of the workload

A point that ends within FIRST_S says nothing here.
"""
import threading
import time
from pathlib import Path
from typing import Callable, Optional

from ..length import measured_workload_seconds

FIRST_S = 5.0
EVERY_S = 10.0


def describe(stats_dir: Path, elapsed: float, total_s: Optional[int]) -> str:
    simulated = measured_workload_seconds(stats_dir)
    text = f"{elapsed:.0f} s so far"
    if simulated is None:
        return text + ", before the workload (preconditioning)"
    of = f"/{total_s}" if total_s else ""
    return text + f", simulated {simulated:.0f}{of} s of the workload"


class PointProgress(threading.Thread):
    def __init__(self, say: Callable[[str], None], prefix: str, stats_dir: Path,
                 total_s: Optional[int]):
        super().__init__(daemon=True)
        self.say, self.prefix, self.stats_dir, self.total_s = say, prefix, stats_dir, total_s
        self.first, self.every = FIRST_S, EVERY_S
        self._done = threading.Event()
        self.started = time.monotonic()

    def run(self) -> None:
        wait = self.first
        while not self._done.wait(wait):
            elapsed = time.monotonic() - self.started
            self.say(f"{self.prefix}: {describe(self.stats_dir, elapsed, self.total_s)}")
            wait = self.every

    def stop(self) -> None:
        self._done.set()
        self.join(timeout=5)
