"""The textbook results of the hybrid mappings (docs/ftl.md), reproduced in ftl-sim on a
tiny geometry (1 channel x 2 LUNs x 32 blocks, 3 MiB logical, 4 KiB pages):

- a second sequential pass under BAST gives only switch merges: each logical block's log
  is written in order from offset 0, and the least recently written full log is merged
  when a new one is needed, so every log block but the last log_blocks is switched;
- uniform random writes after a fill give FAST fewer erases than BAST for the same
  log-block budget: a BAST log takes few pages before it is merged (two erases each
  time), a FAST random log fills before its merges;
- block mapping under 4 KiB random writes after a fill copies a logical block's valid
  pages for every write: WAF is pages per block, less for writes into a partial last
  block (computed here from the recorded writes)."""
import csv
import json

import pytest

TINY = ["--set", "nchs=1", "--set", "luns_per_ch=2", "--set", "blks_per_pl=32",
        "--set", "devsz_mb=3", "--set", "gc_unit=block", "--set", "gc_mode=line"]
PAGE = 4096
SECTOR = 512
MERGES = ("merge_switch", "merge_partial", "merge_full", "merge_copied_pages",
          "merge_erased_blocks")


def totals(stats_dir, *columns):
    with open(stats_dir / "stats.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return {c: sum(int(r[c]) for r in rows) for c in columns}


def run(run_ftl_sim, tmp_path, name, mapping, *args, ppb=16):
    """One run on TINY (ppb pages per block), checked after every request: its summary,
    with stats.csv's merge totals (the whole run's; the summary's counts are the measured
    part's)."""
    out = tmp_path / name
    # ftl_check after every request: each scheme's invariants hold throughout
    run_ftl_sim(*TINY, "--set", f"pgs_per_blk={ppb}", "--set", f"mapping={mapping}", *args,
                "--check-every", "1", "--stats-dir", out, "--summary", out / "summary.json")
    summary = json.loads((out / "summary.json").read_text())
    summary.update(totals(out, *MERGES))
    return summary


def logical_pages(summary):
    return summary["geometry"]["logical_bytes"] // summary["geometry"]["page_bytes"]


def test_sequential_rewrites_give_bast_only_switch_merges(run_ftl_sim, tmp_path):
    log_blocks, ppb = 4, 16
    s = run(run_ftl_sim, tmp_path, "bast-seq", "bast", "--set", f"log_blocks={log_blocks}",
            "--rw", "write", "--precondition", "seq", ppb=ppb)
    lbns = logical_pages(s) // ppb
    assert s["merge_partial"] == 0 and s["merge_full"] == 0
    # every logical block's log but the last log_blocks ones was switched: no copy, the
    # old data block its one erase
    assert s["merge_switch"] == lbns - log_blocks
    assert s["merge_copied_pages"] == 0
    assert s["merge_erased_blocks"] == s["merge_switch"]
    assert s["gc_write_pages"] == 0


def test_random_writes_give_fast_fewer_erases_than_bast(run_ftl_sim, tmp_path):
    common = ("--set", "log_blocks=8", "--rw", "randwrite", "--precondition", "seq",
              "--io-size", "2m", "--seed", "7")
    bast = run(run_ftl_sim, tmp_path, "bast", "bast", *common)
    fast = run(run_ftl_sim, tmp_path, "fast", "fast", *common)
    assert bast["host_write_pages"] == fast["host_write_pages"] == 512
    assert bast["merge_full"] > 0 and fast["merge_full"] > 0
    assert 0 < fast["erased_blocks"] < bast["erased_blocks"]
    print(f"erases under uniform random writes, 8 log blocks: BAST {bast['erased_blocks']}, "
          f"FAST {fast['erased_blocks']}")


def measured_writes(trace):
    """(lba, nsect) of every write the trace recorded after its workload phase began."""
    writes, measuring = [], False
    for line in trace.read_text().splitlines():
        fields = line.split()
        if fields and fields[0] == "P":
            measuring = fields[2] == "workload"
        elif fields and fields[0] == "W" and measuring:
            writes.append((int(fields[2]), int(fields[3])))
    return writes


@pytest.mark.parametrize("ppb", [16, 20], ids=["whole blocks", "partial last block"])
def test_block_mapping_waf_is_pages_per_block(run_ftl_sim, tmp_path, ppb):
    trace = tmp_path / "run.trace"
    s = run(run_ftl_sim, tmp_path, f"block-{ppb}", "block", "--rw", "randwrite", "--bs", "4k",
            "--precondition", "seq", "--io-size", "1m", "--trace-out", trace, ppb=ppb)
    pages = logical_pages(s)
    last = pages % ppb or ppb               # pages of the last logical block
    # a write copies its logical block's other valid pages (all written by the fill)
    # and programs its own: ppb programs, `last` in the last logical block
    programs = []
    for lba, nsect in measured_writes(trace):
        assert nsect == PAGE // SECTOR
        lbn = lba * SECTOR // PAGE // ppb
        programs.append(last if lbn == (pages - 1) // ppb else ppb)
    assert len(programs) == s["host_write_pages"] == 256
    assert s["waf"] == pytest.approx(sum(programs) / len(programs), rel=1e-9)
    if pages % ppb == 0:
        assert s["waf"] == pytest.approx(ppb, rel=1e-12)
    assert s["merge_full"] == len(programs)         # a block copy counts as a full merge
    assert s["merge_copied_pages"] == sum(programs) - len(programs)
