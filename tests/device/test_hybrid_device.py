"""mapping=bast in the device: writes that need merges keep the guest's data, and stats.csv
counts the merges by type as the hand-computed sequence says; a state file keeps the
tables (the restored device reads the data and merges the log it left as the saved one
would); a hybrid mapping over line GC units refuses to realize with one line naming the
key."""
import csv
import signal

from nvme_qtest import (Command, femu_only, nvme_qemu, pattern, ready, start,  # noqa: F401
                        wait_for)

pytestmark = femu_only()

PAGE = 4096
PPB = 16
# 16-page blocks, 8 MiB logical: 128 logical blocks over 256 blocks; two log blocks
BAST = (f"pgs_per_blk={PPB},devsz_mb=8,mapping=bast,gc_unit=block,gc_mode=line,"
        "log_blocks=2")


def stats_sum(path, column):
    if not path.exists():
        return 0
    with open(path, newline="") as f:
        return sum(int(row[column]) for row in csv.DictReader(f))


# (LBN, offset) in write order, and the merges they cause
WRITES = [
    (0, 0), (0, 1), (0, 0),     # LBN 0: its log takes offset 0 in order (prefix 1)
    (1, 0), (1, 1), (1, 1),     # LBN 1: its log's first page is offset 1 (not in order)
    (2, 0), (2, 0),             # LBN 2 needs a third log: LBN 0's is merged (partial:
                                # offset 1 copied into the log, the data block erased)
    (3, 0), (3, 0),             # LBN 3: LBN 1's log is merged (full: offsets 0 and 1
                                # copied to a new block, data and log erased)
]
VENDOR_SAVE_STATE = 0xC2


def write_all(nvme, sq, writes, seed, last):
    """Each (LBN, offset) written with its own pattern; last maps LPN to its latest."""
    for i, (lbn, off) in enumerate(writes):
        lpn = lbn * PPB + off
        assert nvme.write(sq, 8 * lpn, pattern(PAGE, seed + i)).ok
        last[lpn] = seed + i


def check_data(nvme, sq, last):
    for lpn, seed in last.items():
        cqe, data = nvme.read(sq, 8 * lpn, 8)
        assert cqe.ok and data == pattern(PAGE, seed), f"LPN {lpn}"


def test_bast_merges_reach_stats_and_keep_data(start, tmp_path):
    stats = tmp_path / "stats"
    nvme = start(f"stats_dir={stats},{BAST}").nvme
    sq = ready(nvme)[0]
    last = {}
    write_all(nvme, sq, WRITES, 1000, last)
    check_data(nvme, sq, last)
    csv_path = stats / "stats.csv"
    wait_for(lambda: stats_sum(csv_path, "host_write_pages") == len(WRITES),
             what=f"{len(WRITES)} host pages")
    counts = {c: stats_sum(csv_path, c) for c in ("merge_switch", "merge_partial", "merge_full",
                                                  "merge_copied_pages", "merge_erased_blocks")}
    assert counts == {"merge_switch": 0, "merge_partial": 1, "merge_full": 1,
                      "merge_copied_pages": 1 + 2, "merge_erased_blocks": 1 + 2}
    # merge work is GC work too
    assert stats_sum(csv_path, "gc_moved_pages") == 3
    assert stats_sum(csv_path, "gc_erased_blocks") == 3


def test_bast_tables_outlive_a_state_file(start, tmp_path):
    state, stats = tmp_path / "bast.state", tmp_path / "stats"
    machine = start(f"state_out={state},{BAST}")
    sq = ready(machine.nvme)[0]
    last = {}
    write_all(machine.nvme, sq, WRITES, 1000, last)
    assert machine.nvme.admin(Command(VENDOR_SAVE_STATE)).ok
    machine.qt.close()

    nvme = start(f"state_in={state},stats_dir={stats},{BAST}").nvme
    sq = ready(nvme)[0]
    check_data(nvme, sq, last)
    # LBN 4 needs a log: the least recently written of the two kept (LBN 2's, offset 0
    # in order, nothing in its data block to copy) is merged, partially
    write_all(nvme, sq, [(4, 0), (4, 0)], 2000, last)
    check_data(nvme, sq, last)
    csv_path = stats / "stats.csv"
    wait_for(lambda: stats_sum(csv_path, "merge_partial") == 1, what="one partial merge")
    assert stats_sum(csv_path, "merge_full") == stats_sum(csv_path, "merge_copied_pages") == 0


def test_fast_over_line_units_refuses_to_realize(launch):
    proc = launch("femu,mapping=fast,gc_unit=line")
    assert proc.returncode == 1 and proc.returncode != -signal.SIGABRT, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"want one error line, got: {proc.stderr!r}"
    assert "mapping" in lines[0], lines[0]
