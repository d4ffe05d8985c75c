"""How every build step reports: one line when it starts, one when it ends (with its
duration) or is skipped, and a BuildError carrying the one-line reason when it fails."""
import sys
import time

TAG = "femu-compile"


class BuildError(Exception):
    """A failure the user can act on; its message is the single line printed."""


def duration(seconds: float) -> str:
    """'8.2 s', '42 s', '3 min 12 s': how long a step took, for the progress lines."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    whole = int(round(seconds))
    if whole < 60:
        return f"{whole} s"
    return f"{whole // 60} min {whole % 60} s"


def say(message: str) -> None:
    print(f"[{TAG}] {message}", file=sys.stderr, flush=True)


class Step:
    """Context manager around one step: `with Step("configure", "about 1 min"):`."""

    def __init__(self, name: str, expected: str = ""):
        self.name = name
        self.expected = expected
        self.started = 0.0

    def __enter__(self) -> "Step":
        hint = f" (usually {self.expected})" if self.expected else ""
        say(f"{self.name}{hint} ...")
        self.started = time.monotonic()
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        seconds = time.monotonic() - self.started
        if exc_type is None:
            say(f"{self.name}: done in {duration(seconds)}")
        return False   # errors propagate to main(), which prints the one line


def skipped(name: str, why: str) -> None:
    say(f"{name}: skipped ({why})")
