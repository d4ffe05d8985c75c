"""What run-blackbox.sh needs before a run, each step built only when missing or stale:
ftl-sim (it checks the configuration), QEMU with femu, the guest image. Debian packages
and the Python venv come first, from the shell wrapper (this code runs inside that venv).
"""
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Iterable

from . import devconfig, guest_image, paths

QEMU = paths.REPO_ROOT / "build-femu" / "qemu-system-x86_64"
FEMU_SOURCES = paths.REPO_ROOT / "hw" / "femu"
RELEASE_BUILD = paths.REPO_ROOT / "build" / "release"


class SetupError(RuntimeError):
    pass


def _say(message: str) -> None:
    print(f"run-blackbox: {message}", file=sys.stderr, flush=True)


def _run_step(what: str, how_long: str, command: list) -> None:
    _say(f"{what} ({how_long})")
    started = time.monotonic()
    try:
        proc = subprocess.run(command, cwd=paths.REPO_ROOT, stdout=sys.stderr)
    except OSError as error:
        raise SetupError(f"{what}: {error}") from None
    if proc.returncode != 0:
        raise SetupError(f"{what} failed (exit status {proc.returncode}); see the output above")
    _say(f"{what}: done in {time.monotonic() - started:.0f} s")


def newest_mtime(files: Iterable[Path]) -> float:
    return max((f.stat().st_mtime for f in files if f.is_file()), default=0.0)


def ensure_ftl_sim() -> Path:
    tool = devconfig.ftl_sim_path()
    if tool.exists() and not _stale(tool, (paths.REPO_ROOT / d for d in ("hw/femu/ftl",
                                                                         "tools/ftl-sim"))):
        return tool
    if shutil.which("meson") is None:
        raise SetupError("meson is missing: run tests/install-deps.sh")
    if not (RELEASE_BUILD / "build.ninja").exists():
        _run_step("configuring the C build in build/release", "seconds",
                  ["meson", "setup", str(RELEASE_BUILD), "--buildtype=release"])
    _run_step("building the FTL and ftl-sim", "under a minute",
              ["meson", "compile", "-C", str(RELEASE_BUILD)])
    return tool


def ensure_qemu(qemu: Path = QEMU) -> Path:
    if qemu != QEMU:   # a QEMU the user named: use it as it is
        if not qemu.exists():
            raise SetupError(f"--qemu {qemu} does not exist")
        return qemu
    if not qemu.exists():
        _run_step("building QEMU 10.0 with the femu device",
                  "about 10 minutes the first time on 2 cores",
                  [str(paths.REPO_ROOT / "build-femu" / "femu-compile.sh")])
    elif _stale(qemu, [FEMU_SOURCES]):
        _run_step("rebuilding QEMU: hw/femu changed", "seconds",
                  [str(paths.REPO_ROOT / "build-femu" / "femu-compile.sh")])
    if not qemu.exists():
        raise SetupError(f"{qemu} was not built")
    return qemu


def ensure_guest(log: Callable[[str], None] = _say) -> guest_image.GuestImage:
    if not guest_image.is_up_to_date(paths.guest_image_dir()):
        log("building the guest image from Debian packages (about a minute the first time)")
    try:
        return guest_image.ensure_image(quiet=True)
    except Exception as error:  # the builder's errors are apt / dpkg / file errors
        raise SetupError(f"building the guest image failed: {error}") from None


def _stale(target: Path, source_dirs: Iterable[Path]) -> bool:
    built = target.stat().st_mtime
    for folder in source_dirs:
        if newest_mtime(p for p in Path(folder).rglob("*") if p.suffix in (".c", ".h",
                                                                            ".build")) > built:
            return True
    return False
