"""Where the guest's sources are and where the built image and the package cache go."""
import os
from pathlib import Path
from typing import Optional

from .releases import check_release

# scripts/guest/femu_guest/paths.py: the guest sources (init, profile) sit beside this
# package, the repository root is two levels above them.
GUEST_SOURCE_DIR = Path(__file__).resolve().parents[1]
REPO_ROOT = GUEST_SOURCE_DIR.parents[1]


def c_build_dir() -> Path:
    """The meson build folder of the project's C tools (FEMU_BUILD_DIR overrides
    build/release): the guest's own tools (image.PROJECT_TOOLS) come from there."""
    return Path(os.environ.get("FEMU_BUILD_DIR", REPO_ROOT / "build" / "release"))


def image_root() -> Path:
    """Root of all generated guest artefacts (override with FEMU_IMAGE_DIR)."""
    override = os.environ.get("FEMU_IMAGE_DIR")
    return Path(override) if override else REPO_ROOT / "images"


def guest_image_dir(release: Optional[str] = None) -> Path:
    """Folder holding one release's built vmlinux, initramfs.cpio and manifest.json
    (images/guest/RELEASE; None: the default release)."""
    return image_root() / "guest" / check_release(release)


def package_cache_dir() -> Path:
    """Downloaded .deb files and their extracted trees, reused across builds."""
    return image_root() / "cache"
