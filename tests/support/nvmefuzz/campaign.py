"""Runs seeds: each on a fresh QEMU, records generated and executed one by one until the
command budget is spent, then a final sync, an idle check and a SIGTERM exit. A failure
is minimised (optional) and saved as a replay file; the campaign goes on."""
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Collection, List, Optional

from . import ddmin, replay
from .executor import Executor
from .failure import Failure
from .generator import Generator
from .target import DEVICE_PROPS, start

FINALE = [{"a": "sync"}, {"a": "ring"}, {"a": "idle"}, {"a": "stop"}]


@dataclass
class SeedResult:
    seed: int
    sent: int
    seconds: float
    records: List[dict]
    failure: Optional[Failure] = None
    flood: int = 0                      # of the commands sent, in the pool flood
    replay_file: Optional[Path] = None
    minimized: Optional[int] = None     # records in the minimised replay


@dataclass
class Figures:
    seeds: int = 0
    commands: int = 0
    flood: int = 0
    seconds: float = 0.0            # fuzzing time (minimisation not included)
    by_category: dict = field(default_factory=lambda: {"crash": 0, "hang": 0,
                                                       "sanitizer": 0, "oracle": 0})
    results: List[SeedResult] = field(default_factory=list)

    def add(self, result: SeedResult) -> None:
        self.seeds += 1
        self.commands += result.sent
        self.flood += result.flood
        self.seconds += result.seconds
        self.results.append(result)
        if result.failure:
            self.by_category[result.failure.category] += 1

    def summary(self) -> str:
        rate = self.commands / self.seconds if self.seconds else 0.0
        c = self.by_category
        return (f"seeds {self.seeds}, commands {self.commands} ({self.flood} in pool floods), "
                f"crashes {c['crash']}, "
                f"hangs {c['hang']}, sanitizer reports {c['sanitizer']}, oracle failures "
                f"{c['oracle']}, {rate:.0f} commands/s")


def run_seed(qemu: Path, seed: int, commands: int, deadline: float = 10.0,
             skip: Collection[str] = (), props: str = DEVICE_PROPS) -> SeedResult:
    started = time.monotonic()
    records: List[dict] = []
    target = start(qemu, props=props)
    ex = None
    failure = None
    try:
        ex = Executor(target, deadline)
        gen = Generator(random.Random(seed), ex.m, target.nvme.bars.values(), skip)
        for rec in gen.records():
            records.append(rec)
            ex.run(rec, len(records) - 1)
            if rec["a"] == "sync" and ex.sent - ex.flood_sent >= commands:
                break       # a flood's 20k flushes do not count against the budget
        for rec in FINALE:
            records.append(rec)
            ex.run(rec, len(records) - 1)
    except Failure as exc:
        failure = exc
    finally:
        target.close()
    return SeedResult(seed, ex.sent if ex else 0, time.monotonic() - started, records, failure,
                      ex.flood_sent if ex else 0)


def same_failure(qemu: Path, kind: str, deadline: float,
                 runs: int = 2) -> Callable[[List[dict]], bool]:
    """A test for ddmin: the records fail the same way `runs` times in a row (a failure
    that depends on a race must not let ddmin keep a list that fails once in ten)."""
    def fails(records: List[dict]) -> bool:
        for _ in range(runs):
            failure, _ = replay.execute(qemu, records, deadline)
            if failure is None or failure.kind != kind:
                return False
        return True
    return fails


def keep_finding(result: SeedResult, qemu: Path, findings: Path, minimize: bool,
                 deadline: float, budget: float, log: Callable[[str], None]) -> None:
    """Cut the record list at the failure, minimise it, save it for --replay."""
    failure = result.failure
    records = result.records[:failure.index + 1] if failure.index >= 0 else result.records
    if minimize:
        fails = same_failure(qemu, failure.kind, deadline)
        if fails(records):
            records = ddmin.minimize(records, fails, budget, log)
            if not same_failure(qemu, failure.kind, deadline, runs=3)(records):
                log("  the minimised list does not fail every time (a race): saved anyway")
        else:
            log("  the cut record list did not fail twice on replay (a race?): kept whole")
            records = result.records
    path = findings / f"seed{result.seed}-{failure.kind}.jsonl"
    replay.save(path, {"seed": result.seed, "kind": failure.kind,
                       "message": failure.message, "deadline": deadline}, records)
    result.replay_file, result.minimized = path, len(records)
