"""femu-compile.sh --sanitize: which folder, binary and configure options it picks, and
that the release build's stay as they were. Nothing is built."""
import subprocess

import pytest

from femu_device import BUILD_FEMU, REPO_ROOT
from femu_build import __main__ as femu_compile
from femu_build import qemu_build


def _paths(*argv):
    return femu_compile.variant_paths(femu_compile._parse_args(list(argv)))


def test_default_is_the_release_build():
    variant, build_dir, output = _paths()
    assert variant is qemu_build.RELEASE
    assert build_dir == BUILD_FEMU / "qemu-build" == femu_compile.BUILD_DIR
    assert output == BUILD_FEMU / "qemu-system-x86_64" == femu_compile.OUTPUT


def test_sanitize_has_its_own_folder_and_binary():
    variant, build_dir, output = _paths("--sanitize", "-j", "2")
    assert variant is qemu_build.SANITIZE
    assert build_dir == BUILD_FEMU / "qemu-build-sanitize"
    assert output == BUILD_FEMU / "qemu-system-x86_64-sanitize"


def test_sanitize_adds_asan_and_ubsan_to_the_release_options():
    release = qemu_build.configure_args("/usr/bin/python3", use_ccache=True)
    sanitize = qemu_build.configure_args("/usr/bin/python3", True, qemu_build.SANITIZE)
    assert "--enable-asan" not in release and "--enable-ubsan" not in release
    # The same features and devices; the release build has line-table debug info (-g1),
    # the sanitizer build QEMU's full -g.
    debug = ["--disable-debug-info", "--extra-cflags=-g1"]
    assert all(option in release for option in debug)
    assert sorted(sanitize) == sorted([option for option in release if option not in debug]
                                      + ["--enable-asan", "--enable-ubsan"])
    # Each configure folder keeps its own stamp, so different options never collide.
    assert qemu_build.SANITIZE.build_dir != qemu_build.RELEASE.build_dir


@pytest.mark.integration   # runs git
def test_sanitize_outputs_are_git_ignored():
    names = ["build-femu/qemu-build-sanitize/x.o", "build-femu/qemu-system-x86_64-sanitize"]
    proc = subprocess.run(["git", "check-ignore", "--no-index", *names], cwd=REPO_ROOT,
                          capture_output=True, text=True)
    assert proc.stdout.split() == names, proc.stderr
