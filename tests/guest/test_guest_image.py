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
    # Zoned labs: f2fs and its chain (its crc32 soft dependency too) ship, unloaded at boot.
    for package in ("f2fs-tools", "util-linux"):
        assert package in manifest["packages"]
    assert manifest["demand_modules"][-1] == "f2fs"
    assert {"crc32_generic", "zstd_compress", "lz4_compress"} <= set(manifest["demand_modules"])
    assert "f2fs" not in manifest["modules"]
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
    for tool in ("usr/sbin/mkfs.f2fs", "usr/sbin/fsck.f2fs", "usr/sbin/blkzone"):
        assert names[tool][1][:4] == b"\x7fELF", tool


def test_f2fs_module_line_names_its_soft_dependency(image):
    """busybox modprobe reads only modules.dep: f2fs's line must name a crc32 driver (a
    soft dependency upstream), or the mount fails with "Cannot load crc32 driver"."""
    names = {name: body for name, _, body, _ in read_cpio(image.initramfs.read_bytes())}
    version = image.manifest["kernel_version"]
    dep = names[f"usr/lib/modules/{version}/modules.dep"].decode()
    line = next(l for l in dep.splitlines() if l.startswith("kernel/fs/f2fs/f2fs.ko:"))
    for needed in ("kernel/crypto/crc32_generic.ko", "kernel/lib/zstd/zstd_compress.ko"):
        assert needed in line.split()
        assert "usr/lib/modules/" + version + "/" + needed in names


def test_second_build_is_skipped(image):
    assert guest_image.is_up_to_date(image.kernel.parent)
    again = guest_image.ensure_image(quiet=True)
    assert again.manifest["key"] == image.manifest["key"]
