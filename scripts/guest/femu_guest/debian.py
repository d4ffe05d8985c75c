"""Thin, checked wrappers around apt-cache / apt-get download / dpkg-deb, run against
a private apt configuration of the guest's release.

Everything fetched lands in a cache folder keyed by package name and version,
so a rebuild with unchanged package versions touches no network at all.

Every release, the host's own included, goes through its own apt configuration
(AptConfig: a sources file, package lists, package cache and an empty dpkg status under
images/cache/apt-RELEASE/), never through the host's: a release that is not the host's
must not appear in the host's sources (the host would upgrade itself to it), and one code
path for all releases keeps the image independent of the host's other sources, its
pinning and when it last ran apt-get update; it also needs no root. The mirror is the
one the host's apt already uses for its own release (`apt-get indextargets`), so no
mirror name is written anywhere in the project.
"""
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

from femu_common import command


class AptError(RuntimeError):
    pass


ARCHIVE_KEYRING = Path("/usr/share/keyrings/debian-archive-keyring.gpg")
# The suites of a release the guest takes packages from, as suffixes of its codename:
# the release, its stable updates and its security updates (never backports).
SUITE_SUFFIXES = ("", "-updates", "-security")


def _run(args: List[str], **kwargs) -> str:
    try:
        return command.run(args, f"{' '.join(args[:3])}...", **kwargs).stdout
    except command.CommandError as error:
        raise AptError(str(error)) from None


@dataclass(frozen=True)
class AptConfig:
    """apt's view of one Debian release, all of it under root."""
    release: str
    root: Path

    @property
    def sources_file(self) -> Path:
        return self.root / "sources.list"

    @property
    def lists_dir(self) -> Path:
        return self.root / "lists"

    def options(self) -> List[str]:
        """The -o options that point apt-get / apt-cache at this configuration alone
        (apt.conf(5), DIRECTORIES); the empty preferences keep the host's pinning out."""
        settings = {
            "Dir::Etc::SourceList": self.sources_file,
            "Dir::Etc::SourceParts": self.root / "sources.list.d",
            "Dir::Etc::Preferences": self.root / "preferences",
            "Dir::Etc::PreferencesParts": self.root / "preferences.d",
            "Dir::State::Lists": self.lists_dir,
            "Dir::State::Status": self.root / "status",
            "Dir::State::extended_states": self.root / "extended_states",
            "Dir::Cache": self.root / "cache",
            # apt's binary cache of the lists, kept (a host's apt.conf.d may turn it off,
            # as Debian's container images do): a look-up then takes 0.1 s, not 1.5 s.
            "Dir::Cache::pkgcache": self.root / "cache" / "pkgcache.bin",
            "Dir::Cache::srcpkgcache": "",
            "Acquire::Languages": "none",
        }
        return [word for key, value in settings.items() for word in ("-o", f"{key}={value}")]

    def lists_present(self) -> bool:
        return any(self.lists_dir.glob("*_Packages*"))


# One index the host's apt knows: repository URI, the suite as its sources entry names
# it (a codename like "bookworm" or a name like "stable"), 'deb' or 'deb-src', and the
# codename from the suite's Release file (empty until apt-get update fetched it).
IndexRow = Tuple[str, str, str, str]


def host_index_targets() -> List[IndexRow]:
    """The host's indexes, as apt itself read its sources (either format)."""
    out = _run(["apt-get", "indextargets", "--format",
                "$(REPO_URI)\t$(RELEASE)\t$(TARGET_OF)\t$(CODENAME)"])
    rows: List[IndexRow] = []
    for line in out.splitlines():
        fields = tuple(line.split("\t"))
        if len(fields) == 4 and fields not in rows:
            rows.append(fields)
    return rows


def host_release(os_release: Path = Path("/etc/os-release")) -> str:
    for line in os_release.read_text().splitlines():
        key, _, value = line.partition("=")
        if key == "VERSION_CODENAME" and value.strip('"'):
            return value.strip('"')
    raise AptError(f"{os_release} names no VERSION_CODENAME: cannot tell the host's Debian "
                   "release, whose mirror the guest's packages come from")


def release_sources(rows: List[IndexRow], host: str, release: str,
                    keyring: Optional[Path]) -> str:
    """One-line sources for release: every archive URI that serves a suite of the host's
    release (named by codename, or by a name like "stable" whose Release file gives the
    codename), for the same suite of release."""
    entries: List[Tuple[str, str]] = []
    for uri, named, kind, codename in rows:
        if kind != "deb":
            continue
        for suffix in SUITE_SUFFIXES:
            if host + suffix in (named, codename) and (uri, suffix) not in entries:
                entries.append((uri, suffix))
    if not any(suffix == "" for _, suffix in entries):
        raise AptError(f"no apt source of this host serves its release '{host}': cannot "
                       f"tell which mirror to take the {release} guest's packages from")
    # amd64 only (the guest is x86-64), and only the Packages index: not the other
    # indexes the host's apt.conf.d may ask for (AppStream metadata, Contents).
    options = "arch=amd64 target=Packages" + (f" signed-by={keyring}" if keyring else "")
    lines = [f"# femu guest builder: {release} from the mirror this host uses for {host}"]
    lines += [f"deb [{options}] {uri} {release}{suffix} main" for uri, suffix in entries]
    return "\n".join(lines) + "\n"


def private_apt(release: str, cache_dir: Path,
                rows: Optional[List[IndexRow]] = None, host: Optional[str] = None) -> AptConfig:
    """The release's apt configuration under cache_dir/apt-RELEASE, made or brought up to
    date. When the derived sources change (the host moved to another mirror), the old
    package lists go, so the next look-up fetches them again."""
    config = AptConfig(release, cache_dir / f"apt-{release}")
    text = release_sources(host_index_targets() if rows is None else rows,
                           host or host_release(), release,
                           ARCHIVE_KEYRING if ARCHIVE_KEYRING.is_file() else None)
    for folder in ("sources.list.d", "preferences.d", "lists/partial",
                   "cache/archives/partial"):
        (config.root / folder).mkdir(parents=True, exist_ok=True)
    status = config.root / "status"
    if not status.exists():
        status.write_bytes(b"")     # nothing installed: apt's candidates are the archive's
    try:
        current = config.sources_file.read_text()
    except FileNotFoundError:
        current = None
    if current != text:
        for old in config.lists_dir.iterdir():
            if old.is_file():
                old.unlink()
        partial = config.root / "sources.list.partial"
        partial.write_text(text)
        os.replace(partial, config.sources_file)
    return config


def candidate_versions(apt: AptConfig, packages: Iterable[str]) -> Dict[str, Optional[str]]:
    """Version apt would install for each package; None when apt knows no candidate
    (all None while the release's package lists were never fetched)."""
    names = sorted(set(packages))
    result: Dict[str, Optional[str]] = {name: None for name in names}
    if not apt.lists_present():
        return result
    current = None
    for line in _run(["apt-cache", *apt.options(), "policy", *names]).splitlines():
        if line and not line[0].isspace() and line.endswith(":"):
            current = line[:-1]
        elif current in result and line.strip().startswith("Candidate:"):
            value = line.split(":", 1)[1].strip()
            result[current] = None if value == "(none)" else value
    return result


def _apt_may_write(folder: Path) -> None:
    """Run as root, apt downloads as its _apt user: let that user write into folder
    (otherwise apt warns and downloads as root)."""
    if os.geteuid() == 0:
        try:
            shutil.chown(folder, user="_apt")
        except (LookupError, OSError):
            pass


def refresh_package_lists(apt: AptConfig, log, why: str) -> None:
    """apt-get update of the release's own lists (no root needed: they are ours)."""
    log(f"{why}: fetching the {apt.release} package lists (apt-get update)")
    _apt_may_write(apt.lists_dir / "partial")
    _run(["apt-get", *apt.options(), "update", "-qq"])


def direct_depends(apt: AptConfig, packages: Iterable[str]) -> Dict[str, List[str]]:
    """Depends + Pre-Depends of each package (first of each alternative group).

    A virtual package is replaced by its first provider, as apt itself would.
    """
    names = sorted(set(packages))
    if not names:
        return {}
    out = _run(["apt-cache", *apt.options(), "depends", "--no-recommends", "--no-suggests",
                "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances", *names])
    result: Dict[str, List[str]] = {}
    current = None
    in_alternative = False   # the previous line was "|Depends:": this group is already chosen
    awaiting_provider = False
    for line in out.splitlines():
        if not line.startswith(" "):
            current = line.strip()
            result.setdefault(current, [])
            in_alternative = awaiting_provider = False
            continue
        stripped = line.strip()
        if awaiting_provider and line.startswith("    ") and ":" not in stripped:
            result[current].append(stripped)
            awaiting_provider = False
            continue
        awaiting_provider = False
        kind, _, target = stripped.partition(":")
        is_alt_head = kind.startswith("|")
        kind = kind.lstrip("|")
        if kind not in ("Depends", "PreDepends"):
            in_alternative = False
            continue
        target = target.strip()
        skip = in_alternative
        in_alternative = is_alt_head
        if skip:
            continue
        if target.startswith("<") and target.endswith(">"):
            awaiting_provider = True  # virtual: the next indented line names a provider
        else:
            result[current].append(target.split(":")[0])
    return result


def _safe(version: str) -> str:
    return version.replace(":", "%3a")


def download(apt: AptConfig, packages: Dict[str, str], deb_dir: Path) -> Dict[str, Path]:
    """Fetch name=version .debs not yet cached; returns name -> .deb path."""
    deb_dir.mkdir(parents=True, exist_ok=True)
    paths = {name: deb_dir / f"{name}_{_safe(ver)}.deb" for name, ver in packages.items()}
    missing = [name for name, path in paths.items() if not path.exists()]
    if missing:
        with tempfile.TemporaryDirectory(dir=deb_dir) as tmp:
            _apt_may_write(Path(tmp))
            _run(["apt-get", *apt.options(), "download", "-qq",
                  *[f"{n}={packages[n]}" for n in missing]], cwd=tmp)
            for name in missing:
                found = list(Path(tmp).glob(f"{name}_*.deb"))
                if len(found) != 1:
                    raise AptError(f"apt-get download gave {len(found)} files for {name}")
                os.replace(found[0], paths[name])
    return paths


def extract(deb: Path, tree_dir: Path) -> Path:
    """Unpack a .deb's data into tree_dir/<deb stem> (once; the result is cached)."""
    target = tree_dir / deb.stem
    if target.is_dir():
        return target
    tree_dir.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=".partial-", dir=tree_dir))
    try:
        _run(["dpkg-deb", "-x", str(deb), str(partial)])
        os.replace(partial, target)
    finally:
        if partial.exists():
            shutil.rmtree(partial)
    return target
