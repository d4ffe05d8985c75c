"""femu-compile: build QEMU 10.0 with the femu device into build-femu/qemu-system-x86_64.

Steps (each skipped when already done): obtain the source, add the pinned wheels, lay
hw/femu in, configure once, ninja. Any failure ends with one `error:` line and exit 1.
"""
import argparse
import fcntl
import shutil
import sys
import time

from . import overlay, qemu_build, source_tree, wheels
from .paths import BUILD_FEMU, CACHE, QEMU as OUTPUT, REPO_ROOT
from .steps import BuildError, duration, say

BUILD_DIR = BUILD_FEMU / qemu_build.RELEASE.build_dir
REQUIRED_TOOLS = ["cc", "ninja", "pkg-config", "tar", "xz", "make"]


def _parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="femu-compile.sh",
        description="Build QEMU 10.0 with the femu device. Source: $QEMU_SRC (a tree, used "
                    "as it is), $QEMU_TARBALL (unpacked), else Debian's qemu source package.")
    parser.add_argument("-j", "--jobs", type=int, help="parallel build jobs (ninja's default)")
    parser.add_argument("--refresh-source", action="store_true",
                        help="download Debian's source package again (a newer 10.0.x)")
    parser.add_argument("--clean", action="store_true",
                        help="remove the build folder first (ccache keeps the rebuild short)")
    parser.add_argument("--sanitize", action="store_true",
                        help="build with AddressSanitizer and UndefinedBehaviorSanitizer into "
                             f"{qemu_build.SANITIZE.build_dir}/ and leave "
                             f"{qemu_build.SANITIZE.output} (the release build is untouched)")
    return parser.parse_args(argv)


def variant_paths(args):
    """(variant, build folder, output binary) that these arguments ask for."""
    variant = qemu_build.SANITIZE if args.sanitize else qemu_build.RELEASE
    return variant, BUILD_FEMU / variant.build_dir, BUILD_FEMU / variant.output


def _check_tools() -> None:
    missing = [tool for tool in REQUIRED_TOOLS if shutil.which(tool) is None]
    if missing:
        raise BuildError(f"missing {', '.join(missing)}: run build-femu/pkgdep.sh")


def _lock():
    """One build at a time per checkout (a test session and a user may both start one)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    handle = open(CACHE / "build.lock", "w")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        say("another femu-compile is running here; waiting for it")
        fcntl.flock(handle, fcntl.LOCK_EX)
    return handle


def _build(args) -> int:
    """Build; return how many ninja steps ran (0: the binary was up to date)."""
    _check_tools()
    tree = source_tree.obtain(BUILD_FEMU, CACHE / "debsrc", args.refresh_source)
    say(f"QEMU {tree.version} from {tree.origin}")
    wheels.install(tree.path, CACHE / "wheels")
    overlay.apply(tree.path, REPO_ROOT / "hw" / "femu")
    use_ccache = shutil.which("ccache") is not None
    say("ccache: " + ("on" if use_ccache else "not installed (every build compiles from scratch)"))
    variant, build_dir, output = variant_paths(args)
    if args.clean and build_dir.exists():
        say(f"--clean: removing {build_dir}")
        shutil.rmtree(build_dir)
    env = qemu_build.build_env(REPO_ROOT, use_ccache)
    qemu_build.configure(tree.path, build_dir,
                         qemu_build.configure_args(sys.executable, use_ccache, variant), env)
    steps = qemu_build.build(build_dir, args.jobs, env)
    version = qemu_build.link_output(build_dir, output)
    (build_dir / "femu-build-info.txt").write_text(
        f"{version}\nvariant: {variant.name}\nsource: {tree.path}\norigin: {tree.origin}\n")
    say(f"built {output.relative_to(REPO_ROOT)}: {version} ({tree.origin})")
    return steps


def main(argv=None) -> int:
    args = _parse_args(argv)
    started = time.monotonic()
    try:
        with _lock():
            steps = _build(args)
    except BuildError as exc:
        print(f"femu-compile: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("femu-compile: error: interrupted", file=sys.stderr)
        return 130
    took = duration(time.monotonic() - started)
    say(f"finished: QEMU built in {took} ({steps} build steps)" if steps else
        f"finished: QEMU was up to date (checked in {took})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
