"""slurm_checks without a cluster: the shared-storage rule with injected file system types
and node lists (a multi-node partition cannot be faked on one host), the syntax of --time
and --slurm-mem, the line for missing Slurm commands; and when the cluster fixture installs
Slurm's packages (slurm_install.py, with a stand-in installer)."""
import argparse
import json
import shutil
from pathlib import Path

import pytest

from femu_lab.slurm import checks as slurm_checks
from femu_lab.sweep.checks import CheckError
from slurm_install import ensure_slurm

HERE = {"login1", "login1.cluster.example", "localhost", "127.0.0.1", "::1"}
FOLDER = Path("/scratch/me/sweep")


@pytest.mark.parametrize("fs, nodes", [
    ("nfs", [("n1", "n1", "10.0.0.1"), ("n2", "n2", "10.0.0.2")]),
    ("lustre", [("n1", "n1", "10.0.0.1")]),
    ("beegfs", []),
    ("ext2/ext3", [("login1", "login1", "127.0.0.1")]),       # every node is this host
    ("tmpfs", [("c0", "login1.cluster.example", "10.0.0.9")]),   # known by its host name
])
def test_shared_folders_pass(fs, nodes):
    slurm_checks.check_shared(FOLDER, fs, "batch", nodes, HERE, assume_shared=False)


def test_a_local_folder_with_other_nodes_is_refused_unless_assumed_shared():
    nodes = [("login1", "login1", "127.0.0.1"), ("n1", "n1", "10.0.0.1"),
             ("n2", "n2", "10.0.0.2")]
    with pytest.raises(CheckError) as caught:
        slurm_checks.check_shared(FOLDER, "ext2/ext3", "batch", nodes, HERE, False)
    assert str(caught.value) == (
        "/scratch/me/sweep is on ext2/ext3, which the nodes of partition batch (n1, n2) do "
        "not see: put --out on shared storage (nfs, lustre, ...) or pass --assume-shared")
    slurm_checks.check_shared(FOLDER, "ext2/ext3", "batch", nodes, HERE, True)


def test_a_partition_without_nodes_is_not_taken_for_this_host():
    with pytest.raises(CheckError):
        slurm_checks.check_shared(FOLDER, "xfs", "empty", [], HERE, False)


@pytest.mark.parametrize("text", ["30", "30:00", "1:30:00", "2-0", "2-12:00",
                                  "1-00:00:00", "UNLIMITED", "infinite"])
def test_slurm_time_limits(text):
    assert slurm_checks.time_limit(text) == text


@pytest.mark.parametrize("text", ["", "soon", "1h", "-5", "1:2:3:4", "1-"])
def test_malformed_time_limits(text):
    with pytest.raises(argparse.ArgumentTypeError):
        slurm_checks.time_limit(text)


@pytest.mark.parametrize("text, good", [("4G", True), ("2048", True), ("512m", True),
                                        ("0", False), ("4X", False), ("4.5G", False),
                                        ("G", False)])
def test_slurm_memory(text, good):
    if good:
        assert slurm_checks.memory(text) == text
    else:
        with pytest.raises(argparse.ArgumentTypeError):
            slurm_checks.memory(text)


def test_the_refusal_says_what_to_move():
    nodes = [("n1", "n1", "10.0.0.1")]
    with pytest.raises(CheckError) as caught:
        slurm_checks.check_shared(Path("/home/me/aged.state"), "ext4", "batch", nodes, HERE,
                                  False, "put the --aged state file on shared storage")
    assert str(caught.value) == (
        "/home/me/aged.state is on ext4, which the nodes of partition batch (n1) do not see: "
        "put the --aged state file on shared storage or pass --assume-shared")


def test_no_slurm_commands_is_one_line_saying_where_to_get_them(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(CheckError) as caught:
        slurm_checks.check_commands()
    assert str(caught.value) == (
        "--executor slurm: sbatch, squeue, sinfo, scancel not on PATH: run the sweep on the "
        "cluster's submit host, where Slurm's commands are (Debian package slurm-client), or "
        "use --executor local")


def _fake_installer(tmp_path, bin_dir, status=0):
    """A stand-in for scripts/install-deps.sh that logs its arguments and, when it
    succeeds, puts the programs on PATH."""
    script = tmp_path / "install-deps.sh"
    script.write_text(f"""#!/usr/bin/env bash
echo "$*" >> {tmp_path}/calls
echo "[install-deps] apt-get install ..." >&2
(({status})) && {{ echo "[install-deps] error: apt-get install failed" >&2; exit {status}; }}
for name in munged sbatch; do printf '#!/bin/sh\\n' > {bin_dir}/$name; chmod +x {bin_dir}/$name; done
""")
    script.chmod(0o755)
    return script


def test_the_cluster_fixture_installs_the_slurm_list_only_when_a_program_is_missing(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    which = lambda name: shutil.which(name, path=str(bin_dir))   # noqa: E731
    installer = _fake_installer(tmp_path, bin_dir)
    assert ensure_slurm(installer, ("munged", "sbatch"), which) is None
    assert (tmp_path / "calls").read_text() == "--apt-only slurm\n"
    assert ensure_slurm(installer, ("munged", "sbatch"), which) is None   # all there now
    assert (tmp_path / "calls").read_text() == "--apt-only slurm\n"


def test_a_failed_slurm_install_is_the_fixtures_failure(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    which = lambda name: shutil.which(name, path=str(bin_dir))   # noqa: E731
    problem = ensure_slurm(_fake_installer(tmp_path, bin_dir, status=1), ("munged",), which)
    first, *rest = problem.splitlines()
    assert first == ("install-deps.sh --apt-only slurm failed (exit status 1): Slurm's "
                     "packages are in scripts/deps/slurm.apt")
    assert rest[-1] == "[install-deps] error: apt-get install failed"


def test_a_percent_in_the_sweep_folder_stays_one_in_the_task_logs():
    """sbatch reads % in --output as a pattern (issue 29, suspected: a '%' in --out put the
    task logs elsewhere); the folder's own % is written %%, the job and index stay patterns."""
    from femu_lab.slurm import executor
    options = argparse.Namespace(sbatch_flags=lambda: [])
    args = executor.sbatch_args(Path("/scratch/me/100%done"), options, [0, 1])
    assert "--output=/scratch/me/100%%done/slurm/%A_%a.log" in args
    assert "--error=/scratch/me/100%%done/slurm/%A_%a.log" in args


def _request(tmp_path, **changes):
    """A sweep folder holding a request.json with every field, changed by changes."""
    record = {
        "workload": {"name": "w", "path": str(tmp_path / "w.sh"), "arg": "", "trace": False},
        "config_path": str(tmp_path / "c.conf"), "config_text": "", "config_sha256": "0",
        "plan": {"keys": [], "fixed": {}, "axes": []}, "runtime": 1, "precondition": False,
        "engine": "sim", "smp": 1, "mem_mb": 512, "accel": "tcg", "guest_release": None,
        "qemu": str(tmp_path / "qemu"), "qemu_given": False, "aged": None,
    }
    record.update(changes)
    folder = tmp_path / "sweep"
    (folder / "slurm").mkdir(parents=True, exist_ok=True)
    path = folder / "slurm" / "request.json"
    path.write_text(json.dumps(record))
    path.chmod(0o644)
    return folder, path


def test_a_task_trusts_request_json_only_as_far_as_its_owner(tmp_path):
    """Issue 29, suspected and confirmed: a task ran whatever request.json in the shared
    folder named, the QEMU binary included, and a field missing was a traceback."""
    from femu_lab.slurm import request
    folder, path = _request(tmp_path)
    assert request.read(folder)["engine"] == "sim"
    path.chmod(0o666)
    with pytest.raises(request.RequestError, match="writable by others"):
        request.read(folder)
    folder, path = _request(tmp_path, qemu_given=True)
    qemu = tmp_path / "qemu"
    qemu.write_text("#!/bin/sh\n")
    qemu.chmod(0o777)
    with pytest.raises(request.RequestError, match="QEMU the sweep names is writable by others"):
        request.read(folder)
    qemu.chmod(0o755)
    assert request.read(folder)["qemu_given"] is True
    for changes, message in [({"smp": "1"}, "field smp has the wrong type"),
                             ({"smp": True}, "field smp has the wrong type"),
                             ({"workload": {"name": "w"}}, "field workload.path is missing")]:
        folder, _ = _request(tmp_path, **changes)
        with pytest.raises(request.RequestError, match=message):
            request.read(folder)
    record = json.loads(path.read_text())
    del record["qemu"]
    path.write_text(json.dumps(record))
    with pytest.raises(request.RequestError, match="field qemu is missing"):
        request.read(folder)
