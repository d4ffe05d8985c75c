"""The femu_build steps on small fake inputs: no download, no QEMU build."""
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from femu_device import BUILD_FEMU, REPO_ROOT
from femu_build import debsrc, overlay, source_tree
from femu_build.steps import BuildError


def _fake_qemu_tree(root: Path, version: str = "10.0.99") -> Path:
    tree = root / f"qemu-{version}"
    (tree / "hw").mkdir(parents=True)
    (tree / "pc-bios").mkdir()
    (tree / "VERSION").write_text(version + "\n")
    (tree / "configure").write_text("#!/bin/sh\n")
    (tree / "hw" / "meson.build").write_text("subdir('misc')\nsubdir('nvme')\nsubdir('pci')\n")
    (tree / "hw" / "Kconfig").write_text("source misc/Kconfig\nsource nvme/Kconfig\n")
    (tree / "pc-bios" / "meson.build").write_text("roms = []\nif unpack_edk2_blobs\n  x = 1\nendif\n")
    return tree


def test_overlay_applies_once_and_links(tmp_path):
    tree = _fake_qemu_tree(tmp_path)
    femu = tmp_path / "repo" / "hw" / "femu"
    femu.mkdir(parents=True)
    for _ in range(2):   # the second run must change nothing
        overlay.apply(tree, femu)
    assert (tree / "hw" / "meson.build").read_text() == \
        "subdir('misc')\nsubdir('nvme')\nsubdir('femu')\nsubdir('pci')\n"
    assert (tree / "hw" / "Kconfig").read_text().count("source femu/Kconfig") == 1
    assert "if unpack_edk2_blobs and fs.exists(" in (tree / "pc-bios" / "meson.build").read_text()
    link = tree / "hw" / "femu"
    assert link.is_symlink() and not os.path.isabs(os.readlink(link))
    assert link.resolve() == femu.resolve()


def test_overlay_refuses_an_unknown_layout(tmp_path):
    tree = _fake_qemu_tree(tmp_path)
    (tree / "hw" / "Kconfig").write_text("source misc/Kconfig\n")
    femu = tmp_path / "femu"
    femu.mkdir()
    with pytest.raises(BuildError, match=r"hw/Kconfig: line 'source nvme/Kconfig' not found"):
        overlay.apply(tree, femu)


def test_overlay_keeps_a_real_hw_femu_folder(tmp_path):
    tree = _fake_qemu_tree(tmp_path)
    (tree / "hw" / "femu").mkdir()
    femu = tmp_path / "femu"
    femu.mkdir()
    with pytest.raises(BuildError, match="is not a link"):
        overlay.apply(tree, femu)


def test_deb_src_entry_derives_from_the_host_archive(tmp_path, monkeypatch):
    rows = [("http://archive.example/debian-security/", "bookworm-security", "deb"),
            ("http://archive.example/debian/", "bookworm-updates", "deb"),
            ("http://archive.example/debian/", "bookworm", "deb")]
    sources = tmp_path / "femu-trixie-src.sources"
    ran = []
    monkeypatch.setattr(debsrc, "_index_targets", lambda: rows)
    monkeypatch.setattr(debsrc, "_host_release", lambda: "bookworm")
    monkeypatch.setattr(debsrc, "SOURCES_FILE", sources)
    monkeypatch.setattr(debsrc, "_run", lambda args, what, **kw: ran.append(args))
    debsrc.ensure_deb_src()
    text = sources.read_text()
    assert "Types: deb-src" in text and "Suites: trixie" in text
    assert "URIs: http://archive.example/debian/\n" in text
    assert ran == [["apt-get", "update", "-qq"]]


def test_deb_src_entry_left_alone_when_present(tmp_path, monkeypatch):
    sources = tmp_path / "never-written.sources"
    monkeypatch.setattr(debsrc, "_index_targets",
                        lambda: [("http://archive.example/debian/", "trixie", "deb-src")])
    monkeypatch.setattr(debsrc, "SOURCES_FILE", sources)
    debsrc.ensure_deb_src()
    assert not sources.exists()


def test_no_archive_for_the_host_release_is_one_clear_error(monkeypatch):
    monkeypatch.setattr(debsrc, "_index_targets", lambda: [("http://x.example/", "sid", "deb")])
    monkeypatch.setattr(debsrc, "_host_release", lambda: "bookworm")
    with pytest.raises(BuildError, match="no apt source serves the host release 'bookworm'"):
        debsrc.ensure_deb_src()


def test_dsc_fields(tmp_path):
    dsc = tmp_path / "qemu_10.0.99+ds-1.dsc"
    dsc.write_text("Format: 3.0 (quilt)\nSource: qemu\nVersion: 1:10.0.99+ds-1\n"
                   "Checksums-Sha256:\n"
                   " aa11 123 qemu_10.0.99+ds.orig.tar.xz\n"
                   " bb22 45 qemu_10.0.99+ds-1.debian.tar.xz\n"
                   "Files:\n 0123 123 qemu_10.0.99+ds.orig.tar.xz\n")
    version, sums = source_tree._dsc_fields(dsc)
    assert version == "1:10.0.99+ds-1"
    assert sums == {"qemu_10.0.99+ds.orig.tar.xz": "aa11", "qemu_10.0.99+ds-1.debian.tar.xz": "bb22"}


def _tarball(tmp_path: Path, version: str) -> Path:
    tree = _fake_qemu_tree(tmp_path / f"src-{version}", version)
    tarball = tmp_path / f"qemu-{version}.tar.xz"
    with tarfile.open(tarball, "w:xz") as tar:
        tar.add(tree, arcname=tree.name)
    return tarball


def test_qemu_tarball_is_unpacked_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("QEMU_TARBALL", str(_tarball(tmp_path, "10.0.99")))
    work = tmp_path / "work"
    work.mkdir()
    first = source_tree.obtain(work, tmp_path / "cache", refresh=False)
    assert first.version == "10.0.99" and first.path == work / "qemu-src-qemu-10.0.99"
    second = source_tree.obtain(work, tmp_path / "cache", refresh=False)
    assert second.path == first.path
    assert "skipped (already in qemu-src-qemu-10.0.99/)" in capsys.readouterr().err


def test_other_qemu_versions_are_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("QEMU_TARBALL", str(_tarball(tmp_path, "9.2.3")))
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(BuildError, match="holds QEMU 9.2.3; femu targets QEMU 10.0.x"):
        source_tree.obtain(work, tmp_path / "cache", refresh=False)


def test_failure_ends_with_one_error_line(tmp_path):
    env = {**os.environ, "QEMU_SRC": str(tmp_path / "no-such-tree")}
    proc = subprocess.run([str(BUILD_FEMU / "femu-compile.sh")], cwd=REPO_ROOT, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("femu-compile: error: ") and "no-such-tree" in last, proc.stderr
