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
from femu_lab.vm.qtest import QTest

from .layout import MMCONFIG

# Small flash latencies: completions come back in microseconds of real time, so the
# fuzzer spends its time submitting, not waiting. Two namespaces out of SMALL_GEOMETRY's
# 64 MiB: NSID 1 (40 MiB) is the fuzzer's data namespace (integrity checks, every
# well-formed Read/Write), NSID 2 (8 MiB) is there to be formatted, detached, deleted and
# made uncorrectable; 16 MiB stay unallocated for creates.
NAMESPACES_MIB = (40, 8)
DEVICE_PROPS = ("queues=16,mdts=8,pg_rd_lat=2000,pg_wr_lat=5000,blk_er_lat=20000,"
                "ch_xfer_lat=0,namespaces=" + ":".join(map(str, NAMESPACES_MIB)))
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


class Target:
    """A started machine: qt (FuzzQTest), nvme (nvme_qtest.Nvme, BARs mapped), stats_dir."""

    def __init__(self, qemu: Path, reply_timeout: float = REPLY_TIMEOUT,
                 props: str = DEVICE_PROPS):
        self.workdir = Path(tempfile.mkdtemp(prefix="femu-fuzz-"))
        self.stats_dir = self.workdir / "stats"
        device = nvme_qtest.device_args(self.workdir, f"{props},stats_dir={self.stats_dir}",
                                        target="femu")
        self.qt = FuzzQTest(qemu, ["-m", str(nvme_qtest.RAM_MB), *device], reply_timeout)
        try:
            self.enable_mmconfig()
            self.nvme = nvme_qtest.Nvme(self.qt)
        except BaseException:
            self.close()
            raise

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

