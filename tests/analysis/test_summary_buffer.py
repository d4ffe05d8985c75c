"""A summary whose WAF is below 1 shows what explains it (issue 41): a buffered ftl-sim run
of overwrites gives a WAF below 1, and femu-plot summary's table carries the buffer's
absorbed and pending pages beside it, the same numbers as ftl-sim's own summary."""
import json

import pytest
from femu_analysis.loader import load_run
from femu_analysis.summary import summarize
from femu_analysis.table import markdown_table, rows
from femu_analysis.window import find_window

# lab-1g with a 4-page buffer flushed only above it
BUFFERED = ["--config", "conf/lab-1g.conf", "--set", "write_buffer_sectors=32",
            "--set", "buf_flush_pcent=100"]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)  # config paths are relative to the repository


def test_a_waf_below_one_comes_with_the_buffers_pages(run_ftl_sim, tmp_path):
    # pages 0-3 over and over, one every 50 ms (2 s in all): every write after the first
    # four is absorbed, four pending at the end
    trace = tmp_path / "t.trace"
    trace.write_text("V 2\n" + "".join(f"W {i * 50_000_000} {(i % 4) * 8} 8 1 0\n"
                                        for i in range(40)))
    stats = tmp_path / "stats"
    run_ftl_sim(*BUFFERED, "--trace", trace, "--stats-dir", stats,
                "--summary", tmp_path / "s.json")
    sim = json.loads((tmp_path / "s.json").read_text())
    assert (sim["buf_absorbed_pages"], sim["buf_pending_pages"]) == (36, 4)

    run = load_run(stats)
    summary = {"run": "buffered", "title": "t", **summarize(run, find_window(run))}
    assert summary["waf"] < 1
    assert summary["ftl"]["buf_absorbed_pages"] == 36
    assert summary["ftl"]["buf_pending_pages"] == 4
    header, body = rows([summary])
    shown = dict(zip(header, body[0]))
    assert (shown["buffer absorbed pages"], shown["buffer pending pages"]) == ("36", "4")
    assert "| buffer absorbed pages | buffer pending pages |" in markdown_table([summary])


def test_runs_without_a_buffer_keep_their_columns(run_ftl_sim, tmp_path):
    trace = tmp_path / "t.trace"
    trace.write_text("".join(f"W {i * 8} 8\n" for i in range(8)))
    stats = tmp_path / "stats"
    run_ftl_sim("--config", "conf/lab-1g.conf", "--trace", trace, "--stats-dir", stats)
    run = load_run(stats)
    header, _ = rows([{"run": "plain", "title": "t", **summarize(run, find_window(run))}])
    assert not any(name.startswith("buffer") for name in header)
