"""A client for QEMU's qtest protocol: drive a device's registers and guest memory with no
guest, for device tests (`-accel qtest -qtest stdio`).

The protocol is line based: each command line gets one reply line starting with `OK` or
`FAIL`; `IRQ raise|lower N` lines may arrive in between when interrupts are intercepted.
QEMU always runs under a deadline and is killed and reaped on exit.
"""
from __future__ import annotations

import base64
import os
import select
import subprocess
import time
from pathlib import Path
from typing import List, Optional, Sequence

from femu_common.errors import RunFailure

PCI_CONFIG_ADDRESS = 0xCF8
PCI_CONFIG_DATA = 0xCFC


class QTestError(RunFailure):
    """QEMU refused a command, died, or did not answer in time."""


class QTest:
    """One QEMU process under qtest control; use as a context manager."""

    def __init__(self, qemu: Path, args: Sequence[str], *, reply_timeout: float = 30.0,
                 machine: Sequence[str] = ("-M", "q35")):
        self.reply_timeout = reply_timeout
        self.irq_events: List[str] = []
        cmd = [str(qemu), *machine, "-accel", "qtest", "-qtest", "stdio", "-qtest-log",
               "/dev/null", "-display", "none", "-serial", "none", "-monitor", "none",
               "-nodefaults", *args]
        self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE)
        self._buffer = b""

    def __enter__(self) -> "QTest":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> str:
        """Stop QEMU (if still running) and return what it wrote on stderr."""
        if self._proc.poll() is None:
            self._proc.kill()
        try:
            _, err = self._proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - kill cannot be ignored
            err = b""
        return (err or b"").decode(errors="replace")

    def terminate(self, timeout: float = 30.0) -> str:
        """Ask QEMU to exit cleanly (SIGTERM: exit handlers run); kill it if it has not
        after timeout. Returns what it wrote on stderr."""
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        return self.close()

    @property
    def pid(self) -> int:
        """QEMU's process id (for /proc inspection in tests)."""
        return self._proc.pid

    @property
    def returncode(self) -> Optional[int]:
        """QEMU's exit status once it has exited (negative: killed by that signal)."""
        return self._proc.poll()

    # ---- protocol ----

    def _read_line(self, deadline: float) -> str:
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise QTestError(f"no reply within {self.reply_timeout} s")
            ready, _, _ = select.select([self._proc.stdout], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._proc.stdout.fileno(), 65536)
            if not chunk:
                raise QTestError(f"QEMU exited: {self.close().strip()}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    def command(self, text: str) -> str:
        """Send one command; return what follows `OK` in its reply."""
        try:
            self._proc.stdin.write(text.encode() + b"\n")
            self._proc.stdin.flush()
        except BrokenPipeError:
            raise QTestError(f"QEMU exited: {self.close().strip()}") from None
        deadline = time.monotonic() + self.reply_timeout
        while True:
            line = self._read_line(deadline)
            if line.startswith("IRQ "):
                self.irq_events.append(line)
                continue
            if line == "OK" or line.startswith("OK "):
                return line[3:]
            raise QTestError(f"{text!r}: {line}")

    # ---- I/O ports, MMIO and guest memory ----

    def outb(self, port: int, value: int) -> None:
        self.command(f"outb {port:#x} {value:#x}")

    def outw(self, port: int, value: int) -> None:
        self.command(f"outw {port:#x} {value:#x}")

    def inb(self, port: int) -> int:
        return int(self.command(f"inb {port:#x}"), 16)

    def inw(self, port: int) -> int:
        return int(self.command(f"inw {port:#x}"), 16)

    def outl(self, port: int, value: int) -> None:
        self.command(f"outl {port:#x} {value:#x}")

    def inl(self, port: int) -> int:
        return int(self.command(f"inl {port:#x}"), 16)

    def readl(self, addr: int) -> int:
        return int(self.command(f"readl {addr:#x}"), 16)

    def writel(self, addr: int, value: int) -> None:
        self.command(f"writel {addr:#x} {value:#x}")

    def readq(self, addr: int) -> int:
        return int(self.command(f"readq {addr:#x}"), 16)

    def writeq(self, addr: int, value: int) -> None:
        self.command(f"writeq {addr:#x} {value:#x}")

    def memread(self, addr: int, size: int) -> bytes:
        return bytes.fromhex(self.command(f"read {addr:#x} {size:#x}")[2:])

    def memwrite(self, addr: int, data: bytes) -> None:
        self.command(f"write {addr:#x} {len(data):#x} 0x{data.hex()}")

    def b64read(self, addr: int, size: int) -> bytes:
        """Read guest memory, base64 on the wire (for large buffers)."""
        return base64.b64decode(self.command(f"b64read {addr:#x} {size:#x}"))

    def b64write(self, addr: int, data: bytes) -> None:
        """Write guest memory, base64 on the wire (for large buffers)."""
        encoded = base64.b64encode(data).decode()
        self.command(f"b64write {addr:#x} {len(data):#x} {encoded}")

    def memset(self, addr: int, size: int, value: int = 0) -> None:
        self.command(f"memset {addr:#x} {size:#x} {value:#x}")

    def irq_intercept_in(self, qom_path: str) -> None:
        """Report the GPIO inputs of qom_path (e.g. "ioapic") as `IRQ raise|lower N`
        lines, collected in irq_events."""
        self.command(f"irq_intercept_in {qom_path}")

    def clock_step(self, ns: Optional[int] = None) -> int:
        """Advance the virtual clock (to the next deadline when ns is None)."""
        reply = self.command("clock_step" if ns is None else f"clock_step {ns}")
        return int(reply)

    # ---- PCI configuration space (type 1 mechanism on bus 0) ----

    @staticmethod
    def _config_address(slot: int, function: int, offset: int) -> int:
        return 0x80000000 | (slot << 11) | (function << 8) | (offset & 0xFC)

    def pci_config_readl(self, slot: int, offset: int, function: int = 0) -> int:
        self.outl(PCI_CONFIG_ADDRESS, self._config_address(slot, function, offset))
        return self.inl(PCI_CONFIG_DATA)

    def pci_config_writel(self, slot: int, offset: int, value: int,
                          function: int = 0) -> None:
        self.outl(PCI_CONFIG_ADDRESS, self._config_address(slot, function, offset))
        self.outl(PCI_CONFIG_DATA, value)

    def _config_port(self, slot: int, function: int, offset: int) -> int:
        self.outl(PCI_CONFIG_ADDRESS, self._config_address(slot, function, offset))
        return PCI_CONFIG_DATA + (offset & 3)

    def pci_config_readw(self, slot: int, offset: int, function: int = 0) -> int:
        return self.inw(self._config_port(slot, function, offset))

    def pci_config_writew(self, slot: int, offset: int, value: int,
                          function: int = 0) -> None:
        self.outw(self._config_port(slot, function, offset), value)

    def pci_config_readb(self, slot: int, offset: int, function: int = 0) -> int:
        return self.inb(self._config_port(slot, function, offset))

    def pci_config_writeb(self, slot: int, offset: int, value: int,
                          function: int = 0) -> None:
        self.outb(self._config_port(slot, function, offset), value)
