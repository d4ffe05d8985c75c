"""A real single-node Slurm cluster (tests/slurm/slurm-cluster.sh) for the whole session:
started in a temporary folder on free ports, SLURM_CONF set for the tests and the Slurm
commands they run, stopped at the end even when tests fail. Slurm's packages are not in
the default install: the fixture installs scripts/deps/slurm.apt when a program is missing
(slurm_install.py); if that fails, the tests fail, they are never skipped.
"""
import os
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from slurm_install import ensure_slurm

SCRIPT = Path(__file__).resolve().parent / "slurm-cluster.sh"


@dataclass
class Cluster:
    folder: Path
    conf: Path


def _free_port_pair() -> int:
    """A port p with p and p + 1 free now (slurmctld, slurmd)."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port >= 65535:
            continue
        with socket.socket() as second:
            try:
                second.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port
    raise RuntimeError("no two consecutive free ports")


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    problem = ensure_slurm()
    if problem:
        pytest.fail(problem)
    folder = tmp_path_factory.mktemp("slurm")
    env = dict(os.environ, FEMU_SLURM_PORT=str(_free_port_pair()))
    started = subprocess.run([str(SCRIPT), "start", str(folder)], capture_output=True,
                             text=True, env=env, timeout=180)
    saved = {key: os.environ.get(key) for key in ("SLURM_CONF", "FEMU_SLURM_POLL")}
    try:
        if started.returncode != 0:
            pytest.fail(f"slurm-cluster.sh start failed:\n{started.stderr}")
        conf = Path(started.stdout.strip().splitlines()[-1])
        os.environ["SLURM_CONF"] = str(conf)
        os.environ["FEMU_SLURM_POLL"] = "1"      # the waiting command polls squeue each second
        yield Cluster(folder, conf)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        subprocess.run([str(SCRIPT), "stop", str(folder)], timeout=120)
