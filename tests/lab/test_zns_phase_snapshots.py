"""Issue 41: a zoned run's per-phase figures from the counters the FTL snapshots at each
phase marker, with markers inside a second (an ftl-sim trace through the same engine and
statistics writer as the device): the ZNS table, the summary's window, the headline's
zoned commands, the WAF plot of a run without conventional writes and its IOPS plot's
title."""
import csv

from femu_analysis import plots
from femu_analysis.loader import load_run
from femu_analysis.summary import summarize
from femu_analysis.window import find_window
from femu_lab.run import report as run_report
from femu_lab.run import zns_report

ZONED = ["--config", "conf/lab-1g.conf", "--config", "conf/nand/mlc.conf", "--set", "zoned=1",
         "--set", "zones=8", "--set", "zone_luns=4", "--set", "zone_cap=8M"]
MS = 1_000_000
# 16 KiB pages of 32 sectors; zone 1 starts at sector 16384. Phases copy (`workload`),
# compact-rw and verify all start inside the second 1-2 s.
TRACE = f"""V 3
P 0 setup
ZW {100 * MS} 0 32 2
ZW {110 * MS} 32 32 2
ZW {120 * MS} 64 32 2
ZW {130 * MS} 96 32 2
P {1500 * MS} workload
C {1600 * MS} 2 16384 1 0 64
P {1700 * MS} compact-rw
ZR {1750 * MS} 64 32 2
ZA {1800 * MS} 16384 32 2
P {1900 * MS} verify
ZR {1950 * MS} 16384 96 2
E {3200 * MS}
"""
# hand-computed from the trace: each phase's requests
WANT = {"setup": {"zone_writes": 4, "NAND_write": 4, "NAND_read": 0},
        "workload": {"copy_cmds": 1, "zone_reads": 0, "zone_appends": 0},
        "compact-rw": {"zone_reads": 1, "zone_appends": 1, "NAND_read": 1, "NAND_write": 1,
                       "copy_cmds": 0},
        "verify": {"zone_reads": 1, "NAND_read": 3, "NAND_write": 0, "zone_appends": 0}}


def test_zoned_phases_inside_a_second_are_exact(run_ftl_sim, repo_root, tmp_path,
                                                monkeypatch):
    monkeypatch.chdir(repo_root)
    trace, stats = tmp_path / "phases.trace", tmp_path / "run"
    trace.write_text(TRACE)
    run_ftl_sim(*ZONED, "--trace", trace, "--stats-dir", stats)
    phases = list(csv.DictReader(open(stats / "phases.csv")))
    assert [r["phase"] for r in phases] == [*WANT, "end"]   # close ended the last phase

    figures = {f.phase: f for f in zns_report.per_phase(stats)}
    assert {name: {c: figures[name].counts[c] for c in want}
            for name, want in WANT.items()} == WANT
    copy = figures["workload"].counts
    assert copy["NAND_cpbk"] + copy["NAND_read"] == 2     # the copy's two pages, moved once
    assert {f.source for f in figures.values()} == {zns_report.SNAPSHOTS}

    run = load_run(stats)
    window = find_window(run)
    summary = summarize(run, window)
    assert summary["counts_from"] == "phase snapshots"
    nand = summary["nand"]
    assert (nand["copy_cmds"], nand["zone_appends"], nand["zone_reads"]) == (1, 0, 0)
    zoned = run_report.zoned_commands(nand)
    assert zoned["device_zoned_cmds"] == 1
    line = run_report.headline({"device_iops_mean": 0.0, **zoned})
    assert "device 0 IOPS (conventional namespace)" in line and "zoned " in line

    figure, _ = plots.timeseries_figure(run, window, plots.TIME_SERIES[-1])
    texts = [t.get_text() for t in figure.axes[0].texts]
    assert texts and texts[0].startswith("no WAF to draw")
    # its IOPS plot says it counts the conventional namespace only
    figure, _ = plots.timeseries_figure(run, window, plots.TIME_SERIES[0])
    assert "of the conventional namespace" in figure.axes[0].get_title()
