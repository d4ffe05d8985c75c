"""Debian's QEMU source package: make sure apt has a deb-src entry for the release that
carries QEMU 10.0 (trixie), then download the package with `apt-get source`.

The deb-src entry is derived from the machine's own apt configuration (the archive URI
that serves the host's release), so no mirror name is ever written by this project.
"""
import os
import shutil
import subprocess
from pathlib import Path
from typing import List, Optional, Tuple

from femu_common import command

from .steps import BuildError, Step, say, skipped

SOURCE_RELEASE = "trixie"          # the Debian release whose qemu is 10.0.x
SOURCE_PACKAGE = "qemu"
SOURCES_FILE = Path(f"/etc/apt/sources.list.d/femu-{SOURCE_RELEASE}-src.sources")
ARCHIVE_KEYRING = Path("/usr/share/keyrings/debian-archive-keyring.gpg")


def _run(args: List[str], what: str, **kwargs) -> subprocess.CompletedProcess:
    try:
        return command.run(args, what, **kwargs)
    except command.CommandError as error:
        raise BuildError(error.saying(what, none="no output")) from None


def as_root(args: List[str], what: str) -> List[str]:
    """args as they must run to act as root (femu_common.command.as_root)."""
    try:
        return command.as_root(args, what, hint=": run build-femu/femu-compile.sh as root "
                                                "once")
    except command.CommandError as error:
        raise BuildError(str(error)) from None


# One index apt knows: repository URI, the release as the sources entry names it (a
# codename like "trixie" or a suite like "stable"), 'deb' or 'deb-src', and the
# codename from the release's Release file (empty before apt-get update fetched it).
Row = Tuple[str, str, str, str]


def _index_targets() -> List[Row]:
    """Every index apt knows, as apt itself parsed sources.list and sources.list.d
    (one-line and deb822 formats)."""
    fmt = "$(REPO_URI)\t$(RELEASE)\t$(TARGET_OF)\t$(CODENAME)"
    out = _run(["apt-get", "indextargets", "--format", fmt], "apt-get indextargets").stdout
    rows = []
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) == 4:
            rows.append((parts[0], parts[1], parts[2], parts[3]))
    return rows


def _serves(row: Row, kind: str, release: str) -> bool:
    """Whether row is a `kind` index of release, named by codename or by suite."""
    _, named, row_kind, codename = row
    return row_kind == kind and release in (named, codename)


def _host_release() -> str:
    for line in Path("/etc/os-release").read_text().splitlines():
        if line.startswith("VERSION_CODENAME="):
            return line.split("=", 1)[1].strip().strip('"')
    raise BuildError("cannot tell the host's Debian release: no VERSION_CODENAME in /etc/os-release")


def _archive_uri(rows: List[Row]) -> str:
    """The URI of the main archive: the one serving the host's own release (not its
    -security or -updates suites, which live elsewhere or hold no full source set),
    whether sources.list names that release by codename or by suite ("stable")."""
    host = _host_release()
    for row in rows:
        if _serves(row, "deb", host):
            return row[0]
    raise BuildError(f"no apt source serves the host release '{host}': cannot derive a "
                     f"deb-src entry for {SOURCE_RELEASE}; add one by hand")


def _write_sources_file(uri: str) -> None:
    lines = ["# Added by femu's build-femu/femu-compile.sh: QEMU 10.0 source packages.",
             "Types: deb-src", f"URIs: {uri}", f"Suites: {SOURCE_RELEASE}", "Components: main"]
    if ARCHIVE_KEYRING.exists():
        lines.append(f"Signed-By: {ARCHIVE_KEYRING}")
    text = "\n".join(lines) + "\n"
    what = f"writing {SOURCES_FILE}"
    _run(as_root(["tee", str(SOURCES_FILE)], what), what, input=text)


def ensure_deb_src() -> None:
    name = f"apt deb-src entry for {SOURCE_RELEASE}"
    rows = _index_targets()
    if any(_serves(row, "deb-src", SOURCE_RELEASE) for row in rows):
        skipped(name, "present")
        return
    with Step(name, "under a minute: adds a sources file and runs apt-get update"):
        uri = _archive_uri(rows)
        _write_sources_file(uri)
        say(f"wrote {SOURCES_FILE} (deb-src {uri} {SOURCE_RELEASE} main); apt-get update")
        _run(as_root(["apt-get", "update", "-qq"], "apt-get update"), "apt-get update")


def _cached_dsc(cache: Path) -> Optional[Path]:
    found = sorted(cache.glob(f"{SOURCE_PACKAGE}_*.dsc"))
    return found[-1] if found else None


def download(cache: Path, refresh: bool) -> Path:
    """Download the source package into cache (once); return its .dsc."""
    cache.mkdir(parents=True, exist_ok=True)
    dsc = _cached_dsc(cache)
    if dsc is not None and not refresh:
        skipped(f"download {SOURCE_PACKAGE}/{SOURCE_RELEASE} source", f"cached: {dsc.name}")
        return dsc
    if shutil.which("dpkg-source") is None:
        raise BuildError("apt-get source needs dpkg-dev: run build-femu/pkgdep.sh")
    ensure_deb_src()
    with Step(f"download {SOURCE_PACKAGE}/{SOURCE_RELEASE} source package", "under a minute"):
        partial = cache / "partial"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir()
        # --download-only: the upstream tarball is unpacked by us, Debian's patches are
        # not applied (they serve Debian's packaging, not this build).
        _run(["apt-get", "source", "--download-only", f"{SOURCE_PACKAGE}/{SOURCE_RELEASE}"],
             "apt-get source", cwd=partial, env={**os.environ, "LC_ALL": "C"})
        for old in cache.glob(f"{SOURCE_PACKAGE}_*"):
            old.unlink()
        for item in partial.iterdir():
            item.rename(cache / item.name)
        partial.rmdir()
    dsc = _cached_dsc(cache)
    if dsc is None:
        raise BuildError(f"apt-get source left no {SOURCE_PACKAGE}_*.dsc in {cache}")
    return dsc
