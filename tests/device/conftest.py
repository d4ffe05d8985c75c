"""Fixtures for the femu device tests: QEMU built once per session with
build-femu/femu-compile.sh, and launchers with a bounded lifetime.

Every launch has a timeout and QEMU is always reaped (subprocess.run kills and waits on
timeout; the QMP helper does the same in a finally block).
"""
import json
import subprocess
from pathlib import Path
from typing import List

import pytest

from femu_device import LAUNCH_TIMEOUT, MACHINE, QEMU, run_femu_compile


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
def qmp(qemu):
    """qmp(device_options, commands) -> list of QMP replies (one per command, in order)
    from a paused machine; the last command sent is always `quit`."""
    def run(device: str, commands: List[dict], timeout: float = LAUNCH_TIMEOUT):
        lines = [{"execute": "qmp_capabilities"}, *commands, {"execute": "quit"}]
        cmd = [str(qemu), *MACHINE, "-S", "-qmp", "stdio", "-device", device]
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            out, err = proc.communicate("".join(json.dumps(c) + "\n" for c in lines),
                                        timeout=timeout)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert proc.returncode == 0, f"QEMU exited {proc.returncode}: {err.strip()}"
        replies = [json.loads(line) for line in out.splitlines() if line.strip()]
        answers = [r for r in replies if "return" in r or "error" in r]
        # answers[0] is qmp_capabilities', the last is quit's
        return answers[1:1 + len(commands)]
    return run
