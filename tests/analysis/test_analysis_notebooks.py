"""The lab notebooks run top to bottom on ftl-sim data (executed copies, never in place)."""
import json
import os
import pathlib
import shutil
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


def test_performance_notebook_on_named_run_folders(sim_root, tmp_path, monkeypatch):
    """ftl-sim --stats-dir folders, named on the list as they are (no layout asked for)."""
    folders = sorted((sim_root / "perf").iterdir())
    notebook = _execute("performance_lab.ipynb", tmp_path, monkeypatch,
                        FEMU_PERF_RUNS=os.pathsep.join(map(str, folders)))
    # every time series a run has data for (read-only runs have no GC)
    assert _images(notebook) >= 4 * len(folders)
    for folder in folders:
        assert (tmp_path / "plots" / folder.name / "iops.png").exists()
    assert not list((sim_root / "perf").glob("*/plots"))  # nothing written into the runs


def test_performance_notebook_finds_the_newest_lab_runs(lab_sweep, tmp_path, monkeypatch):
    """Without FEMU_PERF_RUNS: the newest run of each lab workload under FEMU_RESULTS, found
    by its params.json (a femu-lab sim point standing in for a VM run's folder)."""
    results = tmp_path / "results"
    point = sorted(path for path in lab_sweep.iterdir() if (path / "params.json").exists())[0]
    for stamp, workload in (("20261201-100000", "fio-randread"),
                            ("20261202-100000", "fio-randread"),
                            ("20261202-110000", "sysbench-4")):
        run = results / f"{stamp}-{workload}"
        shutil.copytree(point, run)
        params = json.loads((run / "params.json").read_text())
        (run / "params.json").write_text(json.dumps({**params, "workload": workload}))
    os.utime(results / "20261201-100000-fio-randread" / "result.json", (1, 1))
    notebook = _execute("performance_lab.ipynb", tmp_path, monkeypatch, FEMU_RESULTS=results)
    plotted = sorted(path.name for path in (tmp_path / "plots").iterdir())
    assert plotted == ["20261202-100000-fio-randread", "20261202-110000-sysbench-4"]
    assert _images(notebook) >= 2 * 4


def test_hotcold_notebook_on_a_lab_sweep(lab_sweep, tmp_path, monkeypatch):
    """The sweep femu-lab made, found under FEMU_RESULTS as the notebook's default does."""
    notebook = _execute("hotcold_lab.ipynb", tmp_path, monkeypatch,
                        FEMU_RESULTS=lab_sweep.parent)
    # one distribution: IOPS and WAF overlays and two CDFs
    assert _images(notebook) == 4
    text = json.dumps([cell.get("outputs", []) for cell in notebook.cells])
    assert "zipf:1.2" in text and str(lab_sweep) in text
    assert (tmp_path / "plots" / "zipf:1.2" / "cdf.png").exists()  # FEMU_PLOTS_DIR


def test_hotcold_notebook_on_named_sweeps(lab_sweep, tmp_path, monkeypatch):
    """FEMU_HOTCOLD_SWEEPS names the sweep folder; every finished point is plotted."""
    notebook = _execute("hotcold_lab.ipynb", tmp_path, monkeypatch,
                        FEMU_HOTCOLD_SWEEPS=lab_sweep, FEMU_RESULTS=tmp_path / "nothing")
    text = json.dumps([cell.get("outputs", []) for cell in notebook.cells])
    assert "hot_threshold ['0', '20']" in text
    assert (tmp_path / "plots" / "zipf:1.2" / "compare_waf.png").exists()


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda path: path.name)
def test_committed_notebooks_carry_no_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
