"""The built guest image: what it holds, and that a rebuild is skipped when
nothing changed."""
import json
import stat

from femu_guest import image as guest_image
from femu_guest.image import tools_for
from cpio_reader import read_cpio


def files_of(image) -> dict:
    """Regular files of the initramfs: path -> content."""
    return {name: body for name, mode, body, _ in read_cpio(image.initramfs.read_bytes())
            if stat.S_ISREG(mode)}


def test_outputs_and_manifest(image):
    assert image.kernel.read_bytes()[:4] == b"\x7fELF"   # uncompressed, booted via PVH
    manifest = json.loads((image.kernel.parent / "manifest.json").read_text())
    assert image.kernel.parent.name == manifest["release"]
    assert image.tcg_append == guest_image.TCG_APPEND.get(manifest["release"], "")
    for package in (*tools_for(manifest["release"]), "linux-image-amd64", "libc6"):
        assert package in manifest["packages"]
    # Loaded at boot unless the release's kernel has them built in.
    for module in ("crc64_rocksoft_generic", "nvme", "ext4", "qemu_fw_cfg"):
        assert module in manifest["modules"] + manifest["builtin_modules"], module
    # Zoned labs: f2fs and its chain (its crc32 soft dependency too) ship, unloaded at boot.
    assert manifest["demand_modules"][-1] == "f2fs"
    assert {"crc32_generic", "lz4_compress"} <= set(manifest["demand_modules"])
    assert "f2fs" not in manifest["modules"]
    # crc64_rocksoft_generic must be there before nvme-core (crypto alias, not modules.dep):
    # loaded first where it is a module (bookworm's 6.1), built in on trixie's 6.12.
    if "crc64_rocksoft_generic" in manifest["modules"]:
        assert manifest["modules"].index("crc64_rocksoft_generic") < \
            manifest["modules"].index("nvme-core")
    print(f"image ({manifest['release']}, {manifest['kernel_version']}): vmlinux "
          f"{manifest['vmlinux_bytes'] / 1e6:.1f} MB, initramfs "
          f"{manifest['initramfs_bytes'] / 1e6:.1f} MB, {manifest['shared_libraries']} "
          f"libraries, built in {manifest['build_seconds']} s")


def test_initramfs_contents(image):
    names = {name: (mode, body) for name, mode, body, _ in read_cpio(image.initramfs.read_bytes())}
    libaio = [p for patterns in tools_for(image.manifest["release"]).values()
              for p in patterns if "libaio" in p]
    for path in ("init", "usr/bin/fio", "usr/bin/sysbench", "usr/sbin/nvme", "usr/sbin/mke2fs",
                 "usr/bin/busybox", "usr/lib64/ld-linux-x86-64.so.2",
                 "usr/lib/x86_64-linux-gnu/libc.so.6", *libaio,
                 "etc/femu/modules.load", "dev/console"):
        assert path in names, path
    assert names["bin"][1] == b"usr/bin"          # merged /usr, as on Debian
    assert names["usr/bin/sh"][1] == b"/usr/bin/busybox"
    # busybox's own mke2fs must not shadow the real one from e2fsprogs.
    assert names["usr/sbin/mke2fs"][1][:4] == b"\x7fELF"
    for tool in ("usr/sbin/mkfs.f2fs", "usr/sbin/fsck.f2fs", "usr/sbin/blkzone"):
        assert names[tool][1][:4] == b"\x7fELF", tool


def test_modules_are_plain_and_their_lists_agree(image):
    """busybox insmod reads plain .ko files: trixie's .ko.xz modules ship decompressed,
    and modules.load, modules.ssh and modules.dep name exactly the files the image has."""
    names = files_of(image)
    folder = f"usr/lib/modules/{image.manifest['kernel_version']}/"
    shipped = {name[len(folder):] for name in names
               if name.startswith(folder) and name != folder + "modules.dep"}
    assert shipped and all(name.endswith(".ko") for name in shipped), sorted(shipped)[:5]
    for name in shipped:
        assert names[folder + name][:4] == b"\x7fELF", name
    listed = set()
    for list_file in ("etc/femu/modules.load", "etc/femu/modules.ssh"):
        for line in names[list_file].decode().split():
            assert line.startswith("/" + folder) and line[1:] in names, (list_file, line)
            listed.add(line[1 + len(folder):])
    dep = names[folder + "modules.dep"].decode()
    on_dep_lines = set()
    for line in dep.splitlines():
        module, _, deps = line.partition(":")
        on_dep_lines |= {module, *deps.split()}
    assert on_dep_lines == shipped, on_dep_lines ^ shipped
    assert listed <= shipped
    stems = {name.rsplit("/", 1)[1][:-3].replace("-", "_") for name in listed}
    expected = image.manifest["modules"] + image.manifest["ssh_modules"]
    assert stems == {name.replace("-", "_") for name in expected}


def test_f2fs_module_line_names_its_soft_dependency(image):
    """busybox modprobe reads only modules.dep: f2fs's line must name a crc32 driver (a
    soft dependency upstream), or the mount fails with "Cannot load crc32 driver"."""
    names = files_of(image)
    version = image.manifest["kernel_version"]
    dep = names[f"usr/lib/modules/{version}/modules.dep"].decode()
    line = next(l for l in dep.splitlines() if l.startswith("kernel/fs/f2fs/f2fs.ko:"))
    for needed in ("kernel/crypto/crc32_generic.ko", "kernel/lib/lz4/lz4_compress.ko"):
        assert needed in line.split()
        assert "usr/lib/modules/" + version + "/" + needed in names


def test_second_build_is_skipped(image):
    release = image.manifest["release"]
    assert guest_image.is_up_to_date(image.kernel.parent, release)
    again = guest_image.ensure_image(quiet=True, release=release)
    assert again.manifest["key"] == image.manifest["key"]
