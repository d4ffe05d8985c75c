"""Data path: write, read back and verify through every PRP shape; deallocate, Write
Zeroes, Flush; many commands in flight."""
import struct

import pytest

from nvme_qtest import (IO_DSM, IO_FLUSH, IO_READ, IO_WRITE, PAGE, Command, femu_only, nvme_qemu,
                        pattern, ready, shared, start)  # noqa: F401

NSZE = (64 << 20) // 512

LAYOUTS = {
    # name: (bytes, PRP1 offset, PRP list offset)
    "prp1_only": (4096, 0, 0),
    "prp1_one_sector": (512, 0, 0),
    "prp1_offset_within_page": (1024, 2048, 0),
    "prp1_prp2": (8192, 0, 0),
    "prp1_offset_prp2": (4096, 512, 0),
    "prp_list": (5 * PAGE, 0, 0),
    "prp_list_prp1_offset": (5 * PAGE, 1536, 0),
    "prp_list_at_offset": (4 * PAGE, 0, 1024),
    "prp_list_chain": (6 * PAGE, 0, PAGE - 16),            # 1 entry, then a chain pointer
    "prp_list_chain_twice": (520 * PAGE, 0, PAGE - 16),    # 1 + ptr, 511 + ptr, 7
    "prp_list_fills_its_page": (513 * PAGE, 0, 0),         # 512 entries, no chain pointer
    "prp_list_fills_page_end": (3 * PAGE, 0, PAGE - 16),   # 2 entries at the page end
    "prp_list_chain_fills_page": (514 * PAGE, 0, PAGE - 16),   # 1 + ptr, then 512
}


def mdts_bytes(nvme) -> int:
    _, ident = nvme.identify(1)
    return PAGE << ident[77] if ident[77] else 1 << 40


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=list(LAYOUTS))
def test_write_read_verify(shared, layout):
    nvme, sq = shared.nvme, shared.sq
    nbytes, offset, list_offset = layout
    if nbytes + offset > mdts_bytes(nvme):
        pytest.skip("beyond this controller's MDTS")
    slba = 10000 + 5000 * list(LAYOUTS.values()).index(layout)
    data = pattern(nbytes, slba)
    cqe = nvme.write(sq, slba, data, offset=offset, list_offset=list_offset)
    assert cqe.ok, str(cqe)
    cqe, got = nvme.read(sq, slba, nbytes // 512, offset=(offset + 1024) % PAGE,
                         list_offset=list_offset)
    assert cqe.ok, str(cqe)
    assert got == data


def test_read_of_unwritten_blocks_is_zeroes(shared):
    cqe, got = shared.nvme.read(shared.sq, NSZE - 64, 64)
    assert cqe.ok and got == bytes(64 * 512)


def test_last_block_of_namespace(shared):
    nvme, sq = shared.nvme, shared.sq
    data = pattern(512, 77)
    assert nvme.write(sq, NSZE - 1, data).ok
    cqe, got = nvme.read(sq, NSZE - 1, 1)
    assert cqe.ok and got == data


def test_overwrite_returns_newest_data(shared):
    nvme, sq = shared.nvme, shared.sq
    assert nvme.write(sq, 200, pattern(4096, 1)).ok
    assert nvme.write(sq, 202, pattern(1024, 2)).ok
    cqe, got = nvme.read(sq, 200, 8)
    assert cqe.ok
    assert got == pattern(4096, 1)[:1024] + pattern(1024, 2) + pattern(4096, 1)[2048:]


def test_transfer_of_exactly_mdts(shared):
    nvme, sq = shared.nvme, shared.sq
    nbytes = mdts_bytes(nvme)
    data = pattern(nbytes, 99)
    cqe = nvme.write(sq, 80000, data)
    assert cqe.ok, str(cqe)
    cqe, got = nvme.read(sq, 80000, nbytes // 512)
    assert cqe.ok, str(cqe)
    assert got == data


def test_many_writes_in_flight_then_read_back(shared):
    nvme, sq = shared.nvme, shared.sq
    cids, expected = [], {}
    for i in range(48):
        slba = 70000 + 16 * i
        xfer = nvme.transfer(2048)
        expected[slba] = pattern(2048, slba)
        nvme.fill(xfer, expected[slba])
        cids.append(nvme.submit(sq, nvme.rw(sq, IO_WRITE, slba, 4, xfer)))
    assert all(c.ok for c in nvme.wait_all(sq, cids))
    reads = []
    for slba in expected:
        xfer = nvme.transfer(2048)
        reads.append((slba, xfer, nvme.submit(sq, nvme.rw(sq, IO_READ, slba, 4, xfer))))
    for slba, xfer, cid in reads:
        assert nvme.wait(sq, cid).ok
        assert nvme.contents(xfer) == expected[slba]


def test_deallocate_reads_back_zeroes(shared):
    nvme, sq = shared.nvme, shared.sq
    assert nvme.write(sq, 3000, pattern(16 * 512, 5)).ok
    assert nvme.write(sq, 3100, pattern(8 * 512, 6)).ok
    assert nvme.dsm_deallocate(sq, [(3000, 16), (3100, 8)]).ok
    for slba, nlb in ((3000, 16), (3100, 8)):
        cqe, got = nvme.read(sq, slba, nlb)
        assert cqe.ok and got == bytes(nlb * 512)


def test_write_zeroes(shared):
    nvme, sq = shared.nvme, shared.sq
    assert nvme.write(sq, 4000, pattern(24 * 512, 7)).ok
    assert nvme.write_zeroes(sq, 4008, 8).ok
    cqe, got = nvme.read(sq, 4000, 24)
    assert cqe.ok
    assert got == pattern(24 * 512, 7)[:4096] + bytes(4096) + pattern(24 * 512, 7)[8192:]


def test_write_zeroes_deallocate(shared):
    nvme, sq = shared.nvme, shared.sq
    assert nvme.write(sq, 4200, pattern(8 * 512, 8)).ok
    assert nvme.write_zeroes(sq, 4200, 8, deac=True).ok
    cqe, got = nvme.read(sq, 4200, 8)
    assert cqe.ok and got == bytes(8 * 512)


def test_data_survives_deallocate_of_neighbours(shared):
    nvme, sq = shared.nvme, shared.sq
    assert nvme.write(sq, 5000, pattern(24 * 512, 9)).ok
    assert nvme.dsm_deallocate(sq, [(5008, 8)]).ok
    cqe, got = nvme.read(sq, 5000, 24)
    assert cqe.ok
    assert got == pattern(24 * 512, 9)[:4096] + bytes(4096) + pattern(24 * 512, 9)[8192:]


@pytest.mark.parametrize("nsid", [1, 0xFFFFFFFF])
def test_flush(shared, nsid):
    nvme, sq = shared.nvme, shared.sq
    assert nvme.write(sq, 6000, pattern(4096, 10)).ok
    cqe = nvme.run(sq, Command(IO_FLUSH, nsid=nsid))
    assert cqe.ok, str(cqe)


def test_completion_names_queue_and_head(shared):
    nvme, sq = shared.nvme, shared.sq
    cqe = nvme.run(sq, Command(IO_FLUSH, nsid=1))
    assert cqe.sqid == sq.qid and cqe.sqhd == sq.tail



@pytest.mark.parametrize("mps", [1, 2])
def test_larger_host_pages(start, mps):
    """CC.MPS 1 / 2: 8 / 16 KiB host pages; PRP entries and lists follow that size."""
    nvme = start().nvme
    csts = nvme.enable(mps=mps)
    assert csts & 1, f"CSTS {csts:#x}"
    sq = nvme.io_queue_pair(1, 16)
    page = PAGE << mps
    for nbytes, offset, list_offset in ((page, 0, 0), (2 * page, 1024, 0),
                                        (5 * page, 512, 0), (6 * page, 0, page - 16)):
        data = pattern(nbytes, nbytes + offset)
        assert nvme.write(sq, 0, data, offset=offset, list_offset=list_offset).ok
        cqe, got = nvme.read(sq, 0, nbytes // 512, offset=offset, list_offset=list_offset)
        assert cqe.ok and got == data, (nbytes, offset, list_offset)


def test_identify_into_buffer_split_across_two_pages(shared):
    nvme = shared.nvme
    _, plain = nvme.identify(1)
    xfer = nvme.transfer(4096, offset=2048)
    cqe = nvme.admin(Command(0x06, prp1=xfer.prp1, prp2=xfer.prp2, cdw10=1))
    assert cqe.ok and nvme.contents(xfer) == plain


def test_deallocate_dmrl_ranges(shared):
    """DMRL (255) ranges in one command: every other page deallocated, the rest kept."""
    nvme, sq = shared.nvme, shared.sq
    base, npages = 90000, 510
    data = pattern(npages * PAGE, 12)
    quarter = len(data) // 5                                       # 408 KiB: any MDTS >= 7
    for part in range(5):
        chunk = data[part * quarter:(part + 1) * quarter]
        assert nvme.write(sq, base + part * quarter // 512, chunk).ok
    ranges = [(base + 16 * i, 8) for i in range(255)]              # every other page
    assert nvme.dsm_deallocate(sq, ranges).ok
    expected = b"".join(bytes(PAGE) if i % 2 == 0 else data[i * PAGE:(i + 1) * PAGE]
                        for i in range(npages))
    for part in range(5):
        cqe, got = nvme.read(sq, base + part * quarter // 512, quarter // 512)
        assert cqe.ok and got == expected[part * quarter:(part + 1) * quarter]


@pytest.mark.parametrize("deac", [False, True])
def test_write_zeroes_of_65536_blocks(shared, deac):
    nvme, sq = shared.nvme, shared.sq
    base = 0 if deac else 65536 - 8
    assert nvme.write(sq, base + 8, pattern(PAGE, 13)).ok
    assert nvme.write_zeroes(sq, base + 8, 65536, deac=deac).ok
    cqe, got = nvme.read(sq, base, 24)
    assert cqe.ok and got == bytes(24 * 512)


def test_prp2_is_ignored_when_the_transfer_fits_prp1(shared):
    nvme, sq = shared.nvme, shared.sq
    xfer = nvme.transfer(2048, offset=2048)
    data = pattern(2048, 14)
    nvme.fill(xfer, data)
    cmd = nvme.rw(sq, IO_WRITE, 7000, 4, xfer)
    cmd.prp2 = 0x123                                # reserved here: must not be examined
    assert nvme.run(sq, cmd).ok
    cqe, got = nvme.read(sq, 7000, 4)
    assert cqe.ok and got == data


def test_dsm_range_table_split_across_two_pages(shared):
    nvme, sq = shared.nvme, shared.sq
    base = 100000
    assert nvme.write(sq, base, pattern(128 * PAGE // 4, 15)).ok       # 32 pages
    ranges = [(base + 8 * i, 8) for i in range(0, 32, 2)]             # 16 ranges, 256 bytes
    table = b"".join(struct.pack("<IIQ", 0, nlb, slba) for slba, nlb in ranges)
    xfer = nvme.transfer(len(table), offset=PAGE - 128)               # 128 bytes per page
    nvme.fill(xfer, table)
    cqe = nvme.run(sq, Command(IO_DSM, nsid=1, prp1=xfer.prp1, prp2=xfer.prp2,
                               cdw10=len(ranges) - 1, cdw11=1 << 2))
    assert cqe.ok, str(cqe)
    cqe, got = nvme.read(sq, base, 256)
    assert cqe.ok
    data = pattern(128 * PAGE // 4, 15)
    assert got == b"".join(bytes(PAGE) if i % 2 == 0 else data[i * PAGE:(i + 1) * PAGE]
                           for i in range(32))


def test_dsm_without_deallocate_keeps_data(shared):
    nvme, sq = shared.nvme, shared.sq
    data = pattern(PAGE, 16)
    assert nvme.write(sq, 101000, data).ok
    table = struct.pack("<IIQ", 0, 8, 101000)
    cqe = nvme.run(sq, Command(IO_DSM, nsid=1, prp1=nvme.buffer(table), cdw11=1 << 1))  # IDW
    assert cqe.ok, str(cqe)
    cqe, got = nvme.read(sq, 101000, 8)
    assert cqe.ok and got == data


@femu_only()
def test_mdts_0_means_no_limit(start):
    nvme = start("mdts=0").nvme
    sq = ready(nvme)[0]
    _, ident = nvme.identify(1)
    assert ident[77] == 0
    data = pattern(8 << 20, 17)                                   # twice the default MDTS
    assert nvme.write(sq, 0, data, scatter=False).ok
    cqe, got = nvme.read(sq, 0, len(data) // 512, scatter=False)
    assert cqe.ok and got == data


@femu_only()
def test_4k_sectors(start):
    nvme = start("secsz=4096,secs_per_pg=1").nvme
    sq = ready(nvme)[0]
    _, ns = nvme.identify(0, nsid=1)
    assert struct.unpack_from("<QQ", ns, 0) == (16384, 16384)    # 64 MiB of 4 KiB sectors
    assert ns[128 + 2] == 12
    data = pattern(3 * PAGE, 18)
    assert nvme.write(sq, 16381, data, lba_size=4096).ok
    cqe, got = nvme.read(sq, 16381, 3, lba_size=4096)
    assert cqe.ok and got == data
    bad = nvme.run(sq, nvme.rw(sq, IO_READ, 16382, 3, nvme.transfer(3 * PAGE)))
    assert (bad.code, bad.dnr) == (0x080, True)


@pytest.mark.parametrize("how", ["write_zeroes", "write_zeroes_deac", "dsm"])
def test_zeroing_part_of_a_flash_page_keeps_the_rest(shared, how):
    nvme, sq = shared.nvme, shared.sq
    base = {"write_zeroes": 102000, "write_zeroes_deac": 102100, "dsm": 102200}[how]
    data = pattern(PAGE, base)
    assert nvme.write(sq, base, data).ok
    if how == "dsm":
        assert nvme.dsm_deallocate(sq, [(base + 3, 2)]).ok
    else:
        assert nvme.write_zeroes(sq, base + 3, 2, deac=how.endswith("deac")).ok
    cqe, got = nvme.read(sq, base, 8)
    assert cqe.ok and got == data[:1536] + bytes(1024) + data[2560:]
