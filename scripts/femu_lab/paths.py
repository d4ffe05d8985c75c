"""Where things live: the repository root and the git-ignored image folder."""
import os
from pathlib import Path

# scripts/femu_lab/paths.py -> repository root is two levels above scripts/.
REPO_ROOT = Path(__file__).resolve().parents[2]
GUEST_SOURCE_DIR = REPO_ROOT / "scripts" / "guest"


def image_root() -> Path:
    """Root of all generated guest artefacts (override with FEMU_IMAGE_DIR)."""
    override = os.environ.get("FEMU_IMAGE_DIR")
    return Path(override) if override else REPO_ROOT / "images"


def guest_image_dir() -> Path:
    """Folder holding the built vmlinux, initramfs.cpio and manifest.json."""
    return image_root() / "guest"


def package_cache_dir() -> Path:
    """Downloaded .deb files and their extracted trees, reused across builds."""
    return image_root() / "cache"
