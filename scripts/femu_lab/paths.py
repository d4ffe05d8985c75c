"""Where things live, each defined once in the package that owns it: the repository root
and the built QEMU (femu_build, which makes it), the guest image and package cache folders
(femu_guest, which fills them)."""
from femu_build.paths import COMPILE_SCRIPT, QEMU, REPO_ROOT
from femu_guest.paths import GUEST_SOURCE_DIR, guest_image_dir, image_root, package_cache_dir

__all__ = ["COMPILE_SCRIPT", "QEMU", "REPO_ROOT", "GUEST_SOURCE_DIR", "guest_image_dir",
           "image_root", "package_cache_dir"]
