"""The FTL's symbol boundary in QEMU's build (hw/femu/ftl/README.md, "The symbol boundary"):
the FTL library QEMU links (hw/femu/meson.build: libfemu_ftl_bounded.a) defines as globals
exactly the functions femu_ftl/*.h declares, and qemu-system-x86_64 defines no internal FTL
function as a global. The standalone build's half: tests/ftl/test_symbol_boundary.py."""
import pytest
from femu_device import BUILD_FEMU
from ftl_symbols import boundary_problems, declared_functions, defined_globals, internal_leaks

pytestmark = pytest.mark.build

FEMU_BUILD = BUILD_FEMU / "qemu-build" / "hw" / "femu"


@pytest.fixture(scope="module")
def public(tmp_path_factory):
    return declared_functions(tmp_path_factory.mktemp("aux-info"))


def test_qemus_ftl_library_exports_exactly_the_public_api(qemu, public):
    exported = defined_globals(FEMU_BUILD / "libfemu_ftl_bounded.a")
    problems = boundary_problems(exported, public, "QEMU's libfemu_ftl_bounded.a")
    assert not problems, "\n".join(problems)


def test_qemu_defines_no_internal_ftl_function(qemu, public):
    internal = defined_globals(FEMU_BUILD / "libfemu_ftl.a") - public
    assert internal, "QEMU's whole FTL library defines no internal global: nothing to check"
    leaks = internal_leaks(qemu, internal)
    assert not leaks, f"internal FTL functions global in QEMU: {leaks}"
    missing = public - defined_globals(qemu)
    assert not missing, f"QEMU lacks public FTL functions {sorted(missing)}"
