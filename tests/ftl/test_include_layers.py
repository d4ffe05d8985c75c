"""The FTL's layers hold (hw/femu/ftl/layers.txt, drawn in hw/femu/ftl/README.md).

A module is a .c file with the .h of the same name beside it, and its <name>_tables.h (the
tables it shares with its state section) if it has one; a header alone is a module too.
Read from every `#include "..."` line under hw/femu/ftl:

- no include circle between modules;
- every include points to the including file's own folder or to a lower layer; the public
  headers (include/femu_ftl) include only public headers and the other libraries';
- every include names its header the one way the library spells it (femu_ftl/x.h, a
  folder-qualified private header, or another library's header), so the graph sees it;
- the device, ftl-sim and bench reach the FTL only through femu_ftl/*.h.

Calls can go up where includes do not (a public function declared at the bottom and
defined in a higher layer): the built library's symbols are checked the same way.
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from graph_circles import circles as find_circles
from layers_file import INCLUDE, read_layers, upward_edges

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
FTL = REPO / "hw" / "femu" / "ftl"
PUBLIC = "include/femu_ftl"
# Other QEMU-free libraries the FTL uses, whose headers it names without a folder.
OTHER_LIBRARIES = ("statefile", "util")


def folder_of(path):
    """The layer folder a file under the FTL belongs to (include/femu_ftl for the API)."""
    return PUBLIC if path.startswith(PUBLIC + "/") else path.split("/")[0]


def module_of(path):
    """folder/stem: a .c, the .h beside it and its _tables.h are one module."""
    return re.sub(r"_tables$", "", path.rsplit(".", 1)[0])


def external_headers():
    return {p.name for lib in OTHER_LIBRARIES for p in (FTL.parent / lib).glob("*.h")}


def resolve(name, root, external):
    """The FTL file (relative to root) an include names, None for another library's header;
    raises for a spelling the graph could not follow (relative to the including file)."""
    if name.startswith("femu_ftl/"):
        path = f"include/{name}"
    elif "/" in name and not name.startswith("."):
        path = name
    elif name in external:
        return None
    else:
        raise AssertionError(f'"{name}": name FTL headers as femu_ftl/x.h or folder/x.h')
    if not (root / path).is_file():
        raise AssertionError(f'"{name}" is not a header of the FTL')
    return path


def read_includes(root, external):
    """{file relative to root: [FTL files it includes]} for every .c and .h under root."""
    includes = {}
    for source in sorted(root.rglob("*.[ch]")):
        rel = source.relative_to(root).as_posix()
        names = INCLUDE.findall(source.read_text())
        try:
            targets = [resolve(name, root, external) for name in names]
        except AssertionError as error:
            raise AssertionError(f"{rel}: {error}") from None
        includes[rel] = [t for t in targets if t is not None]
    return includes


def module_graph(includes):
    graph = {}
    for source, targets in includes.items():
        edges = graph.setdefault(module_of(source), set())
        edges.update(module_of(t) for t in targets if module_of(t) != module_of(source))
    return graph


def layer_violations(edges, layers):
    """The edges (file or module pairs) that do not point to their own folder or lower; the
    public API uses nothing but itself."""
    return upward_edges(edges, layers, folder_of, sealed=(PUBLIC,))


def include_edges(includes):
    return [(source, target) for source, targets in includes.items() for target in targets]


@pytest.fixture(scope="module")
def layers():
    return read_layers((FTL / "layers.txt").read_text())


@pytest.fixture(scope="module")
def includes():
    return read_includes(FTL, external_headers())


def test_layers_file_names_every_folder(layers):
    folders = {folder_of(p.relative_to(FTL).as_posix()) for p in FTL.rglob("*.[ch]")}
    assert folders == set(layers), (f"folders with sources {sorted(folders)}, "
                                    f"layers.txt names {sorted(layers)}")
    assert layers[PUBLIC] == 0, "the public API is the bottom layer"


def test_no_include_circle(includes):
    circles = find_circles(module_graph(includes))
    assert not circles, f"include circles between modules: {circles}"


def test_includes_point_down_the_layers(includes, layers):
    bad = layer_violations(include_edges(includes), layers)
    assert not bad, "\n".join(bad)


def called_modules(archive):
    """{module: modules whose functions or data it uses} from the archive's symbols."""
    out = subprocess.run(["nm", "-A", str(archive)], capture_output=True, text=True,
                         check=True).stdout
    defined, used = {}, {}
    member = re.compile(r"hw_femu_ftl_([a-z]+)_(\w+)\.c\.o$")
    for line in out.splitlines():
        where, _, rest = line.rpartition(":")
        match = member.search(where)
        fields = rest.split()
        if not match or len(fields) < 2:
            continue
        module = f"{match.group(1)}/{match.group(2)}"
        if fields[-2] == "U":
            used.setdefault(module, set()).add(fields[-1])
        elif fields[-2] in "TDBR":
            defined[fields[-1]] = module
    return {module: {defined[s] for s in symbols if s in defined} - {module}
            for module, symbols in used.items()}


def test_calls_point_down_the_layers(layers):
    build = Path(os.environ.get("FEMU_BUILD_DIR", REPO / "build" / "release"))
    archive = build / "libfemu_ftl.a"
    if not archive.is_file() or not shutil.which("nm"):
        pytest.skip(f"needs nm and {archive} (meson compile -C {build})")
    calls = called_modules(archive)
    assert calls, f"no FTL module found in {archive}"
    assert not find_circles(calls), f"call circles: {find_circles(calls)}"
    edges = [(f"{a}.c", f"{b}.c") for a, targets in calls.items() for b in targets]
    bad = layer_violations(edges, layers)
    assert not bad, "\n".join(bad)


def test_hosts_see_only_the_public_api():
    private = {p.name for p in FTL.iterdir() if p.is_dir() and p.name != "include"} | {"ftl"}
    # every device file (hw/femu's folders but the FTL's own), ftl-sim and the bench
    device = [p for p in (REPO / "hw" / "femu").rglob("*.[ch]") if FTL not in p.parents]
    hosts = [*device, *(REPO / "tools" / "ftl-sim").glob("*.[ch]"),
             *(REPO / "bench").glob("*.[ch]")]
    bad = [f"{h.relative_to(REPO)}: {name}" for h in hosts
           for name in INCLUDE.findall(h.read_text()) if name.split("/")[0] in private]
    assert not bad, f"FTL internals included outside the FTL: {bad}"


def test_the_rules_catch_circles_and_upward_includes(tmp_path):
    (tmp_path / "include" / "femu_ftl").mkdir(parents=True)
    (tmp_path / "low").mkdir()
    (tmp_path / "high").mkdir()
    (tmp_path / "include" / "femu_ftl" / "api.h").write_text('#include "high/e.h"\n')
    (tmp_path / "high" / "e.h").write_text("")
    (tmp_path / "low" / "a.h").write_text("")
    (tmp_path / "low" / "a.c").write_text('#include "low/a.h"\n#include "high/b.h"\n')
    (tmp_path / "high" / "b.h").write_text("")
    (tmp_path / "high" / "b.c").write_text('#include "high/b.h"\n#include "low/a.h"\n'
                                           '#include "femu_ftl/api.h"\n')
    layers = read_layers("include/femu_ftl -- api\nlow -- a\nhigh -- b\n")
    found = read_includes(tmp_path, external=set())
    assert find_circles(module_graph(found)) == [["high/b", "low/a"]]
    bad = layer_violations(include_edges(found), layers)
    assert any(line.startswith("low/a.c -> high/b.h") for line in bad)
    assert any(line.startswith("include/femu_ftl/api.h -> high/e.h") for line in bad)
    assert not any(line.startswith("high/b.c") for line in bad)
    (tmp_path / "low" / "c.c").write_text('#include "a.h"\n')
    with pytest.raises(AssertionError, match='low/c.c: "a.h"'):
        read_includes(tmp_path, external=set())
