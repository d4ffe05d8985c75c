"""What run-blackbox.sh needs before a run: ftl-sim (it checks the configuration), QEMU with
femu, the guest image. Each step always runs its build tool, and the tool decides what is
stale: meson / ninja for ftl-sim, femu-compile.sh (ninja again) for QEMU, the guest
builder's build key (package versions and source contents) for the image; each is quick
when nothing changed. Debian packages and the Python venv come first, from the shell
wrapper (this code runs inside that venv).
"""
import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Optional

from femu_common.errors import RunFailure
from femu_common.progress import duration
from femu_guest import DEFAULT_RELEASE, RELEASES
from femu_guest import image as guest_image

from . import devconfig, paths
from .vm import accel

QEMU = paths.QEMU
QUIET_SECONDS = 5    # an up-to-date check that runs longer is rebuilding: show it


class SetupError(RunFailure):
    pass


_program = "run-blackbox"    # the command whose lines these are (speak_as)


def speak_as(program: str) -> None:
    """Name the running command in the lines below ('femu-lab crash', 'femu-lab run')."""
    global _program
    _program = program


def say(message: str) -> None:
    print(f"{_program}: {message}", file=sys.stderr, flush=True)


LOG_DIR = paths.REPO_ROOT / "build" / "logs"   # gitignored, beside install-deps.log
FAILED_TAIL_LINES = 15


def _run_step(what: str, how_long: str, command: list, quiet: bool = False,
              log: Optional[Path] = None) -> None:
    """Runs command. Its output goes to stderr, or with log into that file alone (the
    terminal then shows the step's line and its time; a failure, the log's last lines and
    one line naming it). quiet (a check that is usually up to date): nothing is shown
    unless it fails or still runs after QUIET_SECONDS (real work), and then what is
    shown above."""
    started = time.monotonic()
    shown = not quiet
    if shown:
        say(f"{what} ({how_long})")
    held = []
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
    try:
        proc = subprocess.Popen(command, cwd=paths.REPO_ROOT, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                errors="replace")
    except OSError as error:
        raise SetupError(f"{what}: {error}") from None
    with proc, open(log if log is not None else os.devnull, "w") as log_file:
        for line in proc.stdout:
            log_file.write(line)
            if not shown and time.monotonic() - started > QUIET_SECONDS:
                say(f"{what} ({how_long})")
                if log is None:
                    sys.stderr.writelines(held)
                shown = True
            if log is not None:
                held = (held + [line])[-FAILED_TAIL_LINES:]
            elif shown:
                sys.stderr.write(line)
                sys.stderr.flush()
            else:
                held.append(line)
        code = proc.wait()
    if code != 0:
        if log is not None:
            sys.stderr.writelines("  | " + line for line in held)
            raise SetupError(f"{what} failed (exit status {code}); its whole output is in "
                             f"{_shown(log)}")
        if not shown:
            sys.stderr.writelines(held)
        raise SetupError(f"{what} failed (exit status {code}); see the output above")
    if shown:
        say(f"{what}: done in {duration(time.monotonic() - started)}")


def ensure_ftl_sim() -> Path:
    """ftl-sim built and current: meson compile (ninja) does nothing when nothing changed.
    A FEMU_BUILD_DIR that holds an ftl-sim but no meson build is used as it is."""
    build, tool = devconfig.c_build_dir(), devconfig.ftl_sim_path()
    configured = (build / "build.ninja").exists()
    if not configured and tool.exists():
        return tool
    if shutil.which("meson") is None:
        raise SetupError("meson is missing: run scripts/install-deps.sh")
    if not configured:
        _run_step(f"configuring the C build in {_shown(build)}", "seconds",
                  ["meson", "setup", str(build), "--buildtype=release"],
                  log=LOG_DIR / "ftl-sim-configure.log")
    # kv-load too: the guest image takes it from the build (femu_guest.image.PROJECT_TOOLS)
    _run_step("building the FTL, ftl-sim and kv-load", "under a minute",
              ["meson", "compile", "-C", str(build), "ftl-sim", "kv-load"],
              quiet=tool.exists(), log=LOG_DIR / "ftl-sim-build.log")
    return tool


def _shown(path: Path) -> Path:
    try:
        return path.relative_to(paths.REPO_ROOT)
    except ValueError:
        return path


def ensure_qemu(qemu: Path = QEMU) -> Path:
    """QEMU with femu built and current: femu-compile.sh rebuilds only what changed."""
    if qemu != QEMU:   # a QEMU the user named: use it as it is
        if not qemu.exists():
            raise SetupError(f"--qemu {qemu} does not exist")
        return qemu
    if qemu.exists():
        _run_step("bringing QEMU up to date", "seconds", [str(paths.COMPILE_SCRIPT)],
                  quiet=True)
    else:
        _run_step("building QEMU 10.0 with the femu device",
                  "about 3 minutes the first time on 2 cores", [str(paths.COMPILE_SCRIPT)])
    if not qemu.exists():
        raise SetupError(f"{qemu} was not built")
    return qemu


def add_guest_arguments(parser: argparse.ArgumentParser) -> None:
    """--accel and --guest-release, the same on every command that boots the guest."""
    accel.add_argument(parser)
    parser.add_argument("--guest-release", choices=RELEASES, default=None,
                        help=f"Debian release of the guest image (default {DEFAULT_RELEASE})")


def ensure_guest(log: Callable[[str], None] = say,
                 release: Optional[str] = None) -> guest_image.GuestImage:
    building = not guest_image.is_up_to_date(paths.guest_image_dir(release))
    if building:
        log("building the guest image from Debian packages (about a minute the first time)")
    started = time.monotonic()
    try:
        image = guest_image.ensure_image(quiet=True, release=release)
    except Exception as error:  # the builder's errors are apt / dpkg / file errors
        raise SetupError(f"building the guest image failed: {error}") from None
    if building:
        log(f"guest image built in {duration(time.monotonic() - started)}")
    return image



def choose_accel(request: str, qemu: Path, image: guest_image.GuestImage,
                 log: Callable[[str], None] = say, firmware_dirs=()) -> str:
    """The accelerator the runs to come use: the probe's cached verdict, or one probe boot
    (seconds) the first time on this host boot. One line says which; TCG under 'auto' is
    the calm fallback line (expected where KVM cannot run a guest). An explicit 'kvm' that
    cannot run a guest raises accel.AccelError."""
    accelerator, verdict = accel.resolve(request, str(qemu), "q35", image.kernel,
                                         image.initramfs, firmware_dirs=firmware_dirs)
    if accelerator == "kvm":
        log(f"accelerator {verdict.describe()}")
    elif request != "tcg":
        log(verdict.fallback_line())
    return accelerator
