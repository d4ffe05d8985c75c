"""What a run's workload phase will take (femu_lab.length): the progress line's total and
params.json's plan come from what will run (timed runs, idle, a trace's span or bytes),
and params.json records what ran. Small hand-made workloads and trace summaries."""
import json

import pytest

from femu_lab import length, workloads
from femu_lab.length import Length
from femu_lab.run import live_progress, trace_replay

pytestmark = pytest.mark.unit
GIB = 1 << 30


def _workload(tmp_path, headers):
    path = tmp_path / "mine.sh"
    path.write_text(headers + "phase workload\necho hi\n")
    return workloads.resolve(str(path))


def test_a_timed_workload_is_runs_times_runtime(tmp_path):
    plan = _workload(tmp_path, "# runtime: 7\n# runs: 3\n").length(5)
    assert plan == Length(seconds=15) and plan.timed
    assert plan.progress(4, 0) == "4/15 s" and plan.text() == "15 s"


def test_idle_and_io_are_in_the_plan_of_a_write_cliff(tmp_path):
    plan = _workload(tmp_path, "# runtime: 20\n# length: 1920m of I/O + 3 x RUNTIME\n"
                     ).length(10)
    assert (plan.timed, plan.io_bytes, plan.seconds) == (False, 1920 << 20, 30)
    assert plan.text() == "1.88 GiB of I/O + 30 s idle"
    # 85 s into the phase, 1.2 GiB done: no made-up total of seconds
    assert plan.progress(85, int(1.2 * GIB)) == "85 s, 1.20/1.88 GiB + 30 s idle"
    assert plan.params() == {"planned_workload_s": None, "planned_io_bytes": 1920 << 20,
                             "planned_idle_s": 30, "planned_at_most_s": None}


def test_the_library_write_cliff_plans_its_idle_rounds():
    """The library's write-cliff idles RUNTIME after each of its 3 rounds (lib/write-cliff.sh)."""
    cliff = workloads.resolve("write-cliff")
    rounds = cliff.guest_script(20, False).count("for round in 1 2 3")
    assert rounds == 1 and cliff.length(20).seconds == 3 * 20
    assert not cliff.length(20).timed
    assert workloads.resolve("zns-fio").length(60) == Length(seconds=30)
    assert workloads.resolve("read-aging").length(30) == Length(seconds=60)


def test_a_part_of_runtime_and_an_open_ended_task(tmp_path):
    assert length.parse("RUNTIME / 2", 61) == Length(seconds=30)
    work = length.parse("its work", 60)
    assert not work.timed and work.progress(12, 0) == "12 s (until its work is done)"


@pytest.mark.parametrize("header", ["3 x SECONDS", "RUNTIME / 0", "1920q of I/O", ""])
def test_a_bad_length_header_is_one_line(tmp_path, header):
    with pytest.raises(workloads.WorkloadError, match="header 'length'"):
        _workload(tmp_path, f"# length: {header}\n")


SUMMARY = {"span_ns": 12_400_000_000, "records": 200_000, "bytes_read": GIB // 2,
           "bytes_written": GIB}


def test_a_timed_replay_lasts_its_span_or_the_limit():
    assert trace_replay.replay_length(SUMMARY, "timed") == Length(seconds=13)
    assert trace_replay.replay_length(SUMMARY, "timed", 5) == Length(seconds=5)


def test_a_fast_replay_is_planned_by_its_bytes_not_a_guess_of_seconds():
    plan = trace_replay.replay_length(SUMMARY, "fast")
    assert not plan.timed and plan.io_bytes == GIB + GIB // 2
    # the time limit still allows a slow guest, but the line never shows it as a total
    assert plan.allowance_s() == trace_replay._runtime(SUMMARY, "fast")
    assert "/" + str(plan.allowance_s()) not in plan.progress(12, 0)
    assert plan.params()["planned_workload_s"] is None


def test_the_progress_line_shows_io_done_for_a_size_bound_phase(tmp_path):
    (tmp_path / "stats.csv").write_text(
        "time_s,interval_s,host_write_pages,gc_moved_pages,gc_erased_blocks,iops,"
        "host_read_bytes,host_write_bytes\n"
        f"1.0,1,0,0,0,0,0,{GIB}\n2.0,1,0,0,0,0,{GIB // 4},{GIB // 4}\n")
    (tmp_path / "phases.csv").write_text("time_s,phase\n1.5,workload\n")
    shot = live_progress.snapshot(tmp_path)
    plan = Length(seconds=60, io_bytes=2 * GIB)
    assert "workload 0 s, 0.50/2.00 GiB + 60 s idle" in live_progress.describe(shot, 9, plan)


def test_the_measured_phase_runs_from_its_marker_to_the_next(tmp_path):
    assert length.measured_workload_seconds(tmp_path) is None
    (tmp_path / "stats.csv").write_text("time_s\n1\n50\n101\n")
    (tmp_path / "phases.csv").write_text("time_s,phase\n3.0,setup\n10.5,workload\n")
    assert length.measured_workload_seconds(tmp_path) == 90.5       # to the last second
    (tmp_path / "phases.csv").write_text("time_s,phase\n10.5,workload\n95.5,end\n")
    assert length.measured_workload_seconds(tmp_path) == 85.0


def test_params_of_a_trace_replay_keep_no_guessed_runtime(tmp_path, monkeypatch):
    """params.json's runtime is the --runtime limit (None without one), not an estimate."""
    summary = dict(SUMMARY, format="msr")
    monkeypatch.setattr(trace_replay.femu_trace, "info", lambda *args, **kwargs: summary)

    def convert(source, target, to, **options):
        target.write_text("fio version 3 iolog\n")

    monkeypatch.setattr(trace_replay.femu_trace, "convert", convert)
    source = tmp_path / "t.csv"
    source.write_text("x\n")
    config = type("Config", (), {"logical_bytes": GIB})()
    replay = trace_replay.prepare(source, config, tmp_path, "fast")
    assert replay.params["runtime"] is None
    assert not replay.workload.length(replay.workload.runtime).timed
    json.dumps(replay.params)     # params.json takes it as it is
