"""No product file is over 600 lines (issue 42, Must 4): a longer file holds more than one
idea and is split where they part.

Product: every .c, .h, .py and .sh file git knows (tracked, or new and not ignored) under
PRODUCT_FOLDERS; tests/ is not product, nor are files outside those folders (the QEMU
source tree build-femu unpacks is ignored by git, so never listed).
"""
import pathlib
import shutil
import subprocess

import pytest

pytestmark = pytest.mark.unit

REPO = pathlib.Path(__file__).resolve().parents[2]
PRODUCT_FOLDERS = ("hw/femu", "tools", "bench", "scripts", "analysis", "build-femu")
PRODUCT_SUFFIXES = (".c", ".h", ".py", ".sh")
MAX_LINES = 600


def product_files(root):
    """The product files under root, relative paths, from git's index and work tree."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                          "-z", "--", *PRODUCT_FOLDERS], cwd=root, capture_output=True,
                         check=True).stdout.decode()
    return sorted({p for p in out.split("\0")
                   if p.endswith(PRODUCT_SUFFIXES) and (root / p).is_file()})


def line_count(path):
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def too_long(root, files):
    """'path: N lines' for every file over MAX_LINES, longest first."""
    counts = [(line_count(root / p), p) for p in files]
    return [f"{p}: {n} lines" for n, p in sorted(counts, reverse=True) if n > MAX_LINES]


@pytest.fixture(scope="module")
def git():
    if not shutil.which("git") or not (REPO / ".git").exists():
        pytest.skip("needs git and a checkout (the product files are git's)")


def test_no_product_file_over_600_lines(git):
    files = product_files(REPO)
    assert any(p.startswith("hw/femu/ftl/") for p in files), "no product file found"
    long = too_long(REPO, files)
    assert not long, f"product files over {MAX_LINES} lines:\n" + "\n".join(long)


def test_the_rule_sees_product_and_skips_tests(git, tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for rel, lines in [("tools/x/big.c", MAX_LINES + 1), ("tools/x/ok.py", MAX_LINES),
                       ("tests/big.c", 2 * MAX_LINES), ("tools/x/notes.txt", 2 * MAX_LINES),
                       ("docs/big.sh", 2 * MAX_LINES)]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n" * lines)
    files = product_files(tmp_path)
    assert files == ["tools/x/big.c", "tools/x/ok.py"]
    assert too_long(tmp_path, files) == [f"tools/x/big.c: {MAX_LINES + 1} lines"]
