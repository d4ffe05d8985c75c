"""The Debian releases a guest image can be built from."""
from typing import Optional

# Newest first; DEFAULT_RELEASE is what every caller gets when it names none.
RELEASES = ("trixie", "bookworm")
DEFAULT_RELEASE = "trixie"


def check_release(release: Optional[str]) -> str:
    """release itself, DEFAULT_RELEASE for None; ValueError (one line) for any other name."""
    if release is None:
        return DEFAULT_RELEASE
    if release not in RELEASES:
        raise ValueError(f"unknown guest release {release!r}: choose one of "
                         f"{', '.join(RELEASES)}")
    return release
