"""Thin, checked wrappers around apt-cache / apt-get download / dpkg-deb.

Everything fetched lands in a cache folder keyed by package name and version,
so a rebuild with unchanged package versions touches no network at all.
"""
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, Iterable, List, Optional


class AptError(RuntimeError):
    pass


def _run(args: List[str], **kwargs) -> str:
    proc = subprocess.run(args, capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        raise AptError(f"{' '.join(args[:3])}... failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout


def candidate_versions(packages: Iterable[str]) -> Dict[str, Optional[str]]:
    """Version apt would install for each package; None when apt knows no candidate."""
    names = sorted(set(packages))
    result: Dict[str, Optional[str]] = {name: None for name in names}
    current = None
    for line in _run(["apt-cache", "policy", *names]).splitlines():
        if line and not line[0].isspace() and line.endswith(":"):
            current = line[:-1]
        elif current in result and line.strip().startswith("Candidate:"):
            value = line.split(":", 1)[1].strip()
            result[current] = None if value == "(none)" else value
    return result


def as_root(args: List[str], what: str) -> List[str]:
    """args as they must run to act as root: unchanged for root, else through sudo (as
    scripts/install-deps.sh does)."""
    if os.geteuid() == 0:
        return list(args)
    if shutil.which("sudo") is not None:
        return ["sudo", *args]
    raise AptError(f"{what} needs root, and sudo is not installed: run it as root")


def refresh_package_lists(log) -> None:
    """apt-get update, done only when apt lacks a candidate for a package we need."""
    command = as_root(["apt-get", "update", "-qq"],
                      "apt has no candidate for a needed package: 'apt-get update'")
    log("apt package lists look empty or stale: running apt-get update")
    _run(command)


def direct_depends(packages: Iterable[str]) -> Dict[str, List[str]]:
    """Depends + Pre-Depends of each package (first of each alternative group).

    A virtual package is replaced by its first provider, as apt itself would.
    """
    names = sorted(set(packages))
    if not names:
        return {}
    out = _run(["apt-cache", "depends", "--no-recommends", "--no-suggests", "--no-conflicts",
                "--no-breaks", "--no-replaces", "--no-enhances", *names])
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


def download(packages: Dict[str, str], deb_dir: Path) -> Dict[str, Path]:
    """Fetch name=version .debs not yet cached; returns name -> .deb path."""
    deb_dir.mkdir(parents=True, exist_ok=True)
    paths = {name: deb_dir / f"{name}_{_safe(ver)}.deb" for name, ver in packages.items()}
    missing = [name for name, path in paths.items() if not path.exists()]
    if missing:
        with tempfile.TemporaryDirectory(dir=deb_dir) as tmp:
            if os.geteuid() == 0:
                try:  # lets apt download as its own user, without the sandbox warning
                    shutil.chown(tmp, user="_apt")
                except (LookupError, OSError):
                    pass
            _run(["apt-get", "download", "-qq", *[f"{n}={packages[n]}" for n in missing]], cwd=tmp)
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
