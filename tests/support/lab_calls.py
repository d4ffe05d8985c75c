"""femu-lab called in-process by the lab and Slurm tests, the CSVs it writes read back,
and the small devices those tests sweep."""
import csv

from femu_lab import cli as lab_cli

LAB_1G = "conf/lab-1g.conf"
# With LAB_1G: 64 MiB raw, 48 MiB logical (as tests/ftl-sim/test_ftl_sim_cli.py uses), so
# an ftl-sim point or ageing pass takes a fraction of a second.
SMALL_SIM = ["--set", "luns_per_ch=2", "--set", "pgs_per_blk=64", "--set", "ssd_size=48"]
# The device of femu_fixtures.py (SMALL_SSD): 96 MiB logical on 160 MiB of
# flash with short program/erase latencies, so GC starts within seconds under TCG.
SMALL_VM = [f"--set={key}={value}" for key, value in dict(
    nchs=2, luns_per_ch=4, pgs_per_blk=64, blks_per_pl=80, pls_per_lun=1, secsz=512,
    secs_per_pg=8, devsz_mb=96, pg_wr_lat=50000, blk_er_lat=500000).items()]


def lab(capsys, *args):
    """`femu-lab ARGS` in-process: (exit status, stdout lines, stderr lines)."""
    status = lab_cli.main([*map(str, args)])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err.splitlines()


def sweep(capsys, *args):
    """`femu-lab sweep ARGS` in-process: (exit status, stdout lines, stderr lines)."""
    return lab(capsys, "sweep", *args)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# A drop-in workload bound by what it writes, not by time: 192 MiB of 4 KiB random writes
# on SMALL_VM's 160 MiB of flash, so GC must erase blocks however fast or slow the host is.
GC_BY_SIZE = """# description: 192 MiB of random 4 KiB writes on the raw device (GC on SMALL_VM)
# runtime: 60
phase workload
fio_json fio-gc-by-size --name=gc-by-size --filename="$DEV" --rw=randwrite --bs=4k \\
    --ioengine=libaio --iodepth=16 --direct=1 --norandommap --io_size=192m
"""
