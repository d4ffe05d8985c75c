"""One QEMU under qtest with a femu controller, watched for what the oracle needs: is the
process alive, what did it print on stderr (sanitizer reports), how much CPU does it
burn. QEMU's stderr is drained as the run goes: a sanitizer that keeps printing must not
fill the pipe and stall QEMU."""
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Optional

import nvme_qtest
from femu_lab.vm.qmp import Qmp, QmpError, qmp_args
from femu_lab.vm.qtest import QTest

from . import variant as variants
from .layout import MMCONFIG

# Small flash latencies: completions come back in microseconds of real time, so the
# fuzzer spends its time submitting, not waiting. Two namespaces out of SMALL_GEOMETRY's
# 64 MiB: NSID 1 (40 MiB) is the fuzzer's data namespace (integrity checks, every
# well-formed Read/Write), NSID 2 (8 MiB) is there to be formatted, detached, deleted and
# made uncorrectable; 16 MiB stay unallocated for creates.
NAMESPACES_MIB = (40, 8)
DEVICE_PROPS = ("queues=16,mdts=8,pg_rd_lat=2000,pg_wr_lat=5000,blk_er_lat=20000,"
                "ch_xfer_lat=0,namespaces=" + ":".join(map(str, NAMESPACES_MIB)))
SLOW = 0.1                # a register write or QMP command this long is counted as a stall
REPLY_TIMEOUT = 10.0      # a qtest command QEMU does not answer in this long is a hang
EXIT_TIMEOUT = 20.0       # SIGTERM to exit: femu's exit handlers write the statistics
# For a sanitizer build (ignored by a release one). Leak detection on: each seed ends with
# a SIGTERM exit, after which LeakSanitizer reports what femu lost (QEMU alone exits
# clean, build-femu/README.md). UBSan keeps going after a report and prints a stack;
# ASan stops at the first error. A caller's own *SAN_OPTIONS win.
SANITIZER_ENV = {"ASAN_OPTIONS": "detect_leaks=1",
                 "UBSAN_OPTIONS": "print_stacktrace=1"}
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer",
                   "WARNING: ThreadSanitizer", "AddressSanitizer:DEADLYSIGNAL")


def sanitizer_report(text: str) -> Optional[str]:
    """The first sanitizer line in text (with a few after it), or None."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if any(mark in line for mark in SANITIZER_MARKS):
            return "\n".join(lines[i:i + 12])
    return None


class FuzzQTest(QTest):
    """QTest plus a non-blocking view of QEMU's stderr and its CPU time."""

    def __init__(self, qemu: Path, args, reply_timeout: float):
        saved = {k: os.environ.get(k) for k in SANITIZER_ENV}
        for key, value in SANITIZER_ENV.items():   # only the child needs them
            os.environ.setdefault(key, value)
        try:
            super().__init__(qemu, args, reply_timeout=reply_timeout)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
        self.stderr_text = ""
        self.closed = False
        os.set_blocking(self._proc.stderr.fileno(), False)

    @property
    def pid(self) -> int:
        return self._proc.pid

    def drain_stderr(self) -> str:
        """Read whatever QEMU has written to stderr so far; return all of it."""
        fd = self._proc.stderr.fileno()
        while select.select([fd], [], [], 0)[0]:
            try:
                chunk = os.read(fd, 65536)
            except (BlockingIOError, OSError):
                break
            if not chunk:
                break
            self.stderr_text += chunk.decode(errors="replace")
        return self.stderr_text

    @property
    def proc(self):
        return self._proc

    def close(self) -> str:
        """Kill QEMU if it still runs; all it wrote on stderr. Safe to call again."""
        if not self.closed:
            self.closed = True
            os.set_blocking(self._proc.stderr.fileno(), True)
            self.stderr_text += super().close()
        return self.stderr_text

    def cpu_seconds(self) -> float:
        """User + system CPU time QEMU has used (all threads)."""
        with open(f"/proc/{self.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Stalls:
    """The longest wall time (seconds) a BAR0 register write and a QMP command took, as
    the host saw it (a qtest or QMP round trip included), and what it was. CONTROLLER.md:
    neither may wait for a save or any other slow operation."""

    def __init__(self):
        self.reg, self.reg_what, self.regs = 0.0, "", 0
        self.qmp, self.qmp_what, self.qmps = 0.0, "", 0
        self.record = -1        # the record being run (set by the executor)
        self.reg_slow = self.qmp_slow = 0      # how many took SLOW seconds or more

    def add_reg(self, seconds: float, what: str) -> None:
        self.regs += 1
        self.reg_slow += seconds >= SLOW
        if seconds > self.reg:
            self.reg, self.reg_what = seconds, f"record {self.record}: {what}"

    def add_qmp(self, seconds: float, what: str) -> None:
        self.qmps += 1
        self.qmp_slow += seconds >= SLOW
        if seconds > self.qmp:
            self.qmp, self.qmp_what = seconds, f"record {self.record}: {what}"


class _TimedNvme:
    """Times every register write of an nvme_qtest.Nvme (writel/writeq: CC, AQA, the
    doorbells...); everything else is the Nvme's own."""

    def __init__(self, nvme, stalls: Stalls):
        self._nvme, self._stalls = nvme, stalls

    def __getattr__(self, name):
        return getattr(self._nvme, name)

    def _timed(self, method, off: int, value: int):
        start = time.monotonic()
        method(off, value)
        self._stalls.add_reg(time.monotonic() - start, f"BAR0 {off:#x} = {value:#x}")

    def writel(self, off: int, value: int) -> None:
        self._timed(self._nvme.writel, off, value)

    def writeq(self, off: int, value: int) -> None:
        self._timed(self._nvme.writeq, off, value)


class Target:
    """A started machine: qt (FuzzQTest), nvme (nvme_qtest.Nvme, BARs mapped, register
    writes timed), stats_dir; with a save variant (variant.py) also state_out, and qmp
    with a save or power cut variant."""

    def __init__(self, qemu: Path, reply_timeout: float = REPLY_TIMEOUT,
                 props: str = DEVICE_PROPS):
        self.workdir = Path(tempfile.mkdtemp(prefix="femu-fuzz-"))
        self.stats_dir = self.workdir / "stats"
        self.variant = variants.parse(props)
        self.stalls = Stalls()
        self.state_out = self.workdir / "state.bin"
        self.qmp_socket = self.workdir / "qmp.sock"
        self._qmp: Optional[Qmp] = None
        extra = []
        if self.variant.save:
            props = props.replace(f"state_out={variants.STATE_MARK}",
                                  f"state_out={self.state_out}")
        if self.variant.qmp:
            props += f",id={variants.DEVICE_ID}"
            extra = qmp_args(self.qmp_socket)
        device = nvme_qtest.device_args(self.workdir, f"{props},stats_dir={self.stats_dir}",
                                        target="femu")
        self.qt = FuzzQTest(qemu, ["-m", str(nvme_qtest.RAM_MB), *extra, *device],
                            reply_timeout)
        try:
            self.enable_mmconfig()
            self.nvme = _TimedNvme(nvme_qtest.Nvme(self.qt), self.stalls)
            if self.variant.qmp:
                self._qmp = Qmp(self.qmp_socket, connect_timeout=30, alive=self.alive)
        except BaseException:
            self.close()
            raise

    def qmp(self, command: str, **arguments):
        """One QMP command, timed: (its return value, or None; the error text, or None).
        A reply later than REPLY_TIMEOUT raises QmpError (a hang)."""
        start = time.monotonic()
        try:
            return self._qmp.execute(command, timeout=REPLY_TIMEOUT, **arguments), None
        except QmpError as error:
            if not str(error).startswith(f"{command}: ") or "(QEMU exited?)" in str(error) \
                    or "nothing within" in str(error):
                raise       # no reply (a hang) or no QEMU: not an answer
            return None, str(error)
        finally:
            self.stalls.add_qmp(time.monotonic() - start,
                                f"{command} {arguments.get('property', '')}".strip())

    def reg_command(self, text: str) -> None:
        """A raw qtest register write (any width, any offset), timed."""
        start = time.monotonic()
        self.qt.command(text)
        self.stalls.add_reg(time.monotonic() - start, text)

    def enable_mmconfig(self) -> None:
        """Program the q35 MCH's PCIEXBAR (config 0x60) as firmware would, so the
        MMCONFIG window at 0xB0000000 is real MMIO rather than an empty hole."""
        self.qt.pci_config_writel(0, 0x64, 0)
        self.qt.pci_config_writel(0, 0x60, MMCONFIG | 1)

    def remap(self) -> None:
        """Put the BARs and the command register back (a DMA may have written our own
        config space through MMCONFIG)."""
        self.enable_mmconfig()
        self.nvme.pci.map_bars()

    def alive(self) -> bool:
        return self.qt.returncode is None

    def stop(self):
        """SIGTERM (exit handlers run, as when a user quits). Returns (exit status, or
        None if QEMU had to be killed after EXIT_TIMEOUT; all of its stderr)."""
        proc = self.qt.proc
        proc.terminate()
        try:
            code = proc.wait(timeout=EXIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            code = None
        return code, self.qt.close()

    def close(self) -> str:
        if self._qmp is not None:
            qmp, self._qmp = self._qmp, None
            try:
                qmp.close()
            except Exception:       # QEMU gone already: nothing to close
                pass
        text = self.qt.close()
        shutil.rmtree(self.workdir, ignore_errors=True)
        return text

    def idle_cpu_busy(self, window: float = 0.3, tries: int = 30,
                      threshold: float = 0.25) -> Optional[float]:
        """Leave QEMU alone and watch its CPU time. Work the host gave it costs a bounded
        amount of CPU, so some window soon shows it quiet; a thread that spins never
        does. Returns the lowest share of a core seen if no window was quiet. A loaded
        host only lowers QEMU's share, and the 9 s of windows leave room for the work
        still queued (a pool flood's, under ASan), so this is no speed test."""
        lowest = None
        for _ in range(tries):
            before, start = self.qt.cpu_seconds(), time.monotonic()
            time.sleep(window)
            share = (self.qt.cpu_seconds() - before) / (time.monotonic() - start)
            lowest = share if lowest is None else min(lowest, share)
            if share < threshold:
                return None
        return lowest


def start(qemu: Path, wait: float = 600.0, props: str = DEVICE_PROPS) -> Target:
    """A Target, waiting while the binary is missing or being replaced (someone may be
    rebuilding it with femu-compile.sh): up to `wait` seconds, then the error stands."""
    deadline = time.monotonic() + wait
    while True:
        try:
            return Target(qemu, props=props)
        except (FileNotFoundError, PermissionError):
            if time.monotonic() > deadline:
                raise
            time.sleep(5)

