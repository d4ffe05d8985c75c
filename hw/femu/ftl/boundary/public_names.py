#!/usr/bin/env python3
"""The names the FTL's public headers (include/femu_ftl/*.h) declare: every function
prototype and extern variable, the symbols the library shows its hosts (README.md, "The
symbol boundary"). Static inline functions, types and macros are not symbols.

    public_names.py [--include DIR]... HEADER... -- CC [ARG...]

The compiler's preprocessor reads the headers (so comments, conditionals and macros are its
business); only the lines that come from the named headers are parsed. A declaration this
parser cannot name stops it with one line saying which, rather than leaving a function out.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

LINE_MARKER = re.compile(r'^#\s*(?:line\s+)?\d+\s+"((?:\\.|[^"\\])*)"')
# A string or character literal is one token, so that a brace or ";" in one counts for nothing.
TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|[A-Za-z_]\w*|\S')
# Words followed by "(" that never name what is declared.
NOT_NAMES = {"__attribute__", "__attribute", "__asm__", "__asm", "asm", "__typeof__",
             "typeof", "__typeof", "_Alignas", "alignas", "sizeof", "_Alignof", "__declspec",
             "__extension__"} | {
             "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
             "_Bool", "bool", "const", "volatile", "restrict", "inline", "extern"}
NO_SYMBOL_STARTS = {"typedef", "_Static_assert", "static_assert"}


class ParseError(Exception):
    pass


def header_lines(preprocessed: str, headers):
    """The preprocessed text that comes from the given header files."""
    wanted = {Path(h).resolve() for h in headers}
    keep, inside = [], False
    for line in preprocessed.splitlines():
        marker = LINE_MARKER.match(line)
        if marker:
            inside = Path(marker.group(1)).resolve() in wanted
        elif inside:
            keep.append(line)
    return "\n".join(keep)


def declarations(text: str):
    """The file-scope declarations as token lists: brace bodies (struct members, the body
    of a static inline function) removed, definitions with a body left out."""
    tokens = TOKEN.findall(text)
    out, current, i = [], [], 0
    while i < len(tokens):
        token = tokens[i]
        if token == "{":
            is_body = bool(current) and current[-1] == ")"
            depth, j = 1, i + 1
            while j < len(tokens) and depth:
                depth += {"{": 1, "}": -1}.get(tokens[j], 0)
                j += 1
            i = j
            if is_body:   # a function defined here (static inline): no symbol
                current = []
            continue
        if token == ";":
            if current:
                out.append(current)
            current = []
        else:
            current.append(token)
        i += 1
    return out


def declared_name(tokens):
    """The symbol one declaration declares, None for one that declares no symbol."""
    if tokens[0] in NO_SYMBOL_STARTS or "static" in tokens:
        return None
    depth = 0
    for token in tokens:
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(token, 0)
        if token == "," and depth == 0:
            raise ParseError(f"declare one name at a time: '{' '.join(tokens)}'")
    if "(" in tokens:
        depth = 0
        for here, token in enumerate(tokens[:-1]):
            if token == "(":
                depth += 1
            elif token == ")":
                depth -= 1
            elif (depth == 0 and tokens[here + 1] == "(" and token not in NOT_NAMES
                  and re.match(r"[A-Za-z_]", token)):
                return token
        raise ParseError(f"cannot name the declaration '{' '.join(tokens)}'")
    if "extern" in tokens:
        cut = tokens.index("[") if "[" in tokens else len(tokens)
        names = [t for t in tokens[:cut] if re.match(r"[A-Za-z_]\w*$", t)]
        return names[-1]
    if tokens[0] in ("struct", "union", "enum") and len(tokens) <= 2:
        return None   # a tag's declaration or definition, no object
    raise ParseError(f"a public header defines an object: '{' '.join(tokens)}'")


def first_error(stderr: str) -> str:
    """The line of a tool's messages that says what went wrong: the compiler's first
    "error:" line, else the first line (the linker's; collect2's summary says nothing)."""
    lines = stderr.splitlines() or ["no message"]
    return next((line for line in lines if re.search(r": (fatal )?error:", line)
                 and not line.startswith("collect2")), lines[0])


def public_names(headers, includes, compiler):
    """Sorted names declared by the headers, preprocessed with compiler (a command list)."""
    source = "".join(f'#include "{Path(h).resolve()}"\n' for h in headers)
    command = [*compiler, "-E", *[f"-I{d}" for d in includes], "-x", "c", "-"]
    proc = subprocess.run(command, input=source, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ParseError(f"the preprocessor failed ({' '.join(command)}): "
                         f"{first_error(proc.stderr)}")
    names = {declared_name(d) for d in declarations(header_lines(proc.stdout, headers))}
    return sorted(n for n in names if n)


def split_compiler(argv):
    """(own arguments, the compiler command after the first --)."""
    if "--" not in argv:
        return argv, []
    cut = argv.index("--")
    return argv[:cut], argv[cut + 1:]


def main(argv=None):
    own, compiler = split_compiler(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     usage="%(prog)s [--include DIR]... HEADER... -- CC [ARG...]")
    parser.add_argument("--include", action="append", default=[], metavar="DIR",
                        help="an include folder the headers need")
    parser.add_argument("headers", nargs="+", metavar="HEADER")
    args = parser.parse_args(own)
    if not compiler:
        parser.error("the compiler command goes after --")
    try:
        print("\n".join(public_names(args.headers, args.include, compiler)))
    except ParseError as error:
        sys.exit(f"public_names: error: {error}")


if __name__ == "__main__":
    main()
