"""The zoned-namespace lab without a guest: the zns-* workloads' registration and command
lines, zns-compaction's plan (run by the host's sh and awk on lib/zns-compaction.sh), the
per-phase ZNS+ table, the zns conf files, and run-blackbox.sh's command line for them."""
import csv
import re
import subprocess

import pytest

from femu_lab import devconfig, workloads
from femu_lab.length import Length
from femu_lab.run import zns_report

ZNS_WORKLOADS = ("zns-fio", "zns-f2fs", "zns-compaction")
PLANNER = workloads.LIBRARY / "lib" / "zns-compaction.sh"


@pytest.fixture
def in_repo(monkeypatch, repo_root, ftl_sim):
    monkeypatch.chdir(repo_root)
    monkeypatch.setenv("FEMU_BUILD_DIR", str(ftl_sim.parents[2]))
    return repo_root


@pytest.mark.parametrize("name", ZNS_WORKLOADS)
def test_zoned_workloads_are_in_the_library_with_the_zoned_helpers(name):
    assert name in workloads.library_names()
    workload = workloads.resolve(name)
    assert "conf/zns-lab.conf" in workload.description
    assert workloads.LIBRARY / "lib" / "zns.sh" in workload.includes
    script = workload.guest_script(workload.runtime, precondition=False)
    assert "ZDEV=$(ns_dev 2)" in script and "\nzns_setup\n" in script
    assert "\nphase workload\n" in script and script.rstrip().endswith("finish_workload")


def test_zns_fio_runs_fio_in_zbd_mode_on_the_zoned_disk_with_resets():
    script = workloads.resolve("zns-fio").guest_script(60, precondition=False)
    body = script[script.index("\nzns_setup\n"):]
    for needed in ('--filename="$ZDEV" --zonemode=zbd', "--rw=write --bs=128k",
                   "--rw=randwrite --bs=4k", '--max_open_zones="$open"',
                   "--zone_reset_threshold=0.7 --zone_reset_frequency=0.01",
                   'blkzone reset "$ZDEV"', "zone_reports after-seqwrite", "zone_reports end",
                   'nvme zns report-zones "$ZDEV"'):
        assert needed in script, needed
    # seqwrite before the measured random writes, each half of RUNTIME
    assert body.index("phase seqwrite") < body.index("fio-zns-seqwrite") < \
        body.index("phase workload") < body.index("fio-zns-randwrite")
    assert body.count('--runtime="$half"') == 2 and "half=$((RUNTIME / 2))" in body


def test_zns_f2fs_puts_the_metadata_on_the_conventional_namespace():
    script = workloads.resolve("zns-f2fs").guest_script(120, precondition=False)
    assert 'mkfs.f2fs -f -m -c "$ZDEV" "$DEV"' in script      # zoned appended, DEV first
    assert 'mount -t f2fs -o noatime "$DEV" "$MNT"' in script
    assert "modprobe f2fs" in script
    assert script.index("modprobe f2fs") < script.index("mkfs.f2fs")
    assert "--fsync=32" in script and 'rm -rf "$MNT/set$((cycle - 2))"' in script
    assert "f2fs-status-after.txt" in script


def test_zns_compaction_marks_one_phase_per_method():
    workload = workloads.resolve("zns-compaction")
    assert workload.name == "zns-compaction:50" and workload.arg == "50"
    script = workload.guest_script(60, precondition=False)
    order = [script.index(mark) for mark in (
        "phase setup", "phase workload\nrun_method copy", "phase compact-rw\nrun_method rw",
        "phase verify")]
    assert order == sorted(order)
    assert "nvme id-ns \"$ZDEV\" -o json" in script


def run_planner(tmp_path, body: str, **variables) -> str:
    settings = "".join(f"{key}={value}\n" for key, value in variables.items())
    proc = subprocess.run(["sh", "-c", f"set -eu\n. {PLANNER}\n{settings}{body}"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def extents_of(text: str):
    return [tuple(int(x) for x in line.split()) for line in text.splitlines()]


def test_valid_extents_are_sorted_merged_and_inside_the_zone(tmp_path):
    text = run_planner(tmp_path, "valid_extents 3 50 8192 8")
    extents = extents_of(text)
    assert {v for v, _, _ in extents} == {0, 1, 2}
    for victim in range(3):
        mine = [(start, length) for v, start, length in extents if v == victim]
        for (start, length), (next_start, _) in zip(mine, mine[1:]):
            assert start + length < next_start          # sorted, apart (touching merged)
        assert all(start % 8 == 0 and length % 8 == 0 and length > 0 for start, length in mine)
        assert mine[-1][0] + mine[-1][1] <= 8192
    assert text == run_planner(tmp_path, "valid_extents 3 50 8192 8")
    assert run_planner(tmp_path, "valid_extents 2 100 8192 8").split("\n")[:2] == \
        ["0 0 8192", "1 0 8192"]
    assert run_planner(tmp_path, "valid_extents 2 0 8192 8") == ""


PLAN_SETTINGS = dict(ZDEV="/dev/nvme0n2", LBA_BYTES=512, zone_lbas=8192, cap_lbas=8000,
                     mssrl=64, mcl=256, msrc=3, chunk_bytes=65536, work=".")


def plan(tmp_path, method: str, first_victim: int, first_target: int):
    extents = run_planner(tmp_path, "valid_extents 3 60 8000 8")
    (tmp_path / "extents").write_text(extents)
    script = run_planner(tmp_path, f"compaction_plan {method} {first_victim} {first_target} "
                                   "<extents", **PLAN_SETTINGS)
    targets = [line.split() for line in (tmp_path / "targets").read_text().splitlines()]
    return extents_of(extents), script.splitlines(), targets


def covered(ranges):
    lbas = []
    for start, length in ranges:
        lbas.extend(range(start, start + length))
    return lbas


def test_copy_plan_moves_every_valid_lba_within_the_copy_limits(tmp_path):
    extents, lines, targets = plan(tmp_path, "copy", 0, 6)
    copies = [re.match(r"nvme copy /dev/nvme0n2 --sdlba=(\d+) --slbs=([\d,]+) "
                       r"--blocks=([\d,]+) >/dev/null$", line) for line in lines
              if line.startswith("nvme copy")]
    assert all(copies)
    resets = [line for line in lines if line.startswith("nvme zns reset-zone")]
    assert resets == [f"nvme zns reset-zone /dev/nvme0n2 --start-lba={v * 8192} >/dev/null"
                      for v in range(3)]
    assert lines[-1] == f"# {len(copies) + len(resets)} commands"
    sources, destinations = [], []
    for match in copies:
        slbs = [int(x) for x in match.group(2).split(",")]
        nlbs = [int(x) + 1 for x in match.group(3).split(",")]   # nvme-cli's are 0-based
        assert len(slbs) <= 4 and max(nlbs) <= 64 and sum(nlbs) <= 256
        sources += list(zip(slbs, nlbs))
        destinations.append((int(match.group(1)), sum(nlbs)))
    assert covered(sources) == covered((v * 8192 + s, n) for v, s, n in extents)
    # Destinations follow each other from each victim's target; targets fill zone 6 on.
    payload = {v: sum(n for w, _, n in extents if w == v) for v in range(3)}
    assert [(m, int(v), int(n)) for m, v, _, n in targets] == \
        [("copy", v, payload[v]) for v in range(3)]
    assert covered(destinations) == covered((int(first), int(n)) for _, _, first, n in targets)
    for _, _, first, n in targets:
        zone_start = int(first) // 8192 * 8192
        assert zone_start >= 6 * 8192 and int(first) + int(n) <= zone_start + 8000


def test_rw_plan_reads_every_valid_lba_and_appends_it_in_chunks(tmp_path):
    extents, lines, targets = plan(tmp_path, "rw", 3, 9)
    reads = [re.match(r"nvme read /dev/nvme0n2 --start-block=(\d+) --block-count=(\d+) "
                      r"--data-size=(\d+) --data=\./part-\d{4} >/dev/null$", line)
             for line in lines if line.startswith("nvme read")]
    appends = [re.match(r"nvme zns zone-append /dev/nvme0n2 --zslba=(\d+) --data-size=(\d+) "
                        r"--data=\./buf >/dev/null$", line)
               for line in lines if line.startswith("nvme zns zone-append")]
    assert all(reads) and all(appends)
    read_ranges = [(int(m.group(1)), int(m.group(2)) + 1) for m in reads]
    assert all(int(m.group(3)) == n * 512 <= 65536 for m, (_, n) in zip(reads, read_ranges))
    assert covered(read_ranges) == covered(((3 + v) * 8192 + s, n) for v, s, n in extents)
    assert all(int(m.group(2)) <= 65536 and int(m.group(1)) % 8192 == 0 for m in appends)
    assert sum(int(m.group(2)) for m in appends) == 512 * sum(n for _, _, n in extents)
    assert "nvme zns reset-zone /dev/nvme0n2 --start-lba=40960 >/dev/null" in lines
    assert all(int(first) >= 9 * 8192 for _, _, first, _ in targets)


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)


NAND_HEADER = ["time_s", "interval_s", *zns_report.COUNTS, "CH_util"]


def nand_row(t, read=0, write=0, cpbk=0, copies=0, resets=0, appends=0, util=0.0):
    return [f"{t:.3f}", "1.000", read, write, cpbk, copies, cpbk, resets, appends, 0, 0, util]


def test_phase_table_of_an_old_run_sums_whole_seconds_and_says_so(tmp_path):
    """phases.csv from before the snapshots (time_s,phase): the estimate from whole
    seconds, named as such in the table, zns-phases.csv and result.json."""
    write_csv(tmp_path / "phases.csv", ["time_s", "phase"],
              [["0.500", "setup"], ["3.200", "workload"], ["6.100", "compact-rw"],
               ["9.000", "end"]])
    write_csv(tmp_path / "nand.csv", NAND_HEADER, [
        nand_row(1, write=100), nand_row(2, write=28), nand_row(3),
        nand_row(4, cpbk=500, copies=3, resets=2, util=2.0), nand_row(5, cpbk=12), nand_row(6),
        nand_row(7, read=400, write=400, appends=4, resets=2, util=3.0), nand_row(8),
        nand_row(9), nand_row(10, read=7)])
    figures = zns_report.per_phase(tmp_path)
    assert [(f.phase, round(f.start_s, 1), round(f.end_s, 1)) for f in figures] == \
        [("setup", 0.5, 3.2), ("workload", 3.2, 6.1), ("compact-rw", 6.1, 9.0)]
    setup, copy, rw = (f.counts for f in figures)
    assert (setup["NAND_write"], setup["NAND_cpbk"]) == (128, 0)
    assert (copy["NAND_cpbk"], copy["copy_cmds"], copy["zone_resets"], copy["NAND_read"]) == \
        (512, 3, 2, 0)
    assert (rw["NAND_read"], rw["NAND_write"], rw["zone_appends"], rw["NAND_cpbk"]) == \
        (400, 400, 4, 0)
    assert round(figures[1].ch_util_mean, 3) == round(2.0 / 2.9, 3)
    rows = zns_report.record(tmp_path)
    assert [row["phase"] for row in rows] == ["setup", "workload", "compact-rw"]
    written = list(csv.DictReader(open(tmp_path / zns_report.TABLE_FILE)))
    assert written[1]["NAND_cpbk"] == "512" and written[2]["zone_appends"] == "4"
    text = zns_report.report_text(tmp_path)
    assert "compact-rw" in text.splitlines()[-1]
    assert "whole-second rows" in text.splitlines()[0]
    assert {row["source"] for row in rows} == {zns_report.WHOLE_SECONDS}
    assert {row["source"] for row in written} == {zns_report.WHOLE_SECONDS}


SNAPSHOT_COLUMNS = [*zns_report.COUNTS, "busy_chip_s"]


def snapshot(t, phase, **counts):
    return [f"{t:.3f}", phase, *(counts.get(c, 0) for c in SNAPSHOT_COLUMNS)]


def test_phase_table_reads_the_snapshots_not_whole_seconds(tmp_path):
    """Issue 41: `verify` starts at 8.4 s, inside the second 8-9 s that also ends
    `compact-rw`; the snapshots give each phase its own reads, where charging the second
    by its middle gave compact-rw the verify reads."""
    write_csv(tmp_path / "phases.csv", ["time_s", "phase", *SNAPSHOT_COLUMNS], [
        snapshot(1.5, "workload"),
        snapshot(4.25, "compact-rw", NAND_cpbk=500, copy_cmds=3, busy_chip_s=1.0),
        snapshot(8.4, "verify", NAND_cpbk=500, copy_cmds=3, NAND_read=400, NAND_write=400,
                 zone_appends=4, busy_chip_s=2.5),
        snapshot(10.4, "end", NAND_cpbk=500, copy_cmds=3, NAND_read=1200, NAND_write=400,
                 zone_appends=4, busy_chip_s=3.0)])
    write_csv(tmp_path / "nand.csv", NAND_HEADER, [
        nand_row(2, cpbk=200, copies=1), nand_row(3, cpbk=300, copies=2),
        nand_row(5, read=100, write=100), nand_row(8, read=200, write=300, appends=4),
        nand_row(9, read=500), nand_row(10, read=600), nand_row(10.4, read=100)])
    copy, rw, verify = zns_report.per_phase(tmp_path)
    assert (copy.phase, rw.phase, verify.phase) == ("workload", "compact-rw", "verify")
    assert (copy.counts["NAND_cpbk"], copy.counts["NAND_read"]) == (500, 0)
    assert (rw.counts["NAND_read"], rw.counts["NAND_write"], rw.counts["zone_appends"]) == \
        (400, 400, 4)
    assert (verify.counts["NAND_read"], verify.counts["NAND_write"]) == (800, 0)
    assert round(rw.ch_util_mean, 3) == round(1.5 / 4.15, 3)
    rows = zns_report.record(tmp_path)
    assert rows[1]["NAND_read"] == 400 and rows[1]["source"] == zns_report.SNAPSHOTS
    text = zns_report.report_text(tmp_path)
    assert "snapshots" in text.splitlines()[0] and "verify" in text.splitlines()[-1]


def test_phase_table_only_for_runs_that_used_zones_or_copy(tmp_path):
    write_csv(tmp_path / "phases.csv", ["time_s", "phase"], [["0.5", "workload"]])
    write_csv(tmp_path / "nand.csv", NAND_HEADER, [nand_row(1, read=5, write=9)])
    assert zns_report.per_phase(tmp_path) is None and zns_report.record(tmp_path) is None
    assert not (tmp_path / zns_report.TABLE_FILE).exists()
    (tmp_path / "nand.csv").unlink()
    assert zns_report.report_text(tmp_path) is None


def test_phase_table_prints_the_guests_compaction_table(tmp_path):
    write_csv(tmp_path / "phases.csv", ["time_s", "phase"], [["0.5", "workload"]])
    write_csv(tmp_path / "nand.csv", NAND_HEADER, [nand_row(1, cpbk=3, copies=1)])
    write_csv(tmp_path / "compaction.csv",
              ["method", "victims", "valid_pct", "valid_blocks", "extents", "commands",
               "seconds", "verified"],
              [["copy", 8, 50, 4000, 400, 12, "1.20", "8/8"],
               ["rw", 8, 50, 4000, 400, 420, "9.85", "8/8"]])
    text = zns_report.report_text(tmp_path)
    lines = text.splitlines()
    assert lines[-2].split() == ["copy", "8", "50", "4000", "12", "1.20", "8/8"]
    assert lines[-1].split() == ["rw", "8", "50", "4000", "420", "9.85", "8/8"]
    assert text.startswith("ZNS+ figures per phase")
    (tmp_path / "nand.csv").unlink()    # a device without nand.csv: the guest's table alone
    assert zns_report.report_text(tmp_path).splitlines()[-2:] == lines[-2:]


@pytest.mark.parametrize("conf, expected", [
    ("conf/zns-lab.conf", {"zoned": "1", "zones": "128", "zone_luns": "4",
                           "zone_size": str(4 << 20), "zone_cap": str(4 << 20),
                           "max_open": "14", "max_active": "0", "secs_per_pg": "8"}),
    ("conf/zns-mlc.conf", {"zoned": "1", "zones": "96", "zone_size": str(8 << 20),
                           "secs_per_pg": "32", "pgs_per_blk": "128", "pg_wr_lat": "390000",
                           "ch_xfer_lat": "24000"}),
])
def test_zns_confs_validate_with_the_zoned_keys(in_repo, conf, expected):
    config = devconfig.load(conf, {})
    for key, value in expected.items():
        assert config.values[key] == value, key
    # the conventional namespace: ssd_size, big enough for F2FS's metadata area (20 MiB)
    assert config.logical_bytes >= 32 << 20


@pytest.mark.integration   # the real run-blackbox.sh, which runs scripts/install-deps.sh
def test_run_blackbox_takes_the_zoned_config_and_workload(in_repo, tmp_path):
    """Everything checked before a VM boots: the config, the workload, then --out (an
    existing folder, so the run stops there with exit status 2)."""
    command = [str(in_repo / "build-femu" / "run-blackbox.sh"), "--config",
               "conf/zns-lab.conf", "--workload", "zns-fio", "--runtime", "60",
               "--out", str(tmp_path)]
    proc = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == \
        f"run-blackbox.sh: error: --out {tmp_path} already exists"


def test_live_progress_shows_the_zone_commands_of_the_last_second(tmp_path):
    from femu_lab.run import live_progress
    (tmp_path / "stats.csv").write_text(
        "time_s,interval_s,host_write_pages,gc_moved_pages,gc_erased_blocks,iops\n"
        "1.0,1,0,0,0,0\n2.0,1,0,0,0,0\n")
    (tmp_path / "phases.csv").write_text("time_s,phase\n0.5,workload\n")
    write_csv(tmp_path / "nand.csv", ["time_s", "interval_s", "zone_writes", "zone_appends",
                                      "zone_reads"], [["1.000", "1.000", 900, 0, 0],
                                                      ["2.000", "1.000", 1500, 600, 40]])
    shot, plan = live_progress.snapshot(tmp_path), Length(seconds=60)
    assert shot.zone_cmds == 2140
    assert "| 0.0k IOPS | 2.1k zone cmds/s |" in live_progress.describe(shot, 10, plan)
    write_csv(tmp_path / "nand.csv", ["time_s", "interval_s", "zone_writes", "zone_appends",
                                      "zone_reads"], [["1.000", "1.000", 0, 0, 0]])
    shot = live_progress.snapshot(tmp_path)   # never zoned: the line as before
    assert shot.zone_cmds is None and "zone" not in live_progress.describe(shot, 10, plan)
