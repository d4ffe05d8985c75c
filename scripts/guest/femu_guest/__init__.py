"""femu_guest: builds the femu guest (an uncompressed vmlinux and a plain cpio
initramfs) from Debian packages. Standard library only (and femu_common, scripts/common, which
is too), so it also runs from a bare python3 (scripts/guest/build-image.sh) without the
project's venv.

Modules:
  image         the builder: ensure_image(), GuestImage, `python -m femu_guest`
  releases      the Debian releases a guest is built from (RELEASES, DEFAULT_RELEASE)
  debian        apt-get download / dpkg-deb -x, candidate versions
  kernel        the vmlinux out of Debian's bzImage, module dependency chains
  package_view  the merged view of extracted package trees
  elf           NEEDED entries of ELF binaries (the shared-library closure)
  cpio          the newc cpio writer
  paths         the guest sources and the image / package cache folders
Its progress lines and its command runner are femu_common's (progress, command).
"""
from .releases import DEFAULT_RELEASE, RELEASES

__all__ = ["DEFAULT_RELEASE", "RELEASES"]
