"""Figures (a benchmark, not a test) for the zoned namespace, measured on the device over
qtest (no guest: the host loop is this script), each beside the FTL model's number:

    PYTHONPATH=tests/support .venv/bin/python tests/device/zns_figures.py [QEMU]

(from the repository's root: tests/support holds the qtest driver nvme_qtest).

append:  Zone Append IOPS at QD 1/4/16/32 into one zone, for zones striped over 4 and 8
         LUNs (1 ms page program, so the host loop's own overhead stays small); the model's
         ceiling is min(QD, zone LUNs) / t_PROG.
reset:   Zone Management Send Reset latency of a written zone (one block per LUN) against
         blk_er_lat, less the latency of resetting an empty zone (no flash work: the loop's
         overhead).
copy:    Simple Copy of N pages from one zone into another: copyback (both zones on the
         same LUNs) vs read + transfer + program (zones on other LUNs) vs the host doing
         it (one Read, then one Write at the write pointer), against the models
         N / LUNs x (t_R + t_PROG) and N / LUNs x (t_R + 2 t_xfer + t_PROG).

Wall-clock medians of repeated runs; prints figures, asserts nothing.
"""
import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from nvme_qtest import IO_READ, IO_WRITE, Command, Machine

REPO = Path(__file__).resolve().parents[2]
IO_ZONE_SEND, IO_ZONE_APPEND, IO_COPY = 0x79, 0x7D, 0x19
ZSA_RESET = 0x4
SECTOR, PAGE = 512, 4096
LBAS_PER_PAGE = PAGE // SECTOR
ZNS_NSID = 2
# 2 channels x 4 LUNs, 4 KiB pages, 256-page blocks; zones of one block on each zone LUN.
BASE = ("secsz=512,secs_per_pg=8,pgs_per_blk=256,pls_per_lun=1,luns_per_ch=4,nchs=2,"
        "devsz_mb=64,zoned=on,max_open=0,max_active=0,gc_thres_pcent_high=90")


def device(tmp: Path, qemu: Path, props: str) -> Machine:
    return Machine(qemu, tmp, BASE + "," + props)


def enable(machine: Machine, qd: int):
    csts = machine.nvme.enable(css=6)
    assert csts & 1, f"enable: CSTS {csts:#x}"
    return machine.nvme.io_queue_pair(1, max(64, 2 * qd))


def zone_lbas(zone_luns: int) -> int:
    return zone_luns * 256 * LBAS_PER_PAGE


def append_iops(qemu: Path, tmp: Path, zone_luns: int, qd: int, count: int) -> float:
    """Keep qd one-page appends outstanding into zone 0 until count completed."""
    zone_bytes = zone_luns * (1 << 20)
    props = (f"zone_luns={zone_luns},zone_cap={zone_bytes},zone_size={zone_bytes},zones=16,"
             "pg_wr_lat=1000000,pg_rd_lat=40000,ch_xfer_lat=0,blks_per_pl=64")
    with device(tmp, qemu, props) as m:
        nvme = m.nvme
        sq = enable(m, qd)
        buf = nvme.transfer(PAGE, scatter=False)
        cmd = Command(IO_ZONE_APPEND, nsid=ZNS_NSID, prp1=buf.prp1, prp2=buf.prp2,
                      cdw12=LBAS_PER_PAGE - 1)
        issued = done = 0
        start = time.monotonic()
        while done < count:
            batch = min(qd - (issued - done), count - issued)
            for _ in range(batch):
                nvme.submit(sq, cmd, ring=False)
            issued += batch
            if batch:
                nvme.ring_sq(sq)
            got = nvme.reap(sq.cq)
            for cqe in got:
                assert cqe.ok, str(cqe)
            done += len(got)
            nvme.done.clear()
        return count / (time.monotonic() - start)


def timed(nvme, sq, cmd) -> float:
    start = time.monotonic()
    cqe = nvme.run(sq, cmd)
    elapsed = time.monotonic() - start
    assert cqe.ok, str(cqe)
    return elapsed


def reset_cmd(zslba: int) -> Command:
    return Command(IO_ZONE_SEND, nsid=ZNS_NSID, cdw10=zslba & 0xFFFFFFFF, cdw11=zslba >> 32,
                   cdw13=ZSA_RESET)


def write_zone_pages(nvme, sq, zslba: int, pages: int) -> None:
    """Fill pages at zone zslba's write pointer, 64 pages (256 KiB) per Write."""
    step = 64
    buf = nvme.transfer(step * PAGE)
    for first in range(0, pages, step):
        n = min(step, pages - first)
        lba = zslba + first * LBAS_PER_PAGE
        cqe = nvme.run(sq, Command(IO_WRITE, nsid=ZNS_NSID, prp1=buf.prp1, prp2=buf.prp2,
                                   cdw10=lba & 0xFFFFFFFF, cdw11=lba >> 32,
                                   cdw12=n * LBAS_PER_PAGE - 1))
        assert cqe.ok, str(cqe)


def reset_latency(qemu: Path, tmp: Path, blk_er_lat: int, runs: int):
    props = (f"zone_luns=4,zones=16,blk_er_lat={blk_er_lat},pg_wr_lat=20000,"
             "pg_rd_lat=20000,ch_xfer_lat=0,blks_per_pl=64")
    zone = zone_lbas(4)
    with device(tmp, qemu, props) as m:
        nvme = m.nvme
        sq = enable(m, 1)
        empty, written = [], []
        for _ in range(runs):
            empty.append(timed(nvme, sq, reset_cmd(zone)))          # zone 1 stays empty
            write_zone_pages(nvme, sq, 0, 4 * 256)
            time.sleep(0.3)                                           # programs finish
            written.append(timed(nvme, sq, reset_cmd(0)))
            time.sleep(blk_er_lat / 1e9 + 0.05)
        return statistics.median(written), statistics.median(empty)


def copy_cmd(nvme, src_lba: int, pages: int, dest_lba: int) -> Command:
    """Copy pages from src_lba to dest_lba in ranges of 128 pages (MSSRL 1024 LBAs)."""
    ranges = []
    per_range = 128
    for first in range(0, pages, per_range):
        n = min(per_range, pages - first)
        ranges.append((src_lba + first * LBAS_PER_PAGE, n * LBAS_PER_PAGE))
    buf = nvme.transfer(4096, scatter=False)
    raw = b"".join(bytes(8) + slba.to_bytes(8, "little") + (nlb - 1).to_bytes(2, "little")
                   + bytes(14) for slba, nlb in ranges)
    nvme.fill(buf, raw.ljust(4096, b"\0"))
    return Command(IO_COPY, nsid=ZNS_NSID, prp1=buf.prp1, prp2=buf.prp2,
                   cdw10=dest_lba & 0xFFFFFFFF, cdw11=dest_lba >> 32, cdw12=len(ranges) - 1)


def copy_times(qemu: Path, tmp: Path, pages: int, runs: int, t):
    """Median seconds of: copyback copy, cross-LUN copy, host read + write."""
    props = (f"zone_luns=4,zones=24,pg_rd_lat={t['rd']},pg_wr_lat={t['wr']},"
             f"ch_xfer_lat={t['xfer']},blk_er_lat=100000,blks_per_pl=64")
    zone = zone_lbas(4)        # zone z is on LUN group z % 2
    with device(tmp, qemu, props) as m:
        nvme = m.nvme
        sq = enable(m, 1)
        write_zone_pages(nvme, sq, 0, pages)          # the source: zone 0, group 0
        time.sleep(0.5)
        results = {"copyback": [], "read + program": [], "host read + write": []}
        host_buf = nvme.transfer(pages * PAGE)
        for run in range(runs):
            same = (2 + 2 * run) * zone                # group 0: copyback
            other = (1 + 2 * run) * zone               # group 1: across LUNs
            results["copyback"].append(timed(nvme, sq, copy_cmd(nvme, 0, pages, same)))
            time.sleep(0.05)
            results["read + program"].append(timed(nvme, sq, copy_cmd(nvme, 0, pages, other)))
            time.sleep(0.05)
            start = time.monotonic()
            for cmd in (Command(IO_READ, nsid=ZNS_NSID, prp1=host_buf.prp1, prp2=host_buf.prp2,
                                cdw12=pages * LBAS_PER_PAGE - 1),
                        Command(IO_WRITE, nsid=ZNS_NSID, prp1=host_buf.prp1,
                                prp2=host_buf.prp2, cdw10=(other + pages * LBAS_PER_PAGE),
                                cdw12=pages * LBAS_PER_PAGE - 1)):
                cqe = nvme.run(sq, cmd)
                assert cqe.ok, str(cqe)
            results["host read + write"].append(time.monotonic() - start)
            time.sleep(0.05)
        return {k: statistics.median(v) for k, v in results.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("qemu", nargs="?", type=Path, default=REPO / "build-femu" / "qemu-system-x86_64")
    ap.add_argument("--appends", type=int, default=800, help="appends per QD point")
    ap.add_argument("--runs", type=int, default=5, help="repetitions of reset and copy points")
    ap.add_argument("--only", choices=("append", "reset", "copy"), action="append")
    args = ap.parse_args(argv)
    only = set(args.only or ("append", "reset", "copy"))
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        if "append" in only:
            print("Zone Append IOPS into one zone (t_PROG 1 ms; model = min(QD, LUNs) / t_PROG)")
            print(f"{'zone LUNs':>9} {'QD':>4} {'device IOPS':>12} {'model IOPS':>11}")
            for luns in (4, 8):
                for qd in (1, 4, 16, 32):
                    iops = append_iops(args.qemu, tmp, luns, qd, args.appends)
                    print(f"{luns:>9} {qd:>4} {iops:>12.0f} {min(qd, luns) * 1000:>11.0f}",
                          flush=True)
        if "reset" in only:
            print("\nZone reset latency (a zone of one written block on each of 4 LUNs)")
            print(f"{'blk_er_lat ms':>13} {'reset ms':>9} {'empty-zone reset ms':>20} "
                  f"{'difference ms':>14}")
            for lat_ms in (1, 2, 4, 8):
                written, empty = reset_latency(args.qemu, tmp, lat_ms * 1_000_000, args.runs)
                print(f"{lat_ms:>13} {written * 1e3:>9.2f} {empty * 1e3:>20.2f} "
                      f"{(written - empty) * 1e3:>14.2f}", flush=True)
        if "copy" in only:
            t = {"rd": 35000, "wr": 390000, "xfer": 24000}     # the ZNS+ MLC profile
            print("\nCopy of N pages (zones over 4 LUNs; t_R 35 us, t_PROG 390 us, t_xfer 24 us)")
            print(f"{'N':>4} {'copyback ms':>12} {'model':>7} {'read+prog ms':>13} "
                  f"{'model':>7} {'host read+write ms':>19}")
            for pages in (64, 256):
                r = copy_times(args.qemu, tmp, pages, args.runs, t)
                cb_model = pages / 4 * (t["rd"] + t["wr"]) / 1e6
                rw_model = pages / 4 * (t["rd"] + 2 * t["xfer"] + t["wr"]) / 1e6
                print(f"{pages:>4} {r['copyback'] * 1e3:>12.2f} {cb_model:>7.2f} "
                      f"{r['read + program'] * 1e3:>13.2f} {rw_model:>7.2f} "
                      f"{r['host read + write'] * 1e3:>19.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
