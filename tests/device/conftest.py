"""Fixtures for the femu device tests: QEMU built once per session with
build-femu/femu-compile.sh, and launchers with a bounded lifetime.

Every launch has a timeout and QEMU is always reaped (subprocess.run kills and waits on
timeout; the QMP sessions of tests/support/qmp_machine.py have a watchdog and reap QEMU
when they end).
"""
import subprocess
from pathlib import Path
from typing import List

import pytest

from femu_device import LAUNCH_TIMEOUT, MACHINE, QEMU, run_femu_compile
from nvme_qtest import nvme_qemu  # noqa: F401  (fixture: FEMU_QEMU, else the built qemu)
from qmp_machine import qmp_machine


@pytest.fixture(scope="session")
def qemu(tmp_path_factory) -> Path:
    """build-femu/qemu-system-x86_64, built (or brought up to date) once per session."""
    run_femu_compile(tmp_path_factory.mktemp("femu-build") / "femu-compile.log")
    assert QEMU.exists(), f"femu-compile.sh succeeded but {QEMU} is missing"
    return QEMU


@pytest.fixture
def launch(qemu):
    """launch(device_options, *extra) -> CompletedProcess of a paused q35 machine that
    quits at once (-S with a monitor `quit` on stdin): realize runs, no guest does."""
    def run(device: str, *extra: str, timeout: float = LAUNCH_TIMEOUT):
        cmd = [str(qemu), *MACHINE, "-S", "-monitor", "stdio", "-device", device, *extra]
        return subprocess.run(cmd, input="quit\n", capture_output=True, text=True,
                              timeout=timeout)
    return run


@pytest.fixture
def qmp(nvme_qemu):
    """qmp(device_options, commands) -> list of QMP replies (one per command, in order)
    from a paused machine (qemu.qmp's client); the last command sent is always `quit`."""
    def run(device: str, commands: List[dict], timeout: float = LAUNCH_TIMEOUT):
        with qmp_machine(nvme_qemu, [*MACHINE, "-S", "-device", device], timeout) as machine:
            replies = machine.commands(commands)
            status = machine.quit()
            assert status == 0, f"QEMU exited {status}: {machine.stderr().strip()}"
        return replies
    return run
