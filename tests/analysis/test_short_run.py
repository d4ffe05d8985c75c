"""A run shorter than its files' half millisecond (ftl-sim replaying a few untimed
writes a write buffer takes):
its phases both read 0.000 and its one row's interval_s is 0.000. femu-plot summarises and
draws it without a division by zero: the counts are there, the rates unknown."""
import warnings

import pytest
from femu_analysis import intervals
from femu_analysis.loader import load_run
from femu_analysis.summary import summarize
from femu_analysis.window import find_window


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)  # config paths are relative to the repository


def test_a_run_inside_one_millisecond(run_ftl_sim, tmp_path):
    trace = tmp_path / "t.trace"
    # four pages again and again into a four-page buffer: no flash program, microseconds
    trace.write_text("".join(f"W {(i % 4) * 8} 8\n" for i in range(8)))
    stats = tmp_path / "stats"
    run_ftl_sim("--config", "conf/lab-1g.conf", "--set", "write_buffer_sectors=32",
                "--set", "buf_flush_pcent=100", "--trace", trace, "--stats-dir", stats)
    run = load_run(stats)
    assert list(run.stats["interval_s"]) == [0.0]
    window = find_window(run)
    assert (window.start_s, window.end_s) == (0.0, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        summary = summarize(run, window)
        bins = intervals.binned(run, window, "iops", 1.0)
    assert summary["host_write_pages"] == 8
    assert summary["iops"]["mean"] is None
    assert bins["value"].isna().all() and bool(bins["partial"].iloc[0])
