"""Several extracted Debian packages seen as one merged-/usr file tree, and the
ELF closure of a set of binaries within it (interpreter + NEEDED libraries).

Paths are "normalized": relative, and /bin, /sbin, /lib, /lib64 folded into
/usr as on a merged-/usr Debian system (the guest image links them the same way).
"""
import fnmatch
import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

from . import elf

MERGED_DIRS = ("bin", "sbin", "lib", "lib64", "lib32", "libx32")
# Where the x86-64 glibc loader looks when no RPATH/RUNPATH matched.
DEFAULT_LIBRARY_DIRS = ("usr/lib/x86_64-linux-gnu", "usr/lib", "usr/lib64")


def normalize(path: str) -> str:
    path = posixpath.normpath(path.lstrip("/"))
    first = path.split("/", 1)[0]
    return "usr/" + path if first in MERGED_DIRS else path


@dataclass
class Entry:
    source: Path      # file (or symlink) inside an extracted package tree
    package: str


@dataclass
class Closure:
    files: Dict[str, Entry] = field(default_factory=dict)         # guest path -> real file
    unresolved: Dict[str, Set[str]] = field(default_factory=dict)  # soname -> who needs it
    missing_roots: List[str] = field(default_factory=list)


class PackageView:
    def __init__(self) -> None:
        self.entries: Dict[str, Entry] = {}

    def add_tree(self, package: str, tree: Path) -> None:
        for dirpath, dirnames, filenames in os.walk(tree):
            rel_dir = os.path.relpath(dirpath, tree)
            links = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
            for name in filenames + links:
                rel = normalize(posixpath.join(rel_dir, name))
                self.entries.setdefault(rel, Entry(Path(dirpath) / name, package))

    def resolve(self, path: str) -> Optional[Tuple[str, Entry]]:
        """Follow symlinks inside the view; (final path, entry) of a real file, or None."""
        for _ in range(40):
            entry = self.entries.get(path)
            if entry is None:
                return None
            if not entry.source.is_symlink():
                return (path, entry) if entry.source.is_file() else None
            target = os.readlink(entry.source)
            base = "" if target.startswith("/") else posixpath.dirname(path)
            path = normalize(posixpath.join(base, target))
        return None

    def glob(self, pattern: str) -> List[str]:
        return sorted(p for p in self.entries if fnmatch.fnmatchcase(p, pattern))

    def closure(self, roots: List[str]) -> Closure:
        """Every root plus, transitively, the loader and libraries its ELF files need."""
        result = Closure()
        queue = list(roots)
        while queue:
            path = queue.pop(0)
            if path in result.files:
                continue
            resolved = self.resolve(path)
            if resolved is None:
                result.missing_roots.append(path)
                continue
            entry = resolved[1]
            result.files[path] = entry
            info = elf.read_dynamic_info(entry.source) if elf.is_elf(entry.source) else None
            if info is None:
                continue
            if info.interpreter:
                loader = normalize(info.interpreter)
                if self.resolve(loader):
                    queue.append(loader)
                else:
                    result.unresolved.setdefault(info.interpreter, set()).add(path)
            for soname in info.needed:
                found = self._find_library(soname, info.search_path, posixpath.dirname(path))
                if found:
                    queue.append(found)
                else:
                    result.unresolved.setdefault(soname, set()).add(path)
        return result

    def _find_library(self, soname: str, search_path: List[str], origin: str) -> Optional[str]:
        dirs = [normalize(d.replace("$ORIGIN", "/" + origin).replace("${ORIGIN}", "/" + origin))
                for d in search_path]
        for directory in dirs + list(DEFAULT_LIBRARY_DIRS):
            candidate = posixpath.join(directory, soname)
            if self.resolve(candidate):
                return candidate
        return None
