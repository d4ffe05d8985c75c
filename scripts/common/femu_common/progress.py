"""Progress on stderr, one mechanism for every tool of the project:

    Progress("soak")("boot 3 of 10")     [soak   12.3s] boot 3 of 10
    Progress("femu-compile", clock=False) [femu-compile] configure ...
    with Step("configure", "about 1 min", say):   'configure (usually about 1 min) ...',
                                                    then 'configure: done in 48 s'
    LiveLine(text, ...)                  a line rewritten in place every few seconds on a
                                         terminal, printed every `every` s elsewhere
    counted(items, "dftl-study", "run")  'dftl-study: 3/12 runs [0:41]' in place on a
                                         terminal while the items are worked through;
                                         nothing elsewhere (a log gets the tools' own lines)
"""
import sys
import threading
import time
from typing import Callable, Iterable, Iterator, Optional, Sequence, TextIO, TypeVar

Item = TypeVar("Item")
LINE_WIDTH = 100    # a live line is padded and cut to this, so a shorter one erases a longer


def duration(seconds: float) -> str:
    """'8.2 s', '42 s', '3 min 12 s': how long a step took, for the progress lines."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    whole = int(round(seconds))
    if whole < 60:
        return f"{whole} s"
    return f"{whole // 60} min {whole % 60} s"


class Progress:
    """A callable that prints one progress line on stderr, tagged, with the seconds since
    it was made (clock=False: the tag alone); enabled=False prints nothing."""

    def __init__(self, tag: str, enabled: bool = True, clock: bool = True):
        self.tag = tag
        self.enabled = enabled
        self.clock = clock
        self.start = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def __call__(self, message: str) -> None:
        if not self.enabled:
            return
        stamp = f"{self.tag} {self.elapsed():6.1f}s" if self.clock else self.tag
        print(f"[{stamp}] {message}", file=sys.stderr, flush=True)


class Step:
    """Context manager around one step, said through `say`: a line when it starts (with
    how long it usually takes) and one with its duration when it ends. A failure says
    nothing here: the error propagates, and whoever catches it prints its one line."""

    def __init__(self, name: str, expected: str = "",
                 say: Optional[Callable[[str], None]] = None):
        self.name = name
        self.expected = expected
        self.say = say or Progress("progress", clock=False)
        self.started = 0.0

    def __enter__(self) -> "Step":
        hint = f" (usually {self.expected})" if self.expected else ""
        self.say(f"{self.name}{hint} ...")
        self.started = time.monotonic()
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            self.say(f"{self.name}: done in {duration(time.monotonic() - self.started)}")
        return False


def clock_text(seconds: float) -> str:
    """'  1:12': minutes and seconds, as the live lines show elapsed time."""
    minutes, whole = divmod(int(seconds), 60)
    return f"{minutes:3d}:{whole:02d}"


class LiveLine(threading.Thread):
    """Every `interval` s, text(elapsed seconds) becomes the live line: rewritten in place
    on a terminal, else printed as a line of its own every `every` s. last_line keeps the
    latest text; stop() ends the thread (and the terminal's line)."""

    def __init__(self, text: Callable[[float], str], stream: Optional[TextIO] = None,
                 interval: float = 2.0, every: float = 10.0):
        super().__init__(daemon=True)
        self.text = text
        self.stream = stream if stream is not None else sys.stderr
        self.interval, self.every = interval, every
        self.started = time.monotonic()
        self._stop_event = threading.Event()
        self.last_line = ""

    def run(self) -> None:
        tty = self.stream.isatty()
        last_print = 0.0
        while not self._stop_event.wait(self.interval):
            elapsed = time.monotonic() - self.started
            self.last_line = self.text(elapsed)
            if tty:
                self.stream.write("\r" + self.last_line.ljust(LINE_WIDTH)[:LINE_WIDTH])
                self.stream.flush()
            elif elapsed - last_print >= self.every:
                self.stream.write(self.last_line + "\n")
                self.stream.flush()
                last_print = elapsed

    def stop(self) -> None:
        self._stop_event.set()
        self.join(timeout=5)
        if self.stream.isatty():
            self.stream.write("\n")
            self.stream.flush()


class Counted:
    """The items of a long loop, with a count of those done shown in place on a terminal
    (nothing when stderr is not one): `for item in counted(...)`; note(text) adds a few
    words about the latest item ('WAF 1.87')."""

    def __init__(self, items: Sequence[Item], desc: str, unit: str,
                 stream: Optional[TextIO] = None):
        self.items, self.desc, self.unit = items, desc, unit
        self.stream = stream if stream is not None else sys.stderr
        self.shown = self.stream.isatty()
        self.started = time.monotonic()
        self.done = 0
        self.extra = ""

    def note(self, text: str) -> None:
        self.extra = text
        self._show()

    def _show(self) -> None:
        if not self.shown:
            return
        line = (f"{self.desc}: {self.done}/{len(self.items)} {self.unit}s "
                f"[{clock_text(time.monotonic() - self.started).strip()}]")
        if self.extra:
            line += f" {self.extra}"
        self.stream.write("\r" + line.ljust(LINE_WIDTH)[:LINE_WIDTH])
        self.stream.flush()

    def __iter__(self) -> Iterator[Item]:
        self._show()
        try:
            for item in self.items:
                yield item
                self.done += 1
                self._show()
        finally:
            if self.shown:
                self.stream.write("\n")
                self.stream.flush()


def counted(items: Iterable[Item], desc: str, unit: str,
            stream: Optional[TextIO] = None) -> Counted:
    return Counted(list(items), desc, unit, stream)
