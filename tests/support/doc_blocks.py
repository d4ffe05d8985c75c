"""The documentation's code blocks and the commands in them, for the doc tests.

A fenced block names its language: `sh` (or `bash`, `shell`) holds commands, run from the
repository's root in a fresh shell; `text` holds output, diagrams and tables; `json`,
`python` and the like hold what they say. In any block a line starting with `$ ` is a
command too. A block without a language is reported, so that every block is one or the
other on purpose.

A command line: backslash continuations joined, comments dropped; its words split at
`;`, `&&`, `||`, `|` and `$(`, and each piece's first word (after `VAR=value`
assignments and the shell's keywords) is a command name. A line that starts with
whitespace and does not follow `do`, `then`, `{`, `|`, `&&` or `;` continues a usage
synopsis and names no command; a line starting with `-` is options for a command given
elsewhere (`-device femu,...` for QEMU), one starting with `{"` a QMP message. A `|`
separates commands only as a word of its own (`a | b`): `A|B` is a synopsis's choice.
"""
import pathlib
import re
import shlex
from dataclasses import dataclass
from typing import List, Tuple

REPO = pathlib.Path(__file__).resolve().parents[2]
COMMAND_LANGUAGES = {"sh", "bash", "shell"}
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
SEPARATORS = {";", "&&", "||", "|", "(", ")", "{", "}", "&", "$("}
KEYWORDS = {"do", "done", "then", "else", "fi", "if", "while", "until", "!", "time",
            "exec"}
OPENS_COMMAND = ("do", "then", "else", "{", "|", "&&", "||", ";")


def doc_files() -> List[pathlib.Path]:
    files = [REPO / "README.md", REPO / "analysis" / "README.md",
             REPO / "scripts" / "guest" / "README.md", REPO / "build-femu" / "README.md",
             REPO / "tests" / "fuzz" / "README.md"]
    return files + sorted((REPO / "docs").glob("*.md")) + sorted((REPO / "hw").rglob("*.md"))


@dataclass
class Block:
    path: pathlib.Path
    line: int            # the opening fence's line, 1-based
    language: str        # "" when the fence names none
    lines: List[str]

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def code_blocks(path: pathlib.Path) -> List[Block]:
    blocks, lines, index = [], path.read_text().splitlines(), 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        indent, fence, language = match.groups()
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip()
                for line in lines[index + 1:end]]
        blocks.append(Block(path, index + 1, language.lower(), body))
        index = end + 1
    return blocks


def command_lines(block: Block) -> List[Tuple[int, str]]:
    """(line number, logical command line) of the block's commands."""
    prompt_only = block.language not in COMMAND_LANGUAGES
    out: List[Tuple[int, str]] = []
    pending, start, previous = "", 0, ""
    for offset, raw in enumerate(block.lines):
        number = block.line + 1 + offset
        if prompt_only:
            if raw.startswith("$ "):
                out.append((number, raw[2:]))
            continue
        if pending:                      # a backslash continuation
            pending += " " + raw.strip()
        else:
            stripped = raw.strip()
            if not stripped or stripped.startswith(("#", "-", '{"')):
                previous = stripped or previous
                continue
            if raw[:1].isspace() and not previous.endswith(OPENS_COMMAND):
                previous = stripped
                continue                 # a synopsis's continuation line
            pending, start = stripped, number
        if pending.endswith("\\"):
            pending = pending[:-1]
            continue
        out.append((start, pending))
        previous, pending = _without_comment(pending), ""
    if pending:
        out.append((start, pending))
    return out


def command_names(line: str) -> List[str]:
    """The command names of one logical line (see the module's docstring)."""
    line = re.sub(r"\$\(\(.*?\)\)", "0", line)     # $((arithmetic)) runs nothing
    lexer = shlex.shlex(line.replace("$(", " $( "), posix=True, punctuation_chars=";()")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        words = list(lexer)
    except ValueError:              # an unbalanced quote in a synopsis: split on blanks
        words = line.split()
    names, expect = [], True
    for word in words:
        if word in SEPARATORS or word == "$" or set(word) <= set(";()"):
            expect = True
            continue
        if not expect:
            continue
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word) or word in KEYWORDS:
            continue
        if word in ("for", "case"):  # `for x in ...`: no command until the next separator
            expect = False
            continue
        names.append(word)
        expect = False
    return names


def _without_comment(line: str) -> str:
    return re.sub(r"\s+#.*$", "", line).rstrip()
