"""Fixtures shared by every pytest suite."""
import os
import pathlib
import subprocess

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parent.parent


def _build_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("FEMU_BUILD_DIR", REPO_ROOT / "build" / "release"))


@pytest.fixture(scope="session")
def repo_root() -> pathlib.Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def ftl_sim() -> pathlib.Path:
    """Path of the ftl-sim binary that tests/run.sh built (meson, build/release)."""
    path = _build_dir() / "tools" / "ftl-sim" / "ftl-sim"
    if not path.exists():
        pytest.fail(f"{path} is missing: build it with tests/run.sh "
                    "(or meson setup build/release && meson compile -C build/release)")
    return path


@pytest.fixture(scope="session")
def run_ftl_sim(ftl_sim):
    """Run ftl-sim with the given arguments; return the CompletedProcess (text mode)."""
    def run(*args, check=True):
        proc = subprocess.run([str(ftl_sim), *map(str, args)], capture_output=True,
                              text=True, timeout=600)
        if check and proc.returncode != 0:
            raise AssertionError(f"ftl-sim {' '.join(map(str, args))} failed "
                                 f"({proc.returncode}): {proc.stderr}")
        return proc
    return run
