"""Run data for the analysis tests: real ftl-sim output, produced once per session.

Runs (simulated time, about a second of CPU each), laid out the way the lab notebooks
expect them:
  perf/{randread,randrw,randwrite,sysbench}       performance lab, seq precondition
  hotcold/{zipf1.2,random}/threshold-{N}         hot/cold lab, placement=hotcold
  plain/randrw                                   no precondition (I/O from time 0)
"""
import pathlib
import shutil

import pytest

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
