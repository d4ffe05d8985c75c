"""Sweeps: fio JSON -> IOPS, bandwidth, mean latency per parameter value and ioengine."""
import pytest

from femu_analysis import AnalysisError
from femu_analysis.sweep import parameter_number, sweep_figures, sweep_table


@pytest.fixture
def sweep_dirs(fixtures_dir):
    return sorted((fixtures_dir / "fio-sweep").glob("numjobs-*"))


def test_table_reads_values_and_engines_from_params_or_job_options(sweep_dirs):
    table = sweep_table(sweep_dirs, "numjobs").set_index("run")
    assert table.loc["numjobs-1-psync", ["numjobs", "ioengine"]].tolist() == ["1", "psync"]
    assert table.loc["numjobs-4-psync", ["numjobs", "ioengine"]].tolist() == ["4", "psync"]
    assert table.loc["numjobs-1-libaio", "ioengine"] == "libaio"   # params.json
    assert table.loc["numjobs-4-libaio", "ioengine"] == "libaio"   # global options
    single = table.loc["numjobs-1-psync"]
    assert single["iops"] == 5000
    assert single["bandwidth_mib_s"] == pytest.approx(5000 * 16 / 1024)
    assert single["mean_latency_us"] == pytest.approx(199.0)


def test_jobs_and_directions_add_up_and_latency_is_weighted_by_ios(sweep_dirs):
    row = sweep_table(sweep_dirs, "numjobs").set_index("run").loc["numjobs-4-libaio"]
    # two jobs, each 6000 read + 2000 write IOPS of 16 KiB for 300 s
    assert row["iops"] == 16000
    assert row["bandwidth_mib_s"] == pytest.approx(16000 * 16 / 1024)
    ios = {2.0: 1_800_000, 3.0: 600_000, 2.2: 1_800_000, 3.4: 600_000}  # mean ms: I/Os
    expected_us = sum(ms * 1000 * n for ms, n in ios.items()) / sum(ios.values())
    assert row["mean_latency_us"] == pytest.approx(expected_us)


def test_one_line_per_ioengine_sorted_by_value(sweep_dirs):
    table = sweep_table(sweep_dirs, "numjobs")
    figures = sweep_figures(table, "numjobs")
    assert sorted(figures) == ["sweep_bandwidth", "sweep_iops", "sweep_latency"]
    lines = figures["sweep_iops"].axes[0].get_lines()
    assert [line.get_label() for line in lines] == ["libaio", "psync"]
    by_engine = {line.get_label(): line for line in lines}
    assert list(by_engine["psync"].get_xdata()) == [1.0, 4.0]
    assert list(by_engine["psync"].get_ydata()) == [5000, 14000]
    labels = {text.get_text() for text in figures["sweep_iops"].axes[0].texts}
    assert {"max 14000", "min 5000", "max 16000", "min 9000"} <= labels


def test_missing_parameter_names_the_file(sweep_dirs):
    with pytest.raises(AnalysisError, match=r"fio\.json: no value for parameter 'iodepth'"):
        sweep_table(sweep_dirs[2:], "iodepth")  # numjobs-4-psync names no iodepth anywhere


def test_folder_without_fio_results_is_an_error(tmp_path):
    with pytest.raises(AnalysisError, match="no fio JSON"):
        sweep_table([tmp_path], "numjobs")


@pytest.mark.parametrize("text, value", [(4, 4.0), ("16", 16.0), ("16k", 16384.0),
                                         ("200M", 200 * 2**20), ("4GiB", 4 * 2**30),
                                         ("psync", None)])
def test_parameter_values_sort_as_numbers_or_sizes(text, value):
    assert parameter_number(text) == value
