"""ftl-sim --unit-log (units.csv, the summary's `units`) and what it showed about the DFTL
lab's streams finding (docs/dftl.md): on writes that rewrite every page once per round in
the same order, a victim is empty when GC waits for space to run out (the lab's rule), and
holds 7/8 of its pages when background GC is always due (its threshold below the logical
space's share of the units) and takes a unit as soon as 1/8 of it is invalid.

The device: conf/lab-dftl.conf with page mapping, 2 LUNs x 32 blocks of 64 pages (64 units
of 64 pages, 16 MiB) and 12 MiB logical (3072 pages: 48 units' worth, 75 % of the units).
"""
import csv
import json
import subprocess

import pytest

TINY = ["--config", "conf/lab-dftl.conf", "--set", "mapping=page", "--set", "blks_per_pl=32",
        "--set", "luns_per_ch=2", "--set", "ssd_size=12"]
PAGES_PER_UNIT = 64
LOGICAL_PAGES = 12 * 256
ROUNDS = 4
# every page once per round, in the same order (sequential writes wrap at the region's end)
CYCLIC = ["--rw", "write", "--bs", "4k", "--io-size", f"{ROUNDS * 12}m"]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


def run(ftl_sim, tmp_path, *args):
    stats = tmp_path / "stats"
    summary = tmp_path / "summary.json"
    proc = subprocess.run([str(ftl_sim), *TINY, *args, "--stats-dir", str(stats),
                           "--unit-log", "--summary", str(summary)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    with open(stats / "units.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return rows, json.loads(summary.read_text()), proc.stdout


def victims(rows):
    return [r for r in rows if r["event"].endswith("victim")]


def test_lab_rule_collects_empty_units(ftl_sim, tmp_path):
    """GC only when space runs out (95/95: 3 free units left): by then the unit written
    first is a whole round old and every page of it rewritten: nothing to move, WAF 1."""
    rows, summary, _ = run(ftl_sim, tmp_path, "--set", "gc_thres_pcent=95", *CYCLIC)
    chosen = victims(rows)
    assert chosen and all(int(r["valid"]) == 0 for r in chosen)
    assert summary["gc_write_pages"] == 0
    assert summary["host_write_pages"] == ROUNDS * LOGICAL_PAGES
    assert all(int(r["age_host_pages"]) >= LOGICAL_PAGES for r in chosen)


def test_always_due_background_gc_collects_at_one_eighth(ftl_sim, tmp_path):
    """Background GC at 60 % used units, below the 75 % the logical space fills: always
    due, it takes the unit the rewriting front is in once 8 of its 64 pages are invalid
    (one request, one page, one check), and moves the other 56, which the front rewrites
    next: each of those victims costs 56 moves for 8 pages of space."""
    rows, summary, out = run(ftl_sim, tmp_path, "--set", "gc_thres_pcent=60", *CYCLIC)
    chosen = victims(rows)
    high = PAGES_PER_UNIT - PAGES_PER_UNIT // 8
    assert chosen and all(int(r["valid"]) == high for r in chosen)
    assert summary["gc_write_pages"] == len(chosen) * high
    unit = summary["units"][0]
    assert unit["victims"] == len(chosen) == unit["victims_above_high"]
    assert unit["valid_per_victim"] == high
    assert unit["age_host_pages_per_victim"] < LOGICAL_PAGES   # well before a round ends
    assert f"{high}.00 of {PAGES_PER_UNIT} pages valid per victim" in out


def trace(path, writes):
    """Two streams over disjoint halves, interleaved one write each, every page once per
    round in the same order."""
    half = LOGICAL_PAGES // 2
    lines = ["S 1"]
    for i in range(writes):
        stream, slot = i % 2, (i // 2) % half
        lines.append(f"W {(stream * half + slot) * 8} 8 {'H' if stream else 'C'}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_each_stream_fills_only_its_own_units(ftl_sim, tmp_path):
    """Every page a stream programs (host and GC) lands in a unit that stream opened: its
    media pages fill all but its last open unit. And units.csv has one victim row per
    collection the summary counts."""
    t = trace(tmp_path / "two.trace", ROUNDS * LOGICAL_PAGES)
    rows, summary, _ = run(ftl_sim, tmp_path, "--set", "placement=stream",
                           "--set", "nstreams=2", "--set", "gc_thres_pcent=60", "--trace", str(t))
    for stream, wp in enumerate(summary["write_pointers"]):
        opened = sum(1 for r in rows if r["event"] == "opened" and r["stream"] == str(stream))
        assert opened == summary["units"][stream]["opened"]
        assert (opened - 1) * PAGES_PER_UNIT < wp["media_pages"] <= opened * PAGES_PER_UNIT
    assert len(victims(rows)) == (summary["gc_runs"] + summary["fallback_lines"]
                                  + summary["map_gc_runs"])


def test_unit_log_needs_a_stats_folder(ftl_sim, tmp_path):
    proc = subprocess.run([str(ftl_sim), *TINY, *CYCLIC, "--unit-log"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "--unit-log" in proc.stderr
