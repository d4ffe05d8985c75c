"""The femu_build steps on small fake inputs: no download, no QEMU build."""
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

import femu_device
from femu_device import BUILD_FEMU, REPO_ROOT
from femu_build import debsrc, overlay, qemu_build, source_tree
from femu_build.steps import BuildError, duration


def _fake_qemu_tree(root: Path, version: str = "10.0.99") -> Path:
    tree = root / f"qemu-{version}"
    (tree / "hw").mkdir(parents=True)
    (tree / "pc-bios").mkdir()
    (tree / "VERSION").write_text(version + "\n")
    (tree / "configure").write_text("#!/bin/sh\n")
    (tree / "hw" / "meson.build").write_text("subdir('misc')\nsubdir('nvme')\nsubdir('pci')\n")
    (tree / "hw" / "Kconfig").write_text("source misc/Kconfig\nsource nvme/Kconfig\n")
    (tree / "pc-bios" / "meson.build").write_text("roms = []\nif unpack_edk2_blobs\n  x = 1\nendif\n")
    (tree / "meson.build").write_text("trace_events_subdirs = [\n  'hw/misc',\n  'hw/nvme',\n]\n")
    (tree / "configs" / "devices" / "x86_64-softmmu").mkdir(parents=True)
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
    assert (tree / "meson.build").read_text() == \
        "trace_events_subdirs = [\n  'hw/misc',\n  'hw/nvme',\n  'hw/femu',\n]\n"
    link = tree / "hw" / "femu"
    assert link.is_symlink() and not os.path.isabs(os.readlink(link))
    assert link.resolve() == femu.resolve()
    devices = tree / "configs" / "devices" / "x86_64-softmmu" / "femu.mak"
    assert devices.read_text() == overlay.DEVICE_LIST.read_text()


def test_overlay_refreshes_an_outdated_device_list(tmp_path, capsys):
    tree = _fake_qemu_tree(tmp_path)
    femu = tmp_path / "femu"
    femu.mkdir()
    overlay.apply(tree, femu)
    devices = tree / overlay.DEVICES_IN_TREE
    devices.write_text("CONFIG_Q35=y\n")           # an older list
    capsys.readouterr()
    overlay.apply(tree, femu)
    assert devices.read_text() == overlay.DEVICE_LIST.read_text()
    assert "skipped" not in capsys.readouterr().err
    overlay.apply(tree, femu)
    assert "skipped (already in place)" in capsys.readouterr().err


def test_overlay_needs_the_device_config_folder(tmp_path):
    tree = _fake_qemu_tree(tmp_path)
    (tree / "configs" / "devices" / "x86_64-softmmu").rmdir()
    femu = tmp_path / "femu"
    femu.mkdir()
    with pytest.raises(BuildError, match=r"configs/devices/x86_64-softmmu/ not found"):
        overlay.apply(tree, femu)


def _kconfig_symbols(text: str):
    return {line.split("=")[0] for line in text.splitlines()
            if line.strip() and not line.startswith("#")}


def test_device_list_has_what_femus_command_lines_use():
    # q35 and pc machines; femu, QEMU's nvme, pcie-root-port, virtio-net-pci,
    # virtio-scsi-pci + scsi-hd, virtio-blk-pci; each line is CONFIG_X=y.
    text = overlay.DEVICE_LIST.read_text()
    assert all(re.fullmatch(r"CONFIG_[A-Z0-9_]+=y", line) for line in text.splitlines()
               if line.strip() and not line.startswith("#"))
    assert _kconfig_symbols(text) >= {
        "CONFIG_Q35", "CONFIG_I440FX", "CONFIG_FEMU", "CONFIG_NVME_PCI", "CONFIG_PCIE_PORT",
        "CONFIG_VIRTIO_PCI", "CONFIG_VIRTIO_NET", "CONFIG_VIRTIO_SCSI", "CONFIG_VIRTIO_BLK"}
    args = qemu_build.configure_args("/usr/bin/python3", use_ccache=False)
    assert "--without-default-devices" in args
    assert f"--with-devices-x86_64={overlay.DEVICES_NAME}" in args
    assert overlay.DEVICES_IN_TREE.endswith(f"/{overlay.DEVICES_NAME}.mak")


@pytest.mark.parametrize("seconds, shown", [(0.04, "0.0 s"), (8.25, "8.2 s"), (42.4, "42 s"),
                                            (59.6, "1 min 0 s"), (192, "3 min 12 s")])
def test_durations_read_as_minutes_and_seconds(seconds, shown):
    assert duration(seconds) == shown


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


def _privileges(monkeypatch, root: bool, sudo: bool) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0 if root else 1000)
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which",
                        lambda name, *a, **kw: ("/usr/bin/sudo" if sudo else None)
                        if name == "sudo" else real_which(name, *a, **kw))


def _ensure_with(monkeypatch, tmp_path, rows, host="bookworm"):
    """Run ensure_deb_src on fake apt data; return the commands it ran with their input."""
    ran = []
    monkeypatch.setattr(debsrc, "_index_targets", lambda: rows)
    monkeypatch.setattr(debsrc, "_host_release", lambda: host)
    monkeypatch.setattr(debsrc, "SOURCES_FILE", tmp_path / "femu-trixie-src.sources")
    monkeypatch.setattr(debsrc, "_run",
                        lambda args, what, **kw: ran.append((args, kw.get("input"))))
    debsrc.ensure_deb_src()
    return ran


HOST_ROWS = [("http://archive.example/debian-security/", "bookworm-security", "deb",
              "bookworm-security"),
             ("http://archive.example/debian/", "bookworm-updates", "deb", "bookworm-updates"),
             ("http://archive.example/debian/", "bookworm", "deb", "bookworm")]


@pytest.mark.parametrize("root, prefix", [(True, []), (False, ["sudo"])])
def test_deb_src_entry_derives_from_the_host_archive(tmp_path, monkeypatch, root, prefix):
    _privileges(monkeypatch, root=root, sudo=True)
    ran = _ensure_with(monkeypatch, tmp_path, HOST_ROWS)
    sources = str(tmp_path / "femu-trixie-src.sources")
    assert [args for args, _ in ran] == [prefix + ["tee", sources],
                                         prefix + ["apt-get", "update", "-qq"]]
    text = ran[0][1]
    assert "Types: deb-src" in text and "Suites: trixie" in text
    assert "URIs: http://archive.example/debian/\n" in text


def test_neither_root_nor_sudo_is_one_clear_error(tmp_path, monkeypatch):
    _privileges(monkeypatch, root=False, sudo=False)
    with pytest.raises(BuildError) as error:
        _ensure_with(monkeypatch, tmp_path, HOST_ROWS)
    message = str(error.value)
    assert "\n" not in message and "needs root" in message and "sudo" in message


def test_host_release_found_under_its_suite_name(tmp_path, monkeypatch):
    # sources.list says "stable"; apt's Release file says its codename is the host's.
    _privileges(monkeypatch, root=True, sudo=False)
    rows = [("http://archive.example/debian/", "stable", "deb", "bookworm")]
    ran = _ensure_with(monkeypatch, tmp_path, rows)
    assert "URIs: http://archive.example/debian/\n" in ran[0][1]


def test_deb_src_entry_left_alone_when_present(tmp_path, monkeypatch):
    for release, codename in (("trixie", "trixie"), ("stable", "trixie")):
        rows = [("http://archive.example/debian/", release, "deb-src", codename)]
        assert _ensure_with(monkeypatch, tmp_path, rows) == []


def test_no_archive_for_the_host_release_is_one_clear_error(tmp_path, monkeypatch):
    with pytest.raises(BuildError, match="no apt source serves the host release 'bookworm'"):
        _ensure_with(monkeypatch, tmp_path, [("http://x.example/", "sid", "deb", "sid")])


def test_index_targets_parse_this_machines_apt():
    if shutil.which("apt-get") is None:
        pytest.skip("no apt-get here")
    rows = debsrc._index_targets()
    assert all(len(row) == 4 and row[2] in ("deb", "deb-src") for row in rows)


def test_package_list_refresh_needs_no_root(monkeypatch, tmp_path):
    """The guest builder's apt-get update refreshes its own private lists (femu_guest's
    AptConfig under images/cache/apt-RELEASE/): no sudo, whoever runs it, and never the
    host's lists."""
    from femu_guest import debian
    ran, said = [], []
    monkeypatch.setattr(debian, "_run", lambda args, **kw: ran.append(args))
    _privileges(monkeypatch, root=False, sudo=False)
    apt = debian.AptConfig("trixie", tmp_path / "apt-trixie")
    (apt.lists_dir / "partial").mkdir(parents=True)
    debian.refresh_package_lists(apt, said.append, "no candidate for fio")
    assert ran == [["apt-get", *apt.options(), "update", "-qq"]]
    assert f"Dir::State::Lists={apt.lists_dir}" in ran[0]
    assert said == ["no candidate for fio: fetching the trixie package lists (apt-get update)"]


def _pid_gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _wait_pid_gone(pid: int) -> bool:
    """Signals are delivered asynchronously: wait (bounded) for pid to be gone."""
    for _ in range(600):
        if _pid_gone(pid):
            return True
        time.sleep(0.1)
    return False


def _wait_pid_file(path: Path) -> int:
    for _ in range(600):   # a bound on waiting for the script to start, not a timing check
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.1)
    raise AssertionError(f"{path} never written")


@pytest.mark.parametrize("ignores_term", [False, True])
def test_build_timeout_ends_the_whole_process_group(tmp_path, monkeypatch, ignores_term):
    # A stand-in for femu-compile.sh whose child (ninja, a compiler) outlives a kill of
    # the script alone.
    monkeypatch.setattr(femu_device, "STOP_GRACE", 1)
    trap = "trap '' TERM; " if ignores_term else ""
    script = f"{trap}sleep 600 & echo $! > {tmp_path}/child; wait"
    with pytest.raises(subprocess.TimeoutExpired):
        femu_device.run_in_own_group(["sh", "-c", script], tmp_path / "log", timeout=2)
    child = _wait_pid_file(tmp_path / "child")
    assert _wait_pid_gone(child), "the script's child outlived the timeout"


def test_ninja_is_stopped_and_reaped_when_reading_its_output_fails(tmp_path, monkeypatch):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "ninja").write_text(f"#!/bin/sh\necho $$ > {tmp_path}/pid\n"
                                "echo 'warning: a compiler message'\nexec sleep 600\n")
    (fake / "ninja").chmod(0o755)
    build_dir = tmp_path / "build"
    build_dir.mkdir()

    real_stderr = sys.stderr

    class BrokenStderr:   # fails on ninja's output only, the step lines still get through
        def write(self, text):
            if "a compiler message" in text:
                raise RuntimeError("stderr is gone")
            return real_stderr.write(text)

        def flush(self):
            real_stderr.flush()

    monkeypatch.setattr(sys, "stderr", BrokenStderr())
    monkeypatch.setattr(qemu_build, "STOP_GRACE_SECONDS", 1)
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}
    with pytest.raises(RuntimeError, match="stderr is gone"):
        qemu_build.build(build_dir, None, env)
    ninja = _wait_pid_file(tmp_path / "pid")
    assert not Path(f"/proc/{ninja}").exists(), "ninja still runs or was never reaped"


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


@pytest.mark.build   # runs femu-compile.sh (its package check, then the failing step)
def test_failure_ends_with_one_error_line(tmp_path):
    env = {**os.environ, "QEMU_SRC": str(tmp_path / "no-such-tree")}
    proc = subprocess.run([str(BUILD_FEMU / "femu-compile.sh")], cwd=REPO_ROOT, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("femu-compile: error: ") and "no-such-tree" in last, proc.stderr
