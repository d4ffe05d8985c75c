"""Reading a console log while QEMU still writes it: new whole lines since the last call."""
from pathlib import Path
from typing import List


class FileTail:
    """New whole lines of a file another thread or process appends to, decoded (bad bytes
    replaced), carriage returns dropped, blanks trimmed; a line not yet ended waits for the
    next call. A file that does not exist yet has no lines."""

    def __init__(self, path: Path):
        self.path, self.offset, self.partial = path, 0, b""

    def lines(self) -> List[str]:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return []
        self.offset += len(data)
        *whole, self.partial = (self.partial + data).split(b"\n")
        return [line.decode(errors="replace").replace("\r", "").strip() for line in whole]
