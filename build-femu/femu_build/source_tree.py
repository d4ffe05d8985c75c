"""The QEMU source tree to build: $QEMU_SRC as it is, $QEMU_TARBALL unpacked, or the
upstream tarball of Debian's qemu source package (trixie) unpacked.

Unpacked trees live in build-femu/qemu-src-<label>/ (git-ignored) with a stamp naming the
tarball's SHA-256, so an unchanged tarball is never unpacked twice.
"""
import hashlib
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from femu_common import command

from . import debsrc
from .steps import BuildError, Step, skipped

STAMP = ".femu-origin"
WANTED_MAJOR_MINOR = "10.0"


@dataclass
class SourceTree:
    path: Path
    version: str      # QEMU's VERSION file, e.g. 10.0.13
    origin: str       # where it came from, for the build log


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read_version(tree: Path) -> str:
    try:
        return (tree / "VERSION").read_text().strip()
    except OSError:
        raise BuildError(f"{tree} is not a QEMU source tree (no VERSION file)") from None


def _check_tree(tree: Path) -> str:
    if not (tree / "configure").is_file():
        raise BuildError(f"{tree} is not a QEMU source tree (no configure script)")
    version = _read_version(tree)
    if not version.startswith(WANTED_MAJOR_MINOR + "."):
        raise BuildError(f"{tree} holds QEMU {version}; femu targets QEMU {WANTED_MAJOR_MINOR}.x")
    return version


def _unpack(tarball: Path, dest: Path, digest: str) -> None:
    """Unpack into dest.partial, then rename: an interrupted unpack is never mistaken
    for a finished one."""
    partial = dest.with_name(dest.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.rmtree(dest, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        command.run(["tar", "-xf", tarball, "-C", partial], "tar")
    except command.CommandError as error:
        shutil.rmtree(partial, ignore_errors=True)
        raise BuildError(f"cannot unpack {tarball}: {error.reason or 'no output'}") from None
    tops = [p for p in partial.iterdir()]
    if len(tops) != 1 or not tops[0].is_dir():
        shutil.rmtree(partial, ignore_errors=True)
        raise BuildError(f"{tarball} does not hold a single top-level folder")
    tops[0].rename(dest)
    partial.rmdir()
    (dest / STAMP).write_text(digest + "\n")


def _from_tarball(tarball: Path, workdir: Path, label: str, origin: str) -> SourceTree:
    dest = workdir / f"qemu-src-{label}"
    name = f"unpack {tarball.name}"
    digest = _sha256(tarball)
    stamp = dest / STAMP
    if stamp.exists() and stamp.read_text().strip() == digest:
        skipped(name, f"already in {dest.name}/")
    else:
        with Step(name, "10-30 s"):
            _unpack(tarball, dest, digest)
    return SourceTree(dest, _check_tree(dest), origin)


def _dsc_fields(dsc: Path):
    """(Debian version, {file name: sha256}) from a .dsc."""
    text = dsc.read_text(errors="replace")
    match = re.search(r"^Version:\s*(\S+)", text, re.M)
    if not match:
        raise BuildError(f"{dsc} has no Version field")
    sums = {}
    block = re.search(r"^Checksums-Sha256:\n((?:[ \t].*\n)+)", text, re.M)
    for line in (block.group(1).splitlines() if block else []):
        parts = line.split()
        if len(parts) == 3:
            sums[parts[2]] = parts[0]
    return match.group(1), sums


def _from_debian(workdir: Path, cache: Path, refresh: bool) -> SourceTree:
    dsc = debsrc.download(cache, refresh)
    debian_version, sums = _dsc_fields(dsc)
    origs = [name for name in sums if ".orig.tar." in name]
    if len(origs) != 1:
        raise BuildError(f"{dsc.name} lists {len(origs)} upstream tarballs, expected one")
    orig = cache / origs[0]
    if not orig.exists():
        raise BuildError(f"{orig} is missing: run again with --refresh-source")
    # apt checked the .dsc against the signed archive index; this checks the cached copy.
    if _sha256(orig) != sums[origs[0]]:
        raise BuildError(f"{orig} does not match the SHA-256 in {dsc.name}: "
                         f"run again with --refresh-source")
    upstream = debian_version.split(":", 1)[-1].rsplit("-", 1)[0]   # 1:10.0.13+ds-0+deb13u1
    origin = (f"Debian source package qemu {debian_version} ({debsrc.SOURCE_RELEASE}), "
              f"upstream tarball {orig.name}, Debian patches not applied")
    return _from_tarball(orig, workdir, upstream, origin)


def obtain(workdir: Path, cache: Path, refresh: bool) -> SourceTree:
    if os.environ.get("QEMU_SRC"):
        tree = Path(os.environ["QEMU_SRC"]).resolve()
        skipped("obtain QEMU source", f"QEMU_SRC={tree} is used as it is")
        return SourceTree(tree, _check_tree(tree), f"QEMU_SRC={tree}")
    if os.environ.get("QEMU_TARBALL"):
        tarball = Path(os.environ["QEMU_TARBALL"]).resolve()
        if not tarball.is_file():
            raise BuildError(f"QEMU_TARBALL={tarball} is not a file")
        label = re.sub(r"\.tar(\.\w+)?$|\.t[gx]z$", "", tarball.name)
        label = re.sub(r"[^A-Za-z0-9.+_-]", "_", label)
        return _from_tarball(tarball, workdir, label, f"QEMU_TARBALL={tarball}")
    return _from_debian(workdir, cache, refresh)
