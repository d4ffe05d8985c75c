"""One boot of the soak: start the guest with a pattern's job (femu_lab.soak.guest), play
the host's part while it runs (device-del-add: QMP device_del / device_add when the guest
asks), and judge the boot from what came back.

The device under test is femu (the default) or QEMU's stock `nvme` (BootPlan.device),
for comparing the two under the same guest job: the stock controller sits on a sparse raw
file of femu's logical size (NVME_BYTES) in the boot's folder, and each replug gets a fresh
file (`blockdev-add`), so the replugged disk reads zeroes as a new femu does; the old node
is deleted (`blockdev-del`) and its file removed once QEMU has removed the device. femu's
statistics folders and the checks on them are femu's only.

A boot fails on: a crash (QEMU exit status not 0 or a signal, a kernel panic, a sanitizer
report from a --sanitize QEMU, no clean shutdown, a reboot nobody asked for), a hang (the
host deadline, the guest job timeout, an in-guest wait or an unplug that never finished),
any mismatch (fio verify error or a MiB whose checksum changed across an event), a failed
fio run, a job that did not reach its end, and nvme I/O timeouts in dmesg outside the
patterns that reset the controller.
"""
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional

from ..file_tail import FileTail
from ..vm import accel, launch as vm
from ..vm.launch import make_backing_file
from . import guest as soak_guest
from .console import JOB_START, ConsoleFacts, parse
from ..vm.qmp import NoReply, Qmp, QmpError, qmp_args

# 96 MiB logical on 160 MiB of flash, short program/erase latencies (the device of
# tests/guest/femu_fixtures.py): a soak region of 32 MiB is written in seconds under TCG.
SOAK_SSD: Dict[str, int] = dict(nchs=2, luns_per_ch=4, pgs_per_blk=64, blks_per_pl=80,
                                pls_per_lun=1, secsz=512, secs_per_pg=8, devsz_mb=96,
                                pg_wr_lat=50000, blk_er_lat=500000)
ROOT_PORT = ["-device", "pcie-root-port,id=rp0,chassis=1,slot=1"]
DEVICES = ("femu", "nvme")           # femu, or QEMU's stock NVMe controller beside it
DEVICE_IDS = {"femu": "femu0", "nvme": "nvme0"}   # the QMP id of the device under test
NVME_SERIAL = "soak-nvme"
NVME_BYTES = SOAK_SSD["devsz_mb"] << 20  # the stock device's file: femu's logical size
# QEMU's assertion messages on stderr (merged into the console log): "qemu-system-x86_64:
# ../system/physmem.c:2671: iotlb_to_section: Assertion `section_index < ...' failed."
ASSERTION_MARK = "Assertion `"
UNPLUG_SECONDS = 120          # device_del to DEVICE_DELETED, a bound that only catches hangs
# The guest kernel reports an RCU stall after 21 s without progress and again every 21 s
# or so: this many reports in a row (over a minute stalled) is a hang; QEMU is stopped
# then instead of at the host deadline. (A stall after a reboot happens with QEMU's own
# nvme device too: a TCG issue, not femu's.)
STALL_REPORTS = 3
RCU_STALL = "rcu_preempt detected stalls"
PROGRESS_SECONDS = 15


@dataclass
class BootPlan:
    pattern: str
    qemu: Path
    events: int
    size_mib: int = 32
    job_timeout: int = 900        # guest side; the host deadline is 180 s more
    corrupt: bool = False         # poweroff only: damage a block on purpose (soak_guest)
    accel: str = field(default_factory=accel.default_from_env)   # auto | kvm | tcg (vm.VmSpec)
    kernel: Optional[Path] = None
    initramfs: Optional[Path] = None
    device: str = "femu"          # DEVICES: femu, or QEMU's stock nvme


@dataclass
class BootOutcome:
    pattern: str
    folder: Path
    wall_seconds: float
    qemu_returncode: Optional[int]
    facts: ConsoleFacts
    crashes: List[str] = field(default_factory=list)
    hangs: List[str] = field(default_factory=list)
    failures: List[str] = field(default_factory=list)   # everything else that went wrong
    unplugs: int = 0              # device-del-add: device_del commands QEMU accepted
    replugs: int = 0              # ... and unplug + replug rounds the host completed

    @property
    def ok(self) -> bool:
        return not (self.crashes or self.hangs or self.failures)

    @property
    def timeouts_count_as_failures(self) -> bool:
        return self.pattern not in soak_guest.RESET_PATTERNS

    def reasons(self) -> List[str]:
        return ([f"crash: {r}" for r in self.crashes] + [f"hang: {r}" for r in self.hangs]
                + self.failures)


def nvme_disk(folder: Path, n: int) -> Path:
    """The stock nvme's raw file: n = 0 on the command line, n = k added at unplug k."""
    return folder / f"nvme-{n}.img"


def nvme_node(n: int) -> str:
    return f"nvm{n}"


def _escape(value: str) -> str:
    return value.replace(",", ",,")   # QEMU option syntax: a literal comma is doubled


def device_args(plan: BootPlan, folder: Path) -> List[str]:
    """The QEMU arguments of the device under test (behind the root port for
    device-del-add); nvme's file is made here (NVME_BYTES, sparse)."""
    if plan.device not in DEVICES:
        raise ValueError(f"unknown soak device {plan.device!r} (one of {DEVICES})")
    hotplug = plan.pattern == "device-del-add"
    placement = {"bus": "rp0", "id": DEVICE_IDS[plan.device]} if hotplug else {}
    port = ROOT_PORT if hotplug else []
    if plan.device == "femu":
        return port + vm.femu_args(stats_dir=folder / "stats", **placement, **SOAK_SSD)
    disk = make_backing_file(nvme_disk(folder, 0), NVME_BYTES)
    blockdev = (f"driver=raw,node-name={nvme_node(0)},file.driver=file,"
                f"file.filename={_escape(str(disk))}")
    options = [f"nvme,serial={NVME_SERIAL},drive={nvme_node(0)}"]
    options += [f"{key}={value}" for key, value in placement.items()]
    return port + ["-blockdev", blockdev, "-device", ",".join(options)]


def blockdev_add_arguments(folder: Path, n: int) -> Dict[str, object]:
    """nvme: QMP blockdev-add's arguments for the file of the device added at unplug n."""
    return {"driver": "raw", "node-name": nvme_node(n),
            "file": {"driver": "file", "filename": str(nvme_disk(folder, n))}}


def device_add_arguments(device: str, folder: Path, n: int) -> Dict[str, object]:
    """QMP device_add's arguments for the device added at unplug n: femu with its
    statistics in stats-n, or the stock nvme on node nvm<n>."""
    if device == "femu":
        return dict(driver="femu", bus="rp0", id=DEVICE_IDS[device],
                    stats_dir=str(folder / f"stats-{n}"), **SOAK_SSD)
    if device == "nvme":
        return dict(driver="nvme", bus="rp0", id=DEVICE_IDS[device], drive=nvme_node(n),
                    serial=NVME_SERIAL)
    raise ValueError(f"unknown soak device {device!r} (one of {DEVICES})")


class _HostSide:
    """The host's part while the guest runs, over QMP: device-del-add's unplugs (on the
    guest's n-th `ready-for-unplug`: device_del, wait until QEMU has removed the device,
    device_add a new one: femu with its statistics in stats-n, the stock nvme on a fresh
    file), and stopping a machine that boots more often than its pattern asks (a panic
    reboots it: no -no-reboot there) or whose guest kernel has stalled."""

    def __init__(self, socket_path: Path, folder: Path, alive: Callable[[], bool],
                 expected_boots: int, device: str = "femu"):
        self.socket_path, self.folder, self.alive = socket_path, folder, alive
        self.expected_boots = expected_boots
        self.device = device
        self.node = 0                 # nvme: the node (and file) of the device plugged now
        self.unplugs = 0              # device_del commands QEMU accepted
        self.boots = self.stalls = 0
        self.in_dump = False
        self.qmp: Optional[Qmp] = None
        self.done: List[int] = []
        self.error: Optional[str] = None
        self.stopped: Optional[str] = None
        self.hung: Optional[str] = None

    def see(self, line: str) -> None:
        """React to one new console line."""
        if line.startswith("soak: ready-for-unplug n="):
            self.unplug(int(line.split("=", 1)[1]))
        if JOB_START in line:
            self.boots, self.stalls = self.boots + 1, 0
            if self.boots > self.expected_boots:
                self.stop(f"the guest booted {self.boots} times, {self.expected_boots} "
                          "expected: QEMU stopped")
        if line.startswith(("soak: ", "soak-live: ")):   # the job made progress
            self.in_dump = line.startswith("soak: dmesg-begin")
            self.stalls = 0
        elif RCU_STALL in line and not self.in_dump:
            self.stalls += 1
            if self.stalls >= STALL_REPORTS:
                self.stop_hung(f"the guest kernel stalled ({self.stalls} RCU stall reports "
                               "in a row): QEMU stopped")

    def _connection(self) -> Qmp:
        if self.qmp is None:
            self.qmp = Qmp(self.socket_path, alive=self.alive)
        return self.qmp

    def unplug(self, n: int) -> None:
        if self.error or n in self.done:
            return
        dev_id = DEVICE_IDS[self.device]
        try:
            qmp = self._connection()
            qmp.execute("device_del", id=dev_id)
            self.unplugs += 1
            try:
                qmp.wait_event("DEVICE_DELETED", UNPLUG_SECONDS,
                               lambda data: data.get("device") == dev_id)
            except NoReply as error:
                # QEMU runs but the guest never let the device go (a frozen guest: the
                # soak saw one with QEMU's stock nvme): a hang, ended now rather than at
                # the guest job's limit.
                self.error = f"unplug {n}: {error}"
                self.stop_hung(f"the guest never finished unplug {n}: QEMU stopped")
                return
            if self.device == "nvme":
                qmp.execute("blockdev-del", **{"node-name": nvme_node(self.node)})
                nvme_disk(self.folder, self.node).unlink(missing_ok=True)
                make_backing_file(nvme_disk(self.folder, n), NVME_BYTES)
                qmp.execute("blockdev-add", **blockdev_add_arguments(self.folder, n))
                self.node = n
            qmp.execute("device_add", **device_add_arguments(self.device, self.folder, n))
            self.done.append(n)
        except (QmpError, OSError, ValueError) as error:
            self.error = f"unplug {n}: {error}"

    def stop(self, why: str) -> None:
        """End QEMU now: a crash (the machine misbehaved)."""
        if self.stopped or self.hung:
            return
        self.stopped = why
        self._quit()

    def stop_hung(self, why: str) -> None:
        """End QEMU now: a hang (the guest stopped making progress)."""
        if self.stopped or self.hung:
            return
        self.hung = why
        self._quit()

    def _quit(self) -> None:
        try:
            self._connection().execute("quit")
        except (QmpError, OSError, ValueError):
            pass   # QEMU is gone already, or the host deadline ends it

    def close(self) -> None:
        if self.qmp is not None:
            self.qmp.close()


class _ConsoleTail(FileTail):
    """The console's new lines, remembering the last progress line the soak job printed."""

    def __init__(self, path: Path):
        super().__init__(path)
        self.last = ""

    def lines(self) -> List[str]:
        text = super().lines()
        for line in text:
            if line.startswith(("soak: ", "soak-live: ")) and "dmesg" not in line:
                self.last = line
        return text


def run_boot(plan: BootPlan, folder: Path, say: Callable[[str], None] = lambda m: None,
             label: str = "") -> BootOutcome:
    """Boot once with plan's pattern; the outcome. The folder keeps console.log (QEMU's
    messages included), the result files, the job and the device statistics."""
    folder.mkdir(parents=True, exist_ok=True)
    sock_dir = Path(tempfile.mkdtemp(prefix="femu-soak-"))   # unix socket paths are short
    socket_path = sock_dir / "qmp.sock"
    script = soak_guest.job(plan.pattern, plan.events, plan.size_mib, plan.corrupt)
    spec = vm.VmSpec(job=script, qemu=str(plan.qemu), kernel=plan.kernel,
                     initramfs=plan.initramfs, device_args=device_args(plan, folder),
                     extra_args=qmp_args(socket_path),
                     job_timeout=plan.job_timeout, timeout=plan.job_timeout + 180,
                     reboot=plan.pattern == "reboot", accel=plan.accel)
    box: Dict[str, object] = {}

    def boot() -> None:
        try:
            box["result"] = vm.run(spec, folder, quiet=True)
        except BaseException as error:   # reported below, in the caller's thread
            box["error"] = error

    started = time.monotonic()
    runner = threading.Thread(target=boot, name=f"soak-{plan.pattern}", daemon=True)
    runner.start()
    tail = _ConsoleTail(folder / "console.log")
    host = _HostSide(socket_path, folder, runner.is_alive, _boots_expected(plan),
                     plan.device)
    next_note = started + PROGRESS_SECONDS
    try:
        while runner.is_alive():
            runner.join(0.3)
            for line in tail.lines():
                host.see(line)
            if time.monotonic() >= next_note:
                next_note += PROGRESS_SECONDS
                say(f"{label}{time.monotonic() - started:.0f} s; "
                    f"{tail.last or 'booting'}")
    finally:
        host.close()
        shutil.rmtree(sock_dir, ignore_errors=True)
    if "error" in box:
        raise box["error"]   # type: ignore[misc]
    result: vm.RunResult = box["result"]   # type: ignore[assignment]
    facts = parse((folder / "console.log").read_text(errors="replace"))
    outcome = BootOutcome(plan.pattern, folder, time.monotonic() - started,
                          result.qemu_returncode, facts,
                          unplugs=host.unplugs, replugs=len(host.done))
    _judge(plan, result, facts, host, outcome)
    return outcome


def _judge(plan: BootPlan, result: vm.RunResult, facts: ConsoleFacts, host: _HostSide,
           outcome: BootOutcome) -> None:
    if result.host_timed_out:
        outcome.hangs.append("host deadline hit: QEMU killed")
    elif result.timed_out:
        outcome.hangs.append(f"guest job timed out after {plan.job_timeout} s")
    outcome.hangs += [f"the guest waited in vain for {what}" for what in facts.stuck]
    if host.error:
        outcome.hangs.append(host.error)
    if host.hung:
        outcome.hangs.append(host.hung)

    code = result.qemu_returncode
    if host.stopped:
        outcome.crashes.append(host.stopped)
    elif not (result.host_timed_out or host.hung):
        if code is not None and code < 0:
            outcome.crashes.append(f"QEMU killed by signal {-code}"
                                   + "".join(f" ({line})" for line in assertions(facts)[:1]))
        elif code != 0:
            outcome.crashes.append(f"QEMU exit status {code}")
        elif not result.complete:
            outcome.crashes.append("no clean shutdown: the guest never sent its results")
        elif plan.device == "femu" and not _lpn_counts_written(plan, outcome.folder, host):
            outcome.crashes.append("no clean shutdown: femu wrote no lpn_access_count.csv")
    if facts.panicked:
        outcome.crashes.append("kernel panic")
    if facts.sanitizer:
        outcome.crashes.append(f"sanitizer report: {facts.sanitizer[0][:200]}")
    if facts.guest_boots > _boots_expected(plan) and not host.stopped:
        outcome.crashes.append(f"{facts.guest_boots} guest boots, "
                               f"{_boots_expected(plan)} expected")

    if plan.pattern == "device-del-add" and plan.device == "femu":
        outcome.failures += [f"femu wrote no lpn_access_count.csv at unplug {n}"
                             for n in host.done if not _unplug_counts_written(
                                 outcome.folder, n)]
    if facts.mismatches:
        outcome.failures.append(f"{facts.mismatches} mismatches ({facts.verify_errors} fio "
                                f"verify errors, {facts.differing_chunks} MiB changed)")
    if facts.fio_failures:
        outcome.failures.append(f"fio failed: {' '.join(facts.fio_failures)}")
    if facts.timeouts and outcome.timeouts_count_as_failures:
        outcome.failures.append(f"{len(facts.timeouts)} nvme I/O timeouts in dmesg")
    if not (outcome.crashes or outcome.hangs):
        if not facts.done or result.exit_status != 0:
            outcome.failures.append(f"the job did not finish (exit status {result.exit_status})")
        elif len(facts.events) < _events_expected(plan):
            outcome.failures.append(f"{len(facts.events)} events, "
                                    f"{_events_expected(plan)} expected")


def assertions(facts: ConsoleFacts) -> List[str]:
    """The QEMU assertion messages among QEMU's messages of a boot."""
    return [line for line in facts.qemu_messages if ASSERTION_MARK in line]


def _boots_expected(plan: BootPlan) -> int:
    return plan.events + 1 if plan.pattern == "reboot" else 1


def _events_expected(plan: BootPlan) -> int:
    if plan.pattern == "poweroff":
        return 0
    if plan.pattern == "reset-controller":
        return 1          # the resets during I/O stop when fio ends; one more follows it
    return plan.events


def _lpn_counts_written(plan: BootPlan, folder: Path, host: _HostSide) -> bool:
    """femu writes lpn_access_count.csv at QEMU's exit (and on CC.SHN): the last device's
    statistics folder must hold it."""
    last = folder / "stats"
    if plan.pattern == "device-del-add" and host.done:
        last = folder / f"stats-{host.done[-1]}"
    return (last / "lpn_access_count.csv").is_file()


def _unplug_counts_written(folder: Path, n: int) -> bool:
    """A hot-unplugged femu writes lpn_access_count.csv (hw/femu/CONTROLLER.md): the device
    removed at the n-th unplug kept its statistics in stats (n = 1) or stats-(n-1)."""
    stats = folder / ("stats" if n == 1 else f"stats-{n - 1}")
    return (stats / "lpn_access_count.csv").is_file()
