"""Lay femu into the QEMU tree: a symlink hw/femu -> the repository's hw/femu, and the
one-line edits QEMU's own files need. Every edit is idempotent and checked, so a
changed QEMU file fails with a clear line instead of a silent mis-edit.

The hooks must be in place before the first configure: a Kconfig symbol that appears
later changes the generated config headers and rebuilds nearly everything.
"""
import os
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
            "pc-bios/meson.build")
    if _is_linked(tree, femu_dir) and all(_is_applied(tree, edit) for edit in EDITS):
        skipped(name, "already in place")
        return
    with Step(name, "instant"):
        _link(tree, femu_dir)
        for edit in EDITS:
            _apply(tree, edit)
