"""femu-lab sweep: checks before the first run, the ftl-sim engine end to end (point folders,
comparison plots, table), resuming, refusing another sweep's folder, one short VM sweep."""
import json
import subprocess
import sys

import pytest

from femu_lab import workloads
from femu_lab.commands import COMMANDS
from femu_lab.sweep import folder as sweep_folder, plan as sweep_plan
from femu_lab.paths import QEMU
from lab_calls import GC_BY_SIZE, LAB_1G, SMALL_SIM, SMALL_VM, read_csv, sweep

HOTCOLD = ["--set", "placement=hotcold"]
# Sweeps that test the mechanics: gc-randwrite's '# sim:' line covers the whole (small)
# device, so each point simulates and plots in a fraction of a second.
QUICK = ["--workload", "gc-randwrite", "--config", LAB_1G, *SMALL_SIM, "--runtime", "10",
         "--engine", "sim"]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)   # config paths are relative to the repository


@pytest.fixture
def sim_runs(tmp_path, ftl_sim, monkeypatch):
    """Put a logging ftl-sim in front of the real one (FEMU_BUILD_DIR); returns a function
    giving the point folders simulated so far. FAIL_POINT=NAME makes that point's run fail."""
    log = tmp_path / "ftl-sim-runs.log"
    wrapper = tmp_path / "build" / "tools" / "ftl-sim" / "ftl-sim"
    wrapper.parent.mkdir(parents=True)
    wrapper.write_text(f"""#!/usr/bin/env bash
for arg in "$@"; do
    if [[ $arg == --stats-dir ]]; then stats=yes; continue; fi
    if [[ ${{stats:-}} == yes ]]; then echo "$(basename "$arg")" >> {log}; stats=done; fi
done
if [[ -n ${{FAIL_POINT:-}} && " $* " == *"/$FAIL_POINT.incomplete "* ]]; then
    echo "ftl-sim: injected failure" >&2
    exit 3
fi
exec {ftl_sim} "$@"
""")
    wrapper.chmod(0o755)
    monkeypatch.setenv("FEMU_BUILD_DIR", str(tmp_path / "build"))
    return lambda: log.read_text().split() if log.exists() else []


@pytest.mark.parametrize("args, message", [
    (["--workload", "nope", "--set", "gc_thres_pcent=70,80"], "unknown workload 'nope'"),
    (["--workload", "zipf:1.2", "--set", "colour=1,2"], "--set colour: unknown key"),
    (["--workload", "zipf:1.2", *HOTCOLD, "--set", "hot_threshold=0,6,x"],
     "--set hot_threshold: 'x' is not a non-negative integer (point hot_threshold=x)"),
    (["--workload", "zipf:1.2", "--set", "hot_threshold="], "hot_threshold: empty value list"),
    (["--workload", "zipf:1.2", "--set", "gc_thres_pcent=70,,80"], "empty value in '70,,80'"),
    (["--workload", "zipf:1.2", "--set", "gc_thres_pcent=70,70"], "value '70' given twice"),
    (["--workload", "zipf:1.2", "--set", "gc_thres_pcent=70,80", "--set",
      "gc_thres_pcent=60,90"], "--set gc_thres_pcent: swept key given twice"),
    (["--workload", "zipf:1.2", "--set", "gc_thres_pcent=70"], "nothing to sweep"),
    (["--workload", "fio-randwrite", "--set", "gc_thres_pcent=70,80"],
     "workload 'fio-randwrite' needs 2400 MiB but lab-1g at gc_thres_pcent=70 holds 768 MiB"),
    (["--workload", "zipf:1.2", *SMALL_SIM, "--set", "gc_thres_pcent=70,80", "--engine",
      "sim"], "covers 576 MiB in ftl-sim (its '# sim:' --size) but lab-1g"),
    (["--workload", "sysbench-4", "--set", "gc_thres_pcent=70,80", "--engine", "sim"],
     "workload 'sysbench-4' has no '# sim:' line"),
    (["--workload", "zipf:1.2", "--set", "hot_threshold=0,6"],
     "placement is single, and the FTL ignores hot_threshold unless placement=hotcold "
     "(add --set placement=hotcold)"),
    (["--workload", "zipf:1.2", "--set", "hot_threshold=6", "--set", "gc_thres_pcent=70,80"],
     "(add --set placement=hotcold)"),
    (["--workload", "zipf:1.2", "--set", "placement=single,hotcold", "--set",
      "hot_threshold=0,6"], "placement is single at placement=single, hot_threshold=0"),
    (["--workload", "zipf:1.2", "--set", "gc_thres_pcent=70,80", "--config", "/none.conf"],
     "config file /none.conf does not exist"),
    (["--workload", "zipf:1.2", "--set", "gc_thres_pcent=70,80", "--jobs", "0"],
     "argument --jobs: 0 is not between 1 and 64"),
    (["--workload", "zipf:1.2", "--set", "gc_thres_pcent=70,80", "--engine", "cloud"],
     "argument --engine: invalid choice: 'cloud'"),
    (["--set", "gc_thres_pcent=70,80"], "the following arguments are required: --workload"),
])
def test_bad_sweeps_exit_2_with_one_line_before_anything_runs(capsys, sim_runs, tmp_path,
                                                              args, message):
    out = tmp_path / "sweep"
    status, stdout, stderr = sweep(capsys, *args, "--out", out)
    assert status == 2
    assert len(stderr) == 1 and stderr[0].startswith("femu-lab: error: "), stderr
    assert message in stderr[0]
    assert stdout == []
    assert not out.exists() and sim_runs() == []


@pytest.mark.integration   # scripts/femu-lab, which runs scripts/install-deps.sh
def test_commands_other_than_sweep(repo_root):
    """Through the scripts/femu-lab wrapper: the workload list, run-blackbox's errors."""
    wrapper = str(repo_root / "scripts" / "femu-lab")
    listed = subprocess.run([wrapper, "workloads"], capture_output=True, text=True)
    assert listed.returncode == 0
    assert any(line.startswith("zipf:1.2 ") for line in listed.stdout.splitlines())
    bad = subprocess.run([wrapper, "run", "--workload", "nope"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines()[-1].startswith(
        "femu-lab run: error: unknown workload 'nope'")
    missing = subprocess.run([wrapper, "frobnicate"], capture_output=True, text=True)
    assert missing.returncode == 2
    # every registered command, in the registry's order
    assert (f"femu-lab: error: expected a command ({', '.join(c.name for c in COMMANDS)}), "
            "got 'frobnicate'") in missing.stderr
    assert "fdp-bench" in missing.stderr and "soak" in missing.stderr


def test_points_follow_the_sets_in_the_order_given():
    plan = sweep_plan.parse_sets(["placement=hotcold", "hot_threshold=6,0",
                                  "gc_thres_pcent=80,70", "gc_thres_pcent_high=90",
                                  "gc_thres_pcent_high=95"])
    assert plan.fixed == {"placement": "hotcold", "gc_thres_pcent_high": "95"}
    assert [point.name for point in plan.points()] == [
        "p01-hot_threshold-6+gc_thres_pcent-80", "p02-hot_threshold-6+gc_thres_pcent-70",
        "p03-hot_threshold-0+gc_thres_pcent-80", "p04-hot_threshold-0+gc_thres_pcent-70"]
    assert dict(plan.points()[1].overrides) == {
        "placement": "hotcold", "hot_threshold": "6", "gc_thres_pcent": "70",
        "gc_thres_pcent_high": "95"}
    folder = sweep_folder.default_folder(sweep_folder.paths.REPO_ROOT / "results",
                                         workloads.resolve("zipf:1.2"), plan, "sim")
    assert folder.name == "sweep-zipf-1.2-hot_threshold+gc_thres_pcent-sim"


def test_sim_sweep_writes_every_point_plots_and_table(capsys, sim_runs, tmp_path):
    out = tmp_path / "sweep"
    status, stdout, stderr = sweep(capsys, "--workload", "zipf:1.2", "--config", LAB_1G,
                                   *HOTCOLD, "--set", "hot_threshold=0,6,20", "--runtime", 20,
                                   "--engine", "sim", "--out", out)
    assert status == 0, stderr
    assert stdout[-1] == str(out.resolve())
    names = ["p01-hot_threshold-0", "p02-hot_threshold-6", "p03-hot_threshold-20"]
    assert sim_runs() == [f"{name}.incomplete" for name in names]
    # in sweep order for ls and sort, no '=' for awk
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == names + ["plots"]
    for name in names:
        point = out / name
        assert (point / "plots" / "iops.png").exists() and (point / "summary.json").exists()
        params = json.loads((point / "params.json").read_text())
        assert params["hot_threshold"] == name.split("-")[-1]
        assert params["placement"] == "hotcold" and params["workload"] == "zipf:1.2"
        assert f"hot_threshold={params['hot_threshold']}" in (point / "config.conf").read_text()
    for metric in ("iops", "waf", "throughput"):
        assert (out / "plots" / f"compare_{metric}.png").stat().st_size > 0
    rows = read_csv(out / "sweep.csv")
    assert [row["hot_threshold"] for row in rows] == ["0", "6", "20"]
    assert all(row["status"] == "done" for row in rows)
    waf = {row["hot_threshold"]: float(row["waf"]) for row in rows}
    for name, row in zip(names, rows):
        result = json.loads((out / name / "result.json").read_text())
        assert float(row["waf"]) == pytest.approx(result["waf"], abs=1e-3)
        assert float(row["device_iops_mean"]) == pytest.approx(result["device_iops_mean"],
                                                               abs=1)
        assert int(row["gc_erased_blocks"]) > 0
    # zipf 1.2 is skewed: separating hot pages from cold ones moves fewer valid pages
    assert waf["6"] < waf["0"] and waf["20"] < waf["0"]
    assert "fio_iops" not in rows[0]       # the simulator runs no fio
    assert any(line.split()[:2] == ["hot_threshold", "device"] for line in stdout)
    assert "![compare_waf](plots/compare_waf.png)" in (out / "sweep.md").read_text()
    definition = json.loads((out / "sweep.json").read_text())
    assert definition["point_folders"] == [
        {"folder": name, "settings": {"hot_threshold": value}, "label": f"hot_threshold={value}"}
        for name, value in zip(names, ("0", "6", "20"))]
    assert [row["folder"] for row in rows] == names
    assert definition["axes"] == [{"key": "hot_threshold", "values": ["0", "6", "20"]}]
    assert definition["fixed"] == {"placement": "hotcold"}
    assert (definition["config"], definition["runtime"], definition["engine"]) == (
        LAB_1G, 20, "sim")


def test_a_second_run_resumes_and_reruns_only_what_is_missing(capsys, sim_runs, tmp_path):
    out = tmp_path / "sweep"
    args = [*QUICK, *HOTCOLD, "--set", "hot_threshold=0,6,20", "--out", out]
    assert sweep(capsys, *args)[0] == 0
    results = {p.parent.name: p.stat().st_mtime_ns for p in out.glob("*/result.json")}
    assert len(results) == 3 and len(sim_runs()) == 3

    status, _, stderr = sweep(capsys, *args)
    assert status == 0 and len(sim_runs()) == 3
    assert sum("finished earlier, kept" in line for line in stderr) == 3
    assert {p.parent.name: p.stat().st_mtime_ns for p in out.glob("*/result.json")} == results

    # a point deleted and a point left failed run again, the third stays as it is
    subprocess.run(["rm", "-r", str(out / "p01-hot_threshold-0")], check=True)
    (out / "p02-hot_threshold-6").rename(out / "p02-hot_threshold-6.failed")
    status, _, _ = sweep(capsys, *args)
    assert status == 0
    assert sim_runs()[3:] == ["p01-hot_threshold-0.incomplete",
                              "p02-hot_threshold-6.incomplete"]
    assert not (out / "p02-hot_threshold-6.failed").exists()
    assert (out / "p03-hot_threshold-20" / "result.json").stat().st_mtime_ns == \
        results["p03-hot_threshold-20"]
    assert [row["status"] for row in read_csv(out / "sweep.csv")] == ["done"] * 3


def test_a_failed_point_lets_the_others_finish(capsys, sim_runs, tmp_path, monkeypatch):
    out = tmp_path / "sweep"
    args = [*QUICK, *HOTCOLD, "--set", "hot_threshold=0,6,20", "--out", out]
    monkeypatch.setenv("FAIL_POINT", "p02-hot_threshold-6")
    status, stdout, stderr = sweep(capsys, *args)
    assert status == 1
    assert stdout[-1] == str(out.resolve())
    failed = out / "p02-hot_threshold-6.failed"
    assert "ftl-sim: injected failure" in (failed / "ftl-sim.log").read_text()
    assert (out / "p01-hot_threshold-0").is_dir() and (out / "p03-hot_threshold-20").is_dir()
    assert any("hot_threshold=6: failed: ftl-sim failed (exit status 3): ftl-sim: injected "
               "failure" in line for line in stderr)
    assert [row["status"] for row in read_csv(out / "sweep.csv")] == ["done", "failed", "done"]
    assert "1 of 3 points failed" in stderr[-1]

    monkeypatch.delenv("FAIL_POINT")
    status, _, _ = sweep(capsys, *args)
    assert status == 0
    assert sim_runs() == ["p01-hot_threshold-0.incomplete", "p02-hot_threshold-6.incomplete",
                          "p03-hot_threshold-20.incomplete", "p02-hot_threshold-6.incomplete"]
    assert (out / "p02-hot_threshold-6").is_dir() and not failed.exists()


def test_parallel_points_land_in_the_definition_order(capsys, sim_runs, tmp_path):
    out = tmp_path / "sweep"
    status, _, stderr = sweep(capsys, *QUICK, "--set", "gc_thres_pcent=60,70,80",
                              "--set", "nchs=2,4", "--jobs", 3, "--out", out)
    assert status == 0, stderr
    assert not any("warning" in line for line in stderr)   # only VMs share cores
    rows = read_csv(out / "sweep.csv")
    assert [(row["gc_thres_pcent"], row["nchs"]) for row in rows] == [
        ("60", "2"), ("60", "4"), ("70", "2"), ("70", "4"), ("80", "2"), ("80", "4")]
    assert sorted(sim_runs()) == [f"p{i:02d}-gc_thres_pcent-{g}+nchs-{n}.incomplete"
                                  for i, (g, n) in enumerate(
                                      [(g, n) for g in (60, 70, 80) for n in (2, 4)], 1)]


def test_another_definition_in_the_folder_is_refused(capsys, sim_runs, tmp_path):
    out = tmp_path / "sweep"
    args = [*QUICK, *HOTCOLD, "--set", "hot_threshold=0,6", "--out", out]
    assert sweep(capsys, *args)[0] == 0
    status, stdout, stderr = sweep(capsys, *args, "--runtime", 12)
    assert status == 2 and stdout == [] and len(stderr) == 1
    assert stderr[0] == (f"femu-lab: error: {out.resolve()} holds another sweep (runtime 10 "
                         "there, 12 here): choose another --out")
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "notes.txt").write_text("mine\n")
    status, _, stderr = sweep(capsys, *args, "--out", stranger)
    assert status == 2
    assert stderr == [f"femu-lab: error: {stranger.resolve()} exists and holds no sweep.json: "
                      "choose another --out"]
    assert len(sim_runs()) == 2


def test_a_sweep_folder_of_old_point_names_is_refused_in_one_line(capsys, sim_runs, tmp_path):
    """Folders named KEY=VALUE (before pNN- names) are not resumed into new names."""
    out = tmp_path / "sweep"
    args = [*QUICK, *HOTCOLD, "--set", "hot_threshold=0,6", "--out", out]
    assert sweep(capsys, *args)[0] == 0
    record = json.loads((out / "sweep.json").read_text())
    record["points"] = ["hot_threshold=0", "hot_threshold=6"]
    del record["point_folders"]
    (out / "sweep.json").write_text(json.dumps(record))
    status, stdout, stderr = sweep(capsys, *args)
    assert status == 2 and stdout == [] and len(stderr) == 1
    assert stderr[0].startswith(f"femu-lab: error: {out.resolve()} is a sweep of an older "
                                "femu-lab, whose point folders are named KEY=VALUE")
    assert len(sim_runs()) == 2


def test_folder_names_are_paths_in_sweep_order():
    plan = sweep_plan.parse_sets([f"gc_thres_pcent={','.join(map(str, range(1, 101)))}"])
    names = [point.name for point in plan.points()]
    assert names[0] == "p001-gc_thres_pcent-1" and names == sorted(names)
    assert not any("=" in name or "," in name for name in names)


@pytest.mark.vm
def test_vm_sweep_of_two_points(capsys, repo_root, tmp_path):
    qemu = QEMU
    if not qemu.exists():
        pytest.fail(f"{qemu} is missing: build it with build-femu/femu-compile.sh")
    out = tmp_path / "sweep"
    workload = tmp_path / "gc-by-size.sh"
    workload.write_text(GC_BY_SIZE)
    # --qemu names the built binary: the test runs it as it is, never rebuilds it
    status, stdout, stderr = sweep(capsys, "--workload", workload, *SMALL_VM, *HOTCOLD,
                                   "--set", "hot_threshold=0,6",
                                   "--out", out, "--qemu", qemu.relative_to(repo_root))
    print("\n".join(stderr), file=sys.stderr)
    assert status == 0
    assert stdout[-1] == str(out.resolve())
    rows = read_csv(out / "sweep.csv")
    assert [row["hot_threshold"] for row in rows] == ["0", "6"]
    for name, row in zip(("p01-hot_threshold-0", "p02-hot_threshold-6"), rows):
        point = out / name
        assert (point / "plots" / "iops.png").exists() and (point / "console.log").exists()
        result = json.loads((point / "result.json").read_text())
        assert result["gc_erased_blocks"] > 0          # more written than the flash holds
        assert result["waf"] > 1 and float(row["waf"]) > 1
        assert result["device_write_commands"] == result["fio_write_ios"] == 192 * 256
        assert result["fio_iops"] > 0 and float(row["fio_iops"]) > 0
        assert json.loads((point / "params.json").read_text())["hot_threshold"] == name[-1]
    for metric in ("iops", "waf", "throughput"):
        assert (out / "plots" / f"compare_{metric}.png").exists()


def test_a_long_point_says_how_far_it_got(capsys, sim_runs, tmp_path, monkeypatch):
    """Inside each simulated point a line every few seconds (here every 0.05 s): wall
    time so far and the simulated seconds of the workload, from ftl-sim's stats.csv."""
    from femu_lab.sweep import point_progress
    monkeypatch.setattr(point_progress, "FIRST_S", 0.05)
    monkeypatch.setattr(point_progress, "EVERY_S", 0.05)
    out = tmp_path / "sweep"
    status, _, stderr = sweep(capsys, *QUICK, *HOTCOLD, "--set", "hot_threshold=0,6",
                              "--out", out)
    assert status == 0
    lines = [line for line in stderr if " s so far" in line]
    assert lines and all(line.startswith(("femu-lab: [1/2] hot_threshold=0: ",
                                          "femu-lab: [2/2] hot_threshold=6: "))
                         for line in lines)


def test_the_point_line_reads_the_simulated_seconds(tmp_path):
    from femu_lab.sweep import point_progress
    assert point_progress.describe(tmp_path, 6, 300) == \
        "6 s so far, before the workload (preconditioning)"
    (tmp_path / "phases.csv").write_text("time_s,phase\n0,precondition\n7.5,workload\n")
    (tmp_path / "stats.csv").write_text("time_s\n100.5\n127.5\n")
    assert point_progress.describe(tmp_path, 15, 300) == \
        "15 s so far, simulated 120/300 s of the workload"
    assert point_progress.describe(tmp_path, 15, None).endswith("simulated 120 s of the workload")


def test_the_baseline_is_a_single_stream_point_labelled_as_such(capsys, sim_runs, tmp_path):
    """--baseline: a first point with placement=single (no hot_* settings), labelled
    'single stream (baseline)' in the table, sweep.json and the lines."""
    out = tmp_path / "sweep"
    status, stdout, stderr = sweep(capsys, *QUICK, *HOTCOLD, "--set", "hot_threshold=0,6",
                                   "--baseline", "--out", out)
    assert status == 0, stderr
    names = ["p01-baseline-single", "p02-hot_threshold-0", "p03-hot_threshold-6"]
    assert sim_runs() == [f"{name}.incomplete" for name in names]
    config = (out / names[0] / "config.conf").read_text()
    assert "placement=single" in config
    assert json.loads((out / names[0] / "params.json").read_text())["placement"] == "single"
    folders = json.loads((out / "sweep.json").read_text())["point_folders"]
    assert [f["label"] for f in folders] == ["single stream (baseline)", "hot_threshold=0",
                                             "hot_threshold=6"]
    rows = read_csv(out / "sweep.csv")
    assert [row["hot_threshold"] for row in rows] == ["", "0", "6"]
    assert any("[1/3] single stream (baseline): " in line for line in stderr)


@pytest.mark.parametrize("sets, message", [
    (["--set", "gc_thres_pcent=60,70"], "give --set placement=hotcold"),
    (["--set", "placement=hotcold", "--set", "gc_thres_pcent=60,70"],
     "the sweep also varies gc_thres_pcent"),
])
def test_a_baseline_outside_a_hotcold_sweep_is_refused(capsys, sets, message):
    status, _, stderr = sweep(capsys, *QUICK, *sets, "--baseline")
    assert status == 2 and len(stderr) == 1 and message in stderr[0]
