"""Builder pieces that need no QEMU: ELF reading, cpio writing, the package tree view,
the kernel's payload and modules, the private apt configuration, release names."""
import ctypes
import ctypes.util
import gzip
import io
import lzma
import shutil
import struct
import sys
from pathlib import Path

import pytest

from femu_guest import debian, elf, kernel
from femu_guest.cpio import CpioWriter
from femu_guest.package_view import PackageView, normalize

from cpio_reader import read_cpio


def test_cpio_round_trip(tmp_path):
    source = tmp_path / "f"
    source.write_bytes(b"hello")
    out = io.BytesIO()
    writer = CpioWriter(out)
    writer.directory("usr")
    writer.file("usr/f", source, 0o755)
    writer.symlink("bin", "usr/bin")
    writer.char_device("dev/console", 5, 1)
    writer.data("etc/x", b"abc", 0o644)
    writer.finish()
    entries = read_cpio(out.getvalue())
    assert [e[0] for e in entries] == ["usr", "usr/f", "bin", "dev/console", "etc/x"]
    assert entries[1][2] == b"hello" and entries[1][1] & 0o777 == 0o755
    assert entries[2][2] == b"usr/bin"
    assert entries[3][3] == (5, 1)
    assert len(out.getvalue()) % 4 == 0


def test_elf_reader_on_the_host_python():
    info = elf.read_dynamic_info(Path(sys.executable).resolve())
    assert info is not None
    assert info.interpreter and "ld-linux" in info.interpreter
    assert any(name.startswith("libc.so.") for name in info.needed), info.needed


def test_elf_reader_ignores_non_elf(tmp_path):
    script = tmp_path / "s.sh"
    script.write_text("#!/bin/sh\n")
    assert not elf.is_elf(script)
    assert elf.read_dynamic_info(script) is None


def test_normalize_folds_merged_usr():
    assert normalize("/lib64/ld-linux-x86-64.so.2") == "usr/lib64/ld-linux-x86-64.so.2"
    assert normalize("sbin/mke2fs") == "usr/sbin/mke2fs"
    assert normalize("./etc/mke2fs.conf") == "etc/mke2fs.conf"


def test_package_view_follows_links_and_reports_missing_libraries(tmp_path):
    tree = tmp_path / "pkg"
    (tree / "usr/bin").mkdir(parents=True)
    (tree / "lib/x86_64-linux-gnu").mkdir(parents=True)
    host_python = Path(sys.executable).resolve()
    shutil.copy(host_python, tree / "usr/bin/tool")
    (tree / "lib/x86_64-linux-gnu/libz.so.1").symlink_to("libz.so.1.2.13")
    (tree / "lib/x86_64-linux-gnu/libz.so.1.2.13").write_bytes(b"not really a library")
    view = PackageView()
    view.add_tree("pkg", tree)
    path, entry = view.resolve("usr/lib/x86_64-linux-gnu/libz.so.1")
    assert path.endswith("libz.so.1.2.13") and entry.package == "pkg"
    closure = view.closure(["usr/bin/tool"])
    assert "usr/bin/tool" in closure.files
    # The loader and libc live in packages this view does not hold.
    assert closure.unresolved


def test_guest_modules_dep_adds_a_chain_to_its_module_only(tmp_path):
    dep = tmp_path / "modules.dep"
    dep.write_text("kernel/fs/a.ko: kernel/lib/x.ko\nkernel/lib/x.ko:\nkernel/crypto/c.ko:\n"
                   "kernel/fs/unused.ko:\n")
    included = ["kernel/lib/x.ko", "kernel/crypto/c.ko", "kernel/fs/a.ko"]
    text = kernel.guest_modules_dep(dep, included, {"kernel/fs/a.ko": included})
    assert text.splitlines() == ["kernel/fs/a.ko: kernel/lib/x.ko kernel/crypto/c.ko",
                                 "kernel/lib/x.ko:", "kernel/crypto/c.ko:"]
    plain = kernel.guest_modules_dep(dep, included)
    assert plain.splitlines()[0] == "kernel/fs/a.ko: kernel/lib/x.ko"


def test_guest_modules_dep_names_compressed_modules_as_the_guest_has_them(tmp_path):
    """trixie's modules.dep names .ko.xz files; the guest gets them decompressed, so every
    name on its lines (soft dependencies added from a chain too) ends in .ko."""
    dep = tmp_path / "modules.dep"
    dep.write_text("kernel/fs/f2fs/f2fs.ko.xz: kernel/lib/lz4/lz4_compress.ko.xz\n"
                   "kernel/lib/lz4/lz4_compress.ko.xz:\nkernel/crypto/crc32_generic.ko.xz:\n"
                   "kernel/drivers/nvme/host/nvme.ko.zst:\nkernel/other.ko.gz:\n")
    chain = ["kernel/lib/lz4/lz4_compress.ko.xz", "kernel/crypto/crc32_generic.ko.xz",
             "kernel/fs/f2fs/f2fs.ko.xz"]
    text = kernel.guest_modules_dep(dep, chain + ["kernel/drivers/nvme/host/nvme.ko.zst"],
                                    {"kernel/fs/f2fs/f2fs.ko.xz": chain})
    assert text.splitlines() == [
        "kernel/fs/f2fs/f2fs.ko: kernel/lib/lz4/lz4_compress.ko kernel/crypto/crc32_generic.ko",
        "kernel/lib/lz4/lz4_compress.ko:", "kernel/crypto/crc32_generic.ko:",
        "kernel/drivers/nvme/host/nvme.ko:"]
    assert kernel.plain_name("kernel/a.ko") == "kernel/a.ko"
    assert kernel.plain_name("kernel/a.ko.gz") == "kernel/a.ko"


def _zstd_compress(data: bytes) -> bytes:
    """zstd frame of data, through the host's libzstd (the builder reads it the same way)."""
    lib = ctypes.CDLL(ctypes.util.find_library("zstd") or "libzstd.so.1")
    lib.ZSTD_compressBound.restype = ctypes.c_size_t
    lib.ZSTD_compressBound.argtypes = [ctypes.c_size_t]
    lib.ZSTD_compress.restype = ctypes.c_size_t
    lib.ZSTD_compress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p,
                                  ctypes.c_size_t, ctypes.c_int]
    out = ctypes.create_string_buffer(lib.ZSTD_compressBound(len(data)))
    size = lib.ZSTD_compress(out, len(out), data, len(data), 3)
    return out.raw[:size]


def test_modules_are_decompressed_for_busybox_insmod(tmp_path):
    body = b"\x7fELF" + bytes(range(256)) * 64
    for name, packed in [("plain.ko", body), ("a.ko.xz", lzma.compress(body)),
                         ("b.ko.gz", gzip.compress(body)), ("c.ko.zst", _zstd_compress(body))]:
        (tmp_path / name).write_bytes(packed)
        assert kernel.decompress_module(tmp_path / name) == body, name
    (tmp_path / "bad.ko.xz").write_bytes(b"not xz at all")
    with pytest.raises(lzma.LZMAError):
        kernel.decompress_module(tmp_path / "bad.ko.xz")


def fake_bzimage(payload: bytes, size: int) -> bytes:
    """A bzImage as far as extract_vmlinux reads one: setup header (boot protocol 2.15,
    two setup sectors), payload_offset / payload_length, the size appended to the payload."""
    image = bytearray(3 * 512 + 64)
    image[0x1F1] = 2
    image[0x202:0x206] = b"HdrS"
    struct.pack_into("<H", image, 0x206, 0x20F)
    struct.pack_into("<II", image, 0x248, 64, len(payload) + 4)
    return bytes(image) + payload + struct.pack("<I", size) + b"trailing bytes"


@pytest.mark.parametrize("packer", ["xz", "zstd", "gzip"])
def test_vmlinux_comes_out_of_each_payload_compression(tmp_path, packer):
    """bookworm's bzImage holds an xz payload, trixie's a zstd one."""
    elf_image = b"\x7fELF\x02\x01" + bytes(range(200)) * 500
    pack = {"xz": lambda d: lzma.compress(d, format=lzma.FORMAT_XZ), "zstd": _zstd_compress,
            "gzip": gzip.compress}[packer]
    (tmp_path / "vmlinuz").write_bytes(fake_bzimage(pack(elf_image), len(elf_image)))
    kernel.extract_vmlinux(tmp_path / "vmlinuz", tmp_path / "vmlinux")
    assert (tmp_path / "vmlinux").read_bytes() == elf_image


def test_vmlinux_extraction_refuses_what_it_cannot_read(tmp_path):
    cases = {"not-a-bzimage": b"\x7fELF" + bytes(4096),
             "unknown-compression": fake_bzimage(b"BZh91AY&SY" + bytes(100), 1000),
             "not-an-elf": fake_bzimage(lzma.compress(b"MZ" + bytes(100)), 102)}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ValueError) as error:
            kernel.extract_vmlinux(tmp_path / name, tmp_path / "vmlinux")
        assert "\n" not in str(error.value) and name in str(error.value)
    assert not (tmp_path / "vmlinux").exists()


def test_one_tool_table_with_the_renames_of_a_release():
    from femu_guest import image
    bookworm, trixie = image.tools_for("bookworm"), image.tools_for("trixie")
    assert bookworm == image.TOOLS
    assert "libaio1" not in trixie
    assert trixie["libaio1t64"] == ["usr/lib/x86_64-linux-gnu/libaio.so.1t64"]
    assert {k: v for k, v in trixie.items() if k != "libaio1t64"} == \
        {k: v for k, v in bookworm.items() if k != "libaio1"}


# What `apt-get indextargets` prints on a bookworm host (one row per index target), and on
# one whose sources name the suites "stable" (the codename comes from the Release files).
HOST_ROWS = """\
http://mirror.test/debian/\tbookworm\tdeb\tbookworm
http://mirror.test/debian/\tbookworm\tdeb\tbookworm
http://mirror.test/debian/\tbookworm-updates\tdeb\tbookworm-updates
http://security.test/debian-security/\tbookworm-security\tdeb\tbookworm-security
http://mirror.test/debian/\tbookworm-backports\tdeb\tbookworm-backports
http://mirror.test/debian/\ttrixie\tdeb-src\ttrixie
https://vendor.test/apt/\tnodistro\tdeb\tnodistro
"""
SUITE_ROWS = """\
http://other.test/debian/\tstable\tdeb\tbookworm
http://other.test/debian-security/\tstable-security\tdeb\tbookworm-security
"""


def _stub_apt(monkeypatch, indextargets: str, calls: list):
    def run(args, **kwargs):
        calls.append(args)
        if args[:2] == ["apt-get", "indextargets"]:
            return indextargets
        return ""
    monkeypatch.setattr(debian, "_run", run)


def test_private_apt_takes_the_mirror_of_the_hosts_release(tmp_path, monkeypatch):
    calls = []
    _stub_apt(monkeypatch, HOST_ROWS, calls)
    apt = debian.private_apt("trixie", tmp_path, host="bookworm")
    assert apt.root == tmp_path / "apt-trixie"
    entries = [line for line in apt.sources_file.read_text().splitlines()
               if not line.startswith("#")]
    signed = (f" signed-by={debian.ARCHIVE_KEYRING}"
              if debian.ARCHIVE_KEYRING.is_file() else "")
    options = f"[arch=amd64 target=Packages{signed}]"
    # The release, its updates and its security suite; never backports, the deb-src
    # entry or another vendor's source.
    assert entries == [f"deb {options} http://mirror.test/debian/ trixie main",
                       f"deb {options} http://mirror.test/debian/ trixie-updates main",
                       f"deb {options} http://security.test/debian-security/ trixie-security "
                       "main"]
    assert calls[0][:2] == ["apt-get", "indextargets"]
    assert (apt.root / "status").read_bytes() == b""
    for folder in ("sources.list.d", "preferences.d", "lists/partial", "cache/archives/partial"):
        assert (apt.root / folder).is_dir(), folder
    assert not any((apt.root / "sources.list.d").iterdir())
    options = dict(word.split("=", 1) for word in apt.options()[1::2])
    assert apt.options()[::2] == ["-o"] * len(options)
    assert options["Dir::Etc::SourceList"] == str(apt.sources_file)
    assert options["Dir::Etc::SourceParts"] == str(apt.root / "sources.list.d")
    assert options["Dir::State::Lists"] == str(apt.root / "lists")
    assert options["Dir::State::Status"] == str(apt.root / "status")
    assert options["Dir::Cache"] == str(apt.root / "cache")
    assert options["Dir::Etc::PreferencesParts"] == str(apt.root / "preferences.d")
    # Every path apt is pointed at is inside the release's folder.
    assert all(value.startswith(str(apt.root)) for key, value in options.items()
               if key.startswith("Dir::") and value)


def test_private_apt_understands_suite_names_and_refuses_a_host_it_cannot_place(
        tmp_path, monkeypatch):
    _stub_apt(monkeypatch, SUITE_ROWS, [])
    text = debian.private_apt("bookworm", tmp_path, host="bookworm").sources_file.read_text()
    assert " http://other.test/debian/ bookworm main" in text
    assert " http://other.test/debian-security/ bookworm-security main" in text
    with pytest.raises(debian.AptError) as error:
        debian.private_apt("trixie", tmp_path, host="noble")
    assert "\n" not in str(error.value) and "'noble'" in str(error.value)


def test_private_apt_drops_its_lists_when_the_mirror_changes(tmp_path, monkeypatch):
    _stub_apt(monkeypatch, HOST_ROWS, [])
    apt = debian.private_apt("trixie", tmp_path, host="bookworm")
    packages = apt.lists_dir / "mirror.test_debian_dists_trixie_main_binary-amd64_Packages.lz4"
    packages.write_bytes(b"lists")
    assert apt.lists_present()
    assert debian.private_apt("trixie", tmp_path, host="bookworm").lists_present()   # same
    _stub_apt(monkeypatch, SUITE_ROWS, [])
    moved = debian.private_apt("trixie", tmp_path, host="bookworm")
    assert not moved.lists_present() and "other.test" in moved.sources_file.read_text()


def test_apt_commands_use_the_private_configuration_only(tmp_path, monkeypatch):
    """No look-up, update or download reaches the host's apt state, and none needs root."""
    calls = []
    _stub_apt(monkeypatch, HOST_ROWS, calls)
    apt = debian.private_apt("trixie", tmp_path, host="bookworm")
    assert debian.candidate_versions(apt, ["fio"]) == {"fio": None}   # no lists: no apt-cache
    assert len(calls) == 1
    (apt.lists_dir / "x_Packages").write_bytes(b"")
    debian.candidate_versions(apt, ["fio"])
    debian.direct_depends(apt, ["fio"])
    logged = []
    debian.refresh_package_lists(apt, logged.append, "testing")
    assert "testing" in logged[0] and "trixie" in logged[0]
    for args in calls[1:]:
        assert args[0] in ("apt-cache", "apt-get") and args[1:1 + len(apt.options())] == \
            apt.options(), args
    assert calls[-1][-2:] == ["update", "-qq"]


def test_host_release_comes_from_os_release(tmp_path):
    (tmp_path / "os-release").write_text('NAME="Debian GNU/Linux"\nVERSION_CODENAME=trixie\n')
    assert debian.host_release(tmp_path / "os-release") == "trixie"
    (tmp_path / "os-release").write_text('NAME="Something"\n')
    with pytest.raises(debian.AptError):
        debian.host_release(tmp_path / "os-release")


def test_release_names_are_checked_in_one_line(tmp_path, monkeypatch):
    from femu_guest import DEFAULT_RELEASE, RELEASES, image, paths
    assert RELEASES == ("trixie", "bookworm") and DEFAULT_RELEASE in RELEASES
    monkeypatch.setenv("FEMU_IMAGE_DIR", str(tmp_path))
    assert paths.guest_image_dir() == tmp_path / "guest" / DEFAULT_RELEASE
    assert paths.guest_image_dir("bookworm") == tmp_path / "guest" / "bookworm"
    for call in (lambda: image.ensure_image(release="sid", quiet=True),
                 lambda: paths.guest_image_dir("Trixie"),
                 lambda: image.is_up_to_date(tmp_path, "buster")):
        with pytest.raises(ValueError) as error:
            call()
        message = str(error.value)
        assert "\n" not in message and "trixie, bookworm" in message
    assert not (tmp_path / "cache").exists()    # refused before anything was made
