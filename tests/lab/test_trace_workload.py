"""A recorded trace as a lab workload: `femu-lab sweep --workload FILE.trace --engine sim`
replays one recorded block stream at every point; the VM engine and run-blackbox.sh refuse
it (it has no guest script)."""
import csv
import math

import pytest

from femu_lab import cli as lab_cli, workloads
from femu_lab.run.blackbox import main as blackbox_main
from lab_calls import LAB_1G, SMALL_SIM


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)   # config paths are relative to the repository


@pytest.fixture
def recording(run_ftl_sim, repo_root, tmp_path):
    """A version-2 trace ftl-sim recorded on the small device: 3 s of random writes."""
    trace = tmp_path / "run" / "io.trace"
    trace.parent.mkdir()
    run_ftl_sim("--config", repo_root / LAB_1G, *SMALL_SIM, "--rw", "randwrite",
                "--precondition", "seq", "--qd", "16", "--runtime", "3", "--trace-out", trace)
    return trace


def test_a_recorded_trace_is_a_sim_only_workload(recording):
    workload = workloads.resolve(str(recording))
    end_ns = int(recording.read_text().splitlines()[-1].split()[1])
    assert workload.name == "replay-run"              # io.trace: named after its folder
    assert workload.runtime == math.ceil(end_ns / 1e9)
    assert workload.simulator_args() == ["--trace", str(recording.resolve())]
    with pytest.raises(workloads.WorkloadError, match="replays in ftl-sim only"):
        workload.guest_script(10, False)


@pytest.mark.parametrize("content, message", [
    (None, "does not exist"),
    ("W 0 8\n", "is not a recorded trace"),
    ("V 2\n# nothing\n", "holds no timed record"),
])
def test_unusable_trace_files(tmp_path, content, message):
    path = tmp_path / "x.trace"
    if content is not None:
        path.write_text(content)
    with pytest.raises(workloads.WorkloadError, match=message):
        workloads.resolve(str(path))


def test_sim_sweep_replays_the_recording_at_every_point(recording, capsys, tmp_path):
    out = tmp_path / "sweep"
    status = lab_cli.main(["sweep", "--workload", str(recording), "--config", LAB_1G,
                           *SMALL_SIM, "--set", "blks_per_pl=64,80", "--engine", "sim",
                           "--out", str(out)])
    stdout, stderr = capsys.readouterr()
    assert status == 0, stderr
    with open(out / "sweep.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["blks_per_pl"] for r in rows] == ["64", "80"]
    writes = []
    for point in (row["folder"] for row in rows):     # sweep.csv names the folders
        with open(out / point / "stats.csv", newline="") as f:
            writes.append(sum(int(r["host_write_cmds"]) for r in csv.DictReader(f)))
    assert writes[0] == writes[1] > 0             # the one recorded stream at both points
    assert float(rows[0]["waf"]) > float(rows[1]["waf"])   # more spare blocks, less GC


def test_vm_engine_and_run_blackbox_refuse_a_trace(recording, capsys):
    status = lab_cli.main(["sweep", "--workload", str(recording), "--set",
                           "gc_thres_pcent=60,75"])
    assert status == 2 and "replays in ftl-sim only" in capsys.readouterr().err
    status = blackbox_main(["--workload", str(recording)])
    assert status == 2 and "replays in ftl-sim only" in capsys.readouterr().err
