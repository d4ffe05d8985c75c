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


def _built_tool(name: str) -> pathlib.Path:
    """Path of tools/NAME as tests/run.sh built it (meson, build/release); the test fails
    when it is missing."""
    path = _build_dir() / "tools" / name / name
    if not path.exists():
        pytest.fail(f"{path} is missing: build it with tests/run.sh "
                    "(or meson setup build/release && meson compile -C build/release)")
    return path


@pytest.fixture(scope="session")
def ftl_sim() -> pathlib.Path:
    return _built_tool("ftl-sim")


@pytest.fixture(scope="session")
def femu_trace() -> pathlib.Path:
    """femu-trace, built beside ftl-sim."""
    return _built_tool("femu-trace")


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


# Every test belongs to exactly one tier, selected with -m (tests/run.sh -m unit). The tiers
# are registered, each with what it needs, as markers in pyproject.toml ([tool.pytest.
# ini_options], run with --strict-markers). unit needs the venv and the C build of
# tests/run.sh only: no VM, no QEMU, no Slurm, no network, no root.
TIERS = ("unit", "integration", "slurm", "qtest", "vm", "build", "docs")
# Assigned from the fixtures a test uses, unless the test or its module names a tier itself
# (pytestmark = pytest.mark.build): a guest fixture makes it vm, the Slurm cluster slurm, a
# QEMU fixture qtest, and everything else is unit.
VM_FIXTURES = {"image", "guest", "femu_qemu", "femu_ready"}
SLURM_FIXTURES = {"slurm_cluster"}
QTEST_FIXTURES = {"qemu", "nvme_qemu", "launch", "qmp"}


def pytest_configure(config):
    registered = {line.split(":")[0].strip() for line in config.getini("markers")}
    unregistered = [name for name in TIERS if name not in registered]
    if unregistered:
        raise pytest.UsageError(f"tiers {unregistered} are not markers in pyproject.toml")
    # Guest boots take their accelerator from FEMU_ACCEL (else auto: KVM only where the
    # probe shows a guest runs under it); a misspelt value stops the run here, not in a VM.
    from femu_lab.vm import accel
    try:
        accel.requested()
    except accel.AccelError as error:
        raise pytest.UsageError(str(error)) from None


def _tier(item) -> str:
    fixtures = set(item.fixturenames)
    if fixtures & VM_FIXTURES:
        return "vm"
    if fixtures & SLURM_FIXTURES:
        return "slurm"
    if fixtures & QTEST_FIXTURES:
        return "qtest"
    return "unit"


@pytest.hookimpl(tryfirst=True)   # before -m deselects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        named = {mark.name for mark in item.iter_markers() if mark.name in TIERS}
        if len(named) > 1:
            raise pytest.UsageError(f"{item.nodeid} is marked {sorted(named)}: "
                                    f"one of {', '.join(TIERS)}")
        if not named:
            item.add_marker(_tier(item))
