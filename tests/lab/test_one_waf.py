"""One WAF (issue 40): on a consumer drive whose SLC cache folds, every place that prints a
WAF (ftl-sim's three lines and summary.json, stats.csv and statistics.csv, femu-plot's
summary.json and summary.md, result.json, the sweep table, the live progress line) says
the same figure, every flash program over host pages, with the same parts and the same
erased blocks (GC's and folding's); and Copy's programs count in femu-plot's summary as in
ftl-sim's."""
import json
import re
import subprocess

import pytest

from femu_lab.run import live_progress
from lab_calls import read_csv, sweep

CONSUMER = "conf/consumer-qlc.conf"
# The write cliff's rounds, shorter: sequential 128 KiB writes at QD 8 with an idle
# stretch after every 300 MiB, in which the SLC cache folds (ftl-sim only: no VM body).
FOLDING = """# description: sequential 128 KiB writes, idle after every 300 MiB (the cache folds)
# runtime: 20
# sim: --rw write --bs 128k --qd 8 --idle 300m:10s
phase workload
"""
PARTS = ("host", "gc", "fold", "map", "copy")
# stats.csv's counters of flash programs, summed here by hand (not by femu_analysis.waf)
PROGRAMS = ("nand_user_programs", "nand_gc_programs", "fallback_pages", "slc_folded_pages",
            "map_writes", "map_gc_moved_pages")


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root, ftl_sim):
    monkeypatch.chdir(repo_root)   # config paths are relative to the repository


def _line_waf(pattern, text):
    found = re.findall(pattern, text, re.MULTILINE)
    assert len(found) == 1, (pattern, text)
    return found[0]


def _agrees(value, raw):
    """A printed figure (str) is raw to its digits; a number is raw to 1e-9."""
    if isinstance(value, str):
        digits = len(value.partition(".")[2])
        return value == f"{raw:.{digits}f}"
    return value == pytest.approx(raw, abs=1e-9)


def _stats_waf(rows):
    host = sum(float(row["host_write_pages"]) for row in rows)
    return sum(float(row[column]) for row in rows for column in PROGRAMS) / host


def _check_point(point, row):
    simulator = json.loads((point / "summary.json").read_text())
    # the raw counters: every page programmed (NAND_write) over host pages written
    raw = simulator["NAND_write"] / simulator["host_write_pages"]
    assert simulator["slc_folded_pages"] > 0 and simulator["slc_fold_erases"] > 0, \
        "the run should fold: the test is about folding's share of WAF"
    log = (point / "ftl-sim.log").read_text()
    wafs = {
        "ftl-sim WAF line": _line_waf(r"^WAF: ([0-9.]+) \(all flash programs", log),
        "ftl-sim summary.json": f"{simulator['waf']:.4f}",   # written with 4 digits
        "ftl-sim GC line": _line_waf(r"^GC: .* WAF ([0-9.]+) ", log),
        "ftl-sim stream line": _line_waf(r"^single stream: .* WAF ([0-9.]+)$", log),
        "stats.csv": _stats_waf(read_csv(point / "stats.csv")),
    }
    plots = json.loads((point / "plots" / "summary.json").read_text())
    result = json.loads((point / "result.json").read_text())
    wafs.update({"femu-plot summary.json": plots["waf"], "result.json": result["waf"],
                 "sweep.csv": row["waf"]})
    table = (point / "plots" / "summary.md").read_text().splitlines()
    header = [cell.strip() for cell in table[2].strip("|").split("|")]
    cells = [cell.strip() for cell in table[4].strip("|").split("|")]
    wafs["femu-plot summary.md"] = cells[header.index("WAF")]
    shot = live_progress.snapshot(point)      # the whole run is the workload phase
    wafs["progress line"] = re.search(r"\| WAF ([0-9.]+) ",
                                      live_progress.describe(shot, 60, 20)).group(1)
    wafs["progress snapshot"] = shot.waf
    for place, value in wafs.items():
        assert _agrees(value, raw), (place, value, raw)
    # the parts, the same in every place that shows them, add up to the WAF
    for part in PARTS:
        values = [simulator[f"waf_{part}"], plots[f"waf_{part}"], result[f"waf_{part}"]]
        if f"waf_{part}" in row:
            values.append(float(row[f"waf_{part}"]))
        assert max(values) - min(values) < 5e-4, part
    assert sum(result[f"waf_{part}"] for part in PARTS) == pytest.approx(result["waf"])
    assert result["waf_fold"] == pytest.approx(
        simulator["slc_folded_pages"] / simulator["host_write_pages"])
    assert f"fold {result['waf_fold']:.2f}" in live_progress.describe(shot, 60, 20)
    # erased blocks: GC's and folding's, in each place
    folds = simulator["slc_fold_erases"]
    assert result["fold_erased_blocks"] == plots["erased_blocks"]["fold"] == folds
    assert int(row["fold_erased_blocks"]) == folds
    assert result["erased_blocks"] == plots["erased_blocks"]["total"] == \
        folds + simulator["erased_blocks"]
    assert f"fold {folds} blocks erased" in live_progress.describe(shot, 60, 20)
    return raw


def _check_statistics_csv(point):
    """Each 10 s row of statistics.csv is stats.csv's programs / host pages of its seconds."""
    stats = read_csv(point / "stats.csv")
    checked = 0
    for row in read_csv(point / "statistics.csv"):
        end = float(row["seconds"])
        inside = [r for r in stats if end - 10 < float(r["time_s"]) - 5e-4 < end]
        if row["waf"]:
            assert float(row["waf"]) == pytest.approx(_stats_waf(inside), abs=1e-4)
            checked += 1
    assert checked >= 2


def test_every_waf_agrees_on_a_consumer_drive_that_folds(capsys, tmp_path):
    workload = tmp_path / "folding.sh"
    workload.write_text(FOLDING)
    out = tmp_path / "sweep"
    status, stdout, stderr = sweep(capsys, "--workload", workload, "--config", CONSUMER,
                                   "--set", "slc_dynamic_pcent=30,55", "--engine", "sim",
                                   "--out", out)
    assert status == 0, stderr
    rows = read_csv(out / "sweep.csv")
    assert [row["status"] for row in rows] == ["done", "done"]
    wafs = []
    for row in rows:
        point = out / row["folder"]     # the sweep names each point's folder
        wafs.append(_check_point(point, row))
        _check_statistics_csv(point)
    # the sweep's printed table and each point's line show it too
    for waf in wafs:
        assert any(f"WAF {waf:.2f} (host 1.00, fold " in line for line in stderr)
        assert any(f"{waf:.3f}" in line.split() for line in stdout)


# Copy in both namespaces (tests/ftl-sim/test_zoned.py's device): its destination pages
# count as host pages, its programs as programs; zone writes as neither.
ZONED = ["--config", "conf/lab-1g.conf", "--config", "conf/nand/mlc.conf", "--set",
         "ch_xfer_lat=0", "--set", "zoned=1", "--set", "zones=8", "--set", "zone_luns=4",
         "--set", "zone_cap=8M"]
COPIES = """ZW 0 32
ZW 32 64
ZM finish 0 0
C 16384 1 0 96
W 0 64
C 1024 0 0 64
"""


def test_the_summary_counts_copy_as_ftl_sim_does(tmp_path, ftl_sim):
    from femu_analysis import load_run, parse_window, summarize
    trace = tmp_path / "copies.trace"
    trace.write_text(COPIES)
    proc = subprocess.run([ftl_sim, *ZONED, "--trace", trace, "--stats-dir", tmp_path / "run",
                           "--summary", tmp_path / "s.json"], capture_output=True, text=True,
                          check=True)
    simulator = json.loads((tmp_path / "s.json").read_text())
    assert simulator["copy_pages"] > 0 and simulator["zone_write_cmds"] > 0
    run = load_run(tmp_path / "run")
    summary = summarize(run, parse_window("0:"))
    printed = _line_waf(r"^WAF: ([0-9.]+) \(all flash programs", proc.stdout)
    assert printed == f"{summary['waf']:.4f}"
    assert summary["waf_copy"] > 0
    for part in PARTS:
        assert f"{summary[f'waf_{part}']:.4f}" == f"{simulator[f'waf_{part}']:.4f}", part
