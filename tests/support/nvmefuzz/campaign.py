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

# Variants (--variant): device properties, some by seed. zns: the zoned namespace under a
# zone limit setting picked by the seed (none, small, one open zone, open = active), a
# state_out with a QMP monitor (C2h, QMP save-state); its flash is 8 zones of 2 MiB on top
# of the conventional 64 MiB.
FTL_VARIANT = (DEVICE_PROPS + ",mapping=dftl,cmt_entries=1024,write_buffer_sectors=64,"
               "buf_flush_pcent=50,gc_unit=block,gc_mode=line")
ZONE_LIMITS = [(0, 0), (2, 3), (1, 1), (3, 3), (1, 4), (4, 0)]


def zns_props(seed: int) -> str:
    max_open, max_active = ZONE_LIMITS[seed % len(ZONE_LIMITS)]
    limits = "".join(f",{k}={v}" for k, v in (("max_open", max_open),
                                               ("max_active", max_active)) if v)
    return DEVICE_PROPS + ",zoned=on,zones=8" + limits + ",state_out=@"


def variant_props(name: str, seed: int) -> str:
    return {"default": DEVICE_PROPS, "ftl": FTL_VARIANT}.get(name) or zns_props(seed)

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
    props: str = DEVICE_PROPS
    stalls: Optional[object] = None     # target.Stalls: the longest register write, QMP


@dataclass
class Figures:
    seeds: int = 0
    commands: int = 0
    flood: int = 0
    seconds: float = 0.0            # fuzzing time (minimisation not included)
    max_reg: float = 0.0            # the longest BAR0 register write (s) and what it was
    max_reg_what: str = ""
    max_qmp: float = 0.0            # the longest QMP command (s)
    max_qmp_what: str = ""
    reg_writes: int = 0
    qmp_commands: int = 0
    reg_slow: int = 0               # register writes / QMP commands of 100 ms or more
    qmp_slow: int = 0
    by_category: dict = field(default_factory=lambda: {"crash": 0, "hang": 0,
                                                       "sanitizer": 0, "oracle": 0})
    results: List[SeedResult] = field(default_factory=list)

    def add(self, result: SeedResult) -> None:
        self.seeds += 1
        self.commands += result.sent
        self.flood += result.flood
        self.seconds += result.seconds
        self.results.append(result)
        st = result.stalls
        if st is not None:
            self.reg_writes += st.regs
            self.qmp_commands += st.qmps
            self.reg_slow += st.reg_slow
            self.qmp_slow += st.qmp_slow
            if st.reg > self.max_reg:
                self.max_reg, self.max_reg_what = st.reg, f"seed {result.seed}: {st.reg_what}"
            if st.qmp > self.max_qmp:
                self.max_qmp, self.max_qmp_what = st.qmp, f"seed {result.seed}: {st.qmp_what}"
        if result.failure:
            self.by_category[result.failure.category] += 1

    def summary(self) -> str:
        rate = self.commands / self.seconds if self.seconds else 0.0
        c = self.by_category
        return (f"seeds {self.seeds}, commands {self.commands} ({self.flood} in pool floods), "
                f"crashes {c['crash']}, "
                f"hangs {c['hang']}, sanitizer reports {c['sanitizer']}, oracle failures "
                f"{c['oracle']}, {rate:.0f} commands/s; longest register write "
                f"{self.max_reg * 1000:.1f} ms of {self.reg_writes} ({self.reg_slow} of "
                f">= 100 ms; {self.max_reg_what}), longest QMP command "
                f"{self.max_qmp * 1000:.1f} ms of {self.qmp_commands} ({self.qmp_slow} of "
                f">= 100 ms; {self.max_qmp_what or 'none'})")


def run_seed(qemu: Path, seed: int, commands: int, deadline: float = 10.0,
             skip: Collection[str] = (), props: str = DEVICE_PROPS) -> SeedResult:
    started = time.monotonic()
    records: List[dict] = []
    target = start(qemu, props=props)
    ex = None
    failure = None
    try:
        ex = Executor(target, deadline)
        gen = Generator(random.Random(seed), ex.m, target.nvme.bars.values(), skip,
                        target.variant)
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
                      ex.flood_sent if ex else 0, props=props, stalls=target.stalls)


def same_failure(qemu: Path, kind: str, deadline: float, runs: int = 2,
                 props: str = DEVICE_PROPS) -> Callable[[List[dict]], bool]:
    """A test for ddmin: the records fail the same way `runs` times in a row (a failure
    that depends on a race must not let ddmin keep a list that fails once in ten)."""
    def fails(records: List[dict]) -> bool:
        for _ in range(runs):
            failure, _ = replay.execute(qemu, records, deadline, props=props)
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
        fails = same_failure(qemu, failure.kind, deadline, props=result.props)
        if fails(records):
            records = ddmin.minimize(records, fails, budget, log)
            if not same_failure(qemu, failure.kind, deadline, runs=3,
                                props=result.props)(records):
                log("  the minimised list does not fail every time (a race): saved anyway")
        else:
            log("  the cut record list did not fail twice on replay (a race?): kept whole")
            records = result.records
    path = findings / f"seed{result.seed}-{failure.kind}.jsonl"
    replay.save(path, {"seed": result.seed, "kind": failure.kind,
                       "message": failure.message, "deadline": deadline,
                       "props": result.props}, records)
    result.replay_file, result.minimized = path, len(records)
