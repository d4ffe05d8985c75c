"""femu-lab sweep --executor slurm against a real single-node Slurm cluster (conftest.py):
ftl-sim sweeps through sbatch end to end, resume, a failing task, --status, Ctrl-C's
scancel, bad input before anything is submitted, and one short VM sweep."""
import json
import os
import subprocess
import sys
import time

import pytest

from femu_lab.slurm import executor as slurm_executor, queue as slurm_queue
from femu_lab.paths import QEMU

from lab_calls import GC_BY_SIZE, LAB_1G, SMALL_SIM, SMALL_VM, read_csv, sweep  # tests/support

# As tests/lab/test_sweep.py's QUICK: a 48 MiB-logical device that gc-randwrite covers
# whole, so each point simulates and plots in a fraction of a second.
QUICK = ["--workload", "gc-randwrite", "--config", LAB_1G, *SMALL_SIM, "--runtime", "10",
         "--engine", "sim", "--set", "placement=hotcold", "--set", "hot_threshold=0,6"]
NAMES = ["p01-hot_threshold-0", "p02-hot_threshold-6"]      # point folders


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root, slurm_cluster, ftl_sim):
    monkeypatch.chdir(repo_root)   # config paths are relative to the repository


def jobs(folder):
    return slurm_queue.read_jobs(folder)


def task_states(job):
    return {key[1]: state.state for key, state in slurm_queue.squeue_states([job]).items()}


@pytest.fixture
def busy_node():
    """A job holding every CPU of the node, so tasks submitted meanwhile stay pending;
    returns a function releasing it (also called at the end)."""
    proc = subprocess.run(["sbatch", "--parsable", "--exclusive", "--job-name=blocker",
                           "--output=/dev/null", "--wrap", "sleep 600"],
                          capture_output=True, text=True, check=True)
    job = proc.stdout.strip().split(";")[0]
    release = lambda: subprocess.run(["scancel", job], check=True)   # noqa: E731
    yield release
    release()


def test_two_point_sim_sweep_through_sbatch(capsys, tmp_path):
    out = tmp_path / "sweep"
    status, stdout, stderr = sweep(capsys, *QUICK, "--out", out, "--executor", "slurm")
    assert status == 0, stderr
    assert stdout[-1] == str(out.resolve())
    for name in NAMES:
        assert (out / name / "result.json").exists() and (out / name / "plots").is_dir()
    rows = read_csv(out / "sweep.csv")
    assert [(row["hot_threshold"], row["status"]) for row in rows] == [("0", "done"),
                                                                        ("6", "done")]
    submitted = jobs(out)
    assert len(submitted) == 1 and submitted[0]["indices"] == [0, 1]
    job = submitted[0]["job"]
    for index in (0, 1):
        log = out / "slurm" / f"{job}_{index}.log"
        assert f"task {job}_{index} on " in log.read_text()
    assert any(f"submitted job {job}: 2 task(s), array 0-1" in line for line in stderr)
    assert sum(": done, " in line and "WAF" in line for line in stderr) == 2
    assert (out / "plots" / "compare_waf.png").exists()
    request = json.loads((out / "slurm" / "request.json").read_text())
    assert request["engine"] == "sim" and request["python"].endswith("/.venv/bin/python")


def test_resume_resubmits_only_what_is_missing(capsys, tmp_path):
    out = tmp_path / "sweep"
    args = [*QUICK, "--out", out, "--executor", "slurm"]
    assert sweep(capsys, *args)[0] == 0
    kept = (out / NAMES[1] / "result.json").stat().st_mtime_ns
    subprocess.run(["rm", "-r", str(out / NAMES[0])], check=True)

    status, _, stderr = sweep(capsys, *args)
    assert status == 0, stderr
    submitted = jobs(out)
    assert [entry["indices"] for entry in submitted] == [[0, 1], [0]]
    assert any(f"submitted job {submitted[1]['job']}: 1 task(s), array 0" in line
               for line in stderr)
    assert any("[2/2] hot_threshold=6: finished earlier, kept" in line for line in stderr)
    assert (out / NAMES[1] / "result.json").stat().st_mtime_ns == kept
    assert [row["status"] for row in read_csv(out / "sweep.csv")] == ["done", "done"]

    # nothing left to do: nothing submitted
    status, _, _ = sweep(capsys, *args)
    assert status == 0 and len(jobs(out)) == 2


def test_a_failing_task_is_reported_with_its_log(capsys, tmp_path):
    workload = tmp_path / "bad-sim.sh"
    workload.write_text("# description: ftl-sim refuses this '# sim:' line at run time\n"
                        "# sim: --rw sideways\nphase workload\ntrue\n")
    out = tmp_path / "sweep"
    status, stdout, stderr = sweep(capsys, "--workload", workload, "--config", LAB_1G,
                                   "--set", "gc_thres_pcent=70,80", "--runtime", 5,
                                   "--engine", "sim", "--out", out, "--executor", "slurm")
    assert status == 1
    job = jobs(out)[0]["job"]
    for index, value in enumerate(["70", "80"]):
        log = out / "slurm" / f"{job}_{index}.log"
        assert (out / f"p0{index + 1}-gc_thres_pcent-{value}.failed" / "ftl-sim.log").exists()
        assert any(f"gc_thres_pcent={value}: failed: task {job}_{index} FAILED" in line
                   and str(log) in line for line in stderr), stderr
        assert "ftl-sim failed (exit status" in log.read_text()
    # the log's last lines follow the failure line
    assert any(line.startswith("femu-lab:     ") and "ftl-sim failed" in line
               for line in stderr)
    assert "2 of 2 points failed" in " ".join(stderr)
    assert [row["status"] for row in read_csv(out / "sweep.csv")] == ["failed", "failed"]


def test_status_of_a_finished_sweep(capsys, tmp_path):
    out = tmp_path / "sweep"
    assert sweep(capsys, *QUICK, "--out", out, "--executor", "slurm")[0] == 0
    job = jobs(out)[0]["job"]
    status, stdout, stderr = sweep(capsys, "--status", out)
    assert status == 0
    assert stdout[0].startswith("[1/2] hot_threshold=0") and ": " not in stdout[0][:5]
    assert all("done, " in line and "WAF" in line for line in stdout[:2])
    assert stdout[2] == f"2 points: 2 done (job {job})"
    assert sum("sacct unavailable" in line for line in stderr) == 1   # no slurmdbd here


def test_no_wait_then_status_then_the_same_command_waits(capsys, tmp_path, busy_node):
    out = tmp_path / "sweep"
    args = [*QUICK, "--out", out, "--executor", "slurm"]
    status, stdout, stderr = sweep(capsys, *args, "--no-wait")
    assert status == 0, stderr
    job = jobs(out)[0]["job"]
    assert any(f"submitted: job {job}; progress: femu-lab sweep --status {out.resolve()}"
               in line for line in stderr)
    assert not (out / "sweep.csv").exists()

    status, stdout, _ = sweep(capsys, "--status", out)
    assert status == 0
    assert all(f"pending (task {job}_" in line for line in stdout[:2]), stdout
    assert stdout[2] == f"2 points: 2 pending (job {job})"

    busy_node()                            # the node frees up: the tasks run
    status, _, stderr = sweep(capsys, *args)
    assert status == 0, stderr
    assert len(jobs(out)) == 1             # waited for the earlier job, submitted nothing
    assert [row["status"] for row in read_csv(out / "sweep.csv")] == ["done", "done"]


def test_ctrl_c_cancels_only_when_asked(capsys, tmp_path, busy_node):
    out = tmp_path / "sweep"
    assert sweep(capsys, *QUICK, "--out", out, "--executor", "slurm", "--no-wait")[0] == 0
    job = jobs(out)[0]["job"]
    waiting = {0: job, 1: job}
    # without a terminal (CI): nothing cancelled, the command printed
    assert not slurm_executor.offer_cancel(waiting, interactive=False)
    assert f"to cancel it: scancel {job}" in capsys.readouterr().err
    assert set(task_states(job).values()) == {"PENDING"}
    # on a terminal: asked; "n" keeps the job, "y" cancels it
    questions = []
    assert not slurm_executor.offer_cancel(
        waiting, ask=lambda q: questions.append(q) or "n", interactive=True)
    assert questions == [f"\ncancel job {job} (2 task(s) left)? [y/N] "]
    assert set(task_states(job).values()) == {"PENDING"}
    assert slurm_executor.offer_cancel(waiting, ask=lambda q: "y", interactive=True)
    assert set(task_states(job).values()) == {"CANCELLED"}

    status, stdout, _ = sweep(capsys, "--status", out)
    assert status == 0 and stdout[-1] == f"2 points: 2 failed (job {job})"
    assert f"not run (task {job}_0 CANCELLED); log {out.resolve()}/slurm/{job}_0.log" \
        in stdout[0]


def _path_without_slurm(tmp_path):
    """A PATH with every program of the current one except Slurm's commands."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for name in os.listdir(directory):
            target = os.path.join(directory, name)
            if (name.startswith(("sbatch", "squeue", "scancel", "sinfo", "scontrol", "sacct"))
                    or (bin_dir / name).exists() or not os.access(target, os.X_OK)):
                continue
            (bin_dir / name).symlink_to(target)
    return str(bin_dir)


def _job_ids():
    """The ids of the jobs squeue knows (an array's tasks, pending or split, are its id)."""
    listed = subprocess.run(["squeue", "-h", "-t", "all", "-o", "%i"], capture_output=True,
                            text=True, check=True).stdout
    return {line.split("_")[0] for line in listed.split()}


@pytest.mark.parametrize("extra, message", [
    (["--executor", "slurm", "--partition", "nosuch"],
     "--partition nosuch: no such partition (partitions: femu)"),
    (["--executor", "slurm", "--time", "soon"], "argument --time: 'soon' is not a Slurm time"),
    (["--executor", "slurm", "--slurm-mem", "4X"],
     "argument --slurm-mem: '4X' is not a Slurm memory size"),
    (["--executor", "slurm", "--cpus-per-task", "0"], "argument --cpus-per-task: 0 is not"),
    (["--executor", "slurm", "--jobs", "2"], "--jobs with --executor slurm"),
    (["--partition", "femu"], "--partition needs --executor slurm"),
    (["--no-wait"], "--no-wait needs --executor slurm"),
])
def test_bad_input_exits_2_before_anything_is_submitted(capsys, tmp_path, extra, message):
    out = tmp_path / "sweep"
    before = _job_ids()
    status, stdout, stderr = sweep(capsys, *QUICK, "--out", out, *extra)
    assert status == 2
    assert len(stderr) == 1 and stderr[0].startswith("femu-lab: error: "), stderr
    assert message in stderr[0]
    assert not out.exists()
    # nothing submitted: no job id new. (The listing itself may change meanwhile: earlier
    # tests' jobs end, split into tasks or change their order, as CI saw.)
    assert _job_ids() <= before


def test_no_sbatch_on_path_exits_2(capsys, tmp_path, monkeypatch):
    out = tmp_path / "sweep"
    monkeypatch.setenv("PATH", _path_without_slurm(tmp_path))
    status, stdout, stderr = sweep(capsys, *QUICK, "--out", out, "--executor", "slurm")
    assert status == 2
    assert len(stderr) == 1 and "--executor slurm: sbatch" in stderr[0], stderr
    assert "not on PATH" in stderr[0]
    assert not out.exists()


def test_status_of_a_folder_without_a_sweep(capsys, tmp_path):
    status, stdout, stderr = sweep(capsys, "--status", tmp_path)
    assert status == 2 and stdout == []
    assert stderr == [f"femu-lab: error: --status {tmp_path}: no sweep.json there (not a "
                      "sweep folder)"]


@pytest.mark.vm
def test_vm_sweep_point_through_sbatch(capsys, repo_root, tmp_path, busy_node):
    """A sweep has two points at least: it is submitted while the node is busy, that job
    is cancelled and the first point given a stand-in finished folder, so the same command
    again sends Slurm the one point left: femu in QEMU on the node, with 2 CPUs."""
    if not QEMU.exists():
        pytest.fail(f"{QEMU} is missing: build it with build-femu/femu-compile.sh")
    out = tmp_path / "sweep"
    workload = tmp_path / "gc-by-size.sh"
    workload.write_text(GC_BY_SIZE)
    args = ["--workload", workload, *SMALL_VM, "--set", "placement=hotcold",
            "--set", "hot_threshold=0,6", "--out", out, "--qemu", QEMU.relative_to(repo_root),
            "--executor", "slurm", "--cpus-per-task", 2]
    status, _, stderr = sweep(capsys, *args, "--no-wait")
    assert status == 0, stderr
    first = jobs(out)[0]["job"]
    subprocess.run(["scancel", first], check=True)
    for _ in range(60):   # scancel answers before the controller has moved every task
        if not any(state in slurm_queue.ACTIVE for state in task_states(first).values()):
            break
        time.sleep(0.5)
    (out / NAMES[0]).mkdir()
    (out / NAMES[0] / "result.json").write_text('{"waf": 1.0}\n')
    busy_node()

    status, stdout, stderr = sweep(capsys, *args)
    print("\n".join(stderr), file=sys.stderr)
    assert status == 0
    assert [entry["indices"] for entry in jobs(out)] == [[0, 1], [1]]
    job = jobs(out)[1]["job"]
    point = out / NAMES[1]
    result = json.loads((point / "result.json").read_text())
    assert result["gc_erased_blocks"] > 0 and result["waf"] > 1
    assert result["device_write_commands"] == result["fio_write_ios"] == 192 * 256
    assert (point / "console.log").exists() and (point / "plots" / "iops.png").exists()
    assert f"task {job}_1 on " in (out / "slurm" / f"{job}_1.log").read_text()
    assert [row["status"] for row in read_csv(out / "sweep.csv")] == ["done", "done"]
