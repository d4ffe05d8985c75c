"""The FTL's symbol boundary in the standalone build (hw/femu/ftl/README.md, "The symbol
boundary"): the library ftl-sim, femu-trace and bench link (libfemu_ftl_bounded.a) defines
as globals exactly the functions femu_ftl/*.h declares, and none of those programs defines
an internal FTL function as a global. The declarations are read by GCC (-aux-info), not by
the build's own parser, which is checked against it. Run it on the ASan+UBSan tree too:
FEMU_BUILD_DIR=build/asan.

QEMU's half: tests/device/test_device_symbols.py."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ftl_symbols import (HEADER_INCLUDES, NAMES_SCRIPT, PUBLIC_HEADERS, REPO, boundary_problems,
                         declared_functions, defined_globals, internal_leaks, needs,
                         undefined_references)

pytestmark = pytest.mark.unit

BUILD = Path(os.environ.get("FEMU_BUILD_DIR", REPO / "build" / "release"))
HOSTS = ("tools/ftl-sim/ftl-sim", "tools/femu-trace/femu-trace", "bench/ftl-bench")


def built(name: str) -> Path:
    path = BUILD / name
    if not path.is_file():
        pytest.fail(f"{path} is missing: meson compile -C {BUILD}")
    return path


def build_names(headers, cc="gcc"):
    """public_names.py's run, as the build makes it: (exit status, stdout, stderr)."""
    needs(cc)
    proc = subprocess.run([sys.executable, str(NAMES_SCRIPT),
                           *[f"--include={d}" for d in HEADER_INCLUDES],
                           *map(str, headers), "--", cc], capture_output=True, text=True)
    return proc.returncode, proc.stdout.split(), proc.stderr


@pytest.fixture(scope="module")
def public(tmp_path_factory):
    return declared_functions(tmp_path_factory.mktemp("aux-info"))


def test_the_builds_parser_names_what_the_compiler_sees(public):
    status, names, err = build_names(sorted(PUBLIC_HEADERS.glob("*.h")))
    assert status == 0, err
    assert set(names) == public, (f"public_names.py missed {sorted(public - set(names))}, "
                                  f"added {sorted(set(names) - public)}")


def test_bounded_library_exports_exactly_the_public_api(public):
    exported = defined_globals(built("libfemu_ftl_bounded.a"))
    problems = boundary_problems(exported, public, "libfemu_ftl_bounded.a")
    assert not problems, "\n".join(problems)


def test_programs_define_no_internal_ftl_function(public):
    # Functions: under LTO the configuration's key tables (data, read only) keep global
    # names in the program; no host can use them (test_hosts_use_only_the_public_api).
    internal = defined_globals(built("libfemu_ftl.a"), kinds="T") - public
    assert internal, "the whole FTL library defines no internal global: nothing to check"
    leaks = {host: internal_leaks(built(host), internal) for host in HOSTS}
    assert not any(leaks.values()), f"internal FTL functions global in: {leaks}"


def test_hosts_use_only_the_public_api(public):
    # The programs' own objects: what they call of the FTL. Under LTO (the release build)
    # they link the whole library (meson.build says why), so this is the boundary there.
    internal = defined_globals(built("libfemu_ftl.a")) - public
    objects = {host: sorted((BUILD / host).parent.glob(Path(host).name + ".p/*.o"))
               for host in HOSTS}
    assert all(objects.values()), f"no objects found for {objects}"
    calls = {f"{obj.relative_to(BUILD)}: {name}" for host in HOSTS for obj in objects[host]
             for name in undefined_references(obj) & internal}
    assert not calls, "hosts call internal FTL functions: " + ", ".join(sorted(calls))


def test_parser_names_declarations_only(tmp_path):
    # Members, typedefs, tags, inline functions and C++-only lines are not symbols.
    header = tmp_path / "api.h"
    header.write_text(
        "#include <stddef.h>\n"
        "#define MUST_USE __attribute__((warn_unused_result))\n"
        "struct thing { int thing_count; void (*on_done)(int); };\n"
        "typedef void (*thing_fn)(struct thing *);\n"
        "enum mode { MODE_A, MODE_B };\n"
        "struct later;\n"
        "int thing_open(struct thing *t, void (*cb)(int)) MUST_USE;\n"
        "__attribute__((nonnull)) struct thing *thing_new(size_t n);\n"
        "extern const char *const thing_names[4];\n"
        "static inline int thing_next(int x) { return x + 1; }\n"
        "static inline const char *thing_brace(void) { return \"};\"; }\n"
        "#ifdef __cplusplus\nextern \"C\" int only_cpp(void);\n#endif\n"
        "_Static_assert(sizeof(int) >= 2, \"int\");\n")
    status, names, err = build_names([header])
    assert status == 0, err
    assert names == ["thing_names", "thing_new", "thing_open"]


@pytest.mark.parametrize("declaration, reason", [
    ("void (*thing_hook(int level))(void);", "cannot name the declaration"),
    ("int thing_a(void), thing_b(void);", "declare one name at a time"),
    ("int thing_count;", "defines an object"),
])
def test_parser_stops_on_what_it_cannot_name(tmp_path, declaration, reason):
    # Rather than leave a public function local, the build stops with one line.
    header = tmp_path / "api.h"
    header.write_text(declaration + "\n")
    status, names, err = build_names([header])
    assert status != 0 and not names
    assert err.count("\n") == 1 and reason in err, err
