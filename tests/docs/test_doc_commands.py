"""Commands as written work: every command name in every code block of the documents
(README.md, docs/*.md, the folders' README.md and hw/femu's pages: doc_blocks.doc_files)
resolves, as typed, in a fresh shell at the repository's root (no activated venv, nothing
of the project's on PATH).

A name resolves when it is a path to an executable file in the repository
(`scripts/femu-lab`, `.venv/bin/femu-plot`, which scripts/install-deps.sh makes), a path
to a binary meson builds (`build/release/...`, looked up in FEMU_BUILD_DIR) or
femu-compile.sh does (`build-femu/qemu-system-x86_64`), a function the block defines, or
a tool of the host or of the guest named below with where it runs. A bare project
command (`femu-lab`, `femu-plot`, `ftl-sim`) is "command not found" in a fresh shell and
fails here, as does a block that names no language (doc_blocks.py says why).
"""
import os
import pathlib
import re

import pytest

from doc_blocks import REPO, code_blocks, command_lines, command_names, doc_files

pytestmark = pytest.mark.docs

# Tools the documents run that are not the project's: where each one runs.
HOST_TOOLS = {
    "printf": "shell builtin", "grep": "grep", "head": "coreutils", "tail": "coreutils",
    "seq": "coreutils", "ssh": "openssh-client", "socat": "socat",
    "fio": "the guest", "nvme": "nvme-cli, the guest",
    "kv-load": "the guest (tools/kv-load, in the guest image)", "blkzone": "util-linux, the guest",
    "blkparse": "blktrace, the user's own Linux host",
    "sbatch": "a Slurm cluster's submit host",
    "farm-bench": "the development host's A/B timer (speed claims are measured with it)",
}
BUILD_PREFIX = "build/release/"
# Binaries a build step of the repository makes outside meson's folder: what makes them.
BUILT_BY = {"build-femu/qemu-system-x86_64": "build-femu/femu-compile.sh"}


def _build_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("FEMU_BUILD_DIR", REPO / "build" / "release"))


def _resolves(name: str, functions: set) -> bool:
    if name in HOST_TOOLS or name in functions:
        return True
    if name in BUILT_BY and (REPO / BUILT_BY[name]).is_file():
        return True
    if "/" not in name:
        return False             # a bare name: only the allowlist or a function
    if name.startswith(BUILD_PREFIX):
        path = _build_dir() / name[len(BUILD_PREFIX):]
    else:
        path = REPO / name
    return path.is_file() and os.access(path, os.X_OK)


def _blocks():
    return [block for path in doc_files() for block in code_blocks(path)]


def test_every_block_names_its_language():
    unnamed = [block.where for block in _blocks() if not block.language]
    assert not unnamed, ("fenced blocks without a language (sh for commands, text for "
                         f"output): {unnamed}")


def test_every_command_name_resolves():
    unresolved, checked = [], 0
    for block in _blocks():
        functions = set(re.findall(r"^\s*([\w-]+)\s*\(\)", "\n".join(block.lines), re.M))
        for number, line in command_lines(block):
            for name in command_names(line):
                checked += 1
                if not _resolves(name, functions):
                    unresolved.append(f"{block.path.relative_to(REPO)}:{number}: {name}")
    assert checked > 50    # the documents' commands were found at all
    assert not unresolved, ("command names that a fresh shell at the repository's root "
                            "cannot run (write scripts/femu-lab, .venv/bin/femu-plot, "
                            "build/release/tools/ftl-sim/ftl-sim, or allow a host tool "
                            "in HOST_TOOLS):\n" + "\n".join(unresolved))


@pytest.mark.parametrize("line, names", [
    ("femu-plot RUN_DIR", ["femu-plot"]),
    ("X=1 scripts/femu-lab run --to a|b   # comment | not", ["scripts/femu-lab"]),
    ("for us in $(seq 1 3); do a ${us}us; done", ["seq", "a"]),
    ("qmp() { printf '%s' \"$1\" | socat - X | tail -1; }", ["qmp", "printf", "socat", "tail"]),
    ("b --device-bytes $((768 << 20)) && c", ["b", "c"]),
])
def test_command_names_of_a_line(line, names):
    assert command_names(line) == names


def test_a_bare_project_command_does_not_resolve():
    assert not _resolves("femu-plot", set()) and _resolves(".venv/bin/femu-plot", set())
    assert _resolves("build/release/tools/ftl-sim/ftl-sim", set())
