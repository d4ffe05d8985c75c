"""A lab run's figures (result.json) and headline state the write buffer beside the WAF: the
host pages it absorbed and what it still held at the end, from stats.csv's buffer columns
(here an ftl-sim run folder that ends with pages in the buffer, and one with no buffer)."""
import json
from types import SimpleNamespace

import pytest

from femu_lab.run import report

NO_SWEEP = SimpleNamespace(sweep_param=None)


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)  # config paths are relative to the repository


def _run(run_ftl_sim, folder, *sets):
    args = ["--config", "conf/lab-1g.conf", "--rw", "randwrite", "--io-size", "32m",
            "--size", "16m", *[arg for item in sets for arg in ("--set", item)]]
    run_ftl_sim(*args, "--summary", folder / "summary.json", "--stats-dir", folder)
    return json.loads((folder / "summary.json").read_text())


def test_a_buffered_run_states_absorbed_and_pending_pages(run_ftl_sim, tmp_path):
    folder = tmp_path / "buffered"
    summary = _run(run_ftl_sim, folder, "write_buffer_sectors=8192")
    assert summary["write_buffer_end"] == "pending"     # the run ends without a flush
    figures = report.analyse(folder, NO_SWEEP)
    assert figures["buf_pending_pages_end_of_run"] == summary["buf_pending_pages"] > 0
    # a short run's window is all of it: ftl-sim's own counts
    assert figures["window_s"][0] == 0
    for key in ("buf_absorbed_pages", "buf_flushed_pages", "buf_pending_pages"):
        assert figures[key] == summary[key]
    assert figures["buf_absorbed_pages"] > 0
    assert figures["gc_collections"] == summary["gc_runs"] + summary["fallback_lines"]
    assert f"buffer: {figures['buf_absorbed_pages']:.0f} host pages absorbed, " \
           f"{figures['buf_pending_pages']:.0f} pending at the end" in report.headline(figures)


def test_a_run_without_a_buffer_says_nothing_of_one(run_ftl_sim, tmp_path):
    folder = tmp_path / "plain"
    _run(run_ftl_sim, folder)
    figures = report.analyse(folder, NO_SWEEP)
    assert not any(key.startswith("buf_") for key in figures)
    assert "buffer" not in report.headline(figures)
