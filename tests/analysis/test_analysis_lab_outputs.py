"""femu_analysis.lab_outputs on what femu-lab and ftl-sim wrote: a sweep's points from its
sweep.json whatever its folders are called, and the newest finished run per workload."""
import json
import os
import shutil

import pytest

from femu_analysis import AnalysisError
from femu_analysis.lab_outputs import (find_sweeps, newest_runs, read_sweep,
                                       runs_named_or_found, sweeps_named_or_found)


def _thresholds(sweep):
    return [point.settings["hot_threshold"] for point in sweep.points]


def test_sweep_points_come_from_the_manifest(lab_sweep):
    sweep = read_sweep(lab_sweep)
    assert sweep.workload == "zipf:1.2" and sweep.keys == ["hot_threshold"]
    assert sweep.fixed == {"placement": "hotcold"}
    assert _thresholds(sweep) == ["0", "20"] and sweep.unfinished == []
    for point in sweep.points:   # each point's own run says the same threshold
        params = json.loads((point.folder / "params.json").read_text())
        assert params["hot_threshold"] == point.settings["hot_threshold"]


def test_renamed_point_folders_are_followed(lab_sweep, tmp_path):
    """Point folder names are the sweep tool's business: only sweep.json ties them to
    settings, so a sweep whose folders are named otherwise reads the same."""
    copy = tmp_path / "sweep"
    shutil.copytree(lab_sweep, copy)
    manifest = json.loads((copy / "sweep.json").read_text())
    renamed = [f"point-{index}" for index, _ in enumerate(manifest["points"])]
    for old, new in zip(manifest["points"], renamed):
        (copy / old).rename(copy / new)
    (copy / "sweep.json").write_text(json.dumps({**manifest, "points": renamed[::-1]}))
    sweep = read_sweep(copy)   # the manifest now pairs the first setting with point-1
    assert [point.folder.name for point in sweep.points] == renamed[::-1]
    assert _thresholds(sweep) == ["0", "20"]


def test_a_failed_point_is_listed_not_read(lab_sweep, tmp_path):
    copy = tmp_path / "sweep"
    shutil.copytree(lab_sweep, copy)
    last = json.loads((copy / "sweep.json").read_text())["points"][-1]
    (copy / last).rename(copy / f"{last}.failed")
    sweep = read_sweep(copy)
    assert _thresholds(sweep) == ["0"] and sweep.unfinished == [last]


def test_sweeps_found_by_key_newest_per_workload(lab_sweep, tmp_path):
    results = tmp_path / "results"
    older, newer = results / "a", results / "b"
    shutil.copytree(lab_sweep, older)
    shutil.copytree(lab_sweep, newer)
    os.utime(older / "sweep.json", (1, 1))
    assert [sweep.folder for sweep in find_sweeps(results, "hot_threshold")] == [newer]
    assert find_sweeps(results, "gc_thres_pcent") == []
    assert [s.folder for s in sweeps_named_or_found(str(older), results, "hot_threshold")] \
        == [older]
    with pytest.raises(AnalysisError, match="sweeps hot_threshold, not gc_thres_pcent"):
        sweeps_named_or_found(str(older), results, "gc_thres_pcent")
    with pytest.raises(AnalysisError, match="no finished gc_thres_pcent sweep"):
        sweeps_named_or_found("", results, "gc_thres_pcent")


def test_not_a_sweep_folder_is_one_clear_error(tmp_path):
    with pytest.raises(AnalysisError, match="is not a femu-lab sweep folder"):
        read_sweep(tmp_path)


def test_newest_finished_run_per_workload(lab_sweep, tmp_path):
    """Run folders are found by the workload their params.json names, not by name; the
    newest result.json wins and unfinished folders are passed over."""
    point = read_sweep(lab_sweep).points[0].folder
    results = tmp_path / "results"
    for name in ("20261201-100000-x", "20261202-100000-x", "20261203-100000-x.failed"):
        shutil.copytree(point, results / name)
    os.utime(results / "20261201-100000-x" / "result.json", (1, 1))
    assert newest_runs(results, ["fio-randread", "zipf:1.2"]) == [
        results / "20261202-100000-x"]
    with pytest.raises(AnalysisError, match="no run of fio-randread in"):
        runs_named_or_found("", results, ["fio-randread"])
    with pytest.raises(AnalysisError, match="no such folder"):
        runs_named_or_found(str(results / "missing"), results, ["zipf:1.2"])
