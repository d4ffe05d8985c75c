"""One request sequence, two drivers of the same FTL engine: the device over qtest (QD1, a
real clock) and ftl-sim replaying the sequence as a trace (QD1, a simulated clock) end with
the same FTL counters, the same per-LPN write counts and the same column totals in
stats.csv. Timing differs between the two, so only time-free figures are compared: GC
decisions depend on counts (free lines, valid pages), never on time."""
import csv
import random

from nvme_qtest import femu_only, nvme_qemu, ready, start  # noqa: F401

pytestmark = femu_only()

# 1 channel x 2 LUNs x 32 blocks of 16 pages: 32 lines of 32 pages, 3 MiB logical
# (768 pages of 4 KiB): GC runs after a few hundred page writes.
GEOMETRY = {"nchs": 1, "luns_per_ch": 2, "blks_per_pl": 32, "pgs_per_blk": 16,
            "devsz_mb": 3}
LOGICAL_PAGES = 768
SECTORS_PER_PAGE = 8

# Summed over all rows: counts of the interval. Gauges: the state at the end.
COUNT_COLUMNS = ("host_read_cmds", "host_write_cmds", "host_read_pages", "host_write_pages",
                 "host_read_bytes", "host_write_bytes", "gc_runs", "gc_erased_blocks",
                 "gc_moved_pages", "nand_user_reads", "nand_gc_reads", "nand_user_programs",
                 "nand_gc_programs", "nand_erases", "wp0_host_pages", "wp0_gc_pages")
GAUGE_COLUMNS = ("free_lines", "victim_lines", "full_lines", "open_lines", "valid_pages")


def request_sequence(seed=7, mixed=1200, write_pages=16):
    """(op, lba, sectors): a sequential fill, then random one-sector reads and 64 KiB
    writes (40 % reads). A write invalidates pages in several lines at once, so after the
    one line background GC collects per request more are often due: that is where a read
    gives GC its chance."""
    rng = random.Random(seed)
    ops = [("W", lpn * SECTORS_PER_PAGE, SECTORS_PER_PAGE) for lpn in range(LOGICAL_PAGES)]
    for _ in range(mixed):
        if rng.random() < 0.4:
            ops.append(("R", rng.randrange(LOGICAL_PAGES) * SECTORS_PER_PAGE, 1))
        else:
            lpn = rng.randrange(LOGICAL_PAGES - write_pages + 1)
            ops.append(("W", lpn * SECTORS_PER_PAGE, write_pages * SECTORS_PER_PAGE))
    return ops


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def figures(stats_dir):
    got = rows(stats_dir / "stats.csv")
    totals = {c: sum(int(r[c]) for r in got) for c in COUNT_COLUMNS}
    gauges = {c: int(got[-1][c]) for c in GAUGE_COLUMNS}
    lpns = {int(r["LPN"]): int(r["Access_Count"])
            for r in rows(stats_dir / "lpn_access_count.csv")}
    return totals, gauges, lpns


def run_device(start, stats_dir, ops):
    props = ",".join(f"{k}={v}" for k, v in GEOMETRY.items())
    machine = start(f"{props},stats_dir={stats_dir}")
    nvme = machine.nvme
    sq = ready(nvme)[0]
    for op, lba, sectors in ops:
        # Write Zeroes: the FTL sees a write like any other, and no data crosses qtest.
        cqe = (nvme.write_zeroes(sq, lba, sectors) if op == "W"
               else nvme.read(sq, lba, sectors)[0])
        assert cqe.ok, f"{op} {lba}+{sectors}: {cqe}"
    machine.qt.terminate()          # exit closes the statistics and writes the LPN counts


def run_sim(run_ftl_sim, stats_dir, trace_path, ops):
    trace_path.write_text("".join(f"{op} {lba} {sectors}\n" for op, lba, sectors in ops))
    sets = [arg for k, v in GEOMETRY.items() for arg in ("--set", f"{k}={v}")]
    run_ftl_sim(*sets, "--trace", trace_path, "--qd", "1", "--precondition", "none",
                "--stats-dir", stats_dir)


def test_device_and_ftl_sim_agree_on_a_read_write_mix(start, run_ftl_sim, tmp_path):
    ops = request_sequence()
    run_device(start, tmp_path / "device", ops)
    run_sim(run_ftl_sim, tmp_path / "sim", tmp_path / "mix.trace", ops)
    device_totals, device_gauges, device_lpns = figures(tmp_path / "device")
    sim_totals, sim_gauges, sim_lpns = figures(tmp_path / "sim")

    # The sequence is meant to exercise GC, or the comparison proves little.
    assert sim_totals["gc_runs"] > 10 and sim_totals["gc_moved_pages"] > 0
    assert sim_totals["host_read_cmds"] > 0
    print(f"\ncross-check: {sim_totals}\n  gauges {sim_gauges}")
    assert device_totals == sim_totals
    assert device_gauges == sim_gauges
    assert device_lpns == sim_lpns
