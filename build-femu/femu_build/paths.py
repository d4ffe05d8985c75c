"""Where femu_build works and what it leaves: the one definition of the built QEMU's path,
imported by everything in Python that runs it (femu_lab, the tests). Standard library only
and located from this file, so femu_build must be installed editable (the deps script does)
or put on PYTHONPATH (femu-compile.sh does)."""
from pathlib import Path

from .qemu_build import RELEASE, SANITIZE

BUILD_FEMU = Path(__file__).resolve().parent.parent      # build-femu/
REPO_ROOT = BUILD_FEMU.parent
CACHE = BUILD_FEMU / ".cache"
COMPILE_SCRIPT = BUILD_FEMU / "femu-compile.sh"
QEMU = BUILD_FEMU / RELEASE.output                      # build-femu/qemu-system-x86_64
QEMU_SANITIZE = BUILD_FEMU / SANITIZE.output
