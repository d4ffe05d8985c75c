"""Paths and the build runner shared by the femu device tests (imported by name, so it
has a name of its own rather than living in conftest.py)."""
import os
import signal
import subprocess
from pathlib import Path

import pytest

from femu_build.paths import BUILD_FEMU, COMPILE_SCRIPT, QEMU, REPO_ROOT  # noqa: F401 (shared)

BUILD_TIMEOUT = 2400          # a cold build is 4-8 minutes on 2 busy cores
STOP_GRACE = 10               # SIGTERM to SIGKILL, for ninja to stop its compilers
LAUNCH_TIMEOUT = 60           # TCG start-up of a paused q35 machine takes about a second
MACHINE = ["-M", "q35", "-accel", "tcg", "-nodefaults", "-display", "none"]


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def run_in_own_group(cmd, log: Path, timeout: float, cwd: Path = REPO_ROOT) -> int:
    """Run cmd in a process group of its own, output to log; return its exit status.
    On timeout (or Ctrl-C while waiting) the whole group goes, not just cmd: SIGTERM,
    then SIGKILL after STOP_GRACE, so no ninja or compiler outlives the test; then the
    subprocess.TimeoutExpired (or KeyboardInterrupt) goes on."""
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            return proc.wait(timeout=timeout)
        except BaseException:
            _signal_group(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=STOP_GRACE)
            except subprocess.TimeoutExpired:
                pass
            _signal_group(proc.pid, signal.SIGKILL)   # members that ignored SIGTERM
            proc.wait()
            raise


def run_femu_compile(log: Path, *args: str) -> str:
    """Run femu-compile.sh; return its output, or fail the test with its last lines."""
    code = run_in_own_group([str(COMPILE_SCRIPT), *args], log, BUILD_TIMEOUT)
    text = log.read_text(errors="replace")
    if code != 0:
        tail = "\n".join(text.splitlines()[-30:])
        pytest.fail(f"femu-compile.sh failed ({code}); log {log}:\n{tail}")
    return text
