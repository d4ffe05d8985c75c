"""femu-plot end to end: files written where promised, user errors as one line + status 2.

Most tests call the console script's function, femu_analysis.cli:main, in this process (the
femu_plot fixture): a new Python importing pandas and matplotlib costs more than most of
the commands themselves. The script itself, in a Python of its own, is run by
test_default_command_plots_and_summarizes_into_the_run_folder (success) and
test_malformed_error_names_file_line_column (a user error)."""
import json
import pathlib
import shutil
import subprocess
import sys

import pandas as pd
import pytest

from femu_analysis import cli

FEMU_PLOT = pathlib.Path(sys.executable).parent / "femu-plot"


def console_script(*args):
    """Run the installed femu-plot ARGS as a user would: its own process."""
    return subprocess.run([str(FEMU_PLOT), *map(str, args)], capture_output=True, text=True,
                          timeout=300)


@pytest.fixture
def femu_plot(capsys):
    """femu_plot(*ARGS) -> what console_script(*ARGS) returns (status, stdout, stderr), from
    cli.main(ARGS) in this process."""
    def run(*args):
        argv = [str(arg) for arg in args]
        capsys.readouterr()   # only this call's output
        status = cli.main(argv)
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["femu-plot", *argv], status, out, err)
    return run


def _ok(proc):
    assert proc.returncode == 0, proc.stderr
    return [pathlib.Path(line) for line in proc.stdout.splitlines() if line.startswith("/")]


def test_default_command_plots_and_summarizes_into_the_run_folder(workload_run, run_copy):
    folder = run_copy(workload_run)
    written = _ok(console_script(folder))
    names = sorted(path.name for path in written)
    assert names == sorted(["iops.png", "throughput.png", "erased_blocks.png",
                            "moved_pages.png", "waf.png", "gc_victims.png", "ch_util.png",
                            "summary.json", "summary.md"])
    assert all(path.parent == folder / "plots" and path.stat().st_size for path in written)
    summary = json.loads((folder / "plots" / "summary.json").read_text())
    assert summary["window"]["source"] == "phases"
    assert summary["waf"] > 1


def test_explicit_window_out_and_svg(femu_plot, workload_run, tmp_path):
    written = _ok(femu_plot("plot", workload_run, "--window", "8:20", "--out", tmp_path,
                            "--format", "svg"))
    assert {path.suffix for path in written} == {".svg", ".json", ".md"}
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert (summary["window"]["start_s"], summary["window"]["end_s"]) == (8, 20)


def test_compare_writes_one_overlay(femu_plot, hot_runs, tmp_path):
    written = _ok(femu_plot("compare", *hot_runs, "--metric", "waf", "--label", "one stream",
                            "--label", "threshold 20", "--out", tmp_path))
    assert [path.name for path in written] == ["compare_waf.png"]


def test_compare_default_out_is_the_common_parent(femu_plot, hot_runs, tmp_path):
    parent = tmp_path / "zipf"
    copies = [parent / path.name for path in hot_runs]
    for source, target in zip(hot_runs, copies):
        shutil.copytree(source, target)
    written = _ok(femu_plot("compare", *copies))
    assert written == [parent / "plots" / "compare_iops.png"]


def test_cdf(femu_plot, workload_run, tmp_path):
    written = _ok(femu_plot("cdf", workload_run, "--out", tmp_path))
    assert [path.name for path in written] == ["cdf.png", "cdf_zoom50.png"]


def test_sweep(femu_plot, fio_sweep_dirs, tmp_path):
    written = _ok(femu_plot("sweep", *fio_sweep_dirs, "--param", "numjobs", "--out", tmp_path))
    assert sorted(path.name for path in written) == ["sweep.csv", "sweep_bandwidth.png",
                                                     "sweep_iops.png", "sweep_latency.png"]
    table = pd.read_csv(tmp_path / "sweep.csv").set_index("run")
    assert sorted(table.index) == [path.name for path in fio_sweep_dirs]
    for run_dir in fio_sweep_dirs:  # figures as fio's JSON states them
        jobs = json.loads((run_dir / "fio.json").read_text())["jobs"]
        assert table.loc[run_dir.name, "numjobs"] == len(jobs)
        assert table.loc[run_dir.name, "iops"] == pytest.approx(
            sum(job["read"]["iops"] for job in jobs))


def test_summary_of_several_runs(femu_plot, hot_runs, tmp_path):
    proc = femu_plot("summary", *hot_runs, "--out", tmp_path)
    _ok(proc)
    table = proc.stdout.splitlines()
    assert table[0].split()[0] == "run" and table[1].startswith(hot_runs[0].name)
    summaries = json.loads((tmp_path / "summary.json").read_text())
    assert [one["run"] for one in summaries] == [path.name for path in hot_runs]
    assert "| threshold-20 |" in (tmp_path / "summary.md").read_text()


def test_summary_default_out_is_each_run_folder(femu_plot, hot_runs, run_copy):
    folder = run_copy(hot_runs[1])
    _ok(femu_plot("summary", folder))
    assert json.loads((folder / "plots" / "summary.json").read_text())["run"] == folder.name


@pytest.mark.parametrize("case", ["missing-dir", "empty-dir", "malformed", "bad-window",
                                  "bad-option", "no-args", "labels", "cdf-without-counts"])
def test_user_errors_are_one_line_and_status_2(femu_plot, case, tmp_path, fixtures_dir,
                                               hot_runs, run_copy):
    args = {  # built lazily: only the case under test touches the file system
        "missing-dir": lambda: [tmp_path / "nope"],
        "empty-dir": lambda: ["summary", tmp_path],
        "malformed": lambda: [fixtures_dir / "malformed" / "bad-number", "--out", tmp_path],
        "bad-window": lambda: [hot_runs[0], "--window", "late:early", "--out", tmp_path],
        "bad-option": lambda: ["compare", hot_runs[0], "--metric", "latency"],
        "no-args": lambda: [],
        "labels": lambda: ["compare", *hot_runs, "--label", "only one", "--out", tmp_path],
        "cdf-without-counts": lambda: ["cdf", run_copy(hot_runs[0],
                                                       drop=("lpn_access_count.csv",)),
                                       "--out", tmp_path],
    }[case]()
    proc = femu_plot(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("femu-plot: error: ")
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("command", [[], ["summary"], ["compare"]])
def test_window_without_data_is_one_line_and_status_2(femu_plot, command, workload_run,
                                                      tmp_path):
    out = tmp_path / "out"
    proc = femu_plot(*command, workload_run, "--window", "0:0.5", "--out", out)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"femu-plot: error: {workload_run}: no data inside the window 0:0.5 s (explicit): "
        "no statistics interval lies wholly inside it"]
    assert not out.exists()  # no empty plots, no summary of nothing


def test_malformed_error_names_file_line_column(fixtures_dir, tmp_path):
    proc = console_script(fixtures_dir / "malformed" / "bad-number", "--out", tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1, proc.stderr   # one line from a fresh Python too
    assert "IOPSData.csv: line 4, column 'write': 'abc' is not a number" in proc.stderr
