"""ftl-sim with Zone Random Write Areas: --rw zone-write --zrwa opens each zone with a ZRWA,
--zoned-journal N rewrites each block N times in its window (without --zrwa each version
goes to the write pointer), the zrwa_* counters, a recording that replays to the same
statistics, and the options' refusals. Figures worked by hand below."""
import pytest

# the zoned tests' helpers: runs from the repository's root, and a run's summary JSON
from test_zoned import _in_repo, summary_of  # noqa: F401

# lab-1g with the ZNS+ MLC profile (16 KiB pages, 390 us programs) and no channel time;
# 8 zones of 8 MiB, one ZRWA of the default 16 pages committed a page at a time.
T_PROG_US = 390
XFER_US = 0.453                     # into the window, per 4 KiB (read_cache_lat's figure)
ZONED = ["--config", "conf/lab-1g.conf", "--config", "conf/nand/mlc.conf",
         "--set", "ch_xfer_lat=0", "--set", "zoned=1", "--set", "zones=8",
         "--set", "zone_luns=4", "--set", "zone_cap=8M", "--set", "zrwa_zones=1"]
JOURNAL = ["--rw", "zone-write", "--zoned-journal", "8", "--bs", "16k", "--io-size", "8m"]


def test_journal_rewrites_in_the_window_cost_no_program(run_ftl_sim, tmp_path):
    """8 MiB of 16 KiB writes: 64 blocks x 8 versions. In the window the 7 rewrites of
    each block are transfers only; a block's first write past the 16-page window commits
    one page (blocks 16-63: 48 programs, each write waiting for its 390 us program), the
    last 16 blocks stay in the window. The Open with ZRWAA is a 513th command (0 us)."""
    s, _ = summary_of(run_ftl_sim, tmp_path, *ZONED, *JOURNAL, "--zrwa")
    assert (s["zrwa_writes"], s["zrwa_overwrites"]) == (512, 448)
    assert s["zrwa_commit_pages_implicit"] == s["zone_programs"] == s["NAND_write"] == 48
    assert s["zrwa_commit_pages_explicit"] == 0 and s["zone_errors"] == 0
    busy_us = 48 * T_PROG_US + (512 - 48) * 4 * XFER_US
    assert s["sim_time_s"] == pytest.approx(busy_us / 1e6, abs=1e-6)
    assert s["mean_latency_us"] == pytest.approx(busy_us / 513, abs=1e-3)


def test_without_zrwa_each_version_is_a_program(run_ftl_sim, tmp_path):
    s, _ = summary_of(run_ftl_sim, tmp_path, *ZONED, *JOURNAL)
    assert s["zone_write_cmds"] == s["zone_programs"] == s["NAND_write"] == 512
    assert s["zrwa_writes"] == 0
    assert s["mean_latency_us"] == pytest.approx(T_PROG_US)


def test_zone_end_finishes_and_commits_the_window(run_ftl_sim, tmp_path):
    """A whole 8 MiB zone (512 pages) written once through the window, then finished: 496
    implicit commits while writing, the 16 pages left committed by the Finish."""
    s, _ = summary_of(run_ftl_sim, tmp_path, *ZONED, "--rw", "zone-write", "--zrwa",
                      "--bs", "16k", "--io-size", "8m", "--stats-dir", tmp_path / "st")
    # the measured part ends with the last write; the Finish is the first command after it
    assert s["zrwa_commit_pages_implicit"] == 496
    assert s["zrwa_overwrites"] == 0
    s2, _ = summary_of(run_ftl_sim, tmp_path, *ZONED, "--rw", "zone-write", "--zrwa",
                       "--bs", "16k", "--io-size", "9m", name="s2.json")
    assert s2["zone_finishes"] == 1
    assert s2["zrwa_commit_pages_explicit"] == 16
    assert s2["zone_programs"] == 512 + s2["zrwa_commit_pages_implicit"] - 496
    header = (tmp_path / "st" / "stats.csv").read_text().splitlines()[0].split(",")
    at = header.index("zrwa_writes")    # lab-1g's power-state columns come after them
    assert header[at:at + 4] == ["zrwa_writes", "zrwa_overwrites", "zrwa_commit_pages_implicit",
                                 "zrwa_commit_pages_explicit"]


def test_a_recording_with_zrwa_replays_to_identical_statistics(run_ftl_sim, tmp_path):
    trace = tmp_path / "zrwa.trace"
    rec = tmp_path / "rec"
    run_ftl_sim(*ZONED, *JOURNAL, "--zrwa", "--io-size", "10m", "--trace-out", trace,
                "--stats-dir", rec)
    zm = [line.split()[3:5] for line in trace.read_text().splitlines()
          if line.startswith("ZM ")]
    assert zm[0] == ["open-zrwa", "0"]
    rep = tmp_path / "rep"
    run_ftl_sim(*ZONED, "--trace", trace, "--stats-dir", rep)
    names = sorted(p.name for p in rec.iterdir())
    assert "stats.csv" in names and "nand.csv" in names
    for name in names:
        assert (rep / name).read_text() == (rec / name).read_text(), name


def test_explicit_flush_record(run_ftl_sim, tmp_path):
    """A version-1 trace: open zone 0 with a ZRWA, 8 KiB (16 sectors) written at 0, then
    committed with a zrwa-flush to LBA 31 (32 sectors = 1 page of 16 KiB): one program."""
    trace = tmp_path / "hand.trace"
    trace.write_text("ZM open-zrwa 0 0\nZW 0 16\nZW 0 16\nZM zrwa-flush 31 0\n"
                     "ZM zrwa-flush 40 0\n")
    s, _ = summary_of(run_ftl_sim, tmp_path, *ZONED, "--trace", trace)
    assert (s["zrwa_writes"], s["zrwa_overwrites"]) == (2, 1)
    assert s["zrwa_commit_pages_explicit"] == s["zone_programs"] == 1
    assert s["zone_errors"] == 1            # LBA 40: 9 sectors, not a whole page


@pytest.mark.parametrize("args, message", [
    (["--rw", "zone-append", "--zrwa"], "--zrwa: opens the zones of --rw zone-write"),
    (["--rw", "zone-append", "--zoned-journal", "2"], "--zoned-journal: rewrites"),
    (["--rw", "zone-write", "--zoned-journal", "0"], "zoned-journal"),
    (["--rw", "zone-write", "--zrwa", "--bs", "512k"], "--bs: 524288 bytes is more than "
                                                       "zrwa_size (262144 bytes)"),
])
def test_bad_options(run_ftl_sim, args, message):
    proc = run_ftl_sim(*ZONED, *args, check=False)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_zrwa_needs_zrwa_zones(run_ftl_sim):
    proc = run_ftl_sim(*ZONED, "--set", "zrwa_zones=0", "--rw", "zone-write", "--zrwa",
                       check=False)
    assert proc.returncode == 2 and "--zrwa: the configuration has no Zone Random Write " \
                                    "Area" in proc.stderr, proc.stderr


def test_bad_config_key_names_the_key(run_ftl_sim):
    proc = run_ftl_sim(*ZONED, "--set", "zrwa_flush_gran=6k", "--rw", "zone-write",
                       check=False)
    assert proc.returncode == 2 and "zrwa_flush_gran: 6144 bytes is not a whole number of " \
                                    "16384-byte flash pages" in proc.stderr, proc.stderr


LAB = ["--config", "conf/zns-lab.conf", "--set", "max_open=4"]


def test_a_layout_8_zoned_state_loads_with_and_without_zrwa(run_ftl_sim, tmp_path):
    """tests/ftl/fixtures/state/v8-zns.state (before ZRWAs: zone 5 full, zone 6 half
    written) loads, under a configuration without ZRWAs and with one: zone 7 is then
    written whole (1024 pages), through its window in the second run."""
    old = "tests/ftl/fixtures/state/v8-zns.state"
    s, _ = summary_of(run_ftl_sim, tmp_path, *LAB, "--rw", "zone-write", "--bs", "4k",
                      "--io-size", "4m", "--zone", "7", "--state-in", old)
    assert s["zone_errors"] == 0 and s["zone_programs"] == 1024
    s, _ = summary_of(run_ftl_sim, tmp_path, *LAB, "--set", "zrwa_zones=1", "--rw",
                      "zone-write", "--zrwa", "--bs", "4k", "--io-size", "4m", "--zone", "7",
                      "--state-in", old, name="z.json")
    assert s["zone_errors"] == 0 and s["zrwa_writes"] == 1024


def test_a_state_keeps_the_zrwa_and_its_window(run_ftl_sim, tmp_path):
    """2 MiB of 4 KiB writes into zone 0's ZRWA: 512 pages, the last 16 (the window) not
    committed, so the committed write pointer is 496 x 8 = 3968 sectors. Restored from the
    state file, a flush to LBA 4095 commits exactly those 16 pages."""
    args = [*LAB, "--set", "zrwa_zones=1"]
    state = tmp_path / "half.state"
    first, _ = summary_of(run_ftl_sim, tmp_path, *args, "--rw", "zone-write", "--zrwa",
                          "--bs", "4k", "--io-size", "2m", "--state-out", state,
                          name="a.json")
    assert first["zrwa_commit_pages_implicit"] == 512 - 16
    trace = tmp_path / "flush.trace"
    trace.write_text("ZW 3960 8\nZM zrwa-flush 4095 0\n")   # below the wp: refused
    second, _ = summary_of(run_ftl_sim, tmp_path, *args, "--trace", trace, "--state-in",
                           state, name="b.json")
    assert second["zone_errors"] == 1
    assert second["zrwa_commit_pages_explicit"] == second["zone_programs"] == 16
