"""mapping=dftl and the write buffer in the device: the guest's data is untouched by either,
map traffic and buffer counters reach stats.csv, Flush and a shutdown drain the buffer."""
import csv

from nvme_qtest import (CC, IO_FLUSH, Command, femu_only, nvme_qemu, pattern, ready,  # noqa: F401
                        start, wait_for)

pytestmark = femu_only()

PAGE = 4096


def stats_sum(path, column):
    if not path.exists():
        return 0
    with open(path, newline="") as f:
        return sum(int(row[column]) for row in csv.DictReader(f))


def test_buffered_writes_reach_flash_on_flush(start, tmp_path):
    stats = tmp_path / "stats"
    nvme = start(f"stats_dir={stats},write_buffer_sectors=1024").nvme
    sq = ready(nvme)[0]
    for i in range(10):
        assert nvme.write(sq, 8 * i, pattern(PAGE, i)).ok
    assert nvme.write(sq, 8, pattern(PAGE, 100)).ok                # absorbed: 8 sectors
    for i in range(10):                                            # served from the buffer
        cqe, data = nvme.read(sq, 8 * i, 8)
        assert cqe.ok and data == pattern(PAGE, 100 if i == 1 else i)
    csv_path = stats / "stats.csv"
    wait_for(lambda: stats_sum(csv_path, "host_write_pages") == 11, what="11 host pages")
    assert stats_sum(csv_path, "nand_user_programs") == 0          # still in DRAM
    assert stats_sum(csv_path, "buf_absorbed_sectors") == 8
    assert stats_sum(csv_path, "buf_read_hits") == 10
    assert nvme.run(sq, Command(IO_FLUSH, nsid=1)).ok
    wait_for(lambda: stats_sum(csv_path, "buf_flushed_pages") == 10, what="10 flushed pages")
    assert stats_sum(csv_path, "nand_user_programs") == 10


def test_shutdown_drains_the_buffer(start, tmp_path):
    stats = tmp_path / "stats"
    nvme = start(f"stats_dir={stats},write_buffer_sectors=1024").nvme
    sq = ready(nvme)[0]
    for i in range(5):
        assert nvme.write(sq, 8 * i, pattern(PAGE, i)).ok
    nvme.writel(CC, nvme.readl(CC) | 1 << 14)                      # CC.SHN = normal
    nvme.wait_csts(0xC, 0x8)                                       # SHST complete
    wait_for(lambda: stats_sum(stats / "stats.csv", "buf_flushed_pages") == 5,
             what="5 pages flushed by the shutdown")


def test_shutdown_drains_the_buffer_without_stats(start):
    """Without stats_dir the shutdown still waits for the drain, then reports complete."""
    nvme = start("write_buffer_sectors=64").nvme
    sq = ready(nvme)[0]
    assert nvme.write(sq, 0, pattern(PAGE, 1)).ok
    nvme.writel(CC, nvme.readl(CC) | 1 << 14)
    nvme.wait_csts(0xC, 0x8)


def test_dftl_keeps_data_and_counts_map_traffic(start, tmp_path):
    stats = tmp_path / "stats"
    # one translation page (1024 entries) of CMT: 3000 pages cannot all stay cached
    nvme = start(f"stats_dir={stats},mapping=dftl,cmt_entries=1024").nvme
    sq = ready(nvme)[0]
    lpns = range(0, 3000 * 5, 5)                                   # spread over 15 pages of map
    for lpn in lpns:
        assert nvme.write(sq, 8 * lpn, pattern(PAGE, lpn)).ok
    for lpn in list(lpns)[::97]:
        cqe, data = nvme.read(sq, 8 * lpn, 8)
        assert cqe.ok and data == pattern(PAGE, lpn)
    csv_path = stats / "stats.csv"
    wait_for(lambda: stats_sum(csv_path, "host_write_pages") == 3000, what="3000 host pages")
    assert stats_sum(csv_path, "cmt_misses") >= 3000 - 1024        # every first touch misses
    assert stats_sum(csv_path, "map_writes") > 0                   # dirty evictions wrote back
    assert stats_sum(csv_path, "map_reads") > 0                    # and were read again
