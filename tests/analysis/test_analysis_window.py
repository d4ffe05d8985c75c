"""Window: phase markers, sustained I/O when there are none, and explicit windows."""
import pandas as pd
import pytest

from femu_analysis import AnalysisError, find_window, load_run, parse_window


def _phases(run_dir):
    phases = pd.read_csv(run_dir / "phases.csv")
    start = phases.loc[phases["phase"] == "workload", "time_s"].iloc[0]
    end = phases.loc[phases["phase"] == "end", "time_s"].iloc[0]
    return start, end


def test_phase_markers_give_the_workload_window(workload_run):
    window = find_window(load_run(workload_run))
    start, end = _phases(workload_run)
    assert window.source == "phases"
    assert window.start_s == pytest.approx(start)
    assert window.end_s == pytest.approx(end)
    assert start > 0  # the precondition ran before: the window is not the whole run


def test_a_phase_shorter_than_an_interval_is_widened_to_the_intervals_around_it(sim_root,
                                                                                tmp_path):
    """A fixed-size job that ran from 5.03 s to 6.944 s holds no whole 1 s row; its window
    becomes 5:7 s, the two rows it touches, and its source says it was widened."""
    iops = pd.read_csv(sim_root / "plain" / "randrw" / "IOPSData.csv")
    iops.to_csv(tmp_path / "IOPSData.csv", index=False)
    assert iops["time"].max() >= 7
    pd.DataFrame({"time_s": [0.5, 5.03, 6.944], "phase": ["prepare", "workload", "end"]}
                 ).to_csv(tmp_path / "phases.csv", index=False)
    window = find_window(load_run(tmp_path))
    assert (window.start_s, window.end_s) == (5.0, 7.0)
    assert window.source == "phases, widened to whole intervals"


def test_sustained_io_covers_the_workload_without_markers(sim_root, run_copy):
    original = sim_root / "plain" / "randrw"
    start, end = _phases(original)
    window = find_window(load_run(run_copy(original, drop=("phases.csv",))))
    assert window.source == "sustained-io"
    # the workload is every I/O second of this run (no precondition)
    assert window.start_s <= start + 1.0
    assert window.end_s >= end - 1.0
    assert window.start_s >= 0 and window.end_s <= end + 1e-9


def test_sustained_io_drops_idle_and_setup_time(sim_root, tmp_path):
    """The run's I/O moved 20 s later behind idle seconds and a short 'mount' burst."""
    iops = pd.read_csv(sim_root / "plain" / "randrw" / "IOPSData.csv")
    busy = iops["read"].mean()
    lead = pd.DataFrame({"time": range(1, 21), "read": 0, "write": 0.0})
    lead.loc[2:3, "write"] = round(busy)  # two seconds of setup writes, then idle again
    shifted = iops.assign(time=iops["time"] + 20)
    pd.concat([lead, shifted]).to_csv(tmp_path / "IOPSData.csv", index=False)
    window = find_window(load_run(tmp_path))
    assert window.start_s == pytest.approx(20.0)
    assert window.end_s == pytest.approx(shifted["time"].iloc[-1])


def test_explicit_window_wins_and_is_clipped_to_the_run(workload_run):
    run = load_run(workload_run)
    window = find_window(run, parse_window("8:1000000"))
    assert window.source == "explicit"
    assert window.start_s == 8
    assert window.end_s == pytest.approx(run.iops["time_s"].max())
    assert find_window(run, parse_window(":12")).start_s == 0


@pytest.mark.parametrize("text", ["8-308", "a:b", "308:8", "5", "-1:4"])
def test_bad_window_text_is_a_user_error(text):
    with pytest.raises(AnalysisError, match="--window"):
        parse_window(text)


def test_window_after_the_run_is_a_user_error(workload_run):
    with pytest.raises(AnalysisError, match="after the run"):
        find_window(load_run(workload_run), parse_window("100000:100010"))


def test_auto_is_no_explicit_window():
    assert parse_window("auto") is None
