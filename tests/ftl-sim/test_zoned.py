"""ftl-sim's zoned mode: synthetic zone-append and zone-write workloads, version-3 traces
(recorded, hand-written untimed ones) replayed through the engine's zone admission, zone
errors counted, and the ZNS+ counters in the summary."""
import json

import pytest

# lab-1g with the ZNS+ MLC profile and no channel time, so that a page costs exactly one
# 390 us program; 8 zones of 8 MiB, each one block on each of its 4 LUNs.
T_PROG_US = 390
T_ERASE_US = 4000
ZONED = ["--config", "conf/lab-1g.conf", "--config", "conf/nand/mlc.conf",
         "--set", "ch_xfer_lat=0", "--set", "zoned=1", "--set", "zones=8",
         "--set", "zone_luns=4", "--set", "zone_cap=8M"]
PAGE = 16384
ZONE_CAP = 8 << 20


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)  # config paths are relative to the repository


def summary_of(run_ftl_sim, tmp_path, *args, name="s.json"):
    path = tmp_path / name
    proc = run_ftl_sim(*args, "--summary", path)
    return json.loads(path.read_text()), proc


@pytest.mark.parametrize("zone_luns", [4, 8])
def test_append_iops_rises_with_qd_up_to_the_zones_luns(run_ftl_sim, tmp_path, zone_luns):
    """Appends queued together program their pages on the zone's LUNs in turn: with qd
    outstanding, min(qd, zone_luns) programs overlap, so n appends of a page take
    n / min(qd, zone_luns) program times, each append exactly one program."""
    appends = 512
    # one 2 MiB block (128 pages of 16 KiB) on each of the zone's LUNs
    args = [*ZONED, "--set", f"zone_luns={zone_luns}", "--set", f"zone_cap={2 * zone_luns}M",
            "--rw", "zone-append", "--bs", "16k", "--io-size", str(appends * PAGE)]
    iops = {}
    for qd in (1, 2, 4, 8, 16, 32):
        s, _ = summary_of(run_ftl_sim, tmp_path, *args, "--qd", qd, name=f"qd{qd}.json")
        overlap = min(qd, zone_luns)
        assert s["zone_append_cmds"] == s["writes"] == appends
        assert s["zone_programs"] == s["NAND_write"] == appends
        assert s["sim_time_s"] == pytest.approx(appends // overlap * T_PROG_US / 1e6,
                                                abs=1e-6)
        if qd <= zone_luns:
            assert s["mean_latency_us"] == pytest.approx(T_PROG_US)  # no queueing yet
        iops[qd] = s["iops"]
    print(f"zone_luns {zone_luns}: append IOPS by QD {iops}")
    for qd, rate in iops.items():   # the summary rounds IOPS to 0.01
        assert rate == pytest.approx(min(qd, zone_luns) * iops[1], rel=1e-5), qd


def test_zone_append_resets_the_zone_when_full(run_ftl_sim, tmp_path):
    per_zone = ZONE_CAP // PAGE
    s, proc = summary_of(run_ftl_sim, tmp_path, *ZONED, "--rw", "zone-append", "--bs", "16k",
                         "--zone", "3", "--io-size", str(2 * ZONE_CAP))
    assert (s["zone_append_cmds"], s["zone_resets"], s["zone_erased_blocks"]) == (
        2 * per_zone, 1, 4)                 # one block on each of the zone's 4 LUNs
    assert s["zone_mgmt_cmds"] == 1 and s["zone_errors"] == 0
    # qd 1: every append one program; the reset waits its erase before the next append
    assert s["sim_time_s"] == pytest.approx((2 * per_zone * T_PROG_US + T_ERASE_US) / 1e6,
                                            abs=1e-6)
    assert "zones: 0 writes, 1024 appends, 0 reads, 1 resets (4 blocks erased), " \
           "0 finishes, 0 refused" in proc.stdout


def test_zone_write_goes_zone_after_zone_finishing_and_resetting(run_ftl_sim, tmp_path):
    """48 KiB writes fill 170 of a zone's 512 pages x 3: each zone is finished, and after
    the eighth zone the first ones are reset before they are written again."""
    per_zone = ZONE_CAP // (48 << 10)
    s, _ = summary_of(run_ftl_sim, tmp_path, *ZONED, "--rw", "zone-write", "--bs", "48k",
                      "--qd", "4", "--io-size", str(10 * per_zone * (48 << 10)))
    assert s["zone_write_cmds"] == 10 * per_zone and s["zone_append_cmds"] == 0
    assert s["zone_finishes"] == 9          # the tenth zone's finish is not issued
    assert (s["zone_resets"], s["zone_erased_blocks"]) == (2, 8)
    assert s["zone_programs"] == 10 * per_zone * 3 and s["zone_errors"] == 0
    # by default: one pass over every zone, no reset
    s, _ = summary_of(run_ftl_sim, tmp_path, *ZONED, "--rw", "zone-write", "--bs", "48k",
                      name="default.json")
    assert (s["zone_write_cmds"], s["zone_finishes"], s["zone_resets"]) == (8 * per_zone, 7, 0)


def comparable(summary):
    return {k: v for k, v in summary.items()
            if k not in ("workload", "trace_input", "config_file", "config_files")}


def test_a_recorded_zoned_run_replays_with_identical_counters(run_ftl_sim, tmp_path):
    trace = tmp_path / "za.trace"
    recorded, _ = summary_of(run_ftl_sim, tmp_path, *ZONED, "--rw", "zone-append",
                             "--bs", "16k", "--qd", "8", "--io-size", "20m",
                             "--trace-out", trace, name="recorded.json")
    lines = trace.read_text().splitlines()
    assert lines[0] == "V 3"
    assert sum(line.startswith("ZA ") for line in lines) == 1280
    assert [line.split()[:5] for line in lines if line.startswith("ZM ")] == [
        ["ZM", line.split()[1], "2", "reset", "0"] for line in lines if line.startswith("ZM ")]
    assert recorded["zone_resets"] == 2
    replayed, _ = summary_of(run_ftl_sim, tmp_path, *ZONED, "--trace", trace,
                             name="replayed.json")
    assert comparable(replayed) == comparable(recorded)


HAND = """# a hand-written compaction trace: version 1, no times
ZW 0 32          # zone 0: one 16 KiB page at the write pointer
ZW 0 32          # not at the write pointer: Zone Invalid Write
ZA 16 32         # an append not at a zone start
ZW 32 64
ZR 0 96
ZM finish 0 0
ZW 96 32         # zone 0 is full
C 16384 1 0 96   # its 3 pages copied to zone 1
ZM reset 0 0
W 0 64
C 1024 0 0 64    # a copy in the conventional space
"""


def test_a_hand_written_compaction_trace(run_ftl_sim, tmp_path):
    trace, again = tmp_path / "hand.trace", tmp_path / "again.trace"
    trace.write_text(HAND)
    s, proc = summary_of(run_ftl_sim, tmp_path, *ZONED, "--trace", trace, "--trace-out",
                         again)
    assert s["zone_errors"] == 3            # refused, counted, and the replay went on
    assert (s["zone_write_cmds"], s["zone_read_cmds"], s["zone_append_cmds"]) == (2, 1, 0)
    assert (s["zone_finishes"], s["zone_resets"], s["zone_mgmt_cmds"]) == (1, 1, 2)
    assert (s["copy_cmds"], s["copy_pages"]) == (2, 3 + 2)
    assert "3 refused" in proc.stdout
    # recorded as version 3 with the times it ran at; refused records are recorded too
    records = [line.split() for line in again.read_text().splitlines()
               if line and not line.startswith(("#", "P", "E"))]
    assert again.read_text().startswith("V 3\n")
    assert [r[0] for r in records[1:]] == ["ZW", "ZW", "ZA", "ZW", "ZR", "ZM", "ZW", "C", "ZM",
                                           "W", "C"]
    assert records[8] == ["C", records[8][1], "2", "16384", "1", "0", "96"]
    replayed, _ = summary_of(run_ftl_sim, tmp_path, *ZONED, "--trace", again,
                             name="replayed.json")
    assert comparable(replayed) == comparable(s)


@pytest.mark.parametrize("args, message", [
    (["--rw", "zone-append"], "--rw zone-append: needs a zoned namespace (zoned=1"),
    ([*ZONED[:4], "--rw", "randwrite", "--zone", "1"], "--zone: picks the zone of --rw"),
    ([*ZONED, "--rw", "zone-append", "--zone", "8"], "--zone: 8 is not below the 8 zones"),
    ([*ZONED, "--rw", "zone-append", "--bs", "16m"], "--bs: 16777216 bytes is more than a "
     "zone's capacity"),
    ([*ZONED, "--rw", "zone-write", "--size", "1m"], "--size: the conventional space's"),
])
def test_zoned_mode_errors_are_one_line(run_ftl_sim, args, message):
    base = [] if args[0] == "--config" else ["--config", "conf/lab-1g.conf"]
    proc = run_ftl_sim(*base, *args, check=False)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr


@pytest.mark.parametrize("zoned, content, message", [
    (False, "ZW 0 8\n", ":1: a zone record needs a zoned namespace"),
    (True, "ZW 999999999 8\n", ":1: sectors 999999999..1000000006 are beyond the zoned "
     "namespace's 131072 512-byte sectors"),
    (True, "V 3\nC 0 2 0 1 999999999 8\n", ":2: sectors 999999999..1000000006 are beyond "
     "the zoned namespace's"),
])
def test_bad_zone_records_are_one_line(run_ftl_sim, tmp_path, zoned, content, message):
    trace = tmp_path / "bad.trace"
    trace.write_text(content)
    config = ZONED if zoned else ["--config", "conf/lab-1g.conf"]
    proc = run_ftl_sim(*config, "--trace", trace, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{trace}{message}" in lines[0], proc.stderr


def test_a_conventional_run_reports_zero_zns_counters_and_records_version_2(run_ftl_sim,
                                                                            tmp_path):
    trace = tmp_path / "conv.trace"
    s, proc = summary_of(run_ftl_sim, tmp_path, "--config", "conf/lab-1g.conf",
                         "--io-size", "4m", "--trace-out", trace)
    assert s["NAND_write"] == s["host_write_pages"] == 1024 and s["NAND_read"] == 0
    for key in ("NAND_cpbk", "copy_cmds", "copy_pages", "zone_write_cmds", "zone_append_cmds",
                "zone_resets", "zone_errors"):
        assert s[key] == 0, key
    text = proc.stdout.splitlines()
    order = [next(i for i, line in enumerate(text) if line.startswith(prefix))
             for prefix in ("WAF", "NAND:", "copy:", "zones:")]
    assert order == sorted(order)
    assert trace.read_text().startswith("V 2\n")
