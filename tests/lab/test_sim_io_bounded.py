"""A workload whose '# sim:' line ends it by bytes (--io-size, as write-cliff's) runs in a
sim sweep: ftl-sim gets no --runtime beside it (the two exclude each other), and
params.json records no runtime, since none bounded the run."""
import json

import pytest

from femu_lab import cli as lab_cli

BY_BYTES = """# description: 128 KiB sequential writes, 64 MiB of them
# runtime: 20
# sim: --rw write --bs 128k --qd 8 --io-size 64m
phase workload
"""


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root, ftl_sim):
    monkeypatch.chdir(repo_root)


def test_a_workload_ended_by_bytes_runs_in_a_sim_sweep(capsys, tmp_path):
    workload = tmp_path / "bytes.sh"
    workload.write_text(BY_BYTES)
    out = tmp_path / "sweep"
    status = lab_cli.main(["sweep", "--workload", str(workload), "--set",
                           "gc_thres_pcent=70,75", "--engine", "sim", "--out", str(out)])
    assert status == 0, capsys.readouterr().err
    points = [p for p in sorted(out.iterdir()) if p.is_dir() and p.name.startswith("p0")]
    assert len(points) == 2
    for point in points:
        cmdline = (point / "sim-cmdline.txt").read_text()
        assert "--io-size 64m" in cmdline and "--runtime" not in cmdline
        params = json.loads((point / "params.json").read_text())
        assert params["runtime"] is None
        summary = json.loads((point / "summary.json").read_text())
        assert summary["host_write_pages"] == (64 << 20) // 4096
