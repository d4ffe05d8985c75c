"""The key-value lab without a guest: the kv-ycsb workloads (headers, guest job, the CSI
lookup under the host's sh with a stand-in nvme), a run's KV figures
(femu_lab.run.kv_report) and plots (femu_analysis.kv_plots) on synthetic files, and
kv-load's command line (one line naming a bad option)."""
import json
import os
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from femu_analysis import kv_plots
from femu_analysis.errors import AnalysisError
from femu_lab import devconfig, workloads
from femu_lab.run import kv_report
from femu_lab.workloads import WorkloadError

MIXES = "abcdef"


@pytest.mark.parametrize("mix", MIXES)
def test_each_mix_is_a_workload_on_the_kv_configuration(mix):
    workload = workloads.resolve(f"kv-ycsb-{mix}")
    assert workload.config == workloads.CONFIGS / "kv-lab.conf"
    assert workload.arg == "4096" and workload.description
    script = workload.guest_script(5, precondition=False)
    assert f"\nkv_ycsb {mix}\n" in script and "RUNTIME=5" in script
    # the load is its own phase before the measured one
    assert script.index("phase load") < script.index("phase workload") \
        < script.index("--runtime \"$RUNTIME\"")
    assert workload.device == {"kv_ns_mb": "256"}     # the KV namespace, a device property


def test_value_size_is_the_argument():
    workload = workloads.resolve("kv-ycsb-c:64")
    assert workload.arg == "64" and workload.slug == "kv-ycsb-c-64"
    assert "ARG=64" in workload.guest_script(5, precondition=False)


@pytest.mark.parametrize("header", ["device: config=/etc/passwd", "device: kv_ns_mb=x",
                                    "device: kv_ns_mb"])
def test_device_header_sets_only_its_keys(tmp_path, header):
    path = tmp_path / "mine.sh"
    path.write_text(f"# {header}\nphase workload\n")
    with pytest.raises(WorkloadError, match="header 'device'"):
        workloads.resolve(str(path))


@pytest.mark.parametrize("value", ["../conf/kv-lab.conf", "no-such.conf"])
def test_config_header_names_only_a_file_of_conf(tmp_path, value):
    path = tmp_path / "mine.sh"
    path.write_text(f"# config: {value}\nphase workload\n")
    with pytest.raises(WorkloadError, match="header 'config'"):
        workloads.resolve(str(path))


def test_csi_lookup_reads_the_namespace_descriptors(tmp_path):
    """kv_csi falls back to `nvme ns-descs` where sysfs has no csi file."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "nvme").write_text("#!/bin/sh\n[ \"$1\" = ns-descs ] || exit 1\n"
                               "printf 'NVME Namespace Identification Descriptors NS 2:\\n"
                               "uuid   : 00000000-0000-0000-0000-000000000000\\n"
                               "csi    : 1\\n'\n")
    (fake / "nvme").chmod(0o755)
    lib = workloads.LIBRARY / "lib" / "kv.sh"
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}
    proc = subprocess.run(["sh", "-c", f". {lib}; kv_csi /dev/ng9n9"], capture_output=True,
                          text=True, env=env, timeout=30)
    assert proc.returncode == 0 and proc.stdout.strip() == "1", proc.stderr


def _ops_csv(folder: Path) -> None:
    rows = ["end_s,kind,latency_us,status"]
    # second 0: 3 reads, 1 update; second 1: 2 reads; second 2 (partial, dropped): 1 read
    for end, kind, lat, status in ((0.1, "read", 100, 0), (0.2, "read", 200, 0),
                                   (0.3, "read", 300, 0), (0.5, "update", 900, 0),
                                   (1.2, "read", 400, 0), (1.4, "read", 500, 34951),
                                   (2.1, "read", 50, 0)):
        rows.append(f"{end},{kind},{lat},{status}")
    (folder / "kv-ops.csv").write_text("\n".join(rows) + "\n")


def _stats_csv(folder: Path) -> None:
    (folder / "stats.csv").write_text(
        "time_s,kv_stores,kv_retrieves,kv_deletes,kv_exists,kv_lists,kv_store_bytes,"
        "kv_retrieve_bytes,kv_index_hits,kv_index_misses,kv_index_page_reads,"
        "kv_index_page_writes,kv_compactions,kv_compaction_pages,kv_waf\n"
        "1,100,0,0,0,0,409600,0,90,10,10,2,0,0,1.25\n"
        "2,1,5,0,0,0,4096,20480,3,3,3,0,0,0,\n"
        "3,0,0,0,0,0,0,0,0,0,0,0,1,4,\n")


def _summary(folder: Path) -> None:
    (folder / "kv-load.json").write_text(json.dumps({
        "phase": "run", "mix": "a", "dist": "zipfian", "qd": 4, "keys": 100,
        "value_size": 4096, "ops": 7, "seconds": 2.2, "ops_per_s": 3.18,
        "kinds": {"read": {"ops": 6, "failed": 1, "p50_us": 300.0, "p99_us": 400.0},
                  "update": {"ops": 1, "failed": 0, "p50_us": 900.0, "p99_us": 900.0}},
        "commands": {}, "statuses": [], "errors": 1}))


def test_ops_per_second_and_quantiles():
    ops = pd.DataFrame({"end_s": [0.1, 0.2, 0.3, 0.5, 1.2, 1.4, 2.1],
                        "kind": ["read"] * 3 + ["update"] + ["read"] * 3,
                        "latency_us": [100, 200, 300, 900, 400, 500, 50],
                        "status": [0, 0, 0, 0, 0, 34951, 0]})
    table = kv_plots.ops_per_second(ops)
    assert list(table["second"]) == [0, 1]               # the partial third second dropped
    assert list(table["read"]) == [3, 2] and list(table["update"]) == [1, 0]
    # nearest rank over the successful reads 50 100 200 300 400
    assert kv_plots.latency_quantiles(ops, "read") == (200.0, 400.0)
    assert kv_plots.latency_quantiles(ops, "scan") == (None, None)


def test_index_series_rates_and_empty_waf(tmp_path):
    _stats_csv(tmp_path)
    stats = pd.read_csv(tmp_path / "stats.csv")
    series = kv_plots.index_series(stats)
    assert series["hit_rate"].iloc[0] == pytest.approx(0.9)
    assert series["hit_rate"].iloc[1] == pytest.approx(0.5)
    assert pd.isna(series["hit_rate"].iloc[2])            # no lookups: no rate
    assert series["kv_waf"].iloc[0] == 1.25 and pd.isna(series["kv_waf"].iloc[1])
    with pytest.raises(AnalysisError, match="kv_waf"):
        kv_plots.index_series(stats.drop(columns="kv_waf"))


def test_plots_are_written(tmp_path):
    _ops_csv(tmp_path)
    _stats_csv(tmp_path)
    _summary(tmp_path)
    assert kv_plots.is_kv_run(tmp_path)
    run = SimpleNamespace(path=tmp_path, stats=pd.read_csv(tmp_path / "stats.csv"))
    paths = kv_plots.plot_kv_run(run, tmp_path / "plots")
    assert sorted(p.name for p in paths) == ["kv_index.png", "kv_latency_cdf.png",
                                             "kv_ops_per_s.png"]
    assert all(p.stat().st_size > 1000 for p in paths)


def test_report_sums_the_device_counters(tmp_path):
    assert kv_report.record(tmp_path) is None             # no KV load: nothing
    _stats_csv(tmp_path)
    _summary(tmp_path)
    result = kv_report.record(tmp_path)
    assert result["device"]["kv_stores"] == 101 and result["device"]["kv_retrieves"] == 5
    assert result["device"]["kv_index_hits"] == 93 and result["device"]["kv_compactions"] == 1
    assert json.loads((tmp_path / kv_report.KV_FILE).read_text()) == result
    text = kv_report.report_text(tmp_path)
    # hit rate 93 / (93 + 13)
    assert "3.2 ops/s" in text and "errors 1" in text and "index hit rate 0.877" in text


def test_report_names_a_missing_counter(tmp_path):
    (tmp_path / "stats.csv").write_text("time_s,kv_stores\n1,3\n")
    _summary(tmp_path)
    with pytest.raises(kv_report.KvReportError, match="kv_retrieves"):
        kv_report.record(tmp_path)


@pytest.mark.parametrize("args, message", [
    (["--mix", "g", "--dev", "x"], "--mix: 'g' is not one of a b c d e f"),
    (["--dist", "pareto", "--dev", "x"], "--dist: 'pareto'"),
    (["--qd", "0", "--dev", "x"], "--qd: '0'"),
    (["--value-size", "2x", "--dev", "x"], "--value-size: '2x'"),
    (["--runtime", "-1", "--dev", "x"], "--runtime: '-1'"),
    (["--frobnicate"], "--frobnicate: unknown option"),
    (["--keys"], "--keys: needs a value"),
    ([], "--dev: missing"),
])
def test_kv_load_refuses_bad_options_in_one_line(args, message):
    binary = devconfig.c_tool_path("kv-load")
    proc = subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and message in proc.stderr, proc.stderr


def test_kv_load_names_a_device_that_is_no_namespace(tmp_path):
    binary = devconfig.c_tool_path("kv-load")
    proc = subprocess.run([str(binary), "--dev", os.devnull], capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 1 and "not an NVMe namespace" in proc.stderr
