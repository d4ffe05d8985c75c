"""The host-side parts of a lab run that need no guest: the effective configuration,
the live progress line read from device CSVs, results-folder naming and the
run-blackbox.sh command line's errors."""
import io
import os
import subprocess
import sys
import time

import pytest

from femu_lab import devconfig, workloads
from femu_lab.run import blackbox, live_progress, vm_run as lab_run
from femu_lab.devconfig import ConfigError
from femu_lab.length import Length

LAB_1G = "conf/lab-1g.conf"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root, ftl_sim):
    monkeypatch.chdir(repo_root)
    monkeypatch.setenv("FEMU_BUILD_DIR", str(ftl_sim.parents[2]))


def test_effective_config_applies_overrides_and_reports_capacity(tmp_path):
    config = devconfig.load(LAB_1G, {"placement": "hotcold", "hot_threshold": "6"})
    assert config.values["placement"] == "hotcold" and config.values["hot_threshold"] == "6"
    assert config.logical_bytes == 768 << 20 and config.name == "lab-1g"
    written = config.write(tmp_path / "config.conf")
    again = devconfig.load(written, {})
    assert again.values == config.values
    assert "with placement=hotcold hot_threshold=6" in written.read_text().splitlines()[0]


@pytest.mark.parametrize("config, overrides, message", [
    (LAB_1G, {"colour": "blue"}, "colour: unknown key"),
    (LAB_1G, {"ssd_size": "1024"}, "devsz_mb"),
    ("conf/missing.conf", {}, "config file conf/missing.conf does not exist"),
])
def test_bad_configs_are_one_line_errors(config, overrides, message):
    with pytest.raises(ConfigError, match=message) as caught:
        devconfig.load(config, overrides)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("items, message", [(["nchs"], "expected key=value"),
                                            (["=4"], "expected key=value"),
                                            (["nchs="], "expected key=value")])
def test_bad_overrides(items, message):
    with pytest.raises(ConfigError, match=message):
        devconfig.parse_overrides(items)


STATS_HEADER = "time_s,interval_s,host_write_pages,gc_moved_pages,gc_erased_blocks,iops\n"


def test_progress_counts_waf_and_gc_from_the_workload_phase_on(tmp_path):
    (tmp_path / "stats.csv").write_text(
        STATS_HEADER + "1.0,1,1000,0,0,250\n2.0,1,1000,500,8,250\n"
        "3.0,1,100,100,4,30\n4.0,1,300,100,4,80\n")
    (tmp_path / "phases.csv").write_text("time_s,phase\n2.5,workload\n")
    shot = live_progress.snapshot(tmp_path)
    assert shot.phase == "workload" and shot.phase_seconds == pytest.approx(1.5)
    assert shot.iops == 80 and shot.erased_blocks == 8
    assert shot.waf == pytest.approx((400 + 200) / 400)
    line = live_progress.describe(shot, 75, Length(seconds=60))
    assert line.startswith("[  1:15 elapsed] workload 2/60 s") and "WAF 1.50" in line


def test_progress_waf_counts_every_flash_program(tmp_path):
    # a buffer absorbed half the host pages; translation pages and a fallback added some
    (tmp_path / "stats.csv").write_text(
        "time_s,interval_s,host_write_pages,gc_moved_pages,gc_erased_blocks,iops,"
        "nand_user_programs,nand_gc_programs,map_writes,map_gc_moved_pages,fallback_pages\n"
        "1.0,1,400,100,2,100,200,100,40,10,30\n")
    shot = live_progress.snapshot(tmp_path)
    assert shot.waf == pytest.approx((200 + 100 + 40 + 10 + 30) / 400)


def test_progress_before_the_device_wrote_anything(tmp_path):
    shot = live_progress.snapshot(tmp_path)
    assert live_progress.describe(shot, 3, Length(seconds=60)).endswith("booting the guest")


def test_progress_thread_prints_lines_when_not_a_terminal(tmp_path):
    (tmp_path / "stats.csv").write_text(STATS_HEADER + "1.0,1,10,0,0,10\n")
    stream = io.StringIO()
    progress = live_progress.LiveProgress(tmp_path, Length(seconds=60), stream=stream, interval=0.01, every=0)
    progress.start()
    deadline = time.monotonic() + 60   # only catches a thread that never prints
    while not stream.getvalue() and time.monotonic() < deadline:
        progress.join(0.01)
    progress.stop()
    assert stream.getvalue(), "the progress thread printed nothing"
    assert "boot 1 s | 0.0k IOPS | WAF 1.00" in stream.getvalue().splitlines()[0]


def test_results_folder_names_never_collide(tmp_path):
    workload = workloads.resolve("zipf:1.2")
    first = lab_run.default_folder(tmp_path, workload)
    assert first.name.endswith("-zipf-1.2")
    lab_run.failed_path(first).mkdir()
    assert lab_run.fresh_name(first).name == first.name + "-2"


def run_blackbox(*args):
    """The script as users run it (its own processes: bash, then Python)."""
    return subprocess.run(["build-femu/run-blackbox.sh", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)


def blackbox_main(capsys, *args):
    """What the script execs, femu_lab.run.blackbox.main(ARGS), in this process: status and
    output as run_blackbox returns them, without a new Python importing pandas and
    matplotlib for each command line (the tests after this one run the script itself)."""
    capsys.readouterr()
    status = blackbox.main(list(args))
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["run-blackbox.sh", *args], status, out, err)


@pytest.mark.parametrize("args, message", [
    (["--runtime", "0"], "--runtime: 0 is not between 1"),
    (["--runtime", "soon"], "--runtime: 'soon' is not a whole number"),
    (["--workload", "nope"], "unknown workload 'nope'"),
    (["--set", "colour=blue"], "--set colour: unknown key"),
    (["--set", "nchs"], "--set: expected key=value"),
    (["--config", "conf/none.conf"], "config file conf/none.conf does not exist"),
    (["--workload", "sysbench-4"], "needs 2400 MiB but lab-1g holds 768 MiB"),
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["a.img", "stats", "extra"], "unexpected argument 'extra'"),
    (["a.img", "--record"], "--record is for lab runs"),
])
def test_run_blackbox_usage_errors_are_one_line_exit_2(capsys, args, message):
    proc = blackbox_main(capsys, *args)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("run-blackbox.sh: error: "), proc.stderr
    assert message in lines[0]


@pytest.mark.integration   # the real run-blackbox.sh, which runs scripts/install-deps.sh
def test_run_blackbox_refuses_an_existing_out_folder(tmp_path):
    proc = run_blackbox("--out", str(tmp_path))
    assert proc.returncode == 2 and f"--out {tmp_path} already exists" in proc.stderr
    lines = proc.stderr.strip().splitlines()   # a usage error through the script: one line
    assert len(lines) == 1 and lines[0].startswith("run-blackbox.sh: error: "), proc.stderr


@pytest.mark.integration   # the real run-blackbox.sh, which runs scripts/install-deps.sh
def test_run_blackbox_lists_the_workloads():
    proc = run_blackbox("--list-workloads")
    assert proc.returncode == 0
    names = [line.split()[0] for line in proc.stdout.splitlines()]
    assert "gc-randwrite" in names and "zipf:1.2" in names and "sysbench-32" in names
    assert blackbox.DEFAULT_WORKLOAD in names


def test_sysbench_rates_are_read_from_its_report(tmp_path):
    from femu_lab.run.report import sysbench_rates
    report = tmp_path / "sysbench.txt"
    report.write_text("File operations:\n    reads/s:                      1234.56\n"
                      "    writes/s:                     823.04\n    fsyncs/s:  2633.8\n\n"
                      "Throughput:\n    read, MiB/s:                  19.29\n")
    assert sysbench_rates(report) == {"sysbench_reads_per_s": 1234.56,
                                      "sysbench_writes_per_s": 823.04,
                                      "sysbench_fsyncs_per_s": 2633.8}
    assert sysbench_rates(tmp_path / "absent.txt") == {}


def test_a_reader_that_left_early_is_no_traceback():
    """`femu-lab workloads | head -1`: the write to the closed pipe raised BrokenPipeError,
    a traceback (and Python's own complaint at exit)."""
    read_end, write_end = os.pipe()
    os.close(read_end)              # no reader at all: every write meets EPIPE
    try:
        proc = subprocess.run([sys.executable, "-m", "femu_lab", "workloads"],
                              stdout=write_end, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write_end)
    assert proc.returncode == 141 and proc.stderr == b"", proc.stderr.decode()
