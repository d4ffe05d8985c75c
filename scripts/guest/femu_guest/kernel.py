"""The guest kernel: an uncompressed vmlinux out of Debian's bzImage, and the
kernel modules the guest must load, in dependency order.

Why uncompressed: under TCG, decompressing the xz bzImage costs ~5 s of every
boot, while QEMU boots the ELF vmlinux directly through its PVH entry note.
"""
import lzma
import subprocess
from pathlib import Path
from typing import Dict, List, Optional

_XZ_MAGIC = b"\xfd7zXZ\x00"


def extract_vmlinux(bzimage: Path, out: Path) -> None:
    """Find the xz stream inside a bzImage and write the ELF it decompresses to."""
    data = bzimage.read_bytes()
    start = data.find(_XZ_MAGIC)
    while start >= 0:
        try:
            # The stream is followed by other bytes; the decompressor stops at its end.
            elf = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data[start:])
        except lzma.LZMAError:
            elf = b""
        if elf[:4] == b"\x7fELF":
            out.write_bytes(elf)
            return
        start = data.find(_XZ_MAGIC, start + 1)
    raise ValueError(f"{bzimage}: no xz-compressed ELF kernel found inside")


def module_load_order(root: Path, version: str, modules: List[str]) -> List[str]:
    """Module files (relative to root) to insmod, dependencies first, no repeats.

    depmod runs on the extracted tree (the .deb ships no modules.dep), then
    modprobe --show-depends resolves each chain, soft dependencies included.
    """
    subprocess.run(["depmod", "-b", str(root), version], check=True, capture_output=True)
    order: List[str] = []
    for module in modules:
        proc = subprocess.run(["modprobe", "-d", str(root), "-S", version, "--show-depends", module],
                              check=True, capture_output=True, text=True)
        for line in proc.stdout.splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] == "insmod":
                relative = str(Path(words[1]).resolve().relative_to(root.resolve()))
                if relative not in order:
                    order.append(relative)
            elif words and words[0] == "builtin":
                continue
    return order


def guest_modules_dep(root: Path, version: str, included: List[str],
                      chains: Optional[Dict[str, List[str]]] = None) -> str:
    """modules.dep restricted to the included modules, so busybox modprobe works in the guest.

    chains maps a module to its whole load order (module_load_order of it alone, itself
    last): its line then lists the soft dependencies too, which busybox modprobe does not
    read from modules.softdep (f2fs needs a crc32 driver it only names as a soft one)."""
    prefix = f"lib/modules/{version}/"
    wanted = {path[len(prefix):] for path in included if path.startswith(prefix)}
    extra = {module[len(prefix):]: [dep[len(prefix):] for dep in chain[:-1]]
             for module, chain in (chains or {}).items()}
    dep_file = root / prefix / "modules.dep"
    lines = []
    for line in dep_file.read_text().splitlines():
        name, _, deps = line.partition(":")
        if name not in wanted:
            continue
        listed = deps.split()
        listed += [dep for dep in extra.get(name, []) if dep not in listed]
        lines.append(f"{name}:" + "".join(f" {dep}" for dep in listed))
    return "\n".join(lines) + "\n"
