"""The guest kernel: an uncompressed vmlinux out of Debian's bzImage, and the
kernel modules the guest must load, in dependency order.

Why uncompressed: under TCG, decompressing the bzImage's payload costs seconds of every
boot (~5 s for bookworm's xz), while QEMU boots the ELF vmlinux directly through its PVH
entry note. bookworm's bzImage holds an xz payload, trixie's a zstd one.

Module paths are relative to the kernel's module folder (`kernel/fs/ext4/ext4.ko.xz`), as
modules.dep names them; bookworm's package ships them under lib/modules, trixie's under
usr/lib/modules and xz-compressed, which the guest gets decompressed (decompress_module).
"""
import contextlib
import ctypes
import ctypes.util
import gzip
import lzma
import os
import struct
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

_XZ_MAGIC = b"\xfd7zXZ\x00"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_GZIP_MAGIC = b"\x1f\x8b"
# The folders a kernel package may ship its modules in (merged /usr moved them).
MODULE_DIRS = ("lib/modules", "usr/lib/modules")
# Left in a module folder once depmod has written its index files there.
DEPMOD_DONE = ".femu-depmod-done"
# Suffixes of compressed module files, stripped from the names the guest sees.
COMPRESSED_SUFFIXES = (".xz", ".zst", ".gz")


def _zstd_decompress(data: bytes, size: Optional[int] = None) -> bytes:
    """One zstd frame, through the system's libzstd (apt and dpkg depend on it; Python's
    standard library has no zstd before 3.14). size: the decompressed size, when the frame
    header may not hold it (the kernel's build compresses from a pipe)."""
    name = ctypes.util.find_library("zstd") or "libzstd.so.1"
    try:
        lib = ctypes.CDLL(name)
    except OSError as error:
        raise ValueError(f"zstd data needs libzstd ({error})") from None
    if size is None:
        lib.ZSTD_getFrameContentSize.restype = ctypes.c_ulonglong
        lib.ZSTD_getFrameContentSize.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        size = lib.ZSTD_getFrameContentSize(data, len(data))
        if size >= (1 << 64) - 2:       # ZSTD_CONTENTSIZE_UNKNOWN or _ERROR
            raise ValueError("zstd: the frame does not say its decompressed size")
    lib.ZSTD_decompress.restype = ctypes.c_size_t
    lib.ZSTD_decompress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p,
                                    ctypes.c_size_t]
    lib.ZSTD_isError.argtypes = [ctypes.c_size_t]
    lib.ZSTD_getErrorName.restype = ctypes.c_char_p
    lib.ZSTD_getErrorName.argtypes = [ctypes.c_size_t]
    out = ctypes.create_string_buffer(size)
    got = lib.ZSTD_decompress(out, size, data, len(data))
    if lib.ZSTD_isError(got):
        raise ValueError(f"zstd: {lib.ZSTD_getErrorName(got).decode()}")
    return out.raw[:got]


def _bzimage_payload(data: bytes) -> Optional[Tuple[bytes, int]]:
    """The compressed kernel and its decompressed size, from the boot protocol's setup
    header (payload_offset / payload_length, protocol 2.08 and later; the kernel's build
    appends the decompressed size as the payload's last four bytes). None if not a bzImage."""
    if len(data) < 0x250 or data[0x202:0x206] != b"HdrS" or \
            struct.unpack_from("<H", data, 0x206)[0] < 0x208:
        return None
    protected_mode = ((data[0x1F1] or 4) + 1) * 512
    offset, length = struct.unpack_from("<II", data, 0x248)
    payload = data[protected_mode + offset:protected_mode + offset + length]
    if len(payload) != length or length < 4:
        return None
    return payload[:-4], struct.unpack_from("<I", payload, length - 4)[0]


def _decompress_payload(payload: bytes, size: int) -> bytes:
    if payload.startswith(_ZSTD_MAGIC):
        return _zstd_decompress(payload, size)
    if payload.startswith(_XZ_MAGIC):
        return lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(payload)
    if payload.startswith(_GZIP_MAGIC):
        return gzip.decompress(payload)
    raise ValueError(f"compression not understood (magic {payload[:6].hex()})")


def extract_vmlinux(bzimage: Path, out: Path) -> None:
    """Write the ELF kernel a bzImage decompresses to (its payload: xz, zstd or gzip)."""
    data = bzimage.read_bytes()
    found = _bzimage_payload(data)
    if found is None:
        raise ValueError(f"{bzimage}: not a bzImage (no boot protocol 2.08+ setup header)")
    try:
        elf = _decompress_payload(*found)
    except (ValueError, lzma.LZMAError, OSError) as error:
        raise ValueError(f"{bzimage}: cannot decompress its kernel: {error}") from None
    if elf[:4] != b"\x7fELF":
        raise ValueError(f"{bzimage}: its payload is not an ELF kernel")
    out.write_bytes(elf)


def decompress_module(path: Path) -> bytes:
    """A module file's content as insmod needs it: busybox's insmod reads plain .ko only."""
    data = path.read_bytes()
    if path.suffix == ".xz":
        return lzma.decompress(data, format=lzma.FORMAT_XZ)
    if path.suffix == ".gz":
        return gzip.decompress(data)
    if path.suffix == ".zst":
        return _zstd_decompress(data)
    return data


def plain_name(module: str) -> str:
    """The name a module has in the guest: its compression suffix dropped."""
    for suffix in COMPRESSED_SUFFIXES:
        if module.endswith(".ko" + suffix):
            return module[:-len(suffix)]
    return module


def installed_version(root: Path) -> str:
    """The kernel version an extracted kernel package holds modules of."""
    for folder in MODULE_DIRS:
        if (root / folder).is_dir():
            return sorted(os.listdir(root / folder))[-1]
    raise ValueError(f"{root}: no {' or '.join(MODULE_DIRS)} folder")


def module_dir(root: Path, version: str) -> Path:
    """Where the extracted kernel package root keeps the modules of version."""
    for folder in MODULE_DIRS:
        if (root / folder / version).is_dir():
            return root / folder / version
    raise ValueError(f"{root}: no modules of {version} under {' or '.join(MODULE_DIRS)}")


@contextlib.contextmanager
def module_tree(root: Path, version: str) -> Iterator["ModuleTree"]:
    """The modules of version in the extracted kernel package root, ready for look-ups
    while the with block lasts."""
    with tempfile.TemporaryDirectory(prefix="femu-modules-") as base:
        yield ModuleTree(module_dir(root, version), version, Path(base))


class ModuleTree:
    """depmod / modprobe run on a kernel package's module folder, wherever the package
    keeps it: the scratch folder base shows it under both lib/modules and usr/lib/modules,
    so the host's kmod (bookworm's looks in lib/modules only) finds it."""

    def __init__(self, modules: Path, version: str, base: Path):
        self.version = version
        self.modules = modules
        self.base = base
        for folder in MODULE_DIRS:
            (base / folder).mkdir(parents=True)
            os.symlink(modules, base / folder / version)
        # depmod writes modules.dep beside the modules, into the cached package tree, once
        # (it reads every module: ~9 s for trixie's xz-compressed ones).
        done = modules / DEPMOD_DONE
        if not done.exists():
            subprocess.run(["depmod", "-b", str(base), version], check=True,
                           capture_output=True)
            done.write_bytes(b"")

    def _relative(self, path: str) -> str:
        for folder in MODULE_DIRS:
            prefix = f"{self.base}/{folder}/{self.version}/"
            if path.startswith(prefix):
                return path[len(prefix):]
        raise ValueError(f"modprobe named {path}, outside {self.modules}")

    def load_order(self, modules: List[str]) -> Tuple[List[str], List[str]]:
        """(module files to insmod, dependencies first, no repeats; the names of the ones
        built into the kernel). modprobe --show-depends resolves each chain, soft
        dependencies included; a built-in module is simply not loaded."""
        order: List[str] = []
        builtin: List[str] = []
        for module in modules:
            proc = subprocess.run(["modprobe", "-d", str(self.base), "-S", self.version,
                                   "--show-depends", module],
                                  check=True, capture_output=True, text=True)
            for line in proc.stdout.splitlines():
                words = line.split()
                if len(words) >= 2 and words[0] == "insmod":
                    relative = self._relative(words[1])
                    if relative not in order:
                        order.append(relative)
                elif len(words) >= 2 and words[0] == "builtin" and words[1] not in builtin:
                    builtin.append(words[1])
        return order, builtin

    def guest_modules_dep(self, included: List[str],
                          chains: Optional[Dict[str, List[str]]] = None) -> str:
        return guest_modules_dep(self.modules / "modules.dep", included, chains)


def guest_modules_dep(dep_file: Path, included: List[str],
                      chains: Optional[Dict[str, List[str]]] = None) -> str:
    """modules.dep restricted to the included modules and with the guest's (decompressed)
    names, so busybox modprobe works in the guest.

    chains maps a module to its whole load order (its load_order alone, itself last): its
    line then lists the soft dependencies too, which busybox modprobe does not read from
    modules.softdep (f2fs needs a crc32 driver it only names as a soft one)."""
    wanted = set(included)
    extra = {module: chain[:-1] for module, chain in (chains or {}).items()}
    lines = []
    for line in dep_file.read_text().splitlines():
        name, _, deps = line.partition(":")
        if name not in wanted:
            continue
        listed = deps.split()
        listed += [dep for dep in extra.get(name, []) if dep not in listed]
        lines.append(f"{plain_name(name)}:" + "".join(f" {plain_name(dep)}" for dep in listed))
    return "\n".join(lines) + "\n"
