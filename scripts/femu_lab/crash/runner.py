"""One configuration of the crash-consistency lab: a machine that reboots, a device that
loses power CUTS times.

The guest job (femu_lab.crash.guest) runs at every boot. When a boot's writers start
(`crashlab: workload-start`), the host arms the device's cut after a number of
acknowledged writes drawn from the seed (QMP power-cut after-writes=N: the cut comes at
a point of the write stream, however fast the guest runs); when power-cut-status says it
happened, the host resets the machine (QMP system_reset), and the guest boots again with
the device as the cut left it (its data, its FTL; page cache and all guest state gone).
The next boot's check is judged against what the last boot reported durable
(femu_lab.crash.verdict). After the last cut's check, QEMU is told to quit.
"""
import random
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional

from femu_common.errors import RunFailure

from ..file_tail import FileTail
from ..soak.boot import SOAK_SSD
from ..vm.qmp import Qmp, QmpError, qmp_args
from ..vm import launch as vm
from . import guest
from ..run.cut_spec import DEV_ID, DEV_PATH
from .verdict import ConsoleError, ConsoleParser, CutVerdict, judge

# The soak's small SSD (96 MiB logical, short latencies: quick under TCG) with a 4 MiB
# DRAM write buffer that flushes only when full, so what a file system leaves unflushed
# stays volatile until the cut.
CRASH_SSD: Dict[str, object] = {**SOAK_SSD, "write_buffer_sectors": 8192,
                                "buf_flush_pcent": 100}
# The cut comes after this many acknowledged writes since the writers started (drawn
# from the seed): past the file system's first commits, before the log grows long.
CUT_AFTER_WRITES = (40, 400)
POLL_SECONDS = 0.1
CUT_DEADLINE_SECONDS = 900      # the armed writes must come by then (TCG, a loaded host)
BOOT_DEADLINE_SECONDS = 900     # a cut to the next boot's check


class CrashLabError(RunFailure):
    """A configuration could not be run to the end (one line)."""


@dataclass(frozen=True)
class CrashConfig:
    fs: str
    barriers: bool
    plp: bool

    @property
    def name(self) -> str:
        return (f"{self.fs}-barriers-{'on' if self.barriers else 'off'}-"
                f"plp-{'on' if self.plp else 'off'}")

    @property
    def loss_expected(self) -> bool:
        """Without barriers nothing forces the cache; without plp the cut loses it."""
        return not self.barriers and not self.plp


@dataclass
class ConfigResult:
    config: CrashConfig
    verdicts: List[CutVerdict] = field(default_factory=list)
    cut_statuses: List[str] = field(default_factory=list)
    cycle_seconds: List[float] = field(default_factory=list)   # a cut to the next check
    wall_seconds: float = 0.0
    accel: str = ""


class _Host:
    """The host's part, driven by console lines: arm, reset, judge, quit."""

    def __init__(self, socket_path: Path, cuts: int, seed: int, alive: Callable[[], bool]):
        self.socket_path, self.cuts, self.alive = socket_path, cuts, alive
        self.rng = random.Random(seed)
        self.parser = ConsoleParser()
        self.qmp: Optional[Qmp] = None
        self.armed = 0              # cuts armed so far
        self.done = 0               # cuts seen in power-cut-status
        self.cut_at: Dict[int, float] = {}
        self.armed_at: Dict[int, float] = {}
        self.statuses: List[str] = []
        self.verdicts: List[CutVerdict] = []
        self.cycles: List[float] = []
        self.finished = False

    def _q(self) -> Qmp:
        if self.qmp is None:
            self.qmp = Qmp(self.socket_path, alive=self.alive)
        return self.qmp

    def step(self, lines: List[str]) -> None:
        for line in lines:
            self.parser.feed(line)
        boots, now = self.parser.boots, time.monotonic()
        k = self.armed
        if k < self.cuts and len(boots) == k + 1 and boots[k].started:
            n = self.rng.randint(*CUT_AFTER_WRITES)
            self._q().execute("qom-set", path=DEV_PATH, property="power-cut",
                              value=f"after-writes={n}")
            self.armed, self.armed_at[k + 1] = k + 1, now
        if self.done < self.armed:
            status = self._q().execute("qom-get", path=DEV_PATH, property="power-cut-status")
            if status.startswith("failed"):
                raise CrashLabError(f"power cut {self.armed}: {status}")
            if status.startswith(f"cut {self.armed} "):
                self._q().execute("system_reset")
                self.done, self.cut_at[self.armed] = self.armed, now
                self.statuses.append(status)
            elif now - self.armed_at[self.armed] > CUT_DEADLINE_SECONDS:
                raise CrashLabError(f"cut {self.armed} armed {CUT_DEADLINE_SECONDS} s ago "
                                    f"has not come (status: {status})")
        judged = len(self.verdicts)
        if judged < self.done and len(boots) >= judged + 2 and boots[judged + 1].checked:
            self.verdicts.append(judge(boots[judged], boots[judged + 1]))
            self.cycles.append(now - self.cut_at[judged + 1])
            if len(self.verdicts) == self.cuts:
                self.finished = True
                self._q().execute("quit")
        elif judged < self.done and now - self.cut_at[judged + 1] > BOOT_DEADLINE_SECONDS:
            raise CrashLabError(f"the boot after cut {judged + 1} did not report its check "
                                f"within {BOOT_DEADLINE_SECONDS} s")

    def quit(self) -> None:
        """End QEMU now (a configuration that cannot go on)."""
        try:
            self._q().execute("quit")
        except (QmpError, OSError):
            pass    # gone already; the host deadline ends it otherwise

    def close(self) -> None:
        if self.qmp is not None:
            self.qmp.close()


def config_props(device: Dict[str, object], plp: bool) -> Dict[str, str]:
    """The -device properties of one configuration: the lab's SSD with its plp setting
    (the lab checks each with this too, so --set keys meet the plp they will run with)."""
    return {**{key: str(value) for key, value in device.items()},
            "plp": "on" if plp else "off"}


def run_config(config: CrashConfig, qemu: Path, folder: Path, cuts: int, seed: int,
               device: Dict[str, object], accel_choice: str = "auto",
               kernel: Optional[Path] = None, initramfs: Optional[Path] = None,
               say: Callable[[str], None] = lambda m: None) -> ConfigResult:
    """CUTS cuts of one configuration; the folder keeps console.log and stats/ (the
    device's power_cuts.csv and power_cut_lost.csv)."""
    folder.mkdir(parents=True, exist_ok=True)
    stats = folder / "stats"
    sock_dir = Path(tempfile.mkdtemp(prefix="femu-crash-"))    # unix socket paths are short
    socket_path = sock_dir / "qmp.sock"
    props = config_props(device, config.plp)
    spec = vm.VmSpec(job=guest.job(config.fs, config.barriers), qemu=str(qemu),
                     kernel=kernel, initramfs=initramfs,
                     device_args=vm.femu_args(stats_dir=stats, id=DEV_ID, **props),
                     extra_args=qmp_args(socket_path), job_timeout=0,
                     timeout=BOOT_DEADLINE_SECONDS * (cuts + 1), reboot=True,
                     accel=accel_choice)
    box: Dict[str, object] = {}

    def boot() -> None:
        try:
            box["result"] = vm.run(spec, folder, quiet=True)
        except BaseException as error:   # reported in the caller's thread
            box["error"] = error

    started = time.monotonic()
    runner = threading.Thread(target=boot, name=f"crash-{config.name}", daemon=True)
    runner.start()
    tail = FileTail(folder / "console.log")
    host = _Host(socket_path, cuts, seed, runner.is_alive)
    failure: Optional[str] = None
    try:
        while runner.is_alive():
            runner.join(POLL_SECONDS)
            try:
                host.step(tail.lines())
            except (QmpError, ConsoleError, CrashLabError) as error:
                failure = str(error)
                host.finished = False
                host.quit()
                break
            say(f"{config.name}: cut {host.done} of {cuts}, {len(host.verdicts)} checked")
        runner.join(30)
    finally:
        host.close()
        shutil.rmtree(sock_dir, ignore_errors=True)
    if "error" in box:
        raise CrashLabError(f"{config.name}: {box['error']}")
    if failure or not host.finished:
        why = failure or "QEMU ended before the last check"
        raise CrashLabError(f"{config.name}: {why} (console: {folder / 'console.log'})")
    result: vm.RunResult = box["result"]    # type: ignore[assignment]
    return ConfigResult(config, host.verdicts, host.statuses, host.cycles,
                        time.monotonic() - started, result.accel)

