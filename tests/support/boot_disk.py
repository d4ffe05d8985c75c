"""A BIOS-bootable disk image of the femu guest, made without root or loop mounts,
for testing compat mode (run-blackbox.sh IMAGE) the way a user's own image boots.

The disk is a partitionless FAT filesystem ("superfloppy") holding Debian's bzImage,
the guest initramfs and syslinux.cfg; `syslinux --install` (mtools based) writes
the boot sector and ldlinux.sys into it, and qemu-img turns it into qcow2. SeaBIOS
boots sector 0, syslinux loads the kernel, the guest comes up with femu.ssh=1.
Needs scripts/deps/compat.apt (syslinux, mtools, dosfstools, qemu-utils).
"""
import os
import shutil
import subprocess
from pathlib import Path

from femu_guest import image as guest_image

APPEND = "console=ttyS0 quiet femu.ssh=1"
TOOLS = {"mkfs.vfat": "dosfstools", "mcopy": "mtools", "syslinux": "syslinux",
         "qemu-img": "qemu-utils"}
SLACK_BYTES = 16 << 20     # FAT tables, ldlinux.sys / ldlinux.c32, syslinux.cfg
MIB = 1 << 20


def syslinux_config(append: str) -> str:
    # SERIAL: syslinux's own messages go to the console too, so a boot that stops in
    # the bootloader says why in the test's console log.
    return ("SERIAL 0 115200\nDEFAULT femu\nPROMPT 0\nTIMEOUT 0\n"
            f"LABEL femu\n  LINUX /vmlinuz\n  INITRD /initrd\n  APPEND {append}\n")


def _run(*args: str) -> None:
    # mtools refuses a FAT whose geometry does not match a real floppy's without this.
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    proc = subprocess.run(list(args), capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")


def missing_tools() -> list:
    """Debian packages to install for make_boot_disk (empty when all are there)."""
    return sorted({package for tool, package in TOOLS.items() if shutil.which(tool) is None})


def make_boot_disk(image: guest_image.GuestImage, out: Path, fmt: str = "qcow2",
                   append: str = APPEND) -> Path:
    """Write the bootable disk of the guest image to out (qcow2 or raw)."""
    kernel = guest_image.bzimage_path(image)
    initramfs = Path(image.initramfs)
    out = Path(out)
    raw = out.with_name(out.name + ".raw") if fmt == "qcow2" else out
    size = kernel.stat().st_size + initramfs.stat().st_size + SLACK_BYTES
    size = (size + MIB - 1) // MIB * MIB
    raw.unlink(missing_ok=True)
    with open(raw, "wb") as f:
        f.truncate(size)
    config = out.with_name(out.name + ".syslinux.cfg")
    config.write_text(syslinux_config(append))
    try:
        _run("mkfs.vfat", "-n", "FEMUBOOT", str(raw))
        _run("mcopy", "-i", str(raw), str(kernel), "::/vmlinuz")
        _run("mcopy", "-i", str(raw), str(initramfs), "::/initrd")
        _run("mcopy", "-i", str(raw), str(config), "::/syslinux.cfg")
        _run("syslinux", "--install", str(raw))
        if fmt == "qcow2":
            out.unlink(missing_ok=True)
            _run("qemu-img", "convert", "-f", "raw", "-O", "qcow2", str(raw), str(out))
    finally:
        config.unlink(missing_ok=True)
        if raw != out:
            raw.unlink(missing_ok=True)
    return out
