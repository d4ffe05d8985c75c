"""The lab notebooks run top to bottom on ftl-sim data (executed copies, never in place)."""
import json
import os
import pathlib
import sys

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "analysis" / "notebooks"


def _execute(name, tmp_path, monkeypatch, **environment):
    for key, value in environment.items():
        monkeypatch.setenv(key, str(value))
    monkeypatch.setenv("FEMU_PLOTS_DIR", str(tmp_path / "plots"))
    # the kernel must be this venv's Python, whatever PATH the test run started with
    monkeypatch.setenv("PATH", f"{pathlib.Path(sys.executable).parent}{os.pathsep}"
                               f"{os.environ.get('PATH', '')}")
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    nbformat.write(notebook, tmp_path / name)  # the executed copy, for a look on failure
    return notebook


def _images(notebook):
    return sum("image/png" in output.get("data", {})
               for cell in notebook.cells for output in cell.get("outputs", []))


def test_performance_notebook(sim_root, tmp_path, monkeypatch):
    notebook = _execute("performance_lab.ipynb", tmp_path, monkeypatch,
                        FEMU_PERF_RUNS=sim_root / "perf")
    # four workloads; every time series a run has data for (read-only runs have no GC)
    assert _images(notebook) >= 4 * 4
    for workload in ("randread", "randrw", "randwrite", "sysbench"):
        assert (tmp_path / "plots" / workload / "iops.png").exists()
    assert not list((sim_root / "perf").glob("*/plots"))  # nothing written into the runs


def test_hotcold_notebook(sim_root, tmp_path, monkeypatch):
    notebook = _execute("hotcold_lab.ipynb", tmp_path, monkeypatch,
                        FEMU_HOTCOLD_RUNS=sim_root / "hotcold")
    # per distribution: IOPS and WAF overlays and two CDFs
    assert _images(notebook) == 2 * 4
    text = json.dumps([cell.get("outputs", []) for cell in notebook.cells])
    assert "| threshold-20 |" in text and "zipf1.2" in text  # summary rows, pivot columns


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda path: path.name)
def test_committed_notebooks_carry_no_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
