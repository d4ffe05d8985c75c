"""The device's files depend on each other one way only: no include circle.

Read from the `#include "..."` lines of hw/femu's device files (femu.c, femu.h and the
folders ctrl/, cmd/, backend/; the libraries ftl/, util/, store/, nvme/ are outside). A
module is a .c file and the header of the same name that declares what it defines; a header
that declares nothing a .c defines (only types, macros and inline functions, like femu.h)
is a module of its own. Module A depends on module B when a file of A includes a header of
B. A circle would mean that neither can be understood, changed or tested without the other
(CONTROLLER.md, "Source files", lists the layers, and its table every file: checked here too).
"""
import re
from pathlib import Path

import pytest

from femu_device import REPO_ROOT
from graph_circles import circles

pytestmark = pytest.mark.unit

FEMU = REPO_ROOT / "hw" / "femu"
DEVICE_FOLDERS = ("ctrl", "cmd", "backend")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# A declaration at file scope of something a .c defines: a function prototype (also one
# through a function type: "FemuIoFn femu_nvm_read;") or an extern variable. Static inline
# functions, typedefs and macros (OBJECT_DECLARE_SIMPLE_TYPE(...)) are not.
DECLARATION = re.compile(r"^(?!static\b|typedef\b|struct\b|enum\b|union\b|#)"
                         r"(?:extern\b.*|[A-Za-z_][\w\s*]*?\b[a-z_]\w*\s*[(;])", re.M)


def device_files(root: Path):
    """Every device source and header, relative to root (hw/femu)."""
    files = [p for p in root.glob("*.[ch]")]
    for folder in DEVICE_FOLDERS:
        files += (root / folder).glob("*.[ch]")
    return sorted(p.relative_to(root) for p in files)


def declares(header: Path) -> bool:
    return DECLARATION.search(COMMENT.sub("", header.read_text())) is not None


def module_of(root: Path, path: Path) -> str:
    """x.c and x.h are module x; a header that only defines types is its own module."""
    stem = str(path.with_suffix(""))
    if path.suffix == ".h" and not declares(root / path):
        return str(path)
    return stem


def resolve(root: Path, path: Path, name: str):
    """The device file an include names: beside the includer, else under hw/femu (the
    device's include path); None for the libraries and QEMU's headers."""
    for candidate in ((root / path).parent / name, root / name):
        candidate = candidate.resolve()
        if candidate.is_file() and candidate.is_relative_to(root.resolve()):
            relative = candidate.relative_to(root.resolve())
            if relative in set(device_files(root)):
                return relative
    return None


def module_graph(root: Path):
    """{module: {modules it depends on}} over the device's files."""
    graph = {}
    for path in device_files(root):
        source = module_of(root, path)
        deps = graph.setdefault(source, set())
        for name in INCLUDE.findall(COMMENT.sub("", (root / path).read_text())):
            target = resolve(root, path, name)
            if target is not None and module_of(root, target) != source:
                deps.add(module_of(root, target))
    return graph


def test_no_include_circle_in_the_device():
    found = circles(module_graph(FEMU))
    assert not found, "device modules that include each other in a circle: " + \
        "; ".join(" <-> ".join(c) for c in found)


def test_every_module_has_its_own_header():
    """No header declares for several files (the old femu_ctrl.h hid every dependency): a
    header that declares functions has the .c of its name, and that .c includes it."""
    for path in device_files(FEMU):
        if path.suffix == ".h" and declares(FEMU / path):
            source = FEMU / path.with_suffix(".c")
            assert source.is_file(), f"{path} declares functions but there is no {source.name}"
            included = {resolve(FEMU, path.with_suffix(".c"), name)
                        for name in INCLUDE.findall(source.read_text())}
            assert path in included, f"{path.with_suffix('.c')} does not include {path}"


def test_the_rule_sees_circles_and_type_headers(tmp_path):
    """A circle through a header, and none through a header of types only."""
    (tmp_path / "ctrl").mkdir()
    (tmp_path / "cmd").mkdir()
    (tmp_path / "femu.h").write_text("typedef struct FemuCtrl FemuCtrl;\n"
                                     "static inline int femu_x(void) { return 0; }\n")
    (tmp_path / "femu.c").write_text('#include "femu.h"\n#include "ctrl/a.h"\n')
    (tmp_path / "ctrl" / "a.h").write_text('#include "femu.h"\nvoid femu_a(FemuCtrl *n);\n')
    (tmp_path / "ctrl" / "a.c").write_text('#include "ctrl/a.h"\n#include "cmd/b.h"\n')
    (tmp_path / "cmd" / "b.h").write_text('#include "femu.h"\nextern const int femu_b;\n')
    (tmp_path / "cmd" / "b.c").write_text('#include "b.h"\n')
    graph = module_graph(tmp_path)
    assert graph["femu"] == {"femu.h", "ctrl/a"} and graph["ctrl/a"] == {"femu.h", "cmd/b"}
    assert circles(graph) == []
    (tmp_path / "cmd" / "b.c").write_text('#include "b.h"\n#include "../ctrl/a.h"\n')
    assert circles(module_graph(tmp_path)) == [["cmd/b", "ctrl/a"]]


def test_controller_md_lists_every_device_source_once():
    """CONTROLLER.md's file table names every device .c (and the headers without one)."""
    text = (FEMU / "CONTROLLER.md").read_text()
    section = text[text.index("## Source files"):]
    section = section[:section.index("\n## ", 1)]
    rows = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    named = re.findall(r"`([\w/.-]+)`", "".join(rows))
    wanted = [str(p) for p in device_files(FEMU)
              if p.suffix == ".c" or not (FEMU / p.with_suffix(".c")).is_file()]
    assert sorted(n for n in named if n in wanted) == sorted(wanted), \
        f"CONTROLLER.md lists {sorted(named)}, the device has {sorted(wanted)}"
