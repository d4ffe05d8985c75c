"""build-femu/femu-compile.sh: what it leaves behind, and that re-running it after an
edit of hw/femu rebuilds only what changed."""
import re
import subprocess

import pytest

from femu_device import BUILD_FEMU, REPO_ROOT, run_femu_compile

pytestmark = pytest.mark.build


def test_binary_is_qemu_10_0(qemu):
    proc = subprocess.run([str(qemu), "--version"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0
    assert re.match(r"QEMU emulator version 10\.0\.\d+", proc.stdout), proc.stdout


def test_build_log_names_the_exact_source(qemu):
    info = (BUILD_FEMU / "qemu-build" / "femu-build-info.txt").read_text()
    assert re.search(r"QEMU emulator version 10\.0\.\d+", info)
    assert "origin:" in info


def test_firmware_found_without_dash_L(qemu):
    # Debian's firmware folders are the binary's default search path (see qemu_build.py).
    proc = subprocess.run([str(qemu), "-L", "help"], capture_output=True, text=True, timeout=30)
    dirs = proc.stdout.split()
    assert "/usr/share/seabios" in dirs and "/usr/lib/ipxe/qemu" in dirs, proc.stdout


def test_only_the_listed_devices_are_built(qemu):
    # build-femu/femu_build/femu-devices.mak: what femu's command lines use is there, and
    # QEMU's default devices are not (an e1000 or a VGA would mean the list was ignored).
    devices = subprocess.run([str(qemu), "-device", "help"], capture_output=True, text=True,
                             timeout=30).stdout
    names = set(re.findall(r'^name "([^"]+)"', devices, re.M))
    assert {"femu", "nvme", "pcie-root-port", "virtio-net-pci", "virtio-scsi-pci", "scsi-hd",
            "virtio-blk-pci"} <= names, devices
    assert not {"e1000", "VGA", "usb-ehci", "ich9-intel-hda"} & names, devices
    machines = subprocess.run([str(qemu), "-M", "help"], capture_output=True, text=True,
                              timeout=30).stdout
    assert re.search(r"^pc\s", machines, re.M) and re.search(r"^q35\s", machines, re.M)
    assert not re.search(r"^(isapc|microvm)\s", machines, re.M), machines


def test_overlay_is_a_link_to_the_repository(qemu):
    trees = [p for p in BUILD_FEMU.glob("qemu-src-*") if (p / "hw" / "femu").is_symlink()]
    if not trees:
        pytest.skip("no build-femu/qemu-src-* tree with the hw/femu link: QEMU was "
                    "built from $QEMU_SRC elsewhere")
    for tree in trees:
        assert (tree / "hw" / "femu").resolve() == (REPO_ROOT / "hw" / "femu").resolve()


def test_rerun_is_a_no_op(qemu, tmp_path):
    out = run_femu_compile(tmp_path / "rerun.log")
    assert "configure QEMU: skipped" in out
    assert "nothing to rebuild" in out, out[-2000:]


def test_touching_realize_c_rebuilds_only_it(qemu, tmp_path):
    # Settle first: other hw/femu edits made since the session's build (or by another
    # test) are built now, so only the touch below is pending afterwards.
    run_femu_compile(tmp_path / "settle.log")
    (REPO_ROOT / "hw" / "femu" / "top" / "realize.c").touch()   # newer than its object file now
    out = run_femu_compile(tmp_path / "incremental.log")
    compiled = re.findall(r"rebuilt: Compiling C object (\S+)", out)
    assert compiled == ["libcommon.a.p/hw_femu_top_realize.c.o"], out[-2000:]
    assert "rebuilt: Linking target qemu-system-x86_64" in out
