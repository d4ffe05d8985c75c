"""ftl-sim --power-cut-at / --lost-out on a hand-written version-5 trace over one LUN,
where every program serialises (pg_wr_lat 200 us, buf_wr_lat 1 us, 4 sectors a page):

    W  1000  sectors 0-7   pages 0 and 1 into the buffer, acknowledged at 2000
    F  2000                programs page 0 (ends 202000) and page 1 (ends 402000)
    W  3000  sector 12     page 3 into the buffer, acknowledged at 4000
    W  4000  16-19 fua     page 4 programmed: ends 602000
    W  5000  sectors 20-21 page 5 into the buffer
    WC 6000  off           drains pages 3 (ends 802000) and 5 (ends 1002000)
    W  7000  24-27         page 6 written through: ends 1202000

The lost sets below follow from those times alone (docs/ftl.md, "Power loss")."""
import json

import pytest

TRACE = """V 5
W 1000 0 8 1 0
F 2000 1
W 3000 12 1 1 0
W 4000 16 4 1 0 fua
W 5000 20 2 1 0
WC 6000 1 0
W 7000 24 4 1 0
E 2000000
"""
ONE_LUN = ["--set", "nchs=1", "--set", "luns_per_ch=1", "--set", "secs_per_pg=4",
           "--set", "pgs_per_blk=4", "--set", "blks_per_pl=256", "--set", "devsz_mb=1",
           "--set", "write_buffer_sectors=64", "--set", "buf_flush_pcent=100"]


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "cut.trace"
    path.write_text(TRACE)
    return path


def cut_at(run_ftl_sim, tmp_path, trace, at, *extra):
    lost, summary = tmp_path / "lost.csv", tmp_path / "s.json"
    run_ftl_sim(*ONE_LUN, *extra, "--trace", trace, "--power-cut-at", at,
                "--lost-out", lost, "--summary", summary)
    lines = lost.read_text().splitlines()
    assert lines[0] == "kind,slba,nlb"
    return lines[1:], json.loads(summary.read_text())["power_cut"]


@pytest.mark.parametrize("at, lost, in_flight", [
    # the flush in flight tears pages 0 and 1 (merged); sector 12 is only in DRAM; the
    # flush and the write of sector 12 (acknowledged at 4000) never complete
    ("3.5us", ["buffered,12,1", "torn,0,8"], 2),
    # every request has arrived: the flush is done (402000); the FUA write (ends 602000),
    # the drain of pages 3 and 5 and the write-through of page 6 are in flight and torn:
    # pages 3 to 6, sectors 12-27 merged. Sectors 20-21 were acknowledged (at 6000) and
    # are lost all the same: their drain had not ended
    ("500us", ["torn,12,16"], 3),
    # the cache off: its drain and the write-through are in flight, torn, unacknowledged
    ("700us", ["torn,12,4", "torn,20,8"], 2),
    # everything completed: nothing acknowledged or not is lost
    ("1.5ms", [], 0),
])
def test_lost_set_is_the_hand_computed_one(run_ftl_sim, tmp_path, trace, at, lost, in_flight):
    got, pc = cut_at(run_ftl_sim, tmp_path, trace, at)
    assert got == lost
    assert pc["requests_cut"] == in_flight and pc["plp"] is False
    assert pc["lost_ranges"] == len(lost)


def test_plp_loses_nothing(run_ftl_sim, tmp_path, trace):
    got, pc = cut_at(run_ftl_sim, tmp_path, trace, "3.5us", "--set", "plp=on")
    assert got == []
    assert pc["plp"] is True and pc["plp_pages"] == 1     # page 3 saved, the flush ends
    assert pc["torn_pages"] == 0 and pc["buffered_sectors"] == 0


def test_a_cut_after_the_recording_and_on_a_synthetic_run(run_ftl_sim, tmp_path, trace):
    got, pc = cut_at(run_ftl_sim, tmp_path, trace, "10s")
    assert got == [] and pc["at_s"] == 10.0
    # closed loop: the power goes mid-run; whatever the model loses, the FTL stays
    # consistent (--check-every) and the run reports it
    proc = run_ftl_sim(*ONE_LUN, "--rw", "randwrite", "--bs", "4k", "--qd", "4",
                       "--io-size", "256k", "--power-cut-at", "2ms", "--check-every", "1")
    assert "power cut at 0.002000 s" in proc.stdout


def test_bad_options_are_one_line(run_ftl_sim, tmp_path, trace):
    proc = run_ftl_sim(*ONE_LUN, "--trace", trace, "--lost-out", tmp_path / "x.csv",
                       check=False)
    assert proc.returncode == 2 and "--lost-out needs --power-cut-at" in proc.stderr
    proc = run_ftl_sim(*ONE_LUN, "--trace", trace, "--power-cut-at", "soon", check=False)
    assert proc.returncode == 2 and proc.stderr.startswith("ftl-sim: --power-cut-at:")
    proc = run_ftl_sim("--set", "plp=on", "--trace", trace, "--power-cut-at", "1s",
                       check=False)
    assert proc.returncode == 2
    assert "plp: power-loss protection needs a write buffer" in proc.stderr
    assert len(proc.stderr.splitlines()) == 1


def test_version5_recording_replays_exactly(run_ftl_sim, tmp_path, trace):
    """Replaying the trace records it again as version 5 with its FUA marker and cache
    switch; replaying that recording gives the same figures and the same lost set."""
    rec = tmp_path / "rec.trace"
    first, again = tmp_path / "a.json", tmp_path / "b.json"
    run_ftl_sim(*ONE_LUN, "--trace", trace, "--trace-out", rec, "--summary", first)
    text = rec.read_text()
    assert text.startswith("V 5\n")
    assert "\nW 4000 16 4 1 0 fua\n" in text and "\nWC 6000 1 0\n" in text
    run_ftl_sim(*ONE_LUN, "--trace", rec, "--summary", again)
    a, b = json.loads(first.read_text()), json.loads(again.read_text())
    for key in ("sim_time_s", "writes", "mean_latency_us", "max_latency_us",
                "host_write_pages", "buf_flushed_pages"):
        assert a[key] == b[key], key
    assert cut_at(run_ftl_sim, tmp_path, rec, "500us")[0] == ["torn,12,16"]


def test_lost_out_path_with_control_characters_keeps_the_summary_json(run_ftl_sim, tmp_path,
                                                                       trace):
    """A tab or newline in --lost-out's name is escaped in --summary (issue 39, fault 17)."""
    folder = tmp_path / "a\tb\nc"
    folder.mkdir()
    lost, summary = folder / "lost \"q\".csv", tmp_path / "s.json"
    run_ftl_sim(*ONE_LUN, "--trace", trace, "--power-cut-at", "3.5us", "--lost-out", lost,
                "--summary", summary)
    assert json.loads(summary.read_text())["power_cut"]["lost_out"] == str(lost)


def test_a_cut_before_the_first_program(run_ftl_sim, tmp_path, trace):
    """--power-cut-at 0: nothing programmed yet, nothing lost (issue 39, fault 11)."""
    got, pc = cut_at(run_ftl_sim, tmp_path, trace, "0")
    assert got == [] and pc["torn_pages"] == 0 and pc["buffered_sectors"] == 0
