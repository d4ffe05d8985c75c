"""Every relative link in the documentation points at something that exists.

README.md, docs/*.md and every README.md under hw/femu link each other with relative
paths (as GitHub renders them: relative to the file's folder). A link to a file must name
an existing file or folder; a link with a #fragment to a Markdown file must name one of
its headings (GitHub's anchor: lower case, punctuation dropped, spaces as hyphens).
Absolute URLs (http:, https:, mailto:) are not checked: no network here.
"""
import pathlib
import re

import pytest

pytestmark = pytest.mark.unit

REPO = pathlib.Path(__file__).resolve().parents[2]

# [text](target) or [text](target "title"); images too. Code spans and fenced blocks are
# removed first, so shell snippets such as `a[i](x)` are not taken for links.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)


def doc_files() -> list[pathlib.Path]:
    files = [REPO / "README.md"]
    files += sorted((REPO / "docs").glob("*.md"))
    files += sorted((REPO / "hw" / "femu").rglob("README.md"))
    return [f for f in files if f.is_file()]


def prose(text: str) -> str:
    return CODE_SPAN.sub("", FENCE.sub("", text))


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, spaces to hyphens."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: pathlib.Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text())):
        base = anchor(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(path: pathlib.Path) -> list[str]:
    return LINK.findall(prose(path.read_text()))


def broken(path: pathlib.Path, repo: pathlib.Path = REPO) -> list[str]:
    def rel(p: pathlib.Path) -> str:
        return p.relative_to(repo).as_posix() if p.is_relative_to(repo) else str(p)
    bad = []
    for target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue                      # http:, https:, mailto:
        file_part, _, fragment = target.partition("#")
        dest = path if not file_part else (path.parent / file_part)
        if not dest.exists():
            bad.append(f"{target}: {rel(dest)} does not exist")
            continue
        if fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            bad.append(f"{target}: no heading with anchor #{fragment} in {rel(dest)}")
    return bad


def test_the_files_are_there():
    names = [f.relative_to(REPO).as_posix() for f in doc_files()]
    assert "README.md" in names
    assert any(n.startswith("docs/") for n in names), names
    assert "hw/femu/ftl/README.md" in names


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_relative_links_resolve(path):
    assert broken(path) == []


def test_every_docs_file_is_linked_from_readme():
    readme = REPO / "README.md"
    linked = {(readme.parent / t.partition("#")[0]).resolve() for t in links(readme)
              if t.partition("#")[0]}
    missing = [f.relative_to(REPO).as_posix() for f in sorted((REPO / "docs").glob("*.md"))
               if f.resolve() not in linked]
    assert missing == [], f"docs files README.md does not link: {missing}"


def test_readme_names_the_test_command():
    """.ci/run runs 'the test command README.md documents': tests/run.sh."""
    assert "tests/run.sh" in (REPO / "README.md").read_text()


def test_the_checker_finds_broken_links(tmp_path):
    (tmp_path / "a.md").write_text("# Top\n## Two words\n[ok](a.md#two-words) [x](b.md) "
                                   "[y](a.md#nope) `[z](c.md)` [w](https://example.org)\n"
                                   "```\n[v](d.md)\n```\n")
    assert broken(tmp_path / "a.md", tmp_path) == [
        "b.md: b.md does not exist",
        "a.md#nope: no heading with anchor #nope in a.md",
    ]
