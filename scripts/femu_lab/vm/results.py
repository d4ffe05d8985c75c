"""The guest -> host result channel: plain-text framing on the second serial port.

    --- femu-result begin name=NAME bytes=N ---
    <exactly N raw bytes>
    (one newline, so the end line starts a line even after a binary file)
    --- femu-result end name=NAME ---
    ...
    --- femu-results complete ---

The byte count, not a search for the end line, delimits the content, so a file
may hold anything (even lines that look like framing). The raw stream stays
readable with `less`. The guest sends a `femu-status` file last (key=value
lines: exit_status, timed_out, uptime_at_job_start, job_seconds, refused, ...).

NAME never holds a blank: the guest refuses to send a file whose path has a space,
tab or newline, and the job's own top-level `job.log` and `femu-status` (reserved
for the harness's); it lists them in femu-status's `refused=` line instead.
"""
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List

from femu_common.cli_args import key_value

_BEGIN = re.compile(rb"^--- femu-result begin name=(\S+) bytes=(\d+) ---\n", re.MULTILINE)
_END = b"\n--- femu-result end name=%s ---\n"
COMPLETE_LINE = b"--- femu-results complete ---"
STATUS_NAME = "femu-status"
JOB_LOG_NAME = "job.log"


@dataclass
class ParsedResults:
    files: Dict[str, bytes] = field(default_factory=dict)
    damaged: List[str] = field(default_factory=list)  # truncated or missing their end line
    complete: bool = False                            # the guest sent the final line

    @property
    def status(self) -> Dict[str, str]:
        return parse_status(self.files.get(STATUS_NAME, b""))


def parse(stream: bytes) -> ParsedResults:
    result = ParsedResults()
    position = 0
    while True:
        match = _BEGIN.search(stream, position)
        if match is None:
            break
        name = match.group(1).decode(errors="replace")
        size = int(match.group(2))
        start = match.end()
        content = stream[start:start + size]
        result.files[name] = content
        if len(content) < size or not stream.startswith(_END % match.group(1), start + size):
            result.damaged.append(name)
        position = start + len(content)
    tail = stream[position:]
    result.complete = any(line.rstrip(b"\r") == COMPLETE_LINE for line in tail.splitlines())
    return result


def parse_status(content: bytes) -> Dict[str, str]:
    status = {}
    for line in content.decode(errors="replace").splitlines():
        pair = key_value(line)
        if pair is not None:
            status[pair[0]] = pair[1]
    return status


def safe_relative_path(name: str) -> Path:
    """A guest-chosen file name as a path that cannot leave the output folder."""
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        raise ValueError(f"unsafe result file name: {name!r}")
    return Path(*parts)


def write_files(files: Dict[str, bytes], out_dir: Path) -> Dict[str, Path]:
    written = {}
    for name, content in files.items():
        try:
            target = out_dir / safe_relative_path(name)
        except ValueError:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        written[name] = target
    return written
