"""Builder pieces that need no QEMU: ELF reading, cpio writing, the package dependency parser's view of the tree."""
import io
import shutil
import sys
from pathlib import Path

import pytest

from femu_guest import elf
from femu_guest.cpio import CpioWriter
from femu_guest.package_view import PackageView, normalize


def read_cpio(data: bytes):
    """Minimal newc reader for checking what CpioWriter wrote."""
    entries, pos = [], 0
    while True:
        assert data[pos:pos + 6] == b"070701"
        fields = [int(data[pos + 6 + 8 * i:pos + 14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = fields[1], fields[6], fields[11]
        name_start = pos + 110
        name = data[name_start:name_start + namesize - 1].decode()
        body = name_start + namesize + (-(110 + namesize) % 4)
        if name == "TRAILER!!!":
            return entries
        entries.append((name, mode, data[body:body + size], (fields[9], fields[10])))
        pos = body + size + (-size % 4)


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
    from femu_guest import kernel
    prefix = "lib/modules/9.9/"
    (tmp_path / prefix).mkdir(parents=True)
    (tmp_path / prefix / "modules.dep").write_text(
        "kernel/fs/a.ko: kernel/lib/x.ko\nkernel/lib/x.ko:\nkernel/crypto/c.ko:\n"
        "kernel/fs/unused.ko:\n")
    included = [prefix + p for p in ("kernel/lib/x.ko", "kernel/crypto/c.ko", "kernel/fs/a.ko")]
    chain = [prefix + p for p in ("kernel/lib/x.ko", "kernel/crypto/c.ko", "kernel/fs/a.ko")]
    text = kernel.guest_modules_dep(tmp_path, "9.9", included, {prefix + "kernel/fs/a.ko": chain})
    assert text.splitlines() == ["kernel/fs/a.ko: kernel/lib/x.ko kernel/crypto/c.ko",
                                 "kernel/lib/x.ko:", "kernel/crypto/c.ko:"]
    plain = kernel.guest_modules_dep(tmp_path, "9.9", included)
    assert plain.splitlines()[0] == "kernel/fs/a.ko: kernel/lib/x.ko"


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
