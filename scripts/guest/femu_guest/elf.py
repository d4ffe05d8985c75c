"""Just enough ELF reading to find what a binary needs from the dynamic loader.

Only 64-bit little-endian objects are understood (the guest is x86-64); anything
else is reported as "not dynamic" so callers copy it as plain data.
"""
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NULL, DT_NEEDED, DT_STRTAB, DT_SONAME, DT_RPATH, DT_RUNPATH = 0, 1, 5, 14, 15, 29


@dataclass
class DynamicInfo:
    interpreter: Optional[str] = None
    needed: List[str] = field(default_factory=list)
    search_path: List[str] = field(default_factory=list)  # RPATH/RUNPATH entries
    soname: Optional[str] = None


def is_elf(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def read_dynamic_info(path: Path) -> Optional[DynamicInfo]:
    """Interpreter, NEEDED sonames and search path of an ELF; None if not dynamic ELF64."""
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    segments = [struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize) for i in range(phnum)]
    loads = [(vaddr, offset, filesz) for ptype, _, offset, vaddr, _, filesz, _, _ in segments
             if ptype == PT_LOAD]

    def file_offset(vaddr: int) -> int:
        for seg_vaddr, seg_offset, seg_size in loads:
            if seg_vaddr <= vaddr < seg_vaddr + seg_size:
                return vaddr - seg_vaddr + seg_offset
        raise ValueError(f"{path}: address {vaddr:#x} is in no loaded segment")

    info = DynamicInfo()
    dynamic = None
    for ptype, _, offset, _, _, filesz, _, _ in segments:
        if ptype == PT_INTERP:
            info.interpreter = data[offset:offset + filesz].split(b"\0")[0].decode()
        elif ptype == PT_DYNAMIC:
            dynamic = (offset, filesz)
    if dynamic is None:
        return info if info.interpreter else None

    entries = []
    offset, size = dynamic
    for pos in range(offset, offset + size, 16):
        tag, value = struct.unpack_from("<qQ", data, pos)
        if tag == DT_NULL:
            break
        entries.append((tag, value))
    strtab = next((file_offset(v) for t, v in entries if t == DT_STRTAB), None)
    if strtab is None:
        return info

    def string_at(index: int) -> str:
        end = data.index(b"\0", strtab + index)
        return data[strtab + index:end].decode()

    for tag, value in entries:
        if tag == DT_NEEDED:
            info.needed.append(string_at(value))
        elif tag == DT_SONAME:
            info.soname = string_at(value)
        elif tag in (DT_RPATH, DT_RUNPATH):
            info.search_path.extend(p for p in string_at(value).split(":") if p)
    return info
