"""femu-lab sweep's workload parameters (--set wl.KEY=...) and its steady-state rule
(--steady waf:TOL[:N]): a bs x iodepth sweep in ftl-sim with its params recorded, bad keys
and values refused in one line, the fio options the guest job appends, and the rule on
hand-made interval series (issue 41, seed 004)."""
import json
import math
import re
import subprocess

import pytest

from femu_lab import workloads
from femu_lab.run import steady, workload_params
from lab_calls import LAB_1G, SMALL_SIM, read_csv, sweep

SIM = ["--workload", "gc-randwrite", "--config", LAB_1G, *SMALL_SIM, "--engine", "sim"]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root, ftl_sim):
    monkeypatch.chdir(repo_root)   # config paths are relative to the repository


def test_a_bs_by_iodepth_sweep_runs_in_sim_with_its_params_recorded(capsys, tmp_path):
    out = tmp_path / "sweep"
    status, _, stderr = sweep(capsys, *SIM, "--set", "wl.bs=4k,16k", "--set",
                              "wl.iodepth=1,4", "--set", "wl.numjobs=2", "--runtime", "30",
                              "--steady", "waf:0.5:2", "--out", out)
    assert status == 0, stderr
    rows = read_csv(out / "sweep.csv")
    assert [(row["wl.bs"], row["wl.iodepth"]) for row in rows] == \
        [("4k", "1"), ("4k", "4"), ("16k", "1"), ("16k", "4")]
    assert [row["folder"] for row in rows] == [
        "p01-wl.bs-4k+wl.iodepth-1", "p02-wl.bs-4k+wl.iodepth-4",
        "p03-wl.bs-16k+wl.iodepth-1", "p04-wl.bs-16k+wl.iodepth-4"]
    for row in rows:
        point = out / row["folder"]
        params = json.loads((point / "params.json").read_text())
        bs, depth = 1024 * int(row["wl.bs"][:-1]), int(row["wl.iodepth"])
        assert params["workload_params"] == {"bs": bs, "iodepth": depth, "numjobs": 2}
        assert (params["wl.bs"], params["wl.numjobs"]) == (row["wl.bs"], "2")
        assert params["steady"] == "waf:0.5:2"
        # ftl-sim got them: the last --bs and --qd (iodepth x numjobs) are the point's
        args = (point / "sim-cmdline.txt").read_text().split()
        last = {name: args[len(args) - 1 - args[::-1].index(name) + 1]
                for name in ("--bs", "--qd")}
        assert last == {"--bs": str(bs), "--qd": str(2 * depth)}
        # the steady outcome is stated, and a reached one is the measured window
        result = json.loads((point / "result.json").read_text())
        outcome = result["steady"]
        assert row["steady"] == steady.label(outcome)
        if outcome["reached"]:
            assert result["window_s"] == outcome["window_s"]
            assert len(outcome["wafs"]) == 2
        else:
            assert "WAF did not settle" in (out / "sweep.md").read_text()


@pytest.mark.parametrize("args, message", [
    (["--set", "wl.colour=1,2"], "--set wl.colour: unknown workload key (known: wl.bs, "),
    (["--set", "wl.bs=4k,3k"], "--set wl.bs: '3k' is not a block size of whole 4 KiB"),
    (["--set", "wl.bs=4k,2m"], "--set wl.bs: '2m' is not a block size"),
    (["--set", "wl.iodepth=0,4"], "--set wl.iodepth: '0' is not a whole number from 1 to 1024"),
    (["--set", "wl.rwmixread=50,101"], "'101' is not a whole number from 0 to 100"),
    (["--set", "wl.numjobs=x,2"], "--set wl.numjobs: 'x' is not a whole number from 1 to 64"),
    (["--set", "wl.bs=4k,4096"], "--set wl.bs: value '4096' given twice"),
    (["--set", "wl.iodepth=1,4", "--steady", "waf:2"], "TOL must be above 0 and below 1"),
    (["--set", "wl.iodepth=1,4", "--steady", "iops:0.1"], "--steady: expected waf:TOL[:N]"),
])
def test_bad_workload_keys_and_values_are_one_line(capsys, tmp_path, args, message):
    out = tmp_path / "sweep"
    status, stdout, stderr = sweep(capsys, *SIM, *args, "--out", out)
    assert status == 2 and stdout == [] and len(stderr) == 1, stderr
    assert message in stderr[0]
    assert not out.exists()


def test_a_key_the_workload_does_not_take_is_refused_in_either_engine(capsys, tmp_path):
    """fio-randwrite's jobs use psync: an iodepth would change nothing in the VM, so the
    sim preview refuses it too."""
    for engine in ("sim", "vm"):
        status, _, stderr = sweep(capsys, "--workload", "zipf:1.2", "--engine", engine,
                                  "--set", "wl.iodepth=1,8", "--out", tmp_path / engine)
        assert status == 2 and len(stderr) == 1
        assert "--set wl.iodepth: workload 'zipf:1.2' does not take it (it takes wl.bs, " \
               "wl.rwmixread, wl.runtime" in stderr[0]


def test_the_guest_job_appends_the_parameters_to_each_measured_fio_call(tmp_path):
    params = workload_params.of([("wl.bs", "16k"), ("wl.iodepth", "8"),
                                 ("wl.rwmixread", "30")])
    fio_args = workload_params.fio_args(params)
    job = workloads.resolve("gc-randwrite").guest_script(60, False, fio_args)
    assert "WL_FIO_ARGS='--bs=16384 --iodepth=8 --rw=randrw --rwmixread=30'" in job
    # the prelude's fio_json, run with a fio that prints its arguments
    body = re.search(r"^fio_json\(\) \{\n.*?^\}\n", workloads.PRELUDE.read_text(),
                     re.S | re.M).group(0)
    script = (f"set -eu\nWL_FIO_ARGS='{' '.join(fio_args)}'\nFEMU_OUT={tmp_path}\n"
              "say() { :; }\nfio() { printf '%s\\n' \"$@\"; }\n" + body +
              "fio_json x --rw=randwrite --bs=4k --iodepth=16\n")
    printed = subprocess.run(["sh", "-c", script], capture_output=True, text=True,
                             check=True).stdout.split()
    # fio keeps an option's last value: the sweep's come after the workload's own
    assert printed[:3] == ["--rw=randwrite", "--bs=4k", "--iodepth=16"]
    assert printed[3:7] == fio_args


def _series(wafs, erased=None, start=0.0):
    starts = [start + 10.0 * i for i in range(len(wafs))]
    return starts, [s + 10.0 for s in starts], wafs, erased or [1.0] * len(wafs)


def test_the_steady_rule_takes_the_first_intervals_that_settle():
    rule = steady.parse("waf:0.02:3")
    outcome = steady.settle(rule, *_series([1.0, 2.0, 3.0, 3.5, 3.52, 3.51, 3.50, 3.6]))
    assert outcome.reached and (outcome.start_s, outcome.end_s) == (30.0, 60.0)
    assert outcome.wafs == [3.5, 3.52, 3.51]
    # one step wider than the tolerance: not these three
    outcome = steady.settle(rule, *_series([3.5, 3.6, 3.51, 3.52, 3.5]))
    assert (outcome.start_s, outcome.end_s) == (20.0, 50.0)


def test_the_steady_rule_never_counts_intervals_without_gc_or_writes():
    rule = steady.parse("waf:0.02:3")
    # WAF 1.0 flat on a device not yet full is no steady state
    flat = steady.settle(rule, *_series([1.0] * 6, erased=[0.0] * 6))
    assert not flat.reached and flat.searched_s == 60.0
    assert steady.label(flat.record()) == "NOT reached in 60 s"
    # an interval without host writes (NaN) or GC breaks a run of settled ones
    broken = steady.settle(rule, *_series([4.0, 4.0, math.nan, 4.0, 4.0, 4.0, 4.0],
                                          erased=[1, 1, 1, 1, 0, 1, 1]))
    assert not broken.reached
    # and so does a gap between intervals (a row missing)
    starts, ends, wafs, erased = _series([4.0] * 4)
    del starts[2], ends[2], wafs[2], erased[2]
    assert not steady.settle(rule, starts, ends, wafs, erased).reached
    assert steady.settle(steady.parse("waf:0.02:2"), starts, ends, wafs, erased).reached


@pytest.mark.parametrize("text", ["waf", "waf:", "waf:0", "waf:1", "waf:x", "waf:0.1:1",
                                  "waf:0.1:101", "waf:0.1:2:3", "iops:0.1", "waf:nan"])
def test_a_malformed_steady_rule_is_one_line(text):
    with pytest.raises(steady.SteadyError) as error:
        steady.parse(text)
    assert "\n" not in str(error.value) and str(error.value).startswith("--steady")


def test_a_longer_sim_run_has_the_shorter_ones_rows(run_ftl_sim, tmp_path):
    """What makes --steady exact in ftl-sim: the statistics rows up to a moment are the
    same whether the run stops there or goes on."""
    rows = {}
    for runtime in (30, 60):
        out = tmp_path / str(runtime)
        run_ftl_sim("--config", LAB_1G, *SMALL_SIM, "--rw", "randwrite", "--qd", "4",
                    "--runtime", runtime, "--stats-dir", out)
        rows[runtime] = (out / "statistics.csv").read_text().splitlines()
    # the header and the three whole 10 s rows (a run may end with a stub row)
    assert rows[30][3].startswith("30.000,") and rows[60][:4] == rows[30][:4]


def test_a_sweep_folder_of_another_steady_rule_is_refused(tmp_path):
    from femu_lab.sweep import folder as sweep_folder
    held = {"workload": "gc-randwrite", "steady": "waf:0.02:3"}
    (tmp_path / sweep_folder.SWEEP_FILE).write_text(json.dumps(held))
    sweep_folder.check(tmp_path, dict(held))
    for other in ({"workload": "gc-randwrite"}, {**held, "steady": "waf:0.05:3"}):
        with pytest.raises(sweep_folder.FolderError, match="steady"):
            sweep_folder.check(tmp_path, other)
