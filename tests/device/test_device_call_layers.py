"""The device's calls point down hw/femu/layers.txt too, with no circle between its files.

Read from the symbols of the objects QEMU's build makes of the device's .c files
(build-femu/qemu-build/libcommon.a.p/hw_femu_<folder>_<file>.c.o, `nm`): file A calls up
when it uses a function or variable that a file of A's layer's other folders, or of a higher
layer, defines. Includes can miss such a call (a declaration in a low header of a function
defined higher up); the symbols cannot. What the top hands down as pointers (the command-set
tables) is no symbol reference, which is the point. The include half, and the rule's own
test, are in test_device_include_layers.py.

QEMU is built (or brought up to date) first by the session's `qemu` fixture, so the objects
are those of this tree; a device source without its object fails the test.
"""
import shutil
import subprocess

import pytest

from device_layers import call_edges, device_files, object_name, read_layers, upward
from femu_build.qemu_build import RELEASE
from femu_device import BUILD_FEMU, REPO_ROOT
from graph_circles import circles

FEMU = REPO_ROOT / "hw" / "femu"
OBJECTS = BUILD_FEMU / RELEASE.build_dir / "libcommon.a.p"


@pytest.fixture(scope="module")
def calls(qemu):
    """[(source, source it calls)] over the device's objects in QEMU's build tree."""
    assert shutil.which("nm"), "nm (binutils) reads the device's objects: install it"
    objects = {source: OBJECTS / object_name(source)
               for source in device_files(FEMU) if source.suffix == ".c"}
    missing = sorted(str(obj.name) for obj in objects.values() if not obj.is_file())
    assert not missing, f"QEMU's build has no object for {missing} in {OBJECTS}"
    edges = call_edges(objects)
    assert edges, f"no call between the device's objects in {OBJECTS}"
    return edges


def test_calls_point_down_the_layers(calls):
    bad = upward(calls, read_layers((FEMU / "layers.txt").read_text()))
    assert not bad, "calls that go up hw/femu/layers.txt:\n" + "\n".join(bad)


def test_no_call_circle_between_device_files(calls):
    graph = {}
    for source, target in calls:
        graph.setdefault(str(source), set()).add(str(target))
    found = circles(graph)
    assert not found, "device files that call each other in a circle: " + \
        "; ".join(" <-> ".join(c) for c in found)


def test_the_symbols_show_who_calls_whom(tmp_path):
    """Two objects compiled here: the caller's undefined symbol is the callee's definition,
    and a call to the C library is nobody's."""
    cc = shutil.which("cc")
    if cc is None or shutil.which("nm") is None:
        pytest.fail("cc and nm are needed (the unit tier builds C)")
    (tmp_path / "low.c").write_text("int femu_low(int x) { return x + 1; }\n")
    (tmp_path / "high.c").write_text("#include <string.h>\nint femu_low(int x);\n"
                                     "int femu_high(const char *s) "
                                     "{ return femu_low((int)strlen(s)); }\n")
    for name in ("low", "high"):
        subprocess.run([cc, "-c", "-o", str(tmp_path / f"{name}.o"),
                        str(tmp_path / f"{name}.c")], check=True)
    edges = call_edges({"low.c": tmp_path / "low.o", "high.c": tmp_path / "high.o"})
    assert edges == [("high.c", "low.c")]
