"""Loader: every CSV of a real ftl-sim run into tidy frames; malformed files named exactly."""
import numpy as np
import pandas as pd
import pytest

from femu_analysis import AnalysisError, load_run
from femu_analysis.loader import SERIES_FILES


def test_real_run_loads_every_file_with_elapsed_seconds(workload_run):
    run = load_run(workload_run)
    for key, spec in SERIES_FILES.items():
        frame = getattr(run, key)
        raw = pd.read_csv(workload_run / spec.file)
        assert len(frame) == len(raw), spec.file
        # time_s is the file's own time column: elapsed seconds at the interval's end
        assert np.allclose(frame["time_s"], raw[spec.time_column])
        assert (frame["time_s"] > frame["start_s"]).all()
        assert frame["time_s"].is_monotonic_increasing
        for column in raw.columns:
            if column != spec.time_column:  # lab column names are kept as they are
                assert np.allclose(frame[column], raw[column], equal_nan=True), column
    assert list(run.phases["phase"]).count("workload") == 1
    assert len(run.lpn_access) == len(pd.read_csv(workload_run / "lpn_access_count.csv"))


def test_intervals_follow_the_file_period(workload_run):
    run = load_run(workload_run)
    # all rows but possibly the last (a partial interval) are 1 s and 10 s long
    assert np.allclose(run.iops["interval_s"].iloc[:-1], 1.0)
    assert np.allclose(run.statistics["interval_s"].iloc[:-1], 10.0)
    assert 0 < run.statistics["interval_s"].iloc[-1] <= 10.0 + 1e-9


def test_missing_files_are_tolerated(workload_run, run_copy):
    folder = run_copy(workload_run, drop=("stats.csv", "GCData.csv", "phases.csv",
                                          "lpn_access_count.csv"))
    run = load_run(folder)
    assert run.stats is None and run.gc is None and run.phases is None
    assert run.lpn_access is None
    assert run.iops is not None and run.waf is not None


def test_folder_without_data_is_an_error(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing here\n")
    with pytest.raises(AnalysisError, match="no statistics data"):
        load_run(tmp_path)
    with pytest.raises(AnalysisError, match="no such run directory"):
        load_run(tmp_path / "absent")


def test_empty_waf_fields_load_as_nan(tmp_path):
    (tmp_path / "statistics.csv").write_text("seconds,iops,waf\n10.000,0.000,\n"
                                             "20.000,50.000,1.250\n")
    run = load_run(tmp_path)
    assert np.isnan(run.statistics["waf"].iloc[0])
    assert run.statistics["waf"].iloc[1] == 1.25


def test_femu_era_timestamps_are_renumbered(tmp_path):
    (tmp_path / "IOPSData.csv").write_text(
        "time,read,write\n2024-05-01 10:00:01,5,0\n2024-05-01 10:00:02,6,0\n"
        "2024-05-01 10:00:03,7,0\n")
    run = load_run(tmp_path)
    assert list(run.iops["time_s"]) == [1.0, 2.0, 3.0]
    assert list(run.iops["start_s"]) == [0.0, 1.0, 2.0]


MALFORMED = [  # folder, file, line, column (None: a whole-row problem)
    ("bad-number", "IOPSData.csv", 4, "write"),
    ("short-row", "throughputData.csv", 3, None),
    ("missing-column", "GCData.csv", 1, "reclaimedBlocks"),
    ("empty-time", "statistics.csv", 3, "seconds"),
    ("bad-count", "lpn_access_count.csv", 4, "Access_Count"),
    ("bad-timestamp", "WAFData.csv", 3, "time"),
    ("blank-lines", "IOPSData.csv", 6, "write"),  # blank lines still count as lines
]


@pytest.mark.parametrize("folder, file, line, column", MALFORMED)
def test_malformed_file_error_names_file_line_column(fixtures_dir, folder, file, line, column):
    with pytest.raises(AnalysisError) as caught:
        load_run(fixtures_dir / "malformed" / folder)
    message = str(caught.value)
    assert file in message
    assert f"line {line}" in message
    if column is not None:
        assert f"'{column}'" in message
    assert "\n" not in message
