"""ftl-sim --state-out / --state-in: a run continues from a saved FTL exactly where it
left off (GC from the first request), the summary names both files, and a file that
cannot be used is one line and exit status 2 before anything runs."""
import json
import os

import pytest

LAB_1G = "conf/lab-1g.conf"
# Line GC: a paced device owes the flash GC work it pays in idle time, so even a one-page
# read before a save changes the figures after it (tests/ftl/test_state.c pins paced GC's
# round trips request for request).
SMALL = ["--config", LAB_1G, "--set", "luns_per_ch=2", "--set", "pgs_per_blk=64",
         "--set", "ssd_size=48", "--set", "gc_mode=line"]
RANDWRITE = ["--rw", "randwrite", "--bs", "4k", "--qd", "8"]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)   # config paths are relative to the repository


def summary(run_ftl_sim, path, *args):
    run_ftl_sim(*args, "--summary", path)
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def aged(tmp_path_factory, run_ftl_sim):
    """A small device filled and then overwritten twice at random: (state, its summary)."""
    folder = tmp_path_factory.mktemp("state")
    state = folder / "aged.state"
    s = summary(run_ftl_sim, folder / "aged.json", *SMALL, *RANDWRITE, "--precondition",
                "seq", "--io-size", "96m", "--seed", "3", "--state-out", state)
    return state, s


def test_a_run_from_a_state_starts_where_the_saved_one_stopped(run_ftl_sim, tmp_path, aged):
    state, saved = aged
    assert saved["state_out"] == str(state) and saved["state_in"] is None
    assert saved["waf"] > 2                          # the saved device is in steady state
    fresh = summary(run_ftl_sim, tmp_path / "fresh.json", *SMALL, *RANDWRITE,
                    "--io-size", "8m")
    cont = summary(run_ftl_sim, tmp_path / "cont.json", *SMALL, *RANDWRITE, "--io-size", "8m",
                   "--state-in", state)
    assert cont["state_in"] == str(state) and cont["state_out"] is None
    assert fresh["waf"] == 1.0 and fresh["gc_write_pages"] == 0   # an empty device
    assert cont["gc_write_pages"] > 0 and cont["waf"] > 2          # GC from the start


def test_save_restore_save_is_the_same_device(run_ftl_sim, tmp_path, aged):
    """Two runs of the same requests from one state give the same figures, and a state
    saved after a zero-length continuation restores to the same figures again."""
    state, _ = aged
    again = tmp_path / "again.state"
    a = summary(run_ftl_sim, tmp_path / "a.json", *SMALL, *RANDWRITE, "--io-size", "4m",
                "--seed", "9", "--state-in", state)
    run_ftl_sim(*SMALL, "--rw", "read", "--bs", "4k", "--io-size", "4k", "--state-in", state,
                "--state-out", again)
    b = summary(run_ftl_sim, tmp_path / "b.json", *SMALL, *RANDWRITE, "--io-size", "4m",
                "--seed", "9", "--state-in", again)
    for key in ("waf", "gc_write_pages", "erased_blocks", "host_write_pages"):
        assert a[key] == b[key], key


def test_unusable_states_are_one_line(run_ftl_sim, tmp_path, aged):
    state, _ = aged
    garbage = tmp_path / "garbage.state"
    garbage.write_bytes(b"not a state file at all" * 10)
    cut = tmp_path / "cut.state"
    cut.write_bytes(state.read_bytes()[:-100])
    # A header, then 64 GiB of holes: every 20 zero bytes would be an empty section. The
    # reader refuses the first section header it does not know, reading nothing more.
    holes = tmp_path / "holes.state"
    holes.write_bytes(state.read_bytes()[:24])
    os.truncate(holes, 64 << 30)
    # The first section (META) claiming 1 TiB of holes, then an end record (CRCs wrong):
    # refused by its length, never read.
    huge = tmp_path / "huge.state"
    first = bytearray(state.read_bytes()[:40])
    first[32:40] = (1 << 40).to_bytes(8, "little")
    with open(huge, "wb") as out:
        out.write(first)
        out.seek(40 + (1 << 40) + 4)
        out.write(b"END \0\0\0\0" + (4).to_bytes(8, "little") + bytes(8))
    cases = [
        ([*SMALL, "--state-in", holes],
         "corrupt (section ????: not a section of this configuration's state)"),
        ([*SMALL, "--state-in", huge],
         "corrupt (section META: 1099511627776 bytes, this configuration's state has at most"),
        ([*SMALL, "--state-in", tmp_path / "missing.state"], "missing.state"),
        ([*SMALL, "--state-in", garbage], "not a femu state file"),
        ([*SMALL, "--state-in", cut], "truncated"),
        ([*SMALL, "--set", "placement=hotcold", "--state-in", state],
         "recorded with placement=single, this device has placement=hotcold"),
        ([*SMALL, "--set", "ssd_size=40", "--state-in", state], "devsz_mb"),
        ([*SMALL, "--precondition", "seq", "--state-in", state],
         "--precondition and --state-in exclude each other"),
        ([*SMALL, "--state-out", tmp_path / "no" / "such.state"], "its folder does not exist"),
    ]
    for args, message in cases:
        proc = run_ftl_sim(*args, "--rw", "write", "--io-size", "4k", check=False)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2, (args, proc.stderr)
        assert len(lines) == 1 and message in lines[0], (args, proc.stderr)
        assert proc.stdout == ""


def test_timings_may_differ_and_the_state_is_not_changed_by_reading_it(run_ftl_sim, tmp_path,
                                                                        aged):
    state, _ = aged
    before = state.read_bytes()
    s = summary(run_ftl_sim, tmp_path / "slow.json", *SMALL, "--set", "pg_wr_lat=900000",
                "--set", "gc_policy=cost_benefit", *RANDWRITE, "--io-size", "4m",
                "--state-in", state)
    assert s["gc_write_pages"] > 0
    assert state.read_bytes() == before
