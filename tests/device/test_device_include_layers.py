"""The device's files depend on each other one way only: down hw/femu/layers.txt, no circle.

Read from the `#include "..."` lines of hw/femu's device files (every .c and .h under hw/femu
but the libraries ftl/, util/, store/, nvme/, statefile/; tests/support/device_layers.py):

- every include points to the includer's own folder or to a lower layer of layers.txt, and
  layers.txt names every folder that holds device files;
- no device folder holds more than 25 .c and .h files;
- no include circle between modules. A module is a .c file and the header of the same name
  that declares what it defines; a header that declares nothing a .c defines (only types,
  macros and inline functions, like femu.h) is a module of its own. A circle would mean that
  neither can be understood, changed or tested without the other.

Calls are checked on QEMU's built objects (test_device_call_layers.py). CONTROLLER.md,
"Source files", describes the layers, and its table every file: checked here too.
"""
import re
from pathlib import Path

import pytest

from device_layers import (COMMENT, INCLUDE, MAX_FILES_PER_FOLDER, crowded_folders,
                           device_files, folder_of, include_edges, read_layers, upward)
from femu_device import REPO_ROOT
from graph_circles import circles

pytestmark = pytest.mark.unit

FEMU = REPO_ROOT / "hw" / "femu"
# A declaration at file scope of something a .c defines: a function prototype (also one
# through a function type: "FemuIoFn femu_nvm_read;") or an extern variable. Static inline
# functions, typedefs and macros (OBJECT_DECLARE_SIMPLE_TYPE(...)) are not.
DECLARATION = re.compile(r"^(?!static\b|typedef\b|struct\b|enum\b|union\b|#)"
                         r"(?:extern\b.*|[A-Za-z_][\w\s*]*?\b[a-z_]\w*\s*[(;])", re.M)


def declares(header: Path) -> bool:
    return DECLARATION.search(COMMENT.sub("", header.read_text())) is not None


def module_of(root: Path, path: Path) -> str:
    """x.c and x.h are module x; a header that only defines types is its own module."""
    stem = str(path.with_suffix(""))
    if path.suffix == ".h" and not declares(root / path):
        return str(path)
    return stem


def module_graph(root: Path):
    """{module: {modules it depends on}} over the device's files."""
    graph = {module_of(root, path): set() for path in device_files(root)}
    for path, target in include_edges(root):
        if module_of(root, target) != module_of(root, path):
            graph[module_of(root, path)].add(module_of(root, target))
    return graph


def test_no_include_circle_in_the_device():
    found = circles(module_graph(FEMU))
    assert not found, "device modules that include each other in a circle: " + \
        "; ".join(" <-> ".join(c) for c in found)


def test_every_module_has_its_own_header():
    """No header declares for several files (the old femu_ctrl.h hid every dependency): a
    header that declares functions has the .c of its name, and that .c includes it."""
    edges = set(include_edges(FEMU))
    for path in device_files(FEMU):
        if path.suffix == ".h" and declares(FEMU / path):
            source = FEMU / path.with_suffix(".c")
            assert source.is_file(), f"{path} declares functions but there is no {source.name}"
            assert (path.with_suffix(".c"), path) in edges, \
                f"{path.with_suffix('.c')} does not include {path}"


@pytest.fixture(scope="module")
def layers():
    return read_layers((FEMU / "layers.txt").read_text())


def test_layers_file_names_every_device_folder(layers):
    folders = {folder_of(path) for path in device_files(FEMU)}
    assert folders == set(layers), (f"device folders {sorted(folders)}, layers.txt names "
                                    f"{sorted(layers)}")


def test_includes_point_down_the_layers(layers):
    bad = upward(include_edges(FEMU), layers)
    assert not bad, "includes that go up hw/femu/layers.txt:\n" + "\n".join(bad)


def test_no_device_folder_holds_more_than_25_files():
    crowded = crowded_folders(FEMU)
    assert not crowded, (f"device folders over {MAX_FILES_PER_FOLDER} .c and .h files "
                         f"(split them by idea, and name the new folders in layers.txt): "
                         f"{crowded}")


def test_the_layer_rules_catch_upward_sideways_and_unknown(tmp_path):
    """An include up a layer, one between siblings and one into a folder layers.txt does
    not name are each reported; down and within a folder are not; a crowded folder is."""
    layers = read_layers("femu.h -- types\nlow -- a\nleft right -- b | c\nhigh -- d\n")
    for folder in ("low", "left", "right", "high", "stray"):
        (tmp_path / folder).mkdir()
    (tmp_path / "femu.h").write_text("")
    (tmp_path / "low" / "a.h").write_text('#include "femu.h"\n')
    (tmp_path / "low" / "a.c").write_text('#include "a.h"\n#include "high/d.h"\n')
    (tmp_path / "left" / "b.c").write_text('#include "low/a.h"\n#include "right/c.h"\n')
    (tmp_path / "right" / "c.h").write_text("")
    (tmp_path / "high" / "d.h").write_text('#include "low/a.h"\n')
    (tmp_path / "high" / "d.c").write_text('#include "stray/e.h"\n#include "qemu/osdep.h"\n')
    (tmp_path / "stray" / "e.h").write_text("")
    bad = upward(include_edges(tmp_path), layers)
    assert [line.split(":")[0] for line in bad] == [
        "high/d.c -> stray/e.h", "left/b.c -> right/c.h", "low/a.c -> high/d.h"]
    assert "folder missing" in bad[0] and "may not use" in bad[1]
    for i in range(3):
        (tmp_path / "stray" / f"x{i}.c").write_text("")
    assert crowded_folders(tmp_path, limit=3) == {"stray": 4}
    assert crowded_folders(tmp_path, limit=4) == {}


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
