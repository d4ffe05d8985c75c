"""femu_analysis.waf: the one WAF of the Python side, with its parts, on hand-counted cases."""
import pandas as pd
import pytest

from femu_analysis import waf


def test_waf_counts_every_program_folding_included():
    # 1000 host pages: 400 programmed straight to TLC past a full cache, 600 into SLC;
    # 500 of the SLC pages folded into TLC (programmed twice), GC moved 100, DFTL wrote 20
    # translation pages and map GC moved 5. Folding erased 3 SLC units' blocks, GC 2.
    counts = {"host_write_pages": 1000, "nand_user_programs": 1000, "nand_gc_programs": 100,
              "slc_folded_pages": 500, "map_writes": 20, "map_gc_moved_pages": 5,
              "gc_moved_pages": 100, "gc_erased_blocks": 2, "slc_fold_erases": 3}
    figures = waf.waf_parts(counts)
    assert figures["flash_programs"] == 1000 + 100 + 500 + 20 + 5
    assert figures["waf"] == pytest.approx(1625 / 1000)
    assert (figures["waf_host"], figures["waf_gc"], figures["waf_fold"], figures["waf_map"],
            figures["waf_copy"]) == pytest.approx((1.0, 0.1, 0.5, 0.025, 0.0))
    assert sum(figures[f"waf_{part}"] for part in waf.PARTS) == pytest.approx(figures["waf"])
    erased = waf.erased_parts(counts)
    assert erased == {"erased_blocks": 5, "gc_erased_blocks": 2, "fold_erased_blocks": 3,
                      "fallback_erased_blocks": 0}
    assert waf.describe(figures) == "1.62 (host 1.00, GC 0.10, fold 0.50, map 0.03)"
    assert waf.describe(figures, host=False) == "1.62 (GC 0.10, fold 0.50, map 0.03)"
    assert waf.describe_erased(erased) == "GC 2 + fold 3"


def test_sums_read_frames_and_csv_rows_alike():
    rows = [{"host_write_pages": "10", "nand_user_programs": "10", "slc_folded_pages": "4",
             "gc_erased_blocks": ""},
            {"host_write_pages": "30", "nand_user_programs": "30", "slc_folded_pages": "0",
             "gc_erased_blocks": "1"}]
    from_rows = waf.sums(rows)
    assert from_rows == waf.sums(pd.DataFrame(rows).replace("", None).astype(float))
    assert waf.waf_parts(from_rows)["waf"] == pytest.approx(44 / 40)


def test_copy_counts_come_from_nand_csv_and_zone_writes_are_no_device_waf():
    stats = {"host_write_pages": 100, "nand_user_programs": 100, "nand_gc_programs": 10}
    # NAND_write: 100 host + 10 GC + 50 zone writes + 8 Copy programs; 2 copybacks
    nand = {"NAND_write": 168, "NAND_cpbk": 2, "copy_pages": 10, "zone_write_pages": 50}
    figures = waf.waf_parts(waf.with_copy_counts(stats, nand))
    assert figures["host_write_pages"] == 110
    assert figures["waf_copy"] == pytest.approx(10 / 110)
    assert figures["waf"] == pytest.approx((100 + 10 + 8 + 2) / 110)


def test_old_files_fall_back_to_host_plus_gc_moved_and_no_host_is_undefined():
    assert waf.waf_parts({"host_write_pages": 400, "gc_moved_pages": 200})["waf"] == 1.5
    empty = waf.waf_parts({"host_write_pages": 0, "nand_gc_programs": 7})
    assert empty["waf"] is None and empty["waf_gc"] is None
    assert waf.describe(empty) == "-"
    assert waf.waf(400, 200) == 1.5 and waf.waf(0, 3) is None


def test_buffer_figures_explain_a_waf_below_one():
    # three seconds of a buffered run: 30 host pages, 6 absorbed, 18 flushed, 1 dropped;
    # the buffer holds 2, 4 and then 5 pages at the rows' ends
    stats = pd.DataFrame({
        "host_write_pages": [10, 10, 10], "nand_user_programs": [5, 7, 6],
        "buf_absorbed_pages": [2, 1, 3], "buf_flushed_pages": [5, 7, 6],
        "buf_dropped_pages": [1, 0, 0], "buf_pending_pages": [2, 4, 5]})
    whole = waf.buffer_figures(stats)
    assert whole == {"buf_absorbed_pages": 6, "buf_flushed_pages": 18, "buf_dropped_pages": 1,
                     "buf_pending_pages": 5, "buf_pending_pages_start": None}
    assert waf.waf_parts(waf.sums(stats))["waf"] == pytest.approx(18 / 30)   # unchanged
    # host pages = absorbed + flushed + dropped + pending at the end (empty at the start)
    assert sum(whole[key] for key in ("buf_absorbed_pages", "buf_flushed_pages",
                                      "buf_dropped_pages", "buf_pending_pages")) == \
        stats["host_write_pages"].sum()
    last_two = waf.buffer_figures(stats, stats.iloc[1:])
    assert last_two["buf_pending_pages_start"] == 2 and last_two["buf_pending_pages"] == 5
    assert last_two["buf_absorbed_pages"] + last_two["buf_flushed_pages"] + \
        last_two["buf_pending_pages"] - last_two["buf_pending_pages_start"] == 20
    assert waf.describe_buffer(whole) == \
        "buffer: 6 host pages absorbed, 5 pending at the end (never programmed)"
    assert waf.describe_buffer({**whole, "buf_pending_pages": 0.0}).endswith(
        "none pending at the end (flushed)")
    # no buffer columns (no buffer, or an older file): nothing to say
    assert waf.buffer_figures(stats.drop(columns=["buf_pending_pages"])) == {}
    assert waf.describe_buffer({}) == ""


def test_gc_runs_are_every_collection_the_fallback_too():
    # placement=stream: 705 data GC victims, the fallback took 171 lines of 171 blocks
    counts = {"gc_runs": 705, "fallback_lines": 171, "gc_erased_blocks": 705,
              "fallback_erased_blocks": 171}
    assert waf.collections(counts) == {"gc_collections": 876, "data_gc_runs": 705,
                                       "fallback_victims": 171}
    erased = waf.erased_parts(counts)
    assert erased["erased_blocks"] == 876 and erased["fallback_erased_blocks"] == 171
    assert waf.describe_erased(erased) == "GC 705 + fallback 171"
    # a file without the fallback's columns (no placement=stream): data GC only
    assert waf.collections({"gc_runs": 9})["gc_collections"] == 9
