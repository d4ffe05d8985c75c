"""ftl-sim's option table (tools/ftl-sim/option_table.c, printed by --help) and
docs/ftl-sim.md held to each other: every option --help lists is documented, every option
the page names exists, with the argument the page gives it (a metavar, or some of a
choice's spellings), and the page's table of bounds is the one --help states."""
import re
import subprocess

import pytest

DOC = "docs/ftl-sim.md"
# Options the page names that belong to other tools, each with the tool (none may be
# ftl-sim's: a renamed ftl-sim option cannot hide here).
OTHER_TOOLS = {
    "--engine": "femu-lab sweep", "--workload": "femu-lab sweep",
    "--qemu": "femu-vm run", "--job": "femu-vm run", "--out": "femu-vm run",
    "--record": "run-blackbox.sh", "--big": "bench/trace_bench.sh",
}
# Error lines the page quotes, where an option is followed by a word that is no argument.
QUOTED = {("--trace-extent", "E"), ("--trace-lba-map", "cannot")}
ROW = re.compile(r"^  (--[a-z][a-z-]*)(?: (\S+))?")
BOUNDS = re.compile(r" ([\[(][^\[\]()]*, [^\[\]()]*\])$")


@pytest.fixture(scope="module")
def help_rows(ftl_sim):
    """--help's rows: option -> (argument or None, bounds or None)."""
    proc = subprocess.run([str(ftl_sim), "--help"], capture_output=True, text=True,
                          check=True)
    rows, current = {}, None
    for line in proc.stdout.splitlines():
        head = ROW.match(line)
        if head:
            current = head.group(1)
            rows[current] = [head.group(2), None]
        if current and (bounds := BOUNDS.search(line)):
            rows[current][1] = bounds.group(1)
    return {name: tuple(v) for name, v in rows.items()}


@pytest.fixture(scope="module")
def doc_text(repo_root):
    return (repo_root / DOC).read_text()


def doc_mentions(text):
    """Every `--name ARG` the page writes (ARG: the word after it, or None)."""
    for m in re.finditer(r"(--[a-z][a-z_-]*)(?:[ =]([^\s`\]\[]+))?", text):
        yield m.group(1), m.group(2)


def test_help_lists_each_option_once_with_its_argument(help_rows):
    assert "--help" in help_rows and "--config" in help_rows
    assert help_rows["--qd"] == ("N", "[1, 65536]")
    assert help_rows["--print-config"] == (None, None)


def test_every_option_in_help_is_documented(help_rows, doc_text):
    named = {name for name, _ in doc_mentions(doc_text)}
    assert sorted(set(help_rows) - named) == []


def test_every_option_the_page_names_exists(help_rows, doc_text):
    named = {name for name, _ in doc_mentions(doc_text)}
    assert sorted(named - set(help_rows) - set(OTHER_TOOLS)) == []
    assert sorted(set(OTHER_TOOLS) & set(help_rows)) == []


def test_the_page_gives_each_option_its_argument(help_rows, doc_text):
    """A metavar (FILE, N, SIZE...) is --help's; lowercase words after a choice option are
    among its spellings (the page may name only some)."""
    wrong = []
    for name, arg in doc_mentions(doc_text):
        if (name not in help_rows or arg is None or (name, arg) in QUOTED or
                not re.fullmatch(r"[A-Za-z][\w:=|.-]*", arg)):
            continue
        help_arg = help_rows[name][0]
        metavar = re.fullmatch(r"[A-Z][A-Z:]*(\.json)?", arg)
        if metavar and help_arg and help_arg[0].isupper():
            ok = arg.split(".")[0] == help_arg
        elif help_arg and "|" in help_arg and re.fullmatch(r"[a-z][a-z0-9=|:-]*", arg):
            ok = set(arg.split("|")) <= set(help_arg.split("|"))
        else:
            continue
        if not ok:
            wrong.append(f"{name} {arg} (--help: {help_arg})")
    assert wrong == []


def test_the_bounds_table_is_the_help_s(help_rows, doc_text):
    table = re.findall(r"^\| `(--[a-z-]+)` \| (\S+) \| (.+?) \|$", doc_text, re.M)
    assert table, f"{DOC} has no table of bounds"
    wrong = [f"{name}: {arg} {bounds} (--help: {help_rows.get(name)})"
             for name, arg, bounds in table if help_rows.get(name) != (arg, bounds)]
    assert wrong == []
    bounded = {name for name, (_, bounds) in help_rows.items() if bounds}
    assert sorted(bounded - {name for name, _, _ in table}) == []


def test_trace_in_options_are_rows_in_its_order(help_rows, repo_root):
    """tools/trace-in's options (TIN_GETOPT_OPTIONS) are rows of the table, with an
    argument where getopt wants one, and in its order: they share one getopt value, so an
    abbreviation matching two takes the first, as femu-trace's does."""
    header = (repo_root / "tools/trace-in/options.h").read_text()
    tin = re.findall(r'\{ "(trace-[a-z-]+)", (no|required)_argument, NULL, TIN_OPT \}', header)
    assert len(tin) >= 10
    rows = [name for name in help_rows if name[2:] in dict(tin)]
    assert rows == [f"--{name}" for name, _ in tin]
    wrong = [name for name, has_arg in tin
             if (help_rows[f"--{name}"][0] is not None) != (has_arg == "required")]
    assert wrong == []
