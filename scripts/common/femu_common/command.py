"""Running a command whose failure is one line the user can act on.

    proc = run(["apt-get", "indextargets"], "apt-get indextargets")
    run(as_root(["apt-get", "update"], "apt-get update"), "apt-get update")

run() captures stdout and stderr as text. A command that cannot start, runs past its
timeout or (check=True) exits non-zero raises CommandError, whose message is one line:

    apt-get update failed (exit status 100): E: The repository ... is not signed.

naming the command as the caller's `what` and quoting the last non-empty line of its
stderr (of its stdout when stderr is empty). The error keeps the exit status, that line
and the finished process, so a caller can say it its own way (error.saying(...)).
"""
import os
import shutil
import subprocess
from pathlib import Path
from typing import Mapping, Optional, Sequence, Union

Arg = Union[str, Path]


class CommandError(RuntimeError):
    """A command that failed; str() is one line. returncode is None when it never ran to
    an exit status (could not start, timed out); reason is then why, else the last line
    of its output ('' when it printed nothing). proc: the finished process, if any."""

    def __init__(self, what: str, reason: str, returncode: Optional[int] = None,
                 proc: Optional[subprocess.CompletedProcess] = None,
                 message: Optional[str] = None):
        self.what, self.reason, self.returncode, self.proc = what, reason, returncode, proc
        super().__init__(message or self.saying(what))

    def saying(self, what: str, failed: str = "failed", none: str = "no message") -> str:
        """The one line with the command named `what`:
        '{what} {failed} (exit status N): {reason, or none when there is none}', or
        '{what}: {reason}' when it never exited."""
        if self.returncode is None:
            return f"{what}: {self.reason}"
        return f"{what} {failed} (exit status {self.returncode}): {self.reason or none}"


def last_line(*texts: Optional[str]) -> str:
    """The last non-empty line (stripped) of the first of texts that has one; ''."""
    for text in texts:
        lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
        if lines:
            return lines[-1]
    return ""


def run(args: Sequence[Arg], what: Optional[str] = None, *, check: bool = True,
        input: Optional[str] = None, timeout: Optional[float] = None,
        cwd: Optional[Arg] = None, env: Optional[Mapping[str, str]] = None,
        stdin=None) -> subprocess.CompletedProcess:
    """args run to the end with stdout and stderr captured (text; undecodable bytes
    replaced). what names it in the error (default: the program's name). stdin: a file,
    subprocess.DEVNULL ...; input: text to write to it instead."""
    args = [str(arg) for arg in args]
    what = what or Path(args[0]).name
    try:
        proc = subprocess.run(args, capture_output=True, text=True, errors="replace",
                              input=input, timeout=timeout, cwd=cwd,
                              env=dict(env) if env is not None else None,
                              stdin=stdin if input is None else None)
    except subprocess.TimeoutExpired:
        raise CommandError(what, f"still running after {timeout:g} s, stopped") from None
    except OSError as error:
        raise CommandError(what, f"cannot run {args[0]}: {error.strerror or error}") \
            from None
    if check and proc.returncode != 0:
        raise CommandError(what, last_line(proc.stderr, proc.stdout), proc.returncode, proc)
    return proc


def as_root(args: Sequence[Arg], what: str, hint: str = "") -> list:
    """args as they must run to act as root: unchanged for root, else through sudo (as
    scripts/install-deps.sh does). CommandError when neither: '{what} needs root, and
    sudo is not installed' followed by hint (what to do instead)."""
    args = [str(arg) for arg in args]
    if os.geteuid() == 0:
        return args
    if shutil.which("sudo") is not None:
        return ["sudo", *args]
    raise CommandError(what, "needs root, and sudo is not installed",
                       message=f"{what} needs root, and sudo is not installed{hint}")
