"""Run data for the analysis tests: real ftl-sim output, produced once per session.

Runs (simulated time, about a second of CPU each), laid out the way the lab notebooks
expect them:
  perf/{randread,randrw,randwrite,sysbench}       performance lab, seq precondition
  hotcold/{zipf1.2,random}/threshold-{N}         hot/cold lab, placement=hotcold
  plain/randrw                                   no precondition (I/O from time 0)

and fio JSON results of tiny host fio jobs on a temporary file (no root, no block device),
laid out as a numjobs sweep (see FIO_POINTS).
"""
import json
import pathlib
import shutil
import subprocess
import sys

import pytest

# The analysis package of this checkout, not the one the venv installed (editable, maybe
# from another checkout: a worktree shares the main one's venv).
ANALYSIS = pathlib.Path(__file__).resolve().parents[2] / "analysis"
if str(ANALYSIS) not in sys.path:
    sys.path.insert(0, str(ANALYSIS))

FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"
RUNTIME_S = 40  # simulated seconds of workload: four 10 s statistics rows

PERF_RUNS = {
    "randread": ["--rw", "randread"],
    "randrw": ["--rw", "randrw", "--rwmixread", "50"],
    "randwrite": ["--rw", "randwrite"],
    # sysbench fileio rndrw is 60% reads with 32 threads in the lab's second setup
    "sysbench": ["--rw", "randrw", "--rwmixread", "60", "--qd", "32"],
}
HOTCOLD_RUNS = {  # distribution folder: (--dist, thresholds)
    "zipf1.2": ("zipf:1.2", (0, 20)),
    "random": ("random", (0, 13)),
}


@pytest.fixture(scope="session")
def fixtures_dir():
    return FIXTURES


@pytest.fixture(scope="session")
def sim_root(tmp_path_factory, run_ftl_sim, repo_root):
    """Folder holding every ftl-sim run of the session (see the module docstring)."""
    root = tmp_path_factory.mktemp("ftl-sim-runs")
    config = repo_root / "conf" / "lab-1g.conf"

    def simulate(folder, *args):
        folder.mkdir(parents=True)
        run_ftl_sim("--config", config, "--bs", "4k", "--seed", "7", "--runtime", RUNTIME_S,
                    "--stats-dir", folder, "--summary", folder / "summary.json", *args)

    for name, args in PERF_RUNS.items():
        simulate(root / "perf" / name, "--precondition", "seq", *args)
    for folder, (dist, thresholds) in HOTCOLD_RUNS.items():
        for threshold in thresholds:
            simulate(root / "hotcold" / folder / f"threshold-{threshold}", "--rw", "randwrite",
                     "--dist", dist, "--precondition", "seq", "--set", "placement=hotcold",
                     "--set", f"hot_threshold={threshold}")
    simulate(root / "plain" / "randrw", "--rw", "randrw", "--precondition", "none")
    return root


@pytest.fixture(scope="session")
def hot_runs(sim_root):
    """The zipf 1.2 runs at thresholds 0 and 20 (the lab's clearest WAF difference)."""
    base = sim_root / "hotcold" / "zipf1.2"
    return [base / "threshold-0", base / "threshold-20"]


@pytest.fixture(scope="session")
def workload_run(hot_runs):
    """A randwrite run with precondition, GC and phase markers."""
    return hot_runs[0]


@pytest.fixture
def run_copy(tmp_path):
    """copy(run_dir, drop=()) -> a private copy of a run folder without the named files."""
    def copy(run_dir, drop=()):
        target = tmp_path / pathlib.Path(run_dir).name
        shutil.copytree(run_dir, target)
        for name in drop:
            (target / name).unlink()
        return target
    return copy


# fio: 1024 reads of 4 KiB per job from an 8 MiB file; --io_size alone ends each job (no
# --runtime cap: the tests count the I/Os, and a cap would cut them short on a slow host).
# Page-cache reads take well under a second; the timeout only catches a hung fio.
FIO_JOB = ["--size=8m", "--io_size=4m", "--bs=4k"]
FIO_TIMEOUT_S = 600
FIO_POINTS = {  # folder: (options before --name (fio's global options), job options, params.json)
    # no ioengine anywhere: fio's default, psync
    "numjobs-1-psync": ([], ["--numjobs=1"], None),
    "numjobs-2-psync": ([], ["--ioengine=psync", "--numjobs=2"], None),
    # numjobs and ioengine named by params.json too (as experiment runners write it)
    "numjobs-1-libaio": ([], ["--ioengine=libaio", "--iodepth=4", "--numjobs=1"],
                         {"numjobs": 1, "ioengine": "libaio"}),
    # ioengine only in fio's global options
    "numjobs-2-libaio": (["--ioengine=libaio", "--iodepth=4"], ["--numjobs=2"], None),
}


@pytest.fixture(scope="session")
def fio_run(tmp_path_factory):
    """fio_run(folder, global_options, job_options) -> path of the fio.json it wrote.

    The JSON is fio's stdout, as '... --output-format=json > fio.json' saves it. Every run
    reads the same data file, laid out by the first one, outside the run folders.
    """
    fio = shutil.which("fio")
    if fio is None:
        pytest.fail("fio is missing: run scripts/install-deps.sh (scripts/deps/analysis.apt)")
    data = tmp_path_factory.mktemp("fio-data") / "file"

    def run(folder, global_options, job_options):
        folder.mkdir(parents=True)
        command = [fio, "--output-format=json", *global_options, "--name=sweep",
                   f"--filename={data}", *FIO_JOB, *job_options]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=FIO_TIMEOUT_S)
        if proc.returncode != 0:
            raise AssertionError(f"{' '.join(command)} failed ({proc.returncode}): "
                                 f"{proc.stderr}")
        path = folder / "fio.json"
        path.write_text(proc.stdout)
        return path
    return run


@pytest.fixture(scope="session")
def fio_sweep_dirs(tmp_path_factory, fio_run):
    """The run folders of FIO_POINTS (sorted by name), one fio.json each."""
    root = tmp_path_factory.mktemp("fio-sweep")
    for name, (global_options, job_options, params) in FIO_POINTS.items():
        fio_run(root / name, global_options, ["--rw=randread", *job_options])
        if params is not None:
            (root / name / "params.json").write_text(json.dumps(params) + "\n")
    return sorted(root / name for name in FIO_POINTS)


@pytest.fixture(scope="session")
def fio_mixed_json(tmp_path_factory, fio_run):
    """fio.json of a two-job random read/write run (reads and writes in each job)."""
    root = tmp_path_factory.mktemp("fio-mixed")
    return fio_run(root / "randrw-2-jobs", [], ["--rw=randrw", "--numjobs=2"])


# The hot/cold lab's documented sweep (docs/labs.md), shortened: what the notebook and the
# lab-output loader open, made by femu-lab itself and left as it made it.
LAB_SWEEP_ARGS = ["sweep", "--workload", "zipf:1.2", "--set", "placement=hotcold",
                  "--set", "hot_threshold=0,20", "--engine", "sim", "--runtime", "20"]


@pytest.fixture(scope="session")
def lab_sweep(tmp_path_factory, ftl_sim, repo_root):
    """A `femu-lab sweep --engine sim` folder, under a results/ folder of its own."""
    from femu_lab import cli as lab_cli
    folder = tmp_path_factory.mktemp("lab-results") / "results" / "sweep-zipf-1.2-sim"
    status = lab_cli.main([*LAB_SWEEP_ARGS, "--config", str(repo_root / "conf/lab-1g.conf"),
                           "--out", str(folder)])
    assert status == 0, f"femu-lab {' '.join(LAB_SWEEP_ARGS)} exited {status}"
    return folder
