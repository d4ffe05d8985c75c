"""Sweeps: fio JSON -> IOPS, bandwidth, mean latency per parameter value and ioengine.

The fio results are produced by host fio during the session (conftest.py, FIO_POINTS);
every expected figure is read back from that JSON here.
"""
import json
import shutil

import pytest

from femu_analysis import AnalysisError
from femu_analysis.fio import read_fio_json
from femu_analysis.style import format_value
from femu_analysis.sweep import parameter_number, sweep_figures, sweep_table

DIRECTIONS = ("read", "write", "trim")


def _jobs(run_dir):
    return json.loads((run_dir / "fio.json").read_text())["jobs"]


def _expected(jobs):
    """IOPS and KiB/s summed over jobs and directions; latency (ns) weighted by I/O count."""
    iops = sum(job[d]["iops"] for job in jobs for d in DIRECTIONS if d in job)
    bw_kib = sum(job[d]["bw"] for job in jobs for d in DIRECTIONS if d in job)
    ios = sum(job[d]["total_ios"] for job in jobs for d in DIRECTIONS if d in job)
    lat_ns = sum(job[d]["lat_ns"]["mean"] * job[d]["total_ios"]
                 for job in jobs for d in DIRECTIONS if d in job)
    return {"iops": iops, "bandwidth_mib_s": bw_kib / 1024, "mean_latency_us": lat_ns / ios / 1000}


def test_real_fio_results_are_what_the_sweep_expects(fio_sweep_dirs):
    for run_dir in fio_sweep_dirs:
        jobs = _jobs(run_dir)
        numjobs = int(run_dir.name.split("-")[1])
        assert len(jobs) == numjobs  # no group_reporting: one entry per job
        for job in jobs:
            assert job["error"] == 0
            assert job["read"]["total_ios"] == 1024  # --io_size=4m of 4 KiB reads, all done
            assert job["read"]["iops"] > 0 and job["write"]["total_ios"] == 0


def test_single_job_row_equals_its_fio_json(fio_sweep_dirs):
    table = sweep_table(fio_sweep_dirs, "numjobs").set_index("run")
    for name in ("numjobs-1-psync", "numjobs-1-libaio"):
        (job,) = _jobs(fio_sweep_dirs[0].parent / name)
        row = table.loc[name]
        assert row["iops"] == job["read"]["iops"]
        assert row["bandwidth_mib_s"] == pytest.approx(job["read"]["bw"] / 1024)
        assert row["mean_latency_us"] == pytest.approx(job["read"]["lat_ns"]["mean"] / 1000)


def test_every_row_sums_its_jobs(fio_sweep_dirs):
    table = sweep_table(fio_sweep_dirs, "numjobs").set_index("run")
    assert sorted(table.index) == sorted(path.name for path in fio_sweep_dirs)
    for run_dir in fio_sweep_dirs:
        expected = _expected(_jobs(run_dir))
        for column, value in expected.items():
            assert table.loc[run_dir.name, column] == pytest.approx(value), (run_dir.name,
                                                                             column)


def test_values_and_engines_from_params_job_or_global_options(fio_sweep_dirs):
    table = sweep_table(fio_sweep_dirs, "numjobs").set_index("run")
    assert table.loc["numjobs-1-psync", ["numjobs", "ioengine"]].tolist() == ["1", "psync"]
    assert table.loc["numjobs-2-psync", ["numjobs", "ioengine"]].tolist() == ["2", "psync"]
    assert table.loc["numjobs-1-libaio", ["numjobs", "ioengine"]].tolist() == ["1", "libaio"]
    assert table.loc["numjobs-2-libaio", ["numjobs", "ioengine"]].tolist() == ["2", "libaio"]
    assert set(table["workload"]) == {"randread 4k"}


def test_params_json_wins_over_fio_options(fio_sweep_dirs, tmp_path):
    folder = tmp_path / "relabelled"
    shutil.copytree(fio_sweep_dirs[0], folder)  # numjobs-1-libaio: fio says libaio, numjobs 1
    (folder / "params.json").write_text('{"numjobs": 3, "ioengine": "libaio-qd4"}\n')
    row = sweep_table([folder], "numjobs").iloc[0]
    assert (row["numjobs"], row["value"], row["ioengine"]) == ("3", 3.0, "libaio-qd4")


def test_one_line_per_ioengine_with_the_fio_figures(fio_sweep_dirs):
    table = sweep_table(fio_sweep_dirs, "numjobs")
    figures = sweep_figures(table, "numjobs")
    assert sorted(figures) == ["sweep_bandwidth", "sweep_iops", "sweep_latency"]
    root = fio_sweep_dirs[0].parent
    for stem, column in (("sweep_iops", "iops"), ("sweep_bandwidth", "bandwidth_mib_s"),
                         ("sweep_latency", "mean_latency_us")):
        axes = figures[stem].axes[0]
        lines = axes.get_lines()
        assert [line.get_label() for line in lines] == ["libaio", "psync"]
        labels = {text.get_text() for text in axes.texts}
        for line in lines:
            engine = line.get_label()
            assert list(line.get_xdata()) == [1.0, 2.0]
            expected = [_expected(_jobs(root / f"numjobs-{n}-{engine}"))[column] for n in (1, 2)]
            assert list(line.get_ydata()) == pytest.approx(expected)
            assert f"max {format_value(max(expected))}" in labels
            assert f"min {format_value(min(expected))}" in labels


def test_text_before_the_json_is_skipped(fio_mixed_json, tmp_path):
    """fio prints warnings before its JSON; a two-job read/write run sums both directions."""
    clean = read_fio_json(fio_mixed_json)
    jobs = clean["jobs"]
    assert len(jobs) == 2 and all(job["read"]["total_ios"] and job["write"]["total_ios"]
                                  for job in jobs)
    folder = tmp_path / "warned"
    folder.mkdir()
    (folder / "fio.json").write_text(
        "fio: this platform does not support process shared mutexes, forcing use of threads."
        " Use the 'thread' option to get rid of this warning.\n"
        + fio_mixed_json.read_text())
    assert read_fio_json(folder / "fio.json") == clean
    (folder / "params.json").write_text('{"numjobs": 2}\n')
    row = sweep_table([folder], "numjobs").iloc[0]
    for column, value in _expected(jobs).items():
        assert row[column] == pytest.approx(value)


def test_missing_parameter_names_the_file(fio_sweep_dirs):
    with pytest.raises(AnalysisError, match=r"fio\.json: no value for parameter 'blocksize'"):
        sweep_table(fio_sweep_dirs, "blocksize")  # fio's options say bs, not blocksize


def test_folder_without_fio_results_is_an_error(tmp_path):
    with pytest.raises(AnalysisError, match="no fio JSON"):
        sweep_table([tmp_path], "numjobs")


@pytest.mark.parametrize("text, value", [(4, 4.0), ("16", 16.0), ("16k", 16384.0),
                                         ("200M", 200 * 2**20), ("4GiB", 4 * 2**30),
                                         ("psync", None)])
def test_parameter_values_sort_as_numbers_or_sizes(text, value):
    assert parameter_number(text) == value
