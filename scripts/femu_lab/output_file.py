"""A file the user names as output, written beside it and renamed over it: the one check
of what may be replaced. The rename would make a symlink, a FIFO or a device a regular
file (as root /dev/null or /dev/stdout too), so only a regular file or a new path is
replaced; anything else is refused in one line before any work.
"""
import os
import stat
from pathlib import Path
from typing import BinaryIO

from femu_common.cli_args import UsageError, shown

_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"),
          (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


class OutputFileError(UsageError):
    """An output path that must not be replaced, or cannot be written (one line)."""


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def check_replaceable(path: Path, option: str) -> None:
    """OutputFileError unless path is a regular file or does not exist, in a folder that
    exists and may be written; option names it in the message (e.g. 'OUT', '-o')."""
    named = f"{option} {shown(str(path), 200)}"
    try:
        mode = os.lstat(path).st_mode     # lstat: the link itself, not what it points to
    except (FileNotFoundError, NotADirectoryError):   # the folder is checked below
        mode = None
    except OSError as error:
        raise OutputFileError(f"{named}: {error.strerror}") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputFileError(f"{named} is {_kind(mode)}: only a regular file (or a new "
                              "path) is replaced")
    folder = path.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise OutputFileError(f"{named}: folder {shown(str(folder), 200)} {what}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputFileError(f"{named}: folder {shown(str(folder), 200)} is not writable")


def replace(written: Path, path: Path, option: str) -> None:
    """Rename written (a file beside path) over path, checked again just before: what
    path is may have changed while written was being made."""
    check_replaceable(path, option)
    os.replace(written, path)


def new_file(path: Path) -> BinaryIO:
    """path (the file written beside the output) created anew: a leftover there is
    removed first (a link itself, never what it points to) and the file is made with
    O_EXCL, so nothing someone put at that known name is ever written through."""
    path.unlink(missing_ok=True)
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), "wb")
