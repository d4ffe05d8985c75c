"""The kv-ycsb workloads in both engines: each one's '# sim:' line (ftl-sim --kv, what
`femu-lab sweep --engine sim` runs), the key count and queue depth a VM run hands the
guest job (femu_lab.run.kv_params: the '# sim:' line's, or femu-lab run --kv-keys/--kv-qd),
and one sweep --engine sim over kv-ycsb-a."""
import json
import subprocess

import pytest

from femu_common.cli_args import UsageError
from femu_lab import devconfig, workloads
from femu_lab.run import kv_params, sim_run
from femu_lab.workloads import WorkloadError
from lab_calls import lab, read_csv, sweep

MIXES = "abcdef"
OPS = "100000000000"       # more than any runtime: --runtime ends the measured part


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


@pytest.mark.parametrize("mix", MIXES)
def test_each_mix_runs_in_ftl_sim_with_the_vm_runs_load(mix):
    workload = workloads.resolve(f"kv-ycsb-{mix}")
    assert workload.simulator_args() == [
        "--kv", "--kv-mix", mix, "--kv-keys", "4000", "--kv-ops", OPS,
        "--kv-value-size", "4096", "--qd", "4"]
    assert kv_params.choose(workload) == {"kv_keys": 4000, "kv_qd": 4}


def test_the_value_size_argument_reaches_ftl_sim():
    args = workloads.resolve("kv-ycsb-c:64").simulator_args()
    assert args[args.index("--kv-value-size") + 1] == "64"


def test_the_ftl_sim_command_line_of_a_sweep_point(tmp_path):
    workload = workloads.resolve("kv-ycsb-e")
    config = devconfig.load(workload.config, {})
    request = sim_run.SimRequest(workload=workload, config=config, folder=tmp_path / "p",
                                 runtime=7)
    args = sim_run.command(request, tmp_path)
    assert args[1:] == [
        "--config", str(tmp_path / "config.conf"), "--kv", "--kv-mix", "e", "--kv-keys",
        "4000", "--kv-ops", OPS, "--kv-value-size", "4096", "--qd", "4", "--runtime", "7",
        "--stats-dir", str(tmp_path), "--summary", str(tmp_path / "summary.json")]


@pytest.mark.parametrize("line, message", [
    ("--kv --kv-ops-file /etc/passwd", "option --kv-ops-file is not allowed"),
    ("--kv --kv-dump out.txt", "option --kv-dump is not allowed"),
    ("--kv --kv-log out.txt", "option --kv-log is not allowed"),
    ("--kv a", "'a' is not an option's value"),        # --kv takes no value
])
def test_a_sim_line_takes_only_the_kv_workload_options(tmp_path, line, message):
    path = tmp_path / "mine.sh"
    path.write_text(f"# include: lib/kv.sh\n# sim: {line}\nkv_ycsb a\n")
    with pytest.raises(WorkloadError, match=message):
        workloads.resolve(str(path))


def test_options_replace_the_sim_lines_values_in_the_guest_job():
    workload = workloads.resolve("kv-ycsb-b")
    assert kv_params.choose(workload, keys=100) == {"kv_keys": 100, "kv_qd": 4}
    chosen = kv_params.choose(workload, keys=100, qd=16)
    assert chosen == {"kv_keys": 100, "kv_qd": 16}
    variables = kv_params.guest_variables(chosen)
    assert variables == {"KV_KEYS": "100", "KV_QD": "16"}
    script = workload.guest_script(5, precondition=False, variables=variables)
    lines = script.splitlines()
    # set before the prelude and lib/kv.sh, which keep a value already set
    assert lines.index("KV_KEYS=100") < lines.index("KV_QD=16") < \
        script[:script.index("KV_KEYS=${KV_KEYS:-4000}")].count("\n")


def _kv_sh(variables: str) -> str:
    lib = workloads.LIBRARY / "lib" / "kv.sh"
    proc = subprocess.run(["sh", "-c", f'{variables} . {lib}; echo "$KV_KEYS $KV_QD"'],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_lib_kv_sh_keeps_the_hosts_values_and_has_its_own_without():
    assert _kv_sh("KV_KEYS=100; KV_QD=16;") == "100 16"
    assert _kv_sh("") == "4000 4"


def test_a_kv_workload_without_a_sim_line_leaves_lib_kv_sh_its_defaults(tmp_path):
    path = tmp_path / "mine.sh"
    path.write_text("# include: lib/kv.sh\nkv_ycsb a\n")
    workload = workloads.resolve(str(path))
    assert kv_params.choose(workload) == {}
    assert kv_params.choose(workload, qd=2) == {"kv_qd": 2}


def test_a_bad_sim_value_is_one_line_naming_the_file(tmp_path):
    path = tmp_path / "mine.sh"
    path.write_text("# include: lib/kv.sh\n# sim: --kv --kv-keys many\nkv_ycsb a\n")
    with pytest.raises(WorkloadError, match=f"{path}: '# sim:' --kv-keys 'many'"):
        kv_params.choose(workloads.resolve(str(path)))


def test_other_workloads_take_no_kv_options():
    zipf = workloads.resolve("zipf")
    assert kv_params.choose(zipf) == {} and kv_params.guest_variables({}) == {}
    with pytest.raises(UsageError, match="'zipf:1.2' is not one"):
        kv_params.choose(zipf, qd=8)


@pytest.mark.parametrize("args, message", [
    (["--workload", "zipf:1.2", "--kv-keys", "5"], "--kv-keys and --kv-qd are for "
                                                   "key-value workloads"),
    (["--workload", "kv-ycsb-a", "--kv-qd", "0"], "--kv-qd: 0 is not between 1 and 1024"),
    (["--workload", "kv-ycsb-a", "--kv-qd", "1025"], "--kv-qd: 1025 is not between"),
    (["--workload", "kv-ycsb-a", "--kv-keys", "x"], "--kv-keys"),
])
def test_run_refuses_bad_kv_options_in_one_line(capsys, tmp_path, args, message):
    status, stdout, stderr = lab(capsys, "run", *args, "--out", tmp_path / "run")
    assert status == 2 and stdout == []
    assert len(stderr) == 1 and message in stderr[0], stderr
    assert not (tmp_path / "run").exists()


def test_a_sim_sweep_of_a_kv_workload_uses_its_configuration(capsys, tmp_path, ftl_sim):
    out = tmp_path / "sweep"
    status, stdout, stderr = sweep(capsys, "--workload", "kv-ycsb-a:1024", "--set",
                                   "kv_index_cache_pages=16,64", "--runtime", "1",
                                   "--engine", "sim", "--out", out)
    assert status == 0, stderr
    definition = json.loads((out / "sweep.json").read_text())
    assert definition["config"] == "conf/kv-lab.conf"      # its '# config:' header
    for cache in ("16", "64"):
        point = out / f"p0{1 if cache == '16' else 2}-kv_index_cache_pages-{cache}"
        summary = json.loads((point / "summary.json").read_text())
        assert summary["kv"]["load"]["ops"] == 4000            # the load phase's inserts
        assert summary["kv"]["ops"] > 0 and summary["kv"]["status"]["store"]["ok"] > 0
        cmdline = (point / "sim-cmdline.txt").read_text()
        assert "--kv-value-size 1024" in cmdline and "--runtime 1" in cmdline
        result = json.loads((point / "result.json").read_text())
        assert result["kv_ops_per_s"] == summary["kv"]["ops_per_s"]
    rows = read_csv(out / "sweep.csv")        # the table has the KV column
    assert [float(row["kv_ops_per_s"]) > 0 for row in rows] == [True, True]
    assert any("KV ops/s" in line for line in stdout)


def test_a_sim_sweep_refuses_precondition_for_a_kv_workload(capsys, tmp_path):
    status, _, stderr = sweep(capsys, "--workload", "kv-ycsb-a", "--set",
                              "kv_index_cache_pages=16,64", "--precondition", "--engine",
                              "sim", "--out", tmp_path / "sweep")
    assert status == 2 and "--precondition: workload 'kv-ycsb-a:4096' is key-value" \
        in stderr[0], stderr
