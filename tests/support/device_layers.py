"""The device's layers (hw/femu/layers.txt) and the references between its files, for the
include test (tests/device/test_device_include_layers.py, unit) and the call test
(tests/device/test_device_call_layers.py, on QEMU's built objects).

A device file is a .c or .h under hw/femu outside the libraries; its folder is its directory
under hw/femu, or its own name for the files at the root (femu.h). A reference (an include
or a call) from file A to file B goes up when B's folder is another folder on A's line of
layers.txt or on a higher one.
"""
import re
import subprocess
from pathlib import Path

from layers_file import INCLUDE, read_layers, upward_edges  # noqa: F401 (tests take the first two)

# hw/femu's QEMU-free libraries, below every device layer (their own tests check them).
LIBRARIES = ("ftl", "util", "store", "nvme", "statefile")
MAX_FILES_PER_FOLDER = 25
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def device_files(root: Path):
    """Every device .c and .h, relative to root (hw/femu), sorted."""
    return sorted(p.relative_to(root) for p in root.rglob("*.[ch]")
                  if p.relative_to(root).parts[0] not in LIBRARIES)


def folder_of(path: Path) -> str:
    return path.name if len(path.parts) == 1 else path.parent.as_posix()


def resolve(root: Path, path: Path, name: str, files):
    """The device file an include names: beside the includer, else under hw/femu (the
    device's include path); None for the libraries' and QEMU's headers."""
    for candidate in ((root / path).parent / name, root / name):
        candidate = candidate.resolve()
        if candidate.is_file() and candidate.is_relative_to(root.resolve()):
            relative = candidate.relative_to(root.resolve())
            if relative in files:
                return relative
    return None


def include_edges(root: Path):
    """[(file, device file it includes)] over the device's files."""
    files = set(device_files(root))
    return [(path, target) for path in sorted(files)
            for name in INCLUDE.findall(COMMENT.sub("", (root / path).read_text()))
            for target in [resolve(root, path, name, files)] if target is not None]


def object_name(source: Path) -> str:
    """The object QEMU's meson build makes of hw/femu/<source> (libcommon.a.p/...)."""
    return "hw_femu_" + source.as_posix().replace("/", "_") + ".o"


def call_edges(objects):
    """[(source, source whose functions or data it uses)] from {source: object file}: the
    undefined symbols of one object that another one defines."""
    defined, used = {}, {}
    for source, obj in objects.items():
        out = subprocess.run(["nm", str(obj)], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            fields = line.split()
            if len(fields) < 2:
                continue
            if fields[-2] == "U":
                used.setdefault(source, set()).add(fields[-1])
            elif fields[-2] in "TDBRC":
                defined[fields[-1]] = source
    return sorted({(source, defined[s]) for source, symbols in used.items()
                   for s in symbols if s in defined and defined[s] != source})


def upward(edges, layers):
    """The edges that do not point to their own folder or to a lower layer, as lines."""
    return upward_edges(edges, layers, folder_of)


def crowded_folders(root: Path, limit=MAX_FILES_PER_FOLDER):
    """{folder: count} of the device folders holding more than limit .c and .h files."""
    counts = {}
    for path in device_files(root):
        folder = path.parent.as_posix()
        counts[folder] = counts.get(folder, 0) + 1
    return {folder: count for folder, count in counts.items() if count > limit}
