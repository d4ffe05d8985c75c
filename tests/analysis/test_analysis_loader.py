"""Loader: every CSV of a real ftl-sim run into tidy frames; malformed files named exactly."""
import numpy as np
import pandas as pd
import pytest

from femu_analysis import AnalysisError, csvfile, load_run, series, summarize
from femu_analysis.window import Window
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


@pytest.mark.parametrize("timestamps", [False, True])
def test_rows_after_an_idle_gap_cover_their_own_second(tmp_path, timestamps):
    # FEMU-era files skip idle seconds: rows at 1, 2, 9, 10 s, 100 commands each
    times = [1, 2, 9, 10]
    stamps = ([f"2024-05-01 10:00:{t:02d}" for t in times] if timestamps
              else [f"{t}.000" for t in times])
    (tmp_path / "IOPSData.csv").write_text(
        "time,read,write\n" + "".join(f"{stamp},100,0\n" for stamp in stamps))
    run = load_run(tmp_path)
    assert list(run.iops["time_s"]) == [1.0, 2.0, 9.0, 10.0]
    assert list(run.iops["start_s"]) == [0.0, 1.0, 8.0, 9.0]
    assert list(series.iops(run)["total"]) == [100.0] * 4  # not 100 / 7 s at second 9
    window = Window(8.0, 10.0, "explicit")
    assert list(series.within(series.iops(run), window)["time_s"]) == [9.0, 10.0]
    assert summarize(run, window)["iops"]["mean"] == 100.0


def test_first_row_covers_one_interval_at_most(tmp_path):
    (tmp_path / "GCData.csv").write_text("time,reclaimedBlocks\n25.000,4\n35.000,6\n"
                                         "38.500,1\n")
    run = load_run(tmp_path)
    assert list(run.gc["start_s"]) == [15.0, 25.0, 35.0]
    assert list(run.gc["interval_s"]) == [10.0, 10.0, 3.5]  # the partial last row kept short


MALFORMED = [  # folder, file, line, how the column is named
    ("bad-number", "IOPSData.csv", 4, "column 'write'"),
    ("short-row", "throughputData.csv", 3, "column 'writeThroughput': missing field"),
    ("long-row", "GCData.csv", 3, "column 3 (after 'reclaimedBlocks'): extra field '9'"),
    ("missing-column", "GCData.csv", 1, "missing column 'reclaimedBlocks'"),
    ("repeated-column", "GCData.csv", 1, "column 'reclaimedBlocks' appears twice"),
    ("empty-time", "statistics.csv", 3, "column 'seconds'"),
    ("bad-count", "lpn_access_count.csv", 4, "column 'Access_Count'"),
    ("bad-timestamp", "WAFData.csv", 3, "column 'time'"),
    ("blank-lines", "IOPSData.csv", 6, "column 'write'"),  # blank lines still count as lines
]


@pytest.mark.parametrize("folder, file, line, column", MALFORMED)
def test_malformed_file_error_names_file_line_column(fixtures_dir, folder, file, line, column):
    with pytest.raises(AnalysisError) as caught:
        load_run(fixtures_dir / "malformed" / folder)
    message = str(caught.value)
    assert f"{file}: line {line}" in message
    assert column in message
    assert "\n" not in message


@pytest.mark.parametrize("config_file, params, expected", [
    ("conf/lab-1g.conf", {}, "lab-1g"),
    # a run folder's own copy names no configuration: params.json's config_name does
    ("results/sweep/hot_threshold=6/config.conf", {"config_name": "lab-1g"}, "lab-1g"),
    ("results/sweep/hot_threshold=6/config.conf", {}, None),
])
def test_configuration_name_comes_from_the_config_file_name(tmp_path, config_file, params,
                                                             expected):
    import json
    from femu_analysis.metadata import load_metadata
    (tmp_path / "summary.json").write_text(json.dumps({"config_file": config_file}))
    (tmp_path / "params.json").write_text(json.dumps(params))
    metadata = load_metadata(tmp_path)
    assert (metadata.conf_name or metadata.get("config_name")) == expected


def _read_both(path, required, time_column=None):
    """(plain, checked): csvfile's fast reader (None where it declines the file) and the row
    by row one (its AnalysisError message where it refuses the file)."""
    plain = csvfile._plain_numbers(path, required, (), time_column)
    try:
        checked = csvfile._read_checked(path, required, (), time_column)
    except AnalysisError as error:
        checked = str(error)
    return plain, checked


def test_real_files_take_the_fast_reader_and_read_as_row_by_row(sim_root, workload_run):
    files = [(workload_run / "lpn_access_count.csv", ("LPN", "Access_Count"), None)]
    for run_dir in (workload_run, sim_root / "plain" / "randrw", sim_root / "perf" / "randread"):
        files += [(run_dir / spec.file, spec.columns, spec.time_column)
                  for spec in SERIES_FILES.values()]
    for path, required, time_column in files:
        plain, checked = _read_both(path, required, time_column)
        assert plain is not None, path
        pd.testing.assert_frame_equal(plain, checked)


def test_the_fast_reader_takes_only_files_it_reads_as_row_by_row(tmp_path):
    """Random small files of numbers, signs, points, exponents, blanks, quotes and short or
    long rows: where the fast reader takes one, the row-by-row reader gives the same frame."""
    import random
    rng = random.Random(7)
    tokens = ["", "0", "7", "12", "-3", "+4", "1.5", ".5", "5.", "1e3", "2E-2", "-.5e+1", "1e",
              ".", "-", "e5", "1.2.3", "1-2", " 3", "3 ", '"4"', "nan", "inf", "x"]
    path = tmp_path / "file.csv"
    taken = 0
    for _ in range(300):
        fields = rng.randint(1, 3)
        header = ["t", "a", "b"][:fields]
        lines = [",".join(header)]
        for _ in range(rng.randint(0, 4)):
            if rng.random() < 0.1:
                lines.append(rng.choice(["", "  "]))
                continue
            count = fields if rng.random() < 0.85 else rng.choice([fields - 1, fields + 1])
            pool = tokens[:11] if rng.random() < 0.7 else tokens
            lines.append(",".join(rng.choice(pool) for _ in range(max(count, 1))))
        path.write_text("\n".join(lines) + rng.choice(["\n", "", "\n\n"]))
        plain, checked = _read_both(path, header[:1], rng.choice([None, "t"]))
        if plain is not None:
            taken += 1
            assert not isinstance(checked, str), (path.read_text(), checked)
            pd.testing.assert_frame_equal(plain, checked)
    assert taken > 50   # the check above saw the fast reader at work


@pytest.mark.parametrize("last", ["1e", "1.2.3", "--1", "1e+", "12345x", "."])
def test_a_wide_file_with_a_bad_last_field_is_named_not_backtracked(tmp_path, last):
    """stats.csv is about 30 columns wide: a malformed field at the end of a row must be
    reported at once (a number pattern that could match a run of digits in several ways
    made this take exponential time)."""
    header = [f"c{i}" for i in range(30)]
    good = ",".join(["12345.678"] * 30)
    path = tmp_path / "wide.csv"
    path.write_text(",".join(header) + "\n" + f"{good}\n" * 3
                    + ",".join(["12345"] * 29 + [last]) + "\n")
    with pytest.raises(AnalysisError, match="line 5, column 'c29'"):
        csvfile.read_csv_strict(path, ["c0"])
