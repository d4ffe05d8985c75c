"""A phase window's counts from phases.csv's snapshots (issue 41): an ftl-sim run whose
`workload` phase starts where its precondition ended, inside a second, gives the same
per-handle pages and host pages as ftl-sim's own summary of that phase, where the whole
rows inside the window leave out the cut seconds."""
import csv
import json

from femu_analysis import fdp_plots
from femu_analysis.loader import has_phase_snapshots, load_run
from femu_analysis.summary import summarize
from femu_analysis.window import find_window, phase_counts

SMALL = ["--set", "nchs=1", "--set", "luns_per_ch=2", "--set", "blks_per_pl=32",
         "--set", "pgs_per_blk=16", "--set", "devsz_mb=3"]
FDP2 = [*SMALL, "--set", "placement=fdp", "--set", "fdp_ruhs=2"]


def test_phase_window_counts_are_ftl_sims_own(run_ftl_sim, tmp_path):
    stats, summary_path = tmp_path / "run", tmp_path / "s.json"
    run_ftl_sim(*FDP2, "--dist", "hotcold:25:90", "--fdp", "0", "--fdp-hot", "1",
                "--precondition", "seq", "--io-size", "6m", "--stats-dir", stats,
                "--summary", summary_path)
    sim = json.loads(summary_path.read_text())
    markers = list(csv.DictReader(open(stats / "phases.csv")))
    assert [m["phase"] for m in markers] == ["precondition", "workload", "end"]
    assert float(markers[1]["time_s"]) % 1 != 0, "the workload should start inside a second"

    run = load_run(stats)
    assert has_phase_snapshots(run)
    window = find_window(run)
    exact = phase_counts(run, window)
    assert exact["host_write_pages"] == sim["host_write_pages"]
    pages = fdp_plots.handle_pages(run, window)
    assert [int(p) for p in pages["host_pages"]] == \
        [wp["host_pages"] for wp in sim["write_pointers"]]
    assert [int(p) for p in pages["media_pages"]] == \
        [wp["media_pages"] for wp in sim["write_pointers"]]
    assert summarize(run, window)["counts_from"] == "phase snapshots"


def test_old_phases_csv_has_no_snapshot_counts(tmp_path):
    """A run folder from before the snapshots: its window's counts are whole rows and the
    summary says so."""
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "phases.csv").write_text("time_s,phase\n0.500,workload\n2.500,end\n")
    (folder / "stats.csv").write_text(
        "time_s,interval_s,host_read_cmds,host_write_cmds,host_write_pages\n"
        "1.000,1.000,0,5,5\n2.000,1.000,0,7,7\n3.000,1.000,0,1,1\n")
    run = load_run(folder)
    window = find_window(run)
    assert not has_phase_snapshots(run) and phase_counts(run, window) is None
    assert summarize(run, window)["counts_from"] == "whole rows inside the window"
