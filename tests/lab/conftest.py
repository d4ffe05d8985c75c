"""Fixtures the lab tests share."""
import pytest


@pytest.fixture
def guest_files(tmp_path):
    """A stand-in kernel and initramfs: the accelerator probe's inputs, never booted."""
    kernel, initramfs = tmp_path / "vmlinux", tmp_path / "initramfs.cpio"
    kernel.write_bytes(b"kernel")
    initramfs.write_bytes(b"initramfs")
    return kernel, initramfs
