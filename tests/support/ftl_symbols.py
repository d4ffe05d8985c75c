"""The FTL's symbol boundary as the tests see it (hw/femu/ftl/README.md, "The symbol
boundary"): which names the public headers declare, read by the compiler rather than by the
build's own parser (hw/femu/ftl/boundary/public_names.py), and which names an object file,
archive or program defines as globals (nm)."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FTL = REPO / "hw" / "femu" / "ftl"
PUBLIC_HEADERS = FTL / "include" / "femu_ftl"
HEADER_INCLUDES = [FTL / "include", REPO / "hw" / "femu" / "statefile"]
NAMES_SCRIPT = FTL / "boundary" / "public_names.py"
# One line of GCC's -aux-info: "/* FILE:LINE:XX */ extern int name (args);"
AUX_LINE = re.compile(r"^/\* (.+?):\d+:\w+ \*/ (.*)$")
AUX_NAME = re.compile(r"(\w+) \(")


def needs(*tools):
    missing = [tool for tool in tools if not shutil.which(tool)]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")


def declared_functions(tmp_path: Path) -> set:
    """The functions femu_ftl/*.h declare with external linkage, as GCC's -aux-info lists
    them (static inline ones are not symbols)."""
    needs("gcc")
    source = tmp_path / "all_public_headers.c"
    source.write_text("".join(f'#include "femu_ftl/{h.name}"\n'
                              for h in sorted(PUBLIC_HEADERS.glob("*.h"))))
    aux = tmp_path / "aux.txt"
    subprocess.run(["gcc", "-std=c11", "-fsyntax-only", f"-aux-info={aux}",
                    *[f"-I{d}" for d in HEADER_INCLUDES], str(source)], check=True)
    names = set()
    for line in aux.read_text().splitlines():
        match = AUX_LINE.match(line)
        if match and Path(match.group(1)).resolve().parent == PUBLIC_HEADERS.resolve() \
                and not match.group(2).startswith("static"):
            names.add(AUX_NAME.search(match.group(2)).group(1))
    assert names, f"gcc -aux-info listed no function of {PUBLIC_HEADERS}"
    return names


def defined_globals(path: Path, kinds: str = "") -> set:
    """The global symbols path (object, archive or program) defines; only those of nm's
    kinds given (e.g. "T": functions), if any."""
    needs("nm")
    out = subprocess.run(["nm", "-g", "--defined-only", str(path)], capture_output=True,
                         text=True, check=True).stdout
    return {fields[2] for fields in (line.split() for line in out.splitlines())
            if len(fields) == 3 and (not kinds or fields[1] in kinds)}


def boundary_problems(exported: set, public: set, what: str) -> list:
    """What is wrong with exported (a bounded library's globals) against public (the
    headers' declarations), one line each, telling the fix."""
    problems = [f"{what} keeps global {name}, which no femu_ftl/*.h declares: declare it in "
                "a public header, or make it internal" for name in sorted(exported - public)]
    problems += [f"{what} does not export {name}, which femu_ftl/*.h declares: define it in "
                 "the library, or fix hw/femu/ftl/boundary/public_names.py if it missed the "
                 "declaration" for name in sorted(public - exported)]
    return problems


def undefined_references(path: Path) -> set:
    """The symbols path (an object, LTO ones too: nm reads their symbol table) uses but
    does not define."""
    needs("nm")
    out = subprocess.run(["nm", "-u", str(path)], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def internal_leaks(program: Path, internal: set) -> list:
    """The internal FTL functions program defines as globals."""
    return sorted(defined_globals(program) & internal)
