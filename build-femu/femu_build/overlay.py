"""Lay femu into the QEMU tree: a symlink hw/femu -> the repository's hw/femu, the
one-line edits QEMU's own files need, and femu's device list. Every edit is idempotent
and checked, so a changed QEMU file fails with a clear line instead of a silent mis-edit.

The hooks must be in place before the first configure: a Kconfig symbol that appears
later changes the generated config headers and rebuilds nearly everything.
"""
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from .steps import BuildError, Step, skipped


@dataclass
class Edit:
    path: str       # relative to the QEMU tree
    anchor: str     # an existing line the edit keys on
    new: str        # the line that replaces (replace=True) or follows the anchor
    replace: bool
    why: str


EDITS = [
    Edit("hw/meson.build", "subdir('nvme')", "subdir('femu')", False,
         "compile hw/femu (device + FTL) into the system emulators"),
    Edit("hw/Kconfig", "source nvme/Kconfig", "source femu/Kconfig", False,
         "declare CONFIG_FEMU"),
    Edit("meson.build", "'hw/nvme',", "'hw/femu',", False,
         "generate the trace functions of hw/femu/trace-events"),
    # The +ds tarball strips the edk2 firmware archives, but meson still tries to unpack
    # them whenever bzip2 is installed; guard the branch on the archives being there.
    Edit("pc-bios/meson.build", "if unpack_edk2_blobs",
         "if unpack_edk2_blobs and fs.exists('edk2-x86_64-code.fd.bz2')", True,
         "skip unpacking edk2 blobs the tarball does not ship"),
]


# The devices QEMU is built with (configure --without-default-devices
# --with-devices-x86_64=femu, qemu_build.FEATURES): configure finds the list only inside the
# tree, under configs/devices/<target>/, so it is copied there. An edited list is copied
# again (a newer file), and the next ninja run re-runs meson and Kconfig on it.
DEVICE_LIST = Path(__file__).resolve().parent / "femu-devices.mak"
DEVICES_NAME = "femu"
DEVICES_IN_TREE = f"configs/devices/x86_64-softmmu/{DEVICES_NAME}.mak"


def _device_list_in_place(tree: Path) -> bool:
    try:
        return (tree / DEVICES_IN_TREE).read_bytes() == DEVICE_LIST.read_bytes()
    except OSError:
        return False


def _copy_device_list(tree: Path) -> None:
    if _device_list_in_place(tree):
        return
    target = tree / DEVICES_IN_TREE
    if not target.parent.is_dir():
        raise BuildError(f"{target.parent.relative_to(tree)}/ not found; this QEMU's layout "
                         f"differs from 10.0 (needed for femu's device list)")
    partial = target.with_name(target.name + ".partial")
    shutil.copyfile(DEVICE_LIST, partial)
    os.replace(partial, target)


def _lines(tree: Path, edit: Edit):
    path = tree / edit.path
    try:
        return path.read_text().splitlines(keepends=True)
    except OSError as exc:
        raise BuildError(f"cannot read {path}: {exc.strerror}") from exc


def _is_applied(tree: Path, edit: Edit) -> bool:
    return edit.new in [line.strip() for line in _lines(tree, edit)]


def _apply(tree: Path, edit: Edit) -> None:
    if _is_applied(tree, edit):
        return
    lines = _lines(tree, edit)
    stripped = [line.strip() for line in lines]
    if edit.anchor not in stripped:
        raise BuildError(f"{edit.path}: line '{edit.anchor}' not found; this QEMU's layout "
                         f"differs from 10.0 (needed to {edit.why})")
    at = stripped.index(edit.anchor)
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    if edit.replace:
        lines[at] = indent + edit.new + "\n"
    else:
        lines.insert(at + 1, indent + edit.new + "\n")
    (tree / edit.path).write_text("".join(lines))


def _is_linked(tree: Path, femu_dir: Path) -> bool:
    link = tree / "hw" / "femu"
    return link.is_symlink() and link.resolve() == femu_dir.resolve()


def _link(tree: Path, femu_dir: Path) -> None:
    link = tree / "hw" / "femu"
    target = Path(os.path.relpath(femu_dir, link.parent))
    if _is_linked(tree, femu_dir):
        return
    if link.is_symlink():
        link.unlink()
    elif link.exists():
        raise BuildError(f"{link} exists and is not a link to {femu_dir}; move it away")
    link.symlink_to(target, target_is_directory=True)


def apply(tree: Path, femu_dir: Path) -> None:
    name = ("overlay hw/femu + hooks in hw/meson.build, hw/Kconfig, meson.build, "
            f"pc-bios/meson.build + device list {DEVICES_IN_TREE}")
    if (_is_linked(tree, femu_dir) and all(_is_applied(tree, edit) for edit in EDITS)
            and _device_list_in_place(tree)):
        skipped(name, "already in place")
        return
    with Step(name, "instant"):
        _link(tree, femu_dir)
        for edit in EDITS:
            _apply(tree, edit)
        _copy_device_list(tree)
