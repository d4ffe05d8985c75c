"""A WAF that cannot mislead (issue 41): beside a buffered run's WAF, ftl-sim states the
host pages its write buffer absorbed and those still pending in it at the end, in the text,
summary.json and stats.csv alike; a run with no WAF (zone writes only) says n/a in the text
where its JSON says null, and a zoned run with Copy gives the same figure in both."""
import csv
import json
import re

import pytest

# lab-1g's 4 KiB pages (8 sectors); a buffer of 4 pages, flushed only above it.
BUFFERED = ["--config", "conf/lab-1g.conf", "--set", "write_buffer_sectors=32",
            "--set", "buf_flush_pcent=100"]
ZONED = ["--config", "conf/lab-1g.conf", "--config", "conf/nand/mlc.conf",
         "--set", "zoned=1", "--set", "zones=8", "--set", "zone_luns=4",
         "--set", "zone_cap=8M"]
# zone 0's first 3 pages of 16 KiB (32 sectors), then the zone finished
ZONE_WRITES = "ZW 0 32\nZW 32 64\nZM finish 0 0\n"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)  # config paths are relative to the repository


def _run(run_ftl_sim, tmp_path, args, trace_text):
    trace = tmp_path / "t.trace"
    trace.write_text(trace_text)
    proc = run_ftl_sim(*args, "--trace", trace, "--summary", tmp_path / "s.json",
                       "--stats-dir", tmp_path / "stats")
    return json.loads((tmp_path / "s.json").read_text()), proc.stdout


def test_absorbed_and_pending_pages_beside_the_waf(run_ftl_sim, tmp_path):
    """Pages 0-3 fill the buffer, page 0 again is absorbed, pages 4 and 5 each push the
    least recently written page out (1, then 2): 7 host pages = 1 absorbed + 2 flushed +
    4 pending (3, 0, 4, 5), and the WAF is still every program over every host page."""
    pages = [0, 1, 2, 3, 0, 4, 5]
    s, text = _run(run_ftl_sim, tmp_path, BUFFERED,
                   "".join(f"W {page * 8} 8\n" for page in pages))
    assert s["host_write_pages"] == len(pages)
    assert (s["buf_absorbed_pages"], s["buf_flushed_pages"], s["buf_dropped_pages"]) == \
        (1, 2, 0)
    assert (s["buf_pending_pages_start"], s["buf_pending_pages"]) == (0, 4)
    assert s["write_buffer_end"] == "pending"
    assert s["buf_absorbed_pages"] + s["buf_flushed_pages"] + s["buf_dropped_pages"] + \
        s["buf_pending_pages"] - s["buf_pending_pages_start"] == s["host_write_pages"]
    assert s["waf"] == pytest.approx(2 / 7, abs=1e-4)
    assert "buffer host pages: 1 absorbed (a later write replaced them in the buffer), " \
           "2 flushed, 0 dropped" in text
    assert "buffer at the end: 4 pages pending" in text
    waf_line = next(line for line in text.splitlines() if line.startswith("WAF: "))
    assert waf_line.startswith(f"WAF: {s['waf']:.4f} (")
    assert "host pages include 1 absorbed by the buffer and 4 pending in it at the end" \
        in waf_line
    with open(tmp_path / "stats" / "stats.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sum(int(r["buf_absorbed_pages"]) for r in rows) == 1
    assert sum(int(r["buf_dropped_pages"]) for r in rows) == 0
    assert rows[-1]["buf_pending_pages"] == "4"


def test_without_a_buffer_the_run_says_so_and_stats_csv_is_unchanged(run_ftl_sim, tmp_path):
    s, text = _run(run_ftl_sim, tmp_path, ["--config", "conf/lab-1g.conf"], "W 0 8\nW 0 8\n")
    assert s["write_buffer_end"] == "off" and s["buf_pending_pages"] == 0
    assert s["waf"] == 1.0 and "buffer at the end" not in text
    header = (tmp_path / "stats" / "stats.csv").read_text().splitlines()[0]
    assert "buf_pending_pages" not in header


@pytest.mark.parametrize("trace_text, waf", [
    (ZONE_WRITES, None),                               # zone writes count in neither part
    (ZONE_WRITES + "C 16384 1 0 96\n", 1.0),           # Copy's 3 pages, 3 programs
])
def test_zoned_runs_print_the_waf_their_json_holds(run_ftl_sim, tmp_path, trace_text, waf):
    s, text = _run(run_ftl_sim, tmp_path, ZONED, trace_text)
    assert s["zone_programs"] == 3
    waf_line = next(line for line in text.splitlines() if line.startswith("WAF: "))
    gc_line = next(line for line in text.splitlines() if line.startswith("GC: "))
    if waf is None:
        assert s["waf"] is None and all(s[f"waf_{part}"] is None
                                        for part in ("host", "gc", "fold", "map", "copy"))
        assert waf_line.startswith("WAF: n/a (") and "zone writes count in neither" in waf_line
        assert "WAF n/a " in gc_line
    else:
        assert s["waf"] == waf and s["waf_copy"] == waf
        assert waf_line.startswith(f"WAF: {waf:.4f} (")
        assert "zone writes count in neither" in waf_line
        assert re.search(rf"WAF {waf:.3f} ", gc_line)
