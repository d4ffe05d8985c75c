"""The built guest image: what it holds, and that a rebuild is skipped when
nothing changed."""
import json

from femu_guest import image as guest_image
from test_guest_builder_parts import read_cpio


def test_outputs_and_manifest(image):
    assert image.kernel.read_bytes()[:4] == b"\x7fELF"   # uncompressed, booted via PVH
    manifest = json.loads((image.kernel.parent / "manifest.json").read_text())
    for package in ("fio", "sysbench", "e2fsprogs", "nvme-cli", "busybox-static",
                    "libaio1", "linux-image-amd64", "libc6"):
        assert package in manifest["packages"]
    for module in ("crc64_rocksoft_generic", "nvme", "ext4", "qemu_fw_cfg"):
        assert module in manifest["modules"]
    # crc64_rocksoft_generic must be loaded before nvme-core (crypto alias, not modules.dep).
    assert manifest["modules"].index("crc64_rocksoft_generic") < manifest["modules"].index("nvme-core")
    print(f"image: vmlinux {manifest['vmlinux_bytes'] / 1e6:.1f} MB, initramfs "
          f"{manifest['initramfs_bytes'] / 1e6:.1f} MB, {manifest['shared_libraries']} libraries")


def test_initramfs_contents(image):
    names = {name: (mode, body) for name, mode, body, _ in read_cpio(image.initramfs.read_bytes())}
    for path in ("init", "usr/bin/fio", "usr/bin/sysbench", "usr/sbin/nvme", "usr/sbin/mke2fs",
                 "usr/bin/busybox", "usr/lib64/ld-linux-x86-64.so.2",
                 "usr/lib/x86_64-linux-gnu/libc.so.6", "usr/lib/x86_64-linux-gnu/libaio.so.1",
                 "etc/femu/modules.load", "dev/console"):
        assert path in names, path
    assert names["bin"][1] == b"usr/bin"          # merged /usr, as on Debian
    assert names["usr/bin/sh"][1] == b"/usr/bin/busybox"
    # busybox's own mke2fs must not shadow the real one from e2fsprogs.
    assert names["usr/sbin/mke2fs"][1][:4] == b"\x7fELF"


def test_second_build_is_skipped(image):
    assert guest_image.is_up_to_date(image.kernel.parent)
    again = guest_image.ensure_image(quiet=True)
    assert again.manifest["key"] == image.manifest["key"]
