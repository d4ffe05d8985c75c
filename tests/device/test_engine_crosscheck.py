"""One request sequence, two drivers of the same FTL engine.

1. The device over qtest (QD1, a real clock) and ftl-sim replaying the sequence as a
   version-1 trace (QD1, a simulated clock) end with the same FTL counters, per-LPN write
   counts and column totals in stats.csv. Timing differs, so only time-free figures are
   compared, with gc_mode=line, whose GC decisions depend on counts (free lines, valid
   pages), never on time. (Paced GC also fills idle LUN time, so its moves depend on when
   requests arrive: a real clock on a loaded host and a simulated one differ. The second
   test covers paced GC, replaying the device's arrival times.)
2. Record in the device, replay in ftl-sim: the device records the commands its FTL served
   (trace_out=FILE, a version-2 trace with arrival times) and ftl-sim replays it open-loop
   at the recorded times. The FTL gets exactly the calls it had in the device, so every
   statistics file comes out byte for byte the same: rows, timestamps, per-LPN counts,
   phases. With a write buffer the recording is version 5 and holds the guest's write
   cache switches (Set Features 06h: WC records) and FUA writes (W ... fua), which replay
   too.
"""
import csv
import math
import random

import pytest

from nvme_qtest import (IO_FLUSH, IO_READ, IO_WRITE_ZEROES, Command, femu_only,  # noqa: F401
                        nvme_qemu, ready, start, wait_for)
from test_nvme_stats import phase

pytestmark = femu_only()

# 1 channel x 2 LUNs x 32 blocks of 16 pages: 32 lines of 32 pages, 3 MiB logical
# (768 pages of 4 KiB): GC runs after a few hundred page writes.
GEOMETRY = {"nchs": 1, "luns_per_ch": 2, "blks_per_pl": 32, "pgs_per_blk": 16,
            "devsz_mb": 3}
# The same SSD as a consumer drive: an SLC cache of one static unit and half the free user
# space (2 bits a cell: 8 SLC pages a block), folded in idle time and in the foreground,
# and read retries that wear and age add (one step per 2 erases and per second): the
# recording still replays byte for byte.
CONSUMER = {**GEOMETRY, "cell_bits": 2, "slc_pg_rd_lat": 20000, "slc_pg_wr_lat": 100000,
            "slc_blk_er_lat": 1000000, "slc_cache": "on", "slc_static_units": 1,
            "slc_dynamic_pcent": 50, "read_retry_lat": 20000, "read_retry_pe_step": 2,
            "read_retry_age_s": 1}
# The same SSD with a DRAM write buffer of 32 pages: a volatile write cache the guest
# switches off and on, and FUA writes.
WRITE_CACHE = {**GEOMETRY, "write_buffer_sectors": 256}
FID_VWC = 0x06
FUA = 1 << 30
# The first test's GC: decisions by counts only (see the docstring).
COUNT_ONLY_GC = {**GEOMETRY, "gc_mode": "line"}
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
    props = ",".join(f"{k}={v}" for k, v in COUNT_ONLY_GC.items())
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
    sets = [arg for k, v in COUNT_ONLY_GC.items() for arg in ("--set", f"{k}={v}")]
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


# ---- record in the device, replay in ftl-sim

STATS_FILES = ("stats.csv", "IOPSData.csv", "throughputData.csv", "GCData.csv",
               "WAFData.csv", "statistics.csv", "phases.csv", "lpn_access_count.csv")


def write_zeroes(slba, nlb):
    return Command(IO_WRITE_ZEROES, nsid=1, cdw10=slba, cdw12=nlb - 1)


def commands(nvme, sq, seed=3, mixed=900):
    """Batches of 4 (kind, command) submitted together: a fill, then reads, 64 KiB writes,
    deallocates of 1-3 ranges (command None: made when sent) and flushes. The kind is the
    record the command leaves in the trace."""
    rng = random.Random(seed)
    xfer = nvme.transfer(4096)
    fill = [("W", write_zeroes(lpn * SECTORS_PER_PAGE, SECTORS_PER_PAGE))
            for lpn in range(LOGICAL_PAGES)]
    for i in range(0, len(fill), 4):
        yield fill[i:i + 4]
    for _ in range(mixed // 4):
        batch = []
        for _ in range(4):
            roll = rng.random()
            lpn = rng.randrange(LOGICAL_PAGES - 16)
            if roll < 0.35:
                batch.append(("R", nvme.rw(sq, IO_READ, lpn * SECTORS_PER_PAGE, 1, xfer)))
            elif roll < 0.9:
                batch.append(("W", write_zeroes(lpn * SECTORS_PER_PAGE, 16 * SECTORS_PER_PAGE)))
            elif roll < 0.97:
                batch.append(("D", None))
            else:
                batch.append(("F", Command(IO_FLUSH, nsid=1)))
        yield batch


def idle_second_boundary(stats):
    """Let the device pass a whole-second boundary with nothing to do, so its trace gets an
    A record. This is elapsed time the device must see, so it is waited for by what the
    device writes, not slept: the FTL thread's idle pass that writes the A record (the
    first whole second since the last record, here the phase marker) ends the statistics
    second in the same pass, and stats.csv gains the row ending on that boundary."""
    def times(name, phase=None):   # time_s of the complete rows (the device is writing)
        return [float(r["time_s"]) for r in rows(stats / name)
                if r.get("time_s") and None not in r.values() and r.get("phase", phase) == phase]

    marked = wait_for(lambda: times("phases.csv", "mixed"), what="the phase row of 'mixed'")
    boundary = math.floor(marked[-1]) + 1
    wait_for(lambda: any(t >= boundary for t in times("stats.csv")), timeout=10,
             what=f"the stats.csv row ending at {boundary} s")


def record(start, tmp_path, config=GEOMETRY, cache=False):
    """Drive the device with stats_dir and trace_out; return what was sent, by kind. With
    cache, every 37th batch switches the write cache (off first) and a write in five is
    FUA (sent["WC"], sent["fua"])."""
    props = ",".join(f"{k}={v}" for k, v in config.items())
    stats, trace = tmp_path / "device", tmp_path / "run.trace"
    machine = start(f"{props},stats_dir={stats},trace_out={trace}")
    nvme = machine.nvme
    sq = ready(nvme)[0]
    sent = {"W": 0, "R": 0, "D": 0, "F": 0}
    rng, fua_rng, wce = random.Random(5), random.Random(11), 1
    if cache:
        sent.update(WC=0, fua=0)
    assert phase(nvme, b"fill").ok
    for n, batch in enumerate(commands(nvme, sq)):
        if n == LOGICAL_PAGES // 4:
            assert phase(nvme, b"mixed").ok
            idle_second_boundary(stats)   # the trace's A record
        if cache and n % 37 == 36:        # served between the batches around it
            wce ^= 1
            assert nvme.set_features(FID_VWC, wce).ok
            sent["WC"] += 1
        cids = []
        for kind, cmd in batch:
            sent[kind] += 1
            if cache and kind == "W" and fua_rng.random() < 0.2:
                cmd.cdw12 |= FUA
                sent["fua"] += 1
            if kind == "D":   # DSM takes its range table by DMA: one at a time
                ranges = [(rng.randrange(LOGICAL_PAGES) * SECTORS_PER_PAGE, SECTORS_PER_PAGE)
                          for _ in range(rng.randint(1, 3))]
                assert nvme.dsm_deallocate(sq, ranges).ok
            else:
                cids.append(nvme.submit(sq, cmd))
        assert all(c.ok for c in nvme.wait_all(sq, cids))
    machine.qt.terminate()    # exit closes the statistics and the trace
    return stats, trace, sent


@pytest.mark.parametrize("config", [GEOMETRY, CONSUMER, WRITE_CACHE],
                         ids=["plain", "slc-retries", "write-cache"])
def test_a_recorded_device_run_replays_to_identical_statistics(start, run_ftl_sim, tmp_path,
                                                               config):
    cache = config is WRITE_CACHE
    stats, trace, sent = record(start, tmp_path, config, cache=cache)
    lines = [line.split() for line in trace.read_text().splitlines()
             if line and not line.startswith("#")]
    records = [fields[0] for fields in lines]
    assert lines[0] == ["V", "5" if cache else "3"] and records[-1] == "E"
    if cache:
        fua = sum(1 for fields in lines if fields[0] == "W" and fields[-1] == "fua")
        assert sent.pop("fua") == fua > 0 and sent["WC"] > 0
        wce = [fields[-1] for fields in lines if fields[0] == "WC"]
        assert wce == ["0", "1"] * (len(wce) // 2) + ["0"] * (len(wce) % 2)
    assert {k: records.count(k) for k in sent} == sent
    assert records.count("P") == 2 and records.count("A") >= 1

    sets = [arg for k, v in config.items() for arg in ("--set", f"{k}={v}")]
    replay = tmp_path / "replay"
    run_ftl_sim(*sets, "--trace", trace, "--stats-dir", replay)
    totals, _, _ = figures(stats)
    assert totals["gc_runs"] > 10, "the run is meant to exercise GC"
    print(f"\nrecorded {len(records)} records; device and replay: {totals}")
    names = STATS_FILES
    if cache:
        last = rows(stats / "stats.csv")
        absorbed = sum(int(r["buf_absorbed_sectors"]) for r in last)
        flushed = sum(int(r["buf_flushed_pages"]) for r in last)
        assert absorbed > 0 and flushed > 0, (absorbed, flushed)
    if config is CONSUMER:
        last = rows(stats / "stats.csv")
        folded = sum(int(r["slc_folded_pages"]) for r in last)
        absorbed = sum(int(r["slc_host_pages"]) for r in last)
        retried = sum(int(r["read_retries"]) for r in last)
        assert folded > 0 and absorbed > 0 and retried > 0, (folded, absorbed, retried)
        names = (*STATS_FILES, "read_retries.csv")
    for name in names:
        assert (replay / name).read_text() == (stats / name).read_text(), name

