"""How every build step reports: one line when it starts, one when it ends (with its
duration) or is skipped, and a BuildError carrying the one-line reason when it fails.
The lines are femu_common.progress's, tagged [femu-compile]."""
from femu_common import progress
from femu_common.progress import duration  # noqa: F401 (the build's steps and tests use it)

TAG = "femu-compile"


class BuildError(Exception):
    """A failure the user can act on; its message is the single line printed."""


say = progress.Progress(TAG, clock=False)


class Step(progress.Step):
    """Context manager around one step: `with Step("configure", "about 1 min"):`."""

    def __init__(self, name: str, expected: str = ""):
        super().__init__(name, expected, say)


def skipped(name: str, why: str) -> None:
    say(f"{name}: skipped ({why})")
