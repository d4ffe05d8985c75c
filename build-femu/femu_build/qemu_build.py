"""Configure QEMU once per (tree, options) and build just qemu-system-x86_64 with ninja,
which recompiles only what changed (ccache makes a fresh build dir cheap too)."""
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import List, NamedTuple, Optional, Tuple

from femu_common import command

from . import overlay
from .steps import BuildError, Step, say, skipped

TARGET = "qemu-system-x86_64"
CONFIGURE_STAMP = ".femu-configured"
PROGRESS_SECONDS = 20
STOP_GRACE_SECONDS = 10    # for ninja to stop its compilers before it is killed

# Only what femu needs: every optional feature off unless named here, and only the
# devices of femu-devices.mak (q35 and pc, femu, QEMU's nvme, pcie-root-port, virtio
# net / blk / scsi). Tools (qemu-img ...), the guest agent, docs and tests are not built.
# TCG for hosts without KVM (and the tests), KVM when there is one; slirp for -netdev user
# (ssh into a guest); linux-aio for aio=native backing files of the stock nvme. The log
# trace backend stays: -trace femu_* prints through it. Debug info is the variant's.
FEATURES = [
    "--target-list=x86_64-softmmu",
    "--without-default-features", "--without-default-devices",
    f"--with-devices-x86_64={overlay.DEVICES_NAME}",
    "--disable-download", "--disable-fdt",
    "--enable-tcg", "--enable-kvm", "--enable-slirp", "--enable-linux-aio",
    "--disable-docs", "--disable-werror", "--disable-install-blobs",
    # The tarball has no firmware: look where Debian's seabios, ipxe-qemu and
    # qemu-system-data put theirs, so no -L is needed (an -L still takes precedence).
    "--firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu",
]


class Variant(NamedTuple):
    """One kind of build: its folder and binary under build-femu/, and what it adds to
    configure."""
    name: str
    build_dir: str
    output: str
    configure: Tuple[str, ...]


# Debug info -g1 (line tables and function names: a backtrace names function, file and
# line) instead of QEMU's -g, which costs about 12% more compile time (216 of the 1082
# compiles, run one at a time, twice: 57-59 s of CPU with -g1, 63-69 s with -g). The
# sanitizer build keeps -g.
RELEASE = Variant("release", "qemu-build", TARGET,
                  ("--disable-debug-info", "--extra-cflags=-g1"))
# AddressSanitizer + UndefinedBehaviorSanitizer, for fuzzing the device. A folder of its
# own: sharing qemu-build/ would make every switch a reconfigure and a full rebuild, and
# the release binary must stay as it is.
SANITIZE = Variant("sanitize", "qemu-build-sanitize", TARGET + "-sanitize",
                   ("--enable-asan", "--enable-ubsan"))


def configure_args(python: str, use_ccache: bool, variant: Variant = RELEASE) -> List[str]:
    args = list(FEATURES) + list(variant.configure) + [f"--python={python}"]
    if use_ccache:
        # QEMU hands meson an explicit compiler, so meson would not add ccache itself.
        args.append("--cc=ccache cc")
    return args


def build_env(repo_root: Path, use_ccache: bool) -> dict:
    env = dict(os.environ)
    if use_ccache:
        # Hash paths relative to the repository and ignore the build dir's own path, so
        # another clone or a fresh build dir hits the same cache entries.
        env.setdefault("CCACHE_BASEDIR", str(repo_root))
        env.setdefault("CCACHE_NOHASHDIR", "1")
    return env


def _tail(path: Path, count: int) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-count:])
    except OSError:
        return ""


def configure(tree: Path, build_dir: Path, args: List[str], env: dict) -> None:
    wanted = {"tree": str(tree), "args": args}
    stamp = build_dir / CONFIGURE_STAMP
    name = "configure QEMU"
    if (build_dir / "build.ninja").exists() and stamp.exists():
        try:
            if json.loads(stamp.read_text()) == wanted:
                skipped(name, f"{build_dir.name}/ is configured with the same options")
                return
        except ValueError:
            pass
        say(f"{name}: source tree or options changed, starting a fresh {build_dir.name}/")
    if build_dir.exists():
        shutil.rmtree(build_dir)
    build_dir.mkdir(parents=True)
    log = build_dir / "femu-configure.log"
    with Step(name, "15-30 s"):
        say(f"configure {' '.join(args)}  (log: {log})")
        with open(log, "w") as out:
            proc = subprocess.run([str(tree / "configure"), *args], cwd=build_dir, env=env,
                                  stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        if proc.returncode != 0:
            sys.stderr.write(_tail(log, 20) + "\n")
            raise BuildError(f"QEMU configure failed (exit {proc.returncode}); full log: {log}")
        stamp.write_text(json.dumps(wanted))


_STEP = re.compile(r"^\[(\d+)/(\d+)\] (.*)")
# QEMU regenerates its version header on every build; it changes nothing when unchanged.
ALWAYS_RUN = "Generating qemu-version.h"
# meson's re-run after a meson.build edit prints its whole configuration summary.
REGENERATE = "Regenerating build files"


def _stop(proc: subprocess.Popen) -> None:
    """End ninja if it still runs, and reap it. SIGTERM first: ninja then stops the
    compilers it started (they run in process groups of their own)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def build(build_dir: Path, jobs: Optional[int], env: dict) -> int:
    """Run ninja; show compiler messages as they come and progress every few seconds.
    Returns how many steps ran (not counting the version header it always regenerates)."""
    log = build_dir / "femu-ninja.log"
    cmd = ["ninja", "-C", str(build_dir), TARGET] + ([f"-j{jobs}"] if jobs else [])
    steps: List[str] = []
    with Step(f"build {TARGET}", "2-3 min cold on 2 cores, seconds after an edit"):
        last_report = time.monotonic()
        regenerating = False
        with open(log, "w") as out:
            proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, text=True,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    errors="replace")
            try:
                for line in proc.stdout:
                    out.write(line)
                    match = _STEP.match(line)
                    if match:
                        regenerating = match.group(3).startswith(REGENERATE)
                        if regenerating:
                            say("  a meson.build changed: meson regenerates the build files "
                                f"(its report goes to {log.name})")
                        if not match.group(3).startswith(ALWAYS_RUN):
                            steps.append(match.group(3))
                        if time.monotonic() - last_report >= PROGRESS_SECONDS:
                            last_report = time.monotonic()
                            say(f"  [{match.group(1)}/{match.group(2)}] {match.group(3)[:90]}")
                    elif not regenerating and not line.startswith(("ninja: Entering",
                                                                   "ninja: no work")):
                        sys.stderr.write(line)   # compiler warnings and errors, as they come
                code = proc.wait()
            finally:
                _stop(proc)   # on any error above (Ctrl-C too): no ninja left running
        if code != 0:
            raise BuildError(f"building {TARGET} failed (ninja exit {code}); the compiler's "
                             f"message is above; full log: {log}")
        if not steps:
            say("  nothing to rebuild")
        elif len(steps) <= 12:
            for step in steps:
                say(f"  rebuilt: {step}")
        else:
            say(f"  {len(steps)} build steps")
    return len(steps)


def link_output(build_dir: Path, output: Path) -> str:
    """Put the built binary at output; return its --version line.

    A hard link (a copy across file systems), not a symlink: QEMU resolves its own path,
    and run from inside the build folder it looks for firmware only in the build's
    qemu-bundle/, which holds none. From build-femu/ it searches the --firmwarepath
    folders, where Debian's firmware packages are.
    """
    built = build_dir / TARGET
    if not built.exists():
        raise BuildError(f"ninja succeeded but {built} is missing")
    fresh = build_dir / (TARGET + ".femu-new")   # same file system, git-ignored
    if fresh.exists() or fresh.is_symlink():
        fresh.unlink()
    try:
        os.link(built, fresh)
    except OSError:
        shutil.copy2(built, fresh)
    os.replace(fresh, output)   # atomic: a running test never sees a half-written binary
    try:
        proc = command.run([output, "--version"], f"{output} --version")
    except command.CommandError as error:
        raise BuildError(str(error)[:400]) from None
    return proc.stdout.splitlines()[0] if proc.stdout else "?"
