"""Writer for the "newc" cpio format the kernel unpacks as an initramfs.

Entries are written in the order given with a fixed mtime and owner so the same
inputs always give the same archive (and so the same cache key downstream).
"""
import stat
from pathlib import Path
from typing import BinaryIO

_MAGIC = b"070701"
_CHUNK = 1 << 20


class CpioWriter:
    def __init__(self, out: BinaryIO):
        self._out = out
        self._next_inode = 1

    def _header(self, name: str, mode: int, size: int, rdev=(0, 0), nlink=1) -> None:
        encoded = name.encode() + b"\0"
        fields = [self._next_inode, mode, 0, 0, nlink, 0, size, 0, 0, rdev[0], rdev[1],
                  len(encoded), 0]
        self._next_inode += 1
        header = _MAGIC + b"".join(b"%08X" % v for v in fields)
        self._out.write(header + encoded)
        self._pad(len(header) + len(encoded))

    def _pad(self, length: int) -> None:
        self._out.write(b"\0" * (-length % 4))

    def directory(self, name: str, mode: int = 0o755) -> None:
        self._header(name, stat.S_IFDIR | mode, 0, nlink=2)

    def symlink(self, name: str, target: str) -> None:
        data = target.encode()
        self._header(name, stat.S_IFLNK | 0o777, len(data))
        self._out.write(data)
        self._pad(len(data))

    def char_device(self, name: str, major: int, minor: int, mode: int = 0o600) -> None:
        self._header(name, stat.S_IFCHR | mode, 0, rdev=(major, minor))

    def data(self, name: str, content: bytes, mode: int = 0o644) -> None:
        self._header(name, stat.S_IFREG | mode, len(content))
        self._out.write(content)
        self._pad(len(content))

    def file(self, name: str, source: Path, mode: int) -> None:
        size = source.stat().st_size
        self._header(name, stat.S_IFREG | mode, size)
        with open(source, "rb") as f:
            while chunk := f.read(_CHUNK):
                self._out.write(chunk)
        self._pad(size)

    def finish(self) -> None:
        self._header("TRAILER!!!", 0, 0, nlink=1)
