"""Paths and the build runner shared by the femu device tests (imported by name, so it
has a name of its own rather than living in conftest.py)."""
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_FEMU = REPO_ROOT / "build-femu"
QEMU = BUILD_FEMU / "qemu-system-x86_64"
BUILD_TIMEOUT = 2400          # a cold build is 4-8 minutes on 2 busy cores
LAUNCH_TIMEOUT = 60           # TCG start-up of a paused q35 machine takes about a second
MACHINE = ["-M", "q35", "-accel", "tcg", "-nodefaults", "-display", "none"]

sys.path.insert(0, str(BUILD_FEMU))   # femu_build, for the build-script unit tests


def run_femu_compile(log: Path, *args: str) -> str:
    """Run femu-compile.sh; return its output, or fail the test with its last lines."""
    with open(log, "w") as out:
        proc = subprocess.run([str(BUILD_FEMU / "femu-compile.sh"), *args], cwd=REPO_ROOT,
                              stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                              timeout=BUILD_TIMEOUT)
    text = log.read_text(errors="replace")
    if proc.returncode != 0:
        tail = "\n".join(text.splitlines()[-30:])
        pytest.fail(f"femu-compile.sh failed ({proc.returncode}); log {log}:\n{tail}")
    return text
