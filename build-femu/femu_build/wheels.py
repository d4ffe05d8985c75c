"""The Python wheels QEMU's configure installs into its build venv.

Debian's +ds tarball ships an empty python/wheels/, and bookworm's meson (1.0.1) is older
than QEMU 10 accepts (>= 1.5.0, pythondeps.toml), so the pinned versions are fetched once
with pip, checked against the SHA-256 sums below, and copied into the tree.
"""
import hashlib
import shutil
import sys
from pathlib import Path

from femu_common import command

from .steps import BuildError, Step, skipped

# name, version, sha256 of the pure-Python wheel (py3-none-any)
PINNED = [
    ("meson", "1.5.0", "52b34f4903b882df52ad0d533146d4b992c018ea77399f825579737672ae7b20"),
    ("pycotap", "1.3.1", "1c3a25b3ff89e48f4e00f1f71dbbc1642b4f65c65d416524d07e73492fff25ea"),
]


def _wheel_name(name: str, version: str) -> str:
    return f"{name}-{version}-py3-none-any.whl"


def _download(cache: Path) -> None:
    cache.mkdir(parents=True, exist_ok=True)
    requirements = cache / "requirements.txt"
    requirements.write_text("".join(f"{name}=={version} --hash=sha256:{digest}\n"
                                    for name, version, digest in PINNED))
    args = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
            "--require-hashes", "--disable-pip-version-check", "-q", "-d", str(cache),
            "-r", str(requirements)]
    try:
        command.run(args, "pip download")
    except command.CommandError as error:
        raise BuildError(f"pip download of {', '.join(n for n, _, _ in PINNED)} failed: "
                         f"{error.reason or 'no output'}") from None


def install(tree: Path, cache: Path) -> None:
    target = tree / "python" / "wheels"
    if all(_verified(target / _wheel_name(n, v), d) for n, v, d in PINNED):
        skipped("python wheels (meson, pycotap)", "present in python/wheels/")
        return
    with Step("python wheels meson 1.5.0 + pycotap 1.3.1", "a few seconds"):
        if not all(_verified(cache / _wheel_name(n, v), d) for n, v, d in PINNED):
            _download(cache)
        target.mkdir(parents=True, exist_ok=True)
        for name, version, digest in PINNED:
            wheel = cache / _wheel_name(name, version)
            if not _verified(wheel, digest):
                raise BuildError(f"{wheel} does not match its pinned SHA-256")
            shutil.copy2(wheel, target / wheel.name)


def _verified(path: Path, digest: str) -> bool:
    return path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == digest
