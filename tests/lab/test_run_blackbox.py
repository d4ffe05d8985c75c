"""run-blackbox.sh end to end on a small femu SSD under TCG: the default workload and the
complete results folder, and a failing drop-in workload that leaves no result. (Whether GC
starts within a time-bound run depends on the host's speed: tests/lab/test_sweep.py asserts
GC with a workload bound by the amount it writes.)"""
import json
import subprocess
from pathlib import Path

import pytest

from femu_lab.paths import QEMU

from femu_fixtures import SMALL_SSD  # 96 MiB logical, GC after a few seconds (tests/support)

SMALL = [arg for key, value in SMALL_SSD.items() for arg in ("--set", f"{key}={value}")]
DEVICE_FILES = ["IOPSData.csv", "throughputData.csv", "GCData.csv", "WAFData.csv",
                "statistics.csv", "stats.csv", "phases.csv", "lpn_access_count.csv"]
RUN_FILES = ["config.conf", "params.json", "workload.sh", "qemu-cmdline.txt", "console.log",
             "job.log", "dmesg.txt", "result.json", "fio-gc-randwrite.json"]
PLOTS = ["iops.png", "throughput.png", "erased_blocks.png", "moved_pages.png", "waf.png",
         "cdf.png", "summary.json", "summary.md"]


@pytest.fixture(scope="module")
def femu_ready(repo_root):
    qemu = QEMU
    if not qemu.exists():
        pytest.fail(f"{qemu} is missing: build it with build-femu/femu-compile.sh")
    return repo_root


def run_blackbox(repo_root, *args, timeout=900):
    proc = subprocess.run([str(repo_root / "build-femu" / "run-blackbox.sh"), *args],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=timeout, cwd=repo_root)
    print(proc.stderr[-3000:])
    return proc


@pytest.fixture(scope="module")
def default_run(femu_ready, tmp_path_factory):
    folder = tmp_path_factory.mktemp("blackbox") / "gc-run"
    proc = run_blackbox(femu_ready, *SMALL, "--runtime", "15", "--record", "--out", str(folder))
    return proc, folder


def test_default_workload_leaves_a_complete_results_folder(default_run):
    proc, folder = default_run
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == str(folder)
    missing = [name for name in DEVICE_FILES + RUN_FILES if not (folder / name).is_file()]
    missing += [f"plots/{name}" for name in PLOTS if not (folder / "plots" / name).is_file()]
    assert not missing
    assert not list(folder.parent.glob("*.incomplete")) and not list(folder.parent.glob("*.failed"))


def test_results_record_exactly_what_ran(default_run):
    _, folder = default_run
    config = dict(line.split("#")[0].strip().split("=", 1)
                  for line in (folder / "config.conf").read_text().splitlines()
                  if line.split("#")[0].strip())
    assert config["devsz_mb"] == "96" and config["pgs_per_blk"] == "64"
    cmdline = (folder / "qemu-cmdline.txt").read_text()
    assert f"femu,config={folder}/config.conf,stats_dir={folder}" in cmdline
    params = json.loads((folder / "params.json").read_text())
    assert params["workload"] == "gc-randwrite" and params["runtime"] == 15
    phases = (folder / "phases.csv").read_text().splitlines()
    assert [line.split(",")[1] for line in phases[1:]] == ["workload", "end"]


def test_device_counts_match_fio(default_run):
    """The device counted every write fio made (the raw-device job is the only writer):
    counts over the whole run, never rates over a window (a window's edge seconds hold
    fio's start and end, so rates compared over it drift on a busy host)."""
    _, folder = default_run
    figures = json.loads((folder / "result.json").read_text())
    print({k: figures[k] for k in ("device_iops_mean", "fio_iops", "waf", "gc_erased_blocks",
                                   "device_write_commands", "fio_write_ios")})
    assert figures["window_source"] == "phases"
    assert figures["device_write_commands"] == figures["fio_write_ios"] > 0
    assert figures["device_iops_mean"] > 0 and figures["fio_iops"] > 0
    assert figures["waf"] >= 1.0 and figures["gc_erased_blocks"] >= 0
    summary = json.loads((folder / "plots" / "summary.json").read_text())
    assert summary["waf"] == pytest.approx(figures["waf"])


def test_a_recorded_run_replays_in_ftl_sim(default_run, run_ftl_sim, tmp_path):
    """--record: the device's io.trace, replayed by ftl-sim with the run's config.conf,
    gives the statistics the device wrote, byte for byte."""
    proc, folder = default_run
    assert f"--trace {folder}/io.trace" in proc.stderr
    run_ftl_sim("--config", folder / "config.conf", "--trace", folder / "io.trace",
                "--stats-dir", tmp_path / "replay")
    for name in DEVICE_FILES:
        assert (tmp_path / "replay" / name).read_text() == (folder / name).read_text(), name


def test_a_failing_workload_is_one_error_line_and_no_result(femu_ready, tmp_path):
    """A drop-in workload file (with --precondition) whose job fails: exit 1, the folder is
    kept only as NAME.failed, and the device saw every phase up to the failure."""
    workload = tmp_path / "fails.sh"
    workload.write_text("# description: fails inside the measured part\n# runtime: 5\n"
                        "phase workload\necho about to fail\nexit 3\n")
    folder = tmp_path / "run"
    proc = run_blackbox(femu_ready, *SMALL, "--workload", str(workload), "--precondition",
                        "--out", str(folder))
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("run-blackbox.sh: error: the guest job failed: job exit status 3")
    assert last.endswith(f"what was collected is in {folder}.failed "
                         f"(read {folder}.failed/job.log)")
    assert not folder.exists() and proc.stdout.strip() == ""
    failed = Path(f"{folder}.failed")
    phases = (failed / "phases.csv").read_text().splitlines()
    # the statistics closing at power-off end the last phase (its snapshot: the run's end)
    assert [line.split(",")[1] for line in phases[1:]] == \
        ["precondition", "setup", "workload", "end"]
    assert "about to fail" in (failed / "job.log").read_text()
