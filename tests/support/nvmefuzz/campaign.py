"""Runs seeds: each on a fresh QEMU, records generated and executed one by one until the
command budget is spent, then a final sync, an idle check and a SIGTERM exit. A failure
is minimised (optional) and saved as a replay file; the campaign goes on."""
import csv
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


# fdp: Flexible Data Placement on a smaller flash (52 lines of 2 MiB under the same 64 MiB
# of namespaces) so GC runs within a seed; the seed picks the handles, their type (16
# handles only persistently isolated: initial ones take a GC write pointer more), a time
# limit now and then, line or block reclaim units, paced or line GC (the exact handle
# checks need line GC: paced GC counts a moved page when it charges its flash time), and
# how early GC starts.
FDP_RUHS = [4, 1, 8, 2, 16, 3, 15]
FDP_TIME_LIMITS = [0, 0, 1, 0, 3]
FDP_GC_THRES = [75, 40, 20]


def fdp_props(seed: int) -> str:
    ruhs = FDP_RUHS[seed % len(FDP_RUHS)]
    initial = (seed // len(FDP_RUHS)) % 2 == 1
    if initial and ruhs == 16:
        ruhs = 15
    props = (f",placement=fdp,blks_per_pl=52,fdp_ruhs={ruhs},"
             f"fdp_ruh_type={'initial' if initial else 'persistent'},"
             f"gc_thres_pcent={FDP_GC_THRES[(seed // 3) % len(FDP_GC_THRES)]}")
    limit = FDP_TIME_LIMITS[seed % len(FDP_TIME_LIMITS)]
    if limit:
        props += f",fdp_ru_time_limit_s={limit}"
    if seed % 3 == 1:
        props += ",gc_unit=block,gc_mode=line"
    elif seed % 3 == 2:
        props += ",gc_mode=line"
    return DEVICE_PROPS + props


# ftl: one seed in four programs a page in 500 us instead of 5 us, so a power cut (pcut)
# finds programs in flight and tears pages (they read Unrecovered Read Error until
# rewritten).
SLOW_PROGRAM = ",pg_wr_lat=500000"


def ftl_props(seed: int) -> str:
    return FTL_VARIANT + (SLOW_PROGRAM if seed % 4 == 0 else "")


# kv: the Key Value namespace (kv_ns_mb, NSID 3) beside the two NVM ones; the seed picks
# its size. No state_out: a device state file does not hold KV namespaces yet.
KV_MIB = [4, 2, 8]
KV_COUNTERS = ("kv_stores", "kv_retrieves", "kv_deletes", "kv_exists", "kv_lists")


def kv_props(seed: int) -> str:
    return DEVICE_PROPS + f",kv_ns_mb={KV_MIB[seed % len(KV_MIB)]}"


def variant_props(name: str, seed: int) -> str:
    if name == "kv":
        return kv_props(seed)
    if name == "fdp":
        return fdp_props(seed)
    if name == "ftl":
        return ftl_props(seed)
    return DEVICE_PROPS if name == "default" else zns_props(seed)

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
    gc_runs: int = 0                    # collections the FTL made (stats.csv at the exit)
    fdp: Optional[dict] = None          # with FDP: checks done, exact ones, changes made
    power_cuts: int = 0                 # QMP power cuts made and checked (pcut)
    cut_lost: int = 0                   # buffered sectors they lost
    cut_torn: int = 0                   # pages they tore
    kv_ops: Optional[dict] = None       # with a KV namespace: the FTL's KV_COUNTERS


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
    gc_seeds: int = 0               # seeds in which the FTL collected
    gc_runs: int = 0
    fdp: dict = field(default_factory=dict)     # FDP checks, exact ones, changes (summed)
    power_cuts: int = 0             # QMP power cuts made and checked (pcut)
    power_cut_seeds: int = 0        # seeds that cut at least once
    cut_lost: int = 0               # buffered sectors the cuts lost
    cut_torn: int = 0               # pages the cuts tore
    by_category: dict = field(default_factory=lambda: {"crash": 0, "hang": 0,
                                                       "sanitizer": 0, "oracle": 0})
    results: List[SeedResult] = field(default_factory=list)

    def add(self, result: SeedResult) -> None:
        self.seeds += 1
        self.commands += result.sent
        self.flood += result.flood
        self.seconds += result.seconds
        self.results.append(result)
        self.gc_seeds += result.gc_runs > 0
        self.gc_runs += result.gc_runs
        self.power_cuts += result.power_cuts
        self.power_cut_seeds += result.power_cuts > 0
        self.cut_lost += result.cut_lost
        self.cut_torn += result.cut_torn
        for key, value in (result.fdp or {}).items():
            self.fdp[key] = self.fdp.get(key, 0) + value
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
                f">= 100 ms; {self.max_qmp_what or 'none'}); GC ran in {self.gc_seeds} of "
                f"{self.seeds} seeds ({self.gc_runs} collections); power cuts "
                f"{self.power_cuts} in {self.power_cut_seeds} seeds ({self.cut_lost} "
                f"buffered sectors lost, {self.cut_torn} pages torn)" +
                (f"; FDP checks {self.fdp.get('checks', 0)} ({self.fdp.get('exact', 0)} "
                 f"update/write checks exact to the page, {self.fdp.get('time_limits', 0)} "
                 f"time limits waited out), configuration changes "
                 f"{self.fdp.get('changes', 0)}" if self.fdp else ""))


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
        gc_runs = _stats_sum(target.stats_dir / "stats.csv", "gc_runs")
        kv_ops = {c: _stats_sum(target.stats_dir / "stats.csv", c) for c in KV_COUNTERS} \
            if target.variant.kv else None
        target.close()
    fdp = None
    if ex is not None and target.variant.fdp is not None:
        fdp = {"checks": ex.fdpchecks, "exact": ex.fdp_exact, "changes": ex.fdp_changes,
               "time_limits": ex.fdp_time_limits}
    return SeedResult(seed, ex.sent if ex else 0, time.monotonic() - started, records, failure,
                      ex.flood_sent if ex else 0, props=props, stalls=target.stalls,
                      gc_runs=gc_runs, fdp=fdp, power_cuts=ex.power_cuts if ex else 0,
                      cut_lost=ex.cut_lost_sectors if ex else 0,
                      cut_torn=ex.cut_torn_pages if ex else 0, kv_ops=kv_ops)


def _stats_sum(path: Path, column: str) -> int:
    """A counter column of stats.csv (written each second and at the exit) summed, e.g.
    the collections (gc_runs); 0 when it is not there or cannot be read."""
    try:
        with open(path, newline="") as f:
            return sum(int(row.get(column) or 0) for row in csv.DictReader(f))
    except (OSError, ValueError):
        return 0


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
