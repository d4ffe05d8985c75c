"""What a cut cost, from the console (femu_lab.crash.guest prints the facts): the writes a
boot reported durable before the cut, against what the next boot found.

A durable log record is lost when its line is not intact after recovery; a durable page
version (page p at version v) is lost when the page reads back torn or at a version below
v (a later version is fine: it was written too). A file system that does not mount loses
everything reported durable.
"""
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set

from femu_common.errors import FemuError

JOB_START = "femu-guest: job start"
_PREFIX = "crashlab: "
_CHECK = re.compile(r"check fs=(\w+)(?: mount=(\w+) fsck=(\w+))?$")


class ConsoleError(FemuError, ValueError):
    """A crashlab line the job never prints: the console is damaged or mixed up."""


@dataclass
class Boot:
    """One boot of the job: what it found, then what it reported durable."""
    fs: Optional[str] = None            # present | none (the check line)
    mount: Optional[str] = None         # ok | failed
    fsck: Optional[str] = None          # clean | repaired | failed
    log_present: Optional[Set[int]] = None
    db: Optional[List[Optional[int]]] = None   # None entries: torn pages
    started: bool = False               # workload-start seen
    durable_log: Set[int] = field(default_factory=set)
    durable_db: Dict[int, int] = field(default_factory=dict)   # page -> newest durable
    durable_db_writes: List[tuple] = field(default_factory=list)

    @property
    def checked(self) -> bool:
        """The boot printed everything its check has to say."""
        return self.fs == "none" or self.mount == "failed" or self.db is not None

    @property
    def durable_writes(self) -> int:
        return len(self.durable_log) + len(self.durable_db_writes)


def parse_ranges(text: str) -> Set[int]:
    """'1-3,7' -> {1, 2, 3, 7}; '' -> empty."""
    out: Set[int] = set()
    for part in filter(None, text.split(",")):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise ConsoleError(f"log-present: bad range {part!r}")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def _boot_line(boot: Boot, text: str) -> None:
    words = text.split()
    if text.startswith("D log ") and len(words) == 3 and words[2].isdigit():
        boot.durable_log.add(int(words[2]))
    elif text.startswith("D db ") and len(words) == 4 and words[2].isdigit() \
            and words[3].isdigit():
        page, version = int(words[2]), int(words[3])
        boot.durable_db_writes.append((page, version))
        boot.durable_db[page] = max(version, boot.durable_db.get(page, 0))
    elif text.startswith("check "):
        match = _CHECK.match(text)
        if not match:
            raise ConsoleError(f"bad check line {text!r}")
        boot.fs, boot.mount, boot.fsck = match.groups()
    elif text.startswith("log-present"):
        boot.log_present = parse_ranges(text[len("log-present"):].strip())
    elif text.startswith("db "):
        boot.db = [int(w) if w.isdigit() else None for w in words[1:]]
    elif text == "db none":
        boot.db = []
    elif text == "workload-start":
        boot.started = True


class ConsoleParser:
    """The boots so far, fed one console line at a time (a job start begins one)."""

    def __init__(self):
        self.boots: List[Boot] = []

    def feed(self, line: str) -> None:
        if JOB_START in line:
            self.boots.append(Boot())
        elif self.boots and line.startswith(_PREFIX):
            _boot_line(self.boots[-1], line[len(_PREFIX):].strip())


def parse_boots(lines: List[str]) -> List[Boot]:
    parser = ConsoleParser()
    for line in lines:
        parser.feed(line)
    return parser.boots


@dataclass
class CutVerdict:
    durable_checked: int
    lost: int
    fsck: str                   # clean | repaired | failed | unmountable
    lost_log: List[int]
    lost_db: List[tuple]


def judge(before: Boot, after: Boot) -> CutVerdict:
    """What the boot after a cut found of the writes the boot before reported durable."""
    if after.fs != "present":
        raise ConsoleError("the boot after a cut found no file system")
    if after.mount == "failed":
        return CutVerdict(before.durable_writes, before.durable_writes, "unmountable",
                          sorted(before.durable_log), list(before.durable_db_writes))
    present = after.log_present or set()
    lost_log = sorted(before.durable_log - present)
    pages = after.db or []
    lost_db = [(p, v) for p, v in before.durable_db_writes
               if p >= len(pages) or pages[p] is None or pages[p] < v]
    return CutVerdict(before.durable_writes, len(lost_log) + len(lost_db), after.fsck or "?",
                      lost_log, lost_db)
