"""Timestamped progress lines on stderr, so long steps show they are alive."""
import sys
import time


class Progress:
    def __init__(self, tag: str, enabled: bool = True):
        self.tag = tag
        self.enabled = enabled
        self.start = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def __call__(self, message: str) -> None:
        if self.enabled:
            print(f"[{self.tag} {self.elapsed():6.1f}s] {message}", file=sys.stderr, flush=True)
