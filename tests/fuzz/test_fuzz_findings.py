"""Findings of the fuzzer kept as regressions: every replay file in tests/fuzz/findings/
must replay clean (its header names the device properties it was found with), and each
finding's essence as a direct test.

zrecv-prp2-list.jsonl (--variant zns, seed 2): a Report Zones whose buffer (NUMD) spans
three pages, with PRP1 near a page end, got PRP Offset Invalid: the device read the PRPs
for the bytes it built (576, two pages), not for the buffer, so it took PRP2, a PRP list
pointer, for a data page. With a page-aligned list it wrote the report into the host's
PRP list instead. Get Log Page and Get LBA Status, which also return less than the
buffer the host names, did the same (found reading the code after the finding)."""
import struct
from pathlib import Path

import pytest

from nvme_qtest import Command, femu_only, nvme_qemu, start  # noqa: F401
from nvmefuzz import replay

FINDINGS = sorted((Path(__file__).parent / "findings").glob("*.jsonl"))


@pytest.mark.parametrize("path", FINDINGS, ids=[p.stem for p in FINDINGS])
def test_saved_finding_replays_clean(nvme_qemu, path):
    header, records = replay.load(path)
    failure, _ = replay.execute(nvme_qemu, records, header.get("deadline", 10.0),
                                props=header["props"])
    assert failure is None, f"{path.name}: {failure.kind} at record {failure.index}: " \
                            f"{failure.message}"


ZNS = "zoned=on,zones=8"
ZNS_NSID, ZONES, ZONE = 2, 8, 4096     # SMALL_GEOMETRY: 4 LUNs x 128 pages of 4 KiB


@femu_only()
def test_short_report_zones_lands_in_the_buffer_not_in_the_prp_list(start):
    nvme = start(ZNS).nvme
    assert nvme.enable(css=6) & 1
    sq = nvme.io_queue_pair(1)
    pages = [nvme.mem.alloc(4096, 4096) for _ in range(3)]
    plist = nvme.mem.alloc(4096, 4096)
    entries = struct.pack("<QQ", pages[1], pages[2])
    nvme.qt.memwrite(plist, entries)
    for page in pages:
        nvme.qt.memwrite(page, b"\xA5" * 4096)
    prp1 = pages[0] + 4096 - 32         # 32 bytes, then the list's pages
    cqe = nvme.run(sq, Command(0x7A, nsid=ZNS_NSID, prp1=prp1, prp2=plist,
                               cdw12=8192 // 4 - 1))
    assert cqe.ok, str(cqe)
    assert nvme.qt.memread(plist, 16) == entries, "the report was written into the PRP list"
    report = nvme.qt.memread(prp1, 32) + nvme.qt.memread(pages[1], 64 * (ZONES + 1) - 32)
    assert struct.unpack_from("<Q", report, 0)[0] == ZONES
    for zone in range(ZONES):
        zslba = struct.unpack_from("<Q", report, 64 * (zone + 1) + 16)[0]
        assert zslba == zone * ZONE, (zone, zslba)
    rest = 64 * (ZONES + 1) - 32
    assert nvme.qt.memread(pages[1] + rest, 4096 - rest) == b"\xA5" * (4096 - rest)


def _three_page_buffer(nvme, offset):
    """PRP1 `offset` bytes before a page end, PRP2 a page-aligned PRP list of two pages
    (A5h-filled): (prp1, prp2, the pages)."""
    pages = [nvme.mem.alloc(4096, 4096) for _ in range(3)]
    plist = nvme.mem.alloc(4096, 4096)
    nvme.qt.memwrite(plist, struct.pack("<QQ", pages[1], pages[2]))
    for page in pages:
        nvme.qt.memwrite(page, b"\xA5" * 4096)
    return pages[0] + 4096 - offset, plist, pages


@femu_only()
@pytest.mark.parametrize("what", ["log", "lba-status"])
def test_short_admin_data_lands_in_the_buffer_not_in_the_prp_list(start, what):
    """SMART (512 bytes) or Get LBA Status (an 8-byte header) into an 8 KiB buffer that
    starts 4 bytes before a page end: the rest goes to the list's first page."""
    nvme = start().nvme
    nvme.enable()
    prp1, plist, pages = _three_page_buffer(nvme, 4)
    entries = nvme.qt.memread(plist, 16)
    if what == "log":
        cmd = Command(0x02, nsid=0xFFFFFFFF, prp1=prp1, prp2=plist,
                      cdw10=0x02 | (8192 // 4 - 1) << 16)
        size = 512
    else:
        cmd = Command(0x86, nsid=1, prp1=prp1, prp2=plist, cdw12=8192 // 4 - 1,
                      cdw13=0x11 << 24)
        size = 8
    cqe = nvme.admin(cmd)
    assert cqe.ok, str(cqe)
    assert nvme.qt.memread(plist, 16) == entries, "the data was written into the PRP list"
    moved = nvme.qt.memread(pages[1], size - 4)
    assert moved != b"\xA5" * (size - 4) or size == 8, "nothing reached the second page"
    assert nvme.qt.memread(pages[1] + size - 4, 64) == b"\xA5" * 64
