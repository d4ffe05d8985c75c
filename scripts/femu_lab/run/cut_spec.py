"""When a lab run cuts the device's power (femu-lab run --power-cut SPEC), and the host's
part of it: the spec, checked in one place, and a thread that carries it out over QMP
once the workload phase begins.

    at=SECONDS          SECONDS into the workload phase (a time in the run, > 0)
    after-writes=N      once N more writes are acknowledged (counted from the workload)
    after-flushes=N     once N more flushes are acknowledged
    random[=MAX]        after a number of writes drawn under --seed from 1..MAX (10000)

The device power cycles itself (docs/device.md, "Power cuts"); the guest's driver resets
the controller after its I/O timeout and the job goes on; the results folder gets the
device's power_cuts.csv and power_cut_lost.csv, and power_cut.txt (the device's status).
"""
import csv
import random
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from femu_common.cli_args import MAX_DIGITS, shown, whole
from femu_common.errors import InputError

from ..vm.qmp import Qmp, QmpError

DEV_ID = "femu0"                 # the -device id QMP names it by
DEV_PATH = f"/machine/peripheral/{DEV_ID}"
RANDOM_MAX = 10000
MAX_COUNT = 10 ** 9
POLL_SECONDS = 0.2
# at=: ASCII digits with an optional fraction (float() would take 'nan', 'inf', '1_0' and
# other scripts' digits too); a '-' only to say that the time is in the past.
_SECONDS = re.compile(rf"-?(?:[0-9]{{1,{MAX_DIGITS}}}(?:\.[0-9]{{0,{MAX_DIGITS}}})?"
                      rf"|\.[0-9]{{1,{MAX_DIGITS}}})")


class CutSpecError(InputError):
    """A spec that cannot be carried out (one line)."""


@dataclass(frozen=True)
class CutSpec:
    at_s: Optional[float] = None      # seconds into the workload phase
    device_value: Optional[str] = None    # power-cut's value to arm at the workload's start

    @property
    def text(self) -> str:
        return f"at={self.at_s:g}" if self.at_s is not None else str(self.device_value)


def _count(text: str, what: str, limit: int = MAX_COUNT) -> int:
    value = whole(text)
    if value is None or not 1 <= value <= limit:
        raise CutSpecError(f"--power-cut {what}={shown(text)}: want a whole number from 1 "
                           f"to {limit}")
    return value


def _seconds(text: str) -> float:
    if not _SECONDS.fullmatch(text):
        raise CutSpecError(f"--power-cut at={shown(text)}: want seconds")
    return float(text)


def parse(text: str, seed: int, runtime_s: Optional[float] = None) -> CutSpec:
    """The spec, with random resolved under seed; runtime_s (the workload's seconds, when
    known) bounds at=."""
    kind, _, value = text.partition("=")
    if kind == "at":
        at = _seconds(value)
        if not at > 0:
            raise CutSpecError(f"--power-cut at={value}: a cut time in the past (the time "
                               "counts from the workload's start and must be > 0)")
        if runtime_s is not None and at >= runtime_s:
            raise CutSpecError(f"--power-cut at={shown(value)}: after the workload's "
                               f"{runtime_s:g} s")
        return CutSpec(at_s=at)
    if kind in ("after-writes", "after-flushes"):
        return CutSpec(device_value=f"{kind}={_count(value, kind)}")
    if kind == "random":
        top = _count(value, kind) if value else RANDOM_MAX
        return CutSpec(device_value=f"after-writes={random.Random(seed).randint(1, top)}")
    raise CutSpecError(f"--power-cut {shown(text)}: want at=SECONDS, after-writes=N, "
                       "after-flushes=N or random[=MAX]")


def check_device(spec: CutSpec, config_values: dict) -> None:
    """A cut needs nothing of the device; a cut meant to lose buffered data needs a buffer:
    say so when there is none (the cut then only tears programs in flight)."""
    if str(config_values.get("write_buffer_sectors", "0")) == "0":
        raise CutSpecError("--power-cut: the device has no write buffer "
                           "(write_buffer_sectors=0), so a cut can lose no buffered data; "
                           "add --set write_buffer_sectors=N")


def _workload_started(stats_dir: Path) -> bool:
    try:
        with open(stats_dir / "phases.csv", newline="") as f:
            return any(row.get("phase") == "workload" for row in csv.DictReader(f))
    except OSError:
        return False


class CutDriver(threading.Thread):
    """Carries a spec out while the run's QEMU lives; its outcome in status (or error)."""

    def __init__(self, spec: CutSpec, socket_path: Path, stats_dir: Path, alive):
        super().__init__(name="femu-power-cut", daemon=True)
        self.spec, self.socket_path, self.stats_dir, self.alive = (spec, socket_path,
                                                                   stats_dir, alive)
        self.status: Optional[str] = None
        self.error: Optional[str] = None
        self._stop_event = threading.Event()

    def stop(self) -> None:
        self._stop_event.set()

    def _wait(self, until) -> bool:
        while not until():
            if self._stop_event.wait(POLL_SECONDS) or not self.alive():
                return False
        return True

    def run(self) -> None:
        try:
            if not self._wait(lambda: _workload_started(self.stats_dir)):
                return
            with Qmp(self.socket_path, alive=self.alive) as qmp:
                if self.spec.at_s is not None:
                    due = time.monotonic() + self.spec.at_s
                    if not self._wait(lambda: time.monotonic() >= due):
                        return
                    value = "now"
                else:
                    value = self.spec.device_value
                qmp.execute("qom-set", path=DEV_PATH, property="power-cut", value=value)

                def done() -> bool:
                    self.status = qmp.execute("qom-get", path=DEV_PATH,
                                              property="power-cut-status")
                    return self.status.startswith(("cut ", "failed"))
                self._wait(done)
        except QmpError as error:
            self.error = str(error)
