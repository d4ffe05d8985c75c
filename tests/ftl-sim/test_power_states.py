"""ftl-sim's power-state options (docs/energy.md, "Power states"): --apst linux's table
worked by hand from Linux's rule for the page's four-state drive, read back from the
recording's PA record; --power-state on a half-speed state halving QD1 read IOPS; a
recording with power commands and idle gaps replaying to identical statistics; every bad
key and bad option refused in one line naming it.

The drive: conf/lab-1g.conf's own table (docs/energy.md): PS0 6 W, PS1 4 W at perf 67,
PS2 3 W at perf 50 (all operational), PS3 non-operational (enlat 1000 us, exlat 2000 us:
3 ms), PS4 non-operational (enlat 5000, exlat 20000: 25 ms). Linux, from the deepest state
up: PS4's 25 ms is past the 15 ms tier, within 100 ms: the target after 2000 ms; PS3's
3 ms is within 15 ms: the target after 100 ms of PS0 to PS2, while PS3's own entry keeps
PS4's. Entries: 100:3 100:3 100:3 2000:4."""
import pytest

from test_zoned import _in_repo, summary_of  # noqa: F401

DRIVE = ["--config", "conf/lab-1g.conf"]
READS = ["--rw", "randread", "--bs", "4k", "--qd", "1", "--io-size", "1m"]


def recorded(run_ftl_sim, tmp_path, *args):
    """The power records a run with args recorded (its trace's version line first)."""
    trace = tmp_path / "run.trace"
    run_ftl_sim(*DRIVE, *READS, "--trace-out", trace, *args)
    lines = trace.read_text().splitlines()
    return [lines[0]] + [l for l in lines if l.split()[0] in ("PS", "PA", "PG")]


@pytest.mark.parametrize("apst, record", [
    ("linux", "PA 0 1 100:3 100:3 100:3 2000:4"),
    ("linux:100000", "PA 0 1 100:3 100:3 100:3 2000:4"),
    ("linux:20000", "PA 0 1 100:3 100:3 100:3 2000:4"),   # PS4's exit is 20000 us
    ("linux:19999", "PA 0 1 100:3 100:3 100:3"),    # PS4 out: PS3 the only target
    ("linux:2000", "PA 0 1 100:3 100:3 100:3"),
    ("linux:1999", "PA 0 1"),                        # no state left: APST on, no entry
    ("linux:0", "PA 0 0"),                           # Linux turns APST off
    ("off", "PA 0 0"),
    ("0:50:3,2:7:4,1:16777215:4", "PA 0 1 50:3 16777215:4 7:4"),
])
def test_apst_table_recorded(run_ftl_sim, tmp_path, apst, record):
    assert recorded(run_ftl_sim, tmp_path, "--apst", apst) == ["V 8", record]


def test_power_state_and_table_come_first(run_ftl_sim, tmp_path):
    assert recorded(run_ftl_sim, tmp_path, "--power-state", "1", "--apst", "linux") == [
        "V 8", "PS 0 1", "PA 0 1 100:3 100:3 100:3 2000:4"]
    # without the options nothing is recorded that a version-7 reader lacks
    assert recorded(run_ftl_sim, tmp_path) == ["V 2"]


def test_slower_states_stretch_qd1_reads(run_ftl_sim, tmp_path):
    """lab-1g senses a page in 40 us: 25000 QD1 reads a second in PS0; PS2 (perf 50) takes
    80 us, 12500 a second; PS1 (perf 67) 40000 x 100 / 67 = 59701 ns (rounded down)."""
    base = ["--precondition", "seq", *READS]
    full, _ = summary_of(run_ftl_sim, tmp_path, *DRIVE, *base)
    half, _ = summary_of(run_ftl_sim, tmp_path, *DRIVE, *base, "--power-state", "2",
                         name="half.json")
    ps1, _ = summary_of(run_ftl_sim, tmp_path, *DRIVE, *base, "--power-state", "1",
                        name="ps1.json")
    assert full["read_iops"] == pytest.approx(25000.0)
    assert half["read_iops"] == pytest.approx(12500.0)
    assert ps1["read_iops"] == pytest.approx(1e9 / 59701)


def test_a_recording_with_idle_gaps_replays_to_identical_statistics(run_ftl_sim, tmp_path):
    trace, rec, rep = tmp_path / "run.trace", tmp_path / "rec", tmp_path / "rep"
    run_ftl_sim(*DRIVE, "--apst", "linux", "--power-state", "1", "--rw", "randrw",
                "--bs", "16k", "--qd", "4", "--io-size", "8m", "--idle", "2m:2500ms",
                "--trace-out", trace, "--stats-dir", rec)
    run_ftl_sim(*DRIVE, "--trace", trace, "--stats-dir", rep, "--trace-out",
                tmp_path / "again.trace")
    for name in sorted(p.name for p in rec.iterdir()):
        assert (rep / name).read_text() == (rec / name).read_text(), name
    assert (tmp_path / "again.trace").read_text() == trace.read_text()


def test_replay_on_a_drive_without_the_states_counts_them(run_ftl_sim, tmp_path):
    trace = tmp_path / "run.trace"
    run_ftl_sim(*DRIVE, *READS, "--power-state", "3", "--trace-out", trace)
    proc = run_ftl_sim(*DRIVE, "--set", "ps_count=3", "--trace", trace)
    assert "power commands refused: 1 of 1 (states past ps_count)" in proc.stdout


@pytest.mark.parametrize("args, message", [
    (["--power-state", "5"], "--power-state: 5 is not a power state of this drive "
                             "(ps_count 5: 0 to 4)"),
    (["--power-state", "32"], "--power-state: '32' is not a power state (0 to 31)"),
    (["--power-state", "-1"], "--power-state: '-1' is not a power state"),
    (["--apst", "linux:x"], "--apst: 'linux:x': linux:US needs US"),
    (["--apst", "linux:"], "--apst: 'linux:': linux:US needs US"),
    (["--apst", "0:100:1"], "--apst: entry 0:100:1 moves to an operational state"),
    (["--apst", "0:100:0"], "--apst: entry 0:100:0 moves to an operational state"),
    (["--apst", "0:100:5"], "--apst: entry 0:100:5 names a power state this drive does "
                            "not have (ps_count 5)"),
    (["--apst", "5:100:3"], "--apst: entry 5:100:3 names a power state"),
    (["--apst", "0:100:3,0:50:4"], "--apst: state 0 given twice"),
    (["--apst", "0:0:3"], "--apst: entry '0:0:3': an idle time of 0 ms is no transition"),
    (["--apst", "0:16777216:3"], "--apst: entry '0:16777216:3' is not STATE:ITPT_MS:ITPS"),
    (["--apst", "0:100"], "--apst: entry '0:100' is not STATE:ITPT_MS:ITPS"),
    (["--apst", "0:100:3,"], "--apst: entry '' is not STATE:ITPT_MS:ITPS"),
    (["--apst", "on"], "--apst: entry 'on' is not STATE:ITPT_MS:ITPS"),
])
def test_bad_options_name_the_option(run_ftl_sim, args, message):
    proc = run_ftl_sim(*DRIVE, *READS, *args, check=False)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.mark.parametrize("setting, message", [
    ("ps_count=0", "ps_count: 0 is out of range [1, 32]"),
    ("ps_count=33", "ps_count: 33 is out of range [1, 32]"),
    ("ps5_idle_mw=3", "ps5_idle_mw: set, but ps_count is 5 (power states 0-4)"),
    ("ps31_perf_pcent=1", "ps31_perf_pcent: set, but ps_count is 5"),
    ("ps2_max_mw=4001", "ps2_max_mw: 4001 mW is more than ps1_max_mw (4000 mW): power "
                         "states not ordered"),
    ("ps0_nonop=1", "ps0_nonop: power state 0 must be operational"),
    ("ps1_perf_pcent=0", "ps1_perf_pcent: 0 on an operational state"),
    ("ps1_perf_pcent=101", "ps1_perf_pcent: 101 is out of range [0, 100]"),
    ("ps1_idle_mw=4001", "ps1_idle_mw: 4001 mW is more than the state's max_mw (4000)"),
    ("ps1_active_mw=4001", "ps1_active_mw: 4001 mW is more than the state's max_mw"),
    ("ps0_max_mw=655351", "ps0_max_mw: 655351 is out of range [0, 655350]"),
    ("ps2_exlat_us=100000001", "ps2_exlat_us: 100000001 is out of range [0, 100000000]"),
    ("ps2_enlat_us=-1", "ps2_enlat_us: '-1' is not a non-negative integer"),
    ("ps2_nonop=2", "ps2_nonop: '2' is not one of off, on, 0, 1"),
    ("ps32_max_mw=1", "ps32_max_mw: unknown key"),
])
def test_bad_keys_name_the_key(run_ftl_sim, setting, message):
    proc = run_ftl_sim(*DRIVE, "--set", setting, *READS, check=False)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_print_config_leaves_out_unused_states(run_ftl_sim):
    out = run_ftl_sim(*DRIVE, "--print-config").stdout
    keys = [l.split("=")[0] for l in out.splitlines() if l.startswith("ps")]
    assert keys[0] == "ps_count" and len(keys) == 1 + 5 * 7
    assert keys[-1] == "ps4_perf_pcent"


def test_a_later_ps_count_shortens_the_table(run_ftl_sim):
    """--set ps_count=3 drops lab-1g's PS3 and PS4; a state --set gives before a --set
    ps_count that drops it is refused, not lost."""
    out = run_ftl_sim(*DRIVE, "--set", "ps_count=3", "--print-config").stdout
    keys = [l.split("=")[0] for l in out.splitlines() if l.startswith("ps")]
    assert len(keys) == 1 + 3 * 7 and keys[-1] == "ps2_perf_pcent"
    proc = run_ftl_sim(*DRIVE, "--set", "ps4_max_mw=1", "--set", "ps_count=4", *READS,
                       check=False)
    assert proc.returncode == 2, proc.stderr
    assert "--set ps4_max_mw: set, but ps_count is 4 (power states 0-3)" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_idle_gaps_sleep_and_pay_the_exit(run_ftl_sim, tmp_path):
    """Linux's table on lab-1g, 1024 QD1 reads of 40 us with 2500 ms idle after every 256:
    each gap is 100 ms in PS0, PS3 from 100 ms (its 1 ms entry counted there) to 2100 ms,
    then PS4 for the last 400 ms; the read after each of the first three gaps waits PS4's
    20 ms exit (its entry ended at 2105 ms), counted in PS0. PS0: 1024 x 40 us + 4 x 100 ms
    + 3 x 20 ms = 500.96 ms; PS3 4 x 2 s; PS4 4 x 0.4 s."""
    s, proc = summary_of(run_ftl_sim, tmp_path, *DRIVE, "--apst", "linux", *READS[:-1],
                         "4m", "--idle", "1m:2500ms", "--precondition", "seq")
    assert s["ps_time_s"] == pytest.approx([0.50096, 0.0, 0.0, 8.0, 1.6], abs=1e-9)
    assert s["ps_exits"] == 3
    assert s["ps_exit_wait_us"] == pytest.approx(60000.0)
    assert s["ps_exit_wait_us_per_exit"] == pytest.approx(20000.0)
    assert ("3 exits from non-operational states; commands waited 60000.000 us for them, "
            "20000.000 us per exit") in proc.stdout
