"""Statistics files under stats_dir: timer-driven rows, lpn_access_count.csv on vendor C0h,
at shutdown and at exit, phase markers through vendor C1h."""
import csv
import struct

from nvme_qtest import (ADM_VENDOR_LPN_COUNTS, ADM_VENDOR_PHASE, CC, IO_WRITE, Command, femu_only,
                        nvme_qemu, pattern, ready, start, wait_for)  # noqa: F401

pytestmark = femu_only()


def rows(path):
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def phase(nvme, name: bytes):
    words = struct.unpack("<4I", name.ljust(16, b"\x00"))
    return nvme.admin(Command(ADM_VENDOR_PHASE, cdw12=words[0], cdw13=words[1],
                              cdw14=words[2], cdw15=words[3]))


def lpn_counts(path):
    return {int(r["LPN"]): int(r["Access_Count"]) for r in rows(path)}


def test_per_second_files_gain_rows_while_idle(start, tmp_path):
    stats = tmp_path / "stats"
    start(f"stats_dir={stats}")                            # no controller enable, no I/O
    for name in ("IOPSData.csv", "stats.csv", "throughputData.csv"):
        first = wait_for(lambda: len(rows(stats / name)) >= 1, what=f"a row in {name}")
        assert first
    before = {n: len(rows(stats / n)) for n in ("IOPSData.csv", "stats.csv")}
    for name, count in before.items():
        wait_for(lambda: len(rows(stats / name)) >= count + 2, what=f"2 more rows in {name}")
    with open(stats / "IOPSData.csv") as f:
        assert f.readline().strip() == "time,read,write"
    with open(stats / "throughputData.csv") as f:
        assert f.readline().strip() == "time,readThroughput,writeThroughput"
    assert list(rows(stats / "stats.csv")[0])[:2] == ["time_s", "interval_s"]
    assert all(int(r["read"]) == 0 == int(r["write"]) for r in rows(stats / "IOPSData.csv"))


def test_rows_count_the_commands(start, tmp_path):
    stats = tmp_path / "stats"
    nvme = start(f"stats_dir={stats}").nvme
    sq = ready(nvme)[0]
    for i in range(10):
        assert nvme.write(sq, 8 * i, pattern(4096, i)).ok
    for i in range(3):
        assert nvme.read(sq, 8 * i, 8)[0].ok

    def totals():
        got = rows(stats / "IOPSData.csv")
        return (sum(int(r["read"]) for r in got), sum(int(r["write"]) for r in got))
    wait_for(lambda: totals() == (3, 10), what="3 reads and 10 writes in IOPSData.csv")
    wait_for(lambda: sum(int(r["host_write_pages"]) for r in rows(stats / "stats.csv")) == 10,
             what="10 written pages in stats.csv")


def _write_lpns(nvme, sq):
    assert nvme.write(sq, 0, pattern(4096, 1)).ok                 # LPN 0
    assert nvme.write(sq, 40, pattern(4096, 2)).ok                # LPN 5
    assert nvme.write(sq, 40, pattern(4096, 3)).ok                # LPN 5 again
    assert nvme.write(sq, 16, pattern(512, 4)).ok                 # LPN 2, one sector


def test_vendor_c0_writes_lpn_access_counts(start, tmp_path):
    stats = tmp_path / "stats"
    nvme = start(f"stats_dir={stats}").nvme
    sq = ready(nvme)[0]
    _write_lpns(nvme, sq)
    cqe = nvme.admin(Command(ADM_VENDOR_LPN_COUNTS))
    assert cqe.ok, str(cqe)
    path = stats / "lpn_access_count.csv"
    with open(path) as f:
        assert f.readline().strip() == "LPN,Access_Count"
    assert lpn_counts(path) == {0: 1, 1: 0, 2: 1, 3: 0, 4: 0, 5: 2}


def test_lpn_access_counts_on_shutdown_and_at_exit(start, tmp_path):
    stats = tmp_path / "stats"
    machine = start(f"stats_dir={stats}")
    nvme = machine.nvme
    sq = ready(nvme)[0]
    _write_lpns(nvme, sq)
    path = stats / "lpn_access_count.csv"
    nvme.writel(CC, nvme.readl(CC) | 1 << 14)
    nvme.wait_csts(0xC, 0x8)
    wait_for(lambda: lpn_counts(path) == {0: 1, 1: 0, 2: 1, 3: 0, 4: 0, 5: 2},
             what="lpn_access_count.csv after shutdown")
    path.unlink()
    nvme.disable()
    sq = ready(nvme)[0]
    assert nvme.write(sq, 8, pattern(4096, 5)).ok                 # LPN 1
    machine.qt.terminate()
    assert lpn_counts(path) == {0: 1, 1: 1, 2: 1, 3: 0, 4: 0, 5: 2}


def test_vendor_c1_phase_markers(start, tmp_path):
    stats = tmp_path / "stats"
    nvme = start(f"stats_dir={stats}").nvme
    ready(nvme, io_queues=0)
    names = [b"precondition", b"steady.1-x_Y", b"abcdefghijklmnop"]   # the last: 16, no NUL
    for name in names:
        cqe = phase(nvme, name)
        assert cqe.ok, f"{name}: {cqe}"
    path = stats / "phases.csv"
    with open(path) as f:
        assert f.readline().startswith("time_s,phase,host_read_cmds,")   # and snapshots
    got = rows(path)
    assert [r["phase"] for r in got] == [n.decode() for n in names]
    times = [float(r["time_s"]) for r in got]
    assert times == sorted(times)


def test_data_survives_garbage_collection(start, tmp_path):
    """Overwrite a small device many times so GC must move valid pages; the data kept at
    LBA 0 reads back and the statistics show GC ran."""
    stats = tmp_path / "stats"
    machine = start(f"stats_dir={stats}")
    nvme = machine.nvme
    sq = ready(nvme, size=256)[0]
    keep = pattern(64 * 512, 11)
    assert nvme.write(sq, 0, keep).ok
    chunk, region = 128 * 1024, 8 << 20          # 8 MiB overwritten 20 times: 160 MiB
    xfer = nvme.transfer(chunk, scatter=False)
    for _ in range(20):
        cids = [nvme.submit(sq, nvme.rw(sq, IO_WRITE, 2048 + off // 512, chunk // 512, xfer))
                for off in range(0, region, chunk)]
        assert all(c.ok for c in nvme.wait_all(sq, cids, timeout=60))
    cqe, got = nvme.read(sq, 0, 64)
    assert cqe.ok and got == keep
    machine.qt.terminate()
    stat_rows = rows(stats / "stats.csv")
    assert sum(int(r["gc_erased_blocks"]) for r in stat_rows) > 0
    assert sum(int(r["host_write_cmds"]) for r in stat_rows) == 1 + 20 * 64
