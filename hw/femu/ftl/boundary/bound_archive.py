#!/usr/bin/env python3
"""The FTL library behind its symbol boundary (README.md, "The symbol boundary"): every
object of the static library linked into one relocatable object, in which only the names
the public headers declare stay global (public_names.py); every other function becomes
local, so QEMU, ftl-sim and bench cannot call it, and a name of theirs cannot clash with it.
The result is an archive of that one object, for meson's link_with.

    bound_archive.py --archive LIB.a --out OUT.a --names OUT.txt --depfile OUT.d
                     [--lto] --objcopy OBJCOPY --ar AR --headers DIR [--include DIR]...
                     -- CC [ARG...]

--lto: the library's objects hold GCC's LTO code; the partial link optimises them as one
and emits plain code (-flinker-output=nolto-rel), which objcopy can rewrite.
The references to other libraries (util's heap, the state-file container, libc) stay
undefined globals, met when the host links.
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from public_names import ParseError, first_error, public_names, split_compiler


def run(command):
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"bound_archive: error: {' '.join(command)} failed ({proc.returncode}): "
                 f"{first_error(proc.stderr)}")


def partial_link(compiler, archive, lto, out):
    """Every member of archive in one relocatable object."""
    lto_args = ["-flto", "-flinker-output=nolto-rel"] if lto else []
    run([*compiler, "-r", "-nostdlib", *lto_args, "-o", str(out), "-Wl,--whole-archive",
         str(archive), "-Wl,--no-whole-archive"])


def write_depfile(path, target, headers):
    deps = " ".join(str(h).replace(" ", "\\ ") for h in headers)
    Path(path).write_text(f"{target}: {deps}\n")


def main():
    own, compiler = split_compiler(sys.argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--archive", required=True, help="the FTL's static library")
    parser.add_argument("--out", required=True, help="the bounded archive to write")
    parser.add_argument("--names", required=True, help="where the kept names are listed")
    parser.add_argument("--depfile", required=True, help="the headers read, for ninja")
    parser.add_argument("--lto", action="store_true", help="the objects are GCC LTO code")
    parser.add_argument("--objcopy", required=True)
    parser.add_argument("--ar", required=True)
    parser.add_argument("--headers", required=True, help="the public headers' folder")
    parser.add_argument("--include", action="append", default=[], metavar="DIR",
                        help="an include folder the headers need")
    args = parser.parse_args(own)
    if not compiler:
        parser.error("the compiler command goes after --")
    headers = sorted(Path(args.headers).glob("*.h"))
    if not headers:
        parser.error(f"no header in {args.headers}")
    try:
        names = public_names(headers, args.include, compiler)
    except ParseError as error:
        sys.exit(f"bound_archive: error: {error}")
    Path(args.names).write_text("".join(f"{name}\n" for name in names))
    out = Path(args.out)
    with tempfile.TemporaryDirectory(dir=out.parent) as scratch:
        whole = Path(scratch) / "femu_ftl_whole.o"
        bounded = Path(scratch) / "femu_ftl.o"
        partial_link(compiler, args.archive, args.lto, whole)
        run([args.objcopy, f"--keep-global-symbols={args.names}", str(whole), str(bounded)])
        out.unlink(missing_ok=True)
        run([args.ar, "rcsD", str(out), str(bounded)])
    write_depfile(args.depfile, args.out, headers)


if __name__ == "__main__":
    main()
