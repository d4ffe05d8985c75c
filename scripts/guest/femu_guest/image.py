"""Build the femu guest: an uncompressed vmlinux and a plain cpio initramfs made
from Debian packages (apt-get download + dpkg-deb -x), holding busybox,
fio, sysbench, e2fsprogs, nvme-cli, dropbear, f2fs-tools and blkzone, exactly the
shared libraries they need, the nvme / ext4 / qemu_fw_cfg kernel modules, the virtio
network modules that init loads only for an ssh-reachable guest (kernel parameter
femu.ssh=1), and f2fs, loaded by the zoned labs' `modprobe f2fs`; and the project's own
static tools (PROJECT_TOOLS: kv-load) from the C build folder.

Rebuilds only when an input changes: the candidate version of any package used,
a source file of the builder / guest init, or a project tool's bytes. Usage:
    python -m femu_guest [--force] [--quiet] [--release trixie|bookworm]
    (scripts/guest/build-image.sh passes its arguments on)
"""
import argparse
import fcntl
import hashlib
import json
import os
import posixpath
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from femu_common.progress import Progress

from . import debian, kernel, paths
from .cpio import CpioWriter
from .package_view import MERGED_DIRS, PackageView, normalize
from .releases import DEFAULT_RELEASE, RELEASES, check_release

# Tool packages and the files (normalized paths, globs allowed) taken from each.
TOOLS: Dict[str, List[str]] = {
    "busybox-static": ["usr/bin/busybox"],
    "fio": ["usr/bin/fio"],
    "sysbench": ["usr/bin/sysbench", "usr/share/sysbench/*.lua"],
    "e2fsprogs": ["usr/sbin/mke2fs", "usr/sbin/mkfs.ext[234]", "usr/sbin/e2fsck",
                  "usr/sbin/fsck.ext[234]", "usr/sbin/tune2fs", "usr/sbin/dumpe2fs",
                  "usr/sbin/resize2fs", "usr/sbin/debugfs", "etc/mke2fs.conf"],
    "nvme-cli": ["usr/sbin/nvme"],
    "libaio1": ["usr/lib/x86_64-linux-gnu/libaio.so.1"],   # trixie: see TOOL_RENAMES
    # ssh server of the femu.ssh=1 guest (compat mode boots it from a disk image)
    "dropbear-bin": ["usr/sbin/dropbear", "usr/bin/dropbearkey"],
    # zoned namespaces: F2FS on the zoned + conventional pair, zone reports and resets
    "f2fs-tools": ["usr/sbin/mkfs.f2fs", "usr/sbin/fsck.f2fs"],
    "util-linux": ["usr/sbin/blkzone"],
}
# Where a release differs from TOOLS: package name -> (its name there, its patterns
# there). trixie's 64-bit time_t transition renamed libaio1, and its soname with it.
TOOL_RENAMES: Dict[str, Dict[str, Tuple[str, List[str]]]] = {
    "trixie": {"libaio1": ("libaio1t64", ["usr/lib/x86_64-linux-gnu/libaio.so.1t64"])},
}
KERNEL_PACKAGE = "linux-image-amd64"
# crc64_rocksoft_generic first: in bookworm's 6.1 nvme-core reaches it only through a
# crypto alias, which modules.dep does not record, so it must already be loaded (trixie's
# 6.12 has it built in). A module built into a release's kernel is just not loaded.
MODULES = ["crc64_rocksoft_generic", "nvme", "ext4", "qemu_fw_cfg"]
# Loaded only with femu.ssh=1 (job mode boots without a NIC and stays as fast):
# virtio_net and failover are modules in Debian's kernel, and so is the virtio PCI
# transport, which virtio_net does not depend on but needs to find the NIC.
SSH_MODULES = ["virtio_pci", "virtio_net"]
# Shipped with their modules.dep lines but not loaded at boot (a job that needs one runs
# `modprobe NAME`): F2FS for the zoned-namespace labs. Zoned writes at a queue depth above
# one need the mq-deadline scheduler, which Debian's kernel has built in.
DEMAND_MODULES = ["f2fs"]
# Kernel arguments for a TCG boot, where a release needs them. trixie's 6.12 trusts the
# TSC and, ~3 s into the boot with both vCPUs running, marks sched_clock stable: a static
# key flipped by patching sched_clock_cpu's code with an int3 while the other vCPU runs it.
# Under TCG that vCPU now and then still executes the int3 after the patch is done, an
# unhandled int3 and a kernel panic ("Oops: int3", RIP sched_clock_cpu; measured 1 boot in
# 100, and once in 72 guest-test boots). tsc=unstable leaves sched_clock unstable from the
# start, as bookworm's 6.1 finds it anyway (its TSCs look unsynchronized under TCG): no
# patch, no panic (0 in 100). KVM runs the patching as hardware does and needs none.
TCG_APPEND = {"trixie": "tsc=unstable"}
# The project's own tools (statically linked, built by the top-level meson in
# paths.c_build_dir()): guest path -> path in the build folder. Their bytes are part of
# the build key, so a rebuilt tool rebuilds the image.
PROJECT_TOOLS = {"usr/bin/kv-load": "tools/kv-load/kv-load"}
# Sources whose content defines the image besides the packages.
BUILDER_SOURCES = ["image.py", "package_view.py", "elf.py", "cpio.py", "kernel.py",
                   "debian.py"]
GUEST_SOURCES = ["init", "profile"]
EMPTY_DIRS = ["dev", "proc", "sys", "tmp", "run", "root", "mnt", "mnt/nvme0n1", "results",
              "var/tmp", "etc/femu", "etc/dropbear"]


class ImageError(RuntimeError):
    pass


def tools_for(release: str) -> Dict[str, List[str]]:
    """TOOLS as release names them (TOOL_RENAMES applied)."""
    renames = TOOL_RENAMES.get(check_release(release), {})
    tools = {}
    for package, patterns in TOOLS.items():
        package, patterns = renames.get(package, (package, patterns))
        tools[package] = patterns
    return tools


@dataclass
class GuestImage:
    kernel: Path
    initramfs: Path
    manifest: dict

    @property
    def tcg_append(self) -> str:
        """Kernel arguments a boot of this image under TCG needs (TCG_APPEND)."""
        return self.manifest.get("tcg_append", "")


def project_tools() -> Dict[str, Path]:
    """PROJECT_TOOLS' built files; ImageError naming what to build when one is missing."""
    build = paths.c_build_dir()
    tools = {guest: build / built for guest, built in PROJECT_TOOLS.items()}
    missing = [path for path in tools.values() if not path.is_file()]
    if missing:
        raise ImageError(f"{missing[0]} is missing: build the project's C tools first "
                         f"(meson setup {build} && meson compile -C {build}; "
                         "FEMU_BUILD_DIR names another build folder)")
    return tools


def _source_digest() -> str:
    digest = hashlib.sha256()
    here = Path(__file__).resolve().parent
    sources = [here / n for n in BUILDER_SOURCES] + \
        [paths.GUEST_SOURCE_DIR / n for n in GUEST_SOURCES]
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    for guest, path in sorted(project_tools().items()):
        digest.update(guest.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _build_key(versions: Dict[str, str]) -> str:
    text = json.dumps({"packages": dict(sorted(versions.items())), "sources": _source_digest()},
                      sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load_manifest(out_dir: Path) -> Optional[dict]:
    try:
        return json.loads((out_dir / "manifest.json").read_text())
    except (OSError, ValueError):
        return None


def is_up_to_date(out_dir: Path, release: Optional[str] = None,
                  apt: Optional[debian.AptConfig] = None) -> bool:
    """Whether out_dir holds a complete image of release (None: the default release)
    that the current packages and sources would build again unchanged. apt: the release's
    apt configuration, if the caller has it already."""
    release = check_release(release)
    manifest = load_manifest(out_dir)
    if not manifest or not all((out_dir / n).is_file() for n in ("vmlinux", "initramfs.cpio")):
        return False
    if manifest.get("release", "bookworm") != release:
        return False
    apt = apt or debian.private_apt(release, paths.package_cache_dir())
    versions = debian.candidate_versions(apt, manifest["packages"])
    if any(v is None for v in versions.values()):
        return False
    return _build_key(versions) == manifest["key"]


class Builder:
    def __init__(self, out_dir: Path, cache_dir: Path, log: Progress, apt: debian.AptConfig):
        self.out_dir = out_dir
        self.release = apt.release
        self.tools = tools_for(apt.release)
        self.apt = apt
        self.deb_dir = cache_dir / "debs"
        self.tree_dir = cache_dir / "trees"
        self.log = log
        self.versions: Dict[str, str] = {}
        self.view = PackageView()
        self.refreshed = False
        if not self.apt.lists_present():
            self._refresh("no package lists yet")

    def _refresh(self, why: str) -> None:
        debian.refresh_package_lists(self.apt, self.log, why)
        self.refreshed = True

    def _candidates(self, names) -> Dict[str, Optional[str]]:
        """apt's candidates; the package lists are fetched again (once) when a tool or the
        kernel has none."""
        versions = debian.candidate_versions(self.apt, names)
        needed = set(self.tools) | {KERNEL_PACKAGE}
        if any(v is None for n, v in versions.items() if n in needed) and not self.refreshed:
            self._refresh("apt has no candidate for a needed package")
            versions = debian.candidate_versions(self.apt, names)
        return versions

    def fetch(self, names) -> Dict[str, Path]:
        """Download + extract packages (cached); unknown names are skipped."""
        versions = self._candidates(names)
        for name in self.tools:
            if name in versions and versions[name] is None:
                raise ImageError(f"apt knows no package {name} in {self.release}")
        wanted = {n: v for n, v in versions.items() if v is not None}
        try:
            debs = debian.download(self.apt, wanted, self.deb_dir)
        except debian.AptError:
            if self.refreshed:
                raise
            # Lists older than the archive name versions it no longer has.
            self._refresh("a download failed")
            return self.fetch(names)
        self.versions.update(wanted)
        return {name: debian.extract(deb, self.tree_dir) for name, deb in debs.items()}

    def resolve_userland(self):
        """Tool files plus their library closure, fetching dependency packages until
        every NEEDED soname is found (only dependencies of packages that actually
        contribute a file are fetched, which keeps the download small)."""
        tried = set()
        pending = set(self.tools)
        round_number = 1
        while True:
            self.log(f"fetching {len(pending)} package(s), round {round_number}: "
                     f"{' '.join(sorted(pending))}")
            tried |= pending
            for name, tree in sorted(self.fetch(pending).items()):
                self.view.add_tree(name, tree)
            roots = []
            for package, patterns in self.tools.items():
                for pattern in patterns:
                    matches = self.view.glob(pattern)
                    if not matches:
                        raise ImageError(f"{package} provides nothing matching {pattern}")
                    roots.extend(matches)
            closure = self.view.closure(roots)
            if closure.missing_roots:
                raise ImageError(f"dangling files: {closure.missing_roots}")
            if not closure.unresolved:
                return closure
            contributing = {entry.package for entry in closure.files.values()}
            depends = debian.direct_depends(self.apt, contributing)
            pending = {d for deps in depends.values() for d in deps} - tried
            if not pending:
                missing = ", ".join(f"{s} (for {sorted(w)[0]})"
                                    for s, w in closure.unresolved.items())
                raise ImageError(f"no package provides: {missing}")
            round_number += 1

    def build(self) -> GuestImage:
        started = time.monotonic()
        closure = self.resolve_userland()
        libraries = [p for p in closure.files if ".so" in posixpath.basename(p)]
        self.log(f"userland: {len(closure.files)} files, {len(libraries)} shared libraries")

        self.fetch([KERNEL_PACKAGE])   # the metapackage: its version is part of the key
        image_packages = debian.direct_depends(self.apt, [KERNEL_PACKAGE])[KERNEL_PACKAGE]
        image_package = next(p for p in image_packages if p.startswith("linux-image-"))
        self.log(f"kernel package {image_package}: extracting (a few seconds)")
        kernel_tree = self.fetch([image_package])[image_package]
        version = kernel.installed_version(kernel_tree)

        self.out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=self.out_dir, prefix=".build-") as tmp, \
                kernel.module_tree(kernel_tree, version) as tree:
            tmp_dir = Path(tmp)
            self.log("extracting the uncompressed vmlinux from the bzImage")
            kernel.extract_vmlinux(kernel_tree / f"boot/vmlinuz-{version}",
                                   tmp_dir / "vmlinux")
            modules, builtin = tree.load_order(MODULES)
            ssh_order, ssh_builtin = tree.load_order(SSH_MODULES)
            ssh_modules = [m for m in ssh_order if m not in modules]
            # Each on-demand module's own chain: its modules.dep line names all of it.
            demand_chains = {chain[-1]: chain for chain in (
                tree.load_order([name])[0] for name in DEMAND_MODULES)}
            demand_modules = [m for chain in demand_chains.values() for m in chain
                              if m not in modules + ssh_modules]
            demand_modules = list(dict.fromkeys(demand_modules))
            builtin = list(dict.fromkeys(builtin + ssh_builtin))
            self.log(f"modules to load: {_names(modules)}; with femu.ssh=1: "
                     f"{_names(ssh_modules)}; on demand: {_names(demand_modules)}; "
                     f"built in: {' '.join(builtin) or '-'}")
            self.log("writing the cpio initramfs")
            stats = self._write_initramfs(tmp_dir / "initramfs.cpio", closure, tree,
                                          modules, ssh_modules, demand_modules,
                                          demand_chains)
            key = _build_key(self.versions)
            manifest = {
                "key": key,
                "release": self.release,
                "kernel_version": version,
                "packages": dict(sorted(self.versions.items())),
                "modules": _stems(modules),
                "ssh_modules": _stems(ssh_modules),
                "demand_modules": _stems(demand_modules),
                "builtin_modules": builtin,
                "tcg_append": TCG_APPEND.get(self.release, ""),
                "userland_files": len(closure.files),
                "shared_libraries": len(libraries),
                "shared_library_bytes": sum(closure.files[p].source.stat().st_size
                                            for p in libraries),
                "vmlinux_bytes": (tmp_dir / "vmlinux").stat().st_size,
                "initramfs_bytes": (tmp_dir / "initramfs.cpio").stat().st_size,
                "project_tools": {guest: hashlib.sha256(path.read_bytes()).hexdigest()[:16]
                                  for guest, path in sorted(project_tools().items())},
                "build_seconds": round(time.monotonic() - started, 1),
                **stats,
            }
            (tmp_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
            # manifest last: an interrupted build never looks complete.
            for name in ("vmlinux", "initramfs.cpio", "manifest.json"):
                os.replace(tmp_dir / name, self.out_dir / name)
        self.log(f"done: vmlinux {manifest['vmlinux_bytes'] / 1e6:.1f} MB, initramfs "
                 f"{manifest['initramfs_bytes'] / 1e6:.1f} MB, key {key}")
        return GuestImage(self.out_dir / "vmlinux", self.out_dir / "initramfs.cpio", manifest)

    def _busybox_applets(self, busybox: Path) -> List[str]:
        out = subprocess.run([str(busybox), "--list-full"], check=True, capture_output=True,
                             text=True).stdout
        return [normalize(line) for line in out.split()]

    def _write_initramfs(self, out: Path, closure, tree: kernel.ModuleTree,
                         modules: List[str], ssh_modules: List[str],
                         demand_modules: List[str], demand_chains: Dict[str, List[str]]) -> dict:
        """modules load at boot, ssh_modules with femu.ssh=1; demand_modules only when a
        job runs modprobe (all of them have their modules.dep lines; demand_chains gives
        the lines of the modules named in DEMAND_MODULES their soft dependencies)."""
        other_modules = ssh_modules + demand_modules
        # guest path -> ("file", source, mode) | ("data", bytes, mode)
        files: Dict[str, tuple] = {}
        links: Dict[str, str] = {}      # guest path -> symlink target
        first_copy: Dict[Path, str] = {}
        for path, entry in sorted(closure.files.items()):
            real = entry.source.resolve()
            if real in first_copy:      # same file under two names: link, don't duplicate
                links[path] = "/" + first_copy[real]
            else:
                first_copy[real] = path
                files[path] = ("file", entry.source, entry.source.stat().st_mode & 0o7777)
        busybox = closure.files["usr/bin/busybox"].source
        taken_names = {posixpath.basename(p) for p in list(files) + list(links)}
        for applet in self._busybox_applets(busybox):
            if posixpath.basename(applet) not in taken_names and applet != "usr/bin/busybox":
                links.setdefault(applet, "/usr/bin/busybox")
        guest_modules = f"usr/lib/modules/{tree.version}/"
        for module in modules + other_modules:
            # Decompressed: busybox insmod reads plain .ko files only.
            files[guest_modules + kernel.plain_name(module)] = (
                "data", kernel.decompress_module(tree.modules / module), 0o644)
        files[guest_modules + "modules.dep"] = (
            "data", tree.guest_modules_dep(modules + other_modules, demand_chains).encode(),
            0o644)
        for guest, path in project_tools().items():
            files[guest] = ("file", path, 0o755)
        files["init"] = ("file", paths.GUEST_SOURCE_DIR / "init", 0o755)
        files["etc/profile"] = ("file", paths.GUEST_SOURCE_DIR / "profile", 0o644)
        files["etc/femu/modules.load"] = ("data", _lines(guest_modules, modules), 0o644)
        files["etc/femu/modules.ssh"] = ("data", _lines(guest_modules, ssh_modules), 0o644)
        files["etc/femu/env"] = ("data", b"export FEMU_GUEST=1\n", 0o644)
        files["etc/femu/packages"] = ("data", "".join(
            f"{n} {v}\n" for n, v in sorted(self.versions.items())).encode(), 0o644)
        files["etc/passwd"] = ("data", b"root:x:0:0:root:/root:/bin/sh\n", 0o644)
        files["etc/group"] = ("data", b"root:x:0:\n", 0o644)
        # dropbear looks root up through glibc (files only) and accepts /bin/sh as a shell.
        files["etc/nsswitch.conf"] = ("data", b"passwd: files\ngroup: files\nshadow: files\n",
                                      0o644)
        files["etc/shells"] = ("data", b"/bin/sh\n", 0o644)
        for top in MERGED_DIRS[:4]:
            links[top] = "usr/" + top

        directories = set(EMPTY_DIRS) | {"usr/" + d for d in MERGED_DIRS[:4]}
        for path in list(files) + list(links):
            parent = posixpath.dirname(path)
            while parent:
                directories.add(parent)
                parent = posixpath.dirname(parent)
        with open(out, "wb") as stream:
            writer = CpioWriter(stream)
            for directory in sorted(directories - set(links)):
                writer.directory(directory, 0o1777 if directory in ("tmp", "var/tmp") else 0o755)
            writer.char_device("dev/console", 5, 1)
            writer.char_device("dev/null", 1, 3, 0o666)
            for path, target in sorted(links.items()):
                writer.symlink(path, target)
            for path, (kind, source, mode) in sorted(files.items()):
                if kind == "file":
                    writer.file(path, source, mode)
                else:
                    writer.data(path, source, mode)
            writer.finish()
        return {"initramfs_entries": len(directories) + len(files) + len(links) + 2}


def bzimage_path(image: GuestImage) -> Path:
    """Debian's compressed kernel (bzImage) the image's vmlinux was taken from: the one a
    BIOS bootloader can load (the vmlinux is a bare ELF that only QEMU -kernel boots)."""
    version = image.manifest["kernel_version"]
    package = f"linux-image-{version}"
    # The tree folder is named as debian.download / extract name the cached .deb.
    package_version = image.manifest["packages"][package].replace(":", "%3a")
    tree = paths.package_cache_dir() / "trees" / f"{package}_{package_version}"
    path = tree / "boot" / f"vmlinuz-{version}"
    if not path.is_file():
        raise ImageError(f"{path} is missing: rebuild the guest image with --force")
    return path


def _lines(folder: str, modules: List[str]) -> bytes:
    """modules.load / modules.ssh: one absolute guest module path a line, load order."""
    return "".join(f"/{folder}{kernel.plain_name(module)}\n" for module in modules).encode()


def _stems(modules: List[str]) -> List[str]:
    """Module names (nvme-core) of module files (kernel/drivers/.../nvme-core.ko.xz)."""
    return [posixpath.basename(kernel.plain_name(m))[:-len(".ko")] for m in modules]


def _names(modules: List[str]) -> str:
    return " ".join(_stems(modules)) or "-"


def ensure_image(force: bool = False, quiet: bool = False, out_dir: Optional[Path] = None,
                 release: Optional[str] = None, refresh: bool = False) -> GuestImage:
    """The current guest image of a Debian release (None: DEFAULT_RELEASE), built first if
    missing or out of date, in out_dir (default: images/guest/RELEASE). An unknown
    release raises ValueError. refresh: fetch the release's package lists again first
    (they are otherwise fetched only when missing or lacking a needed package), so newer
    package versions are seen."""
    release = check_release(release)
    out_dir = out_dir or paths.guest_image_dir(release)
    log = Progress("guest-image", enabled=not quiet)
    cache_dir = paths.package_cache_dir()
    cache_dir.mkdir(parents=True, exist_ok=True)
    # One builder at a time (two test runs may start together); the second one
    # then finds the image up to date.
    with open(cache_dir / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        apt = debian.private_apt(release, cache_dir)
        if refresh:
            debian.refresh_package_lists(apt, log, "--refresh")
        if not force and is_up_to_date(out_dir, release, apt):
            log(f"up to date: {out_dir}")
            return GuestImage(out_dir / "vmlinux", out_dir / "initramfs.cpio",
                              load_manifest(out_dir))
        log(f"building the {release} guest image into {out_dir}")
        return Builder(out_dir, cache_dir, log, apt).build()


def main(argv=None, prog=None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--force", action="store_true", help="rebuild even if up to date")
    parser.add_argument("--quiet", action="store_true", help="no progress output")
    parser.add_argument("--refresh", action="store_true",
                        help="fetch the release's package lists again first (newer versions)")
    parser.add_argument("--out", type=Path, help="output folder (default: images/guest/RELEASE)")
    parser.add_argument("--release", choices=RELEASES, default=DEFAULT_RELEASE,
                        help=f"Debian release of the guest (default: {DEFAULT_RELEASE})")
    args = parser.parse_args(argv)
    try:
        image = ensure_image(force=args.force, quiet=args.quiet, out_dir=args.out,
                             release=args.release, refresh=args.refresh)
    except (ImageError, debian.AptError, subprocess.CalledProcessError, ValueError) as error:
        print(f"guest-image: error: {error}", file=sys.stderr)
        return 1
    print(image.kernel)
    print(image.initramfs)
    return 0
