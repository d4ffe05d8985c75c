"""What the plots show, checked against the data: the GC counts drawn add up to the
summary's totals for a short run (per second) and a long one (per 10 s), with the window's
last, shorter interval kept and drawn hollow; extreme labels never overlap; count axes
tick on whole numbers; a trace replay is titled by its trace; VM and ftl-sim runs are
told apart in a legend."""
import json

import numpy as np
import pytest

from femu_analysis import find_window, load_run, summarize
from femu_analysis.plots import (TIME_SERIES, distinguishing_labels, run_victims_figure,
                                 timeseries_figure)
from femu_analysis.style import mark_extremes, new_figure

COUNTS = {spec.stem: spec for spec in TIME_SERIES if spec.count}


@pytest.fixture(scope="module")
def sim_run(tmp_path_factory, run_ftl_sim, repo_root):
    """sim_run(runtime_s) -> a folder of the brief's ftl-sim run (lab-1g full, 4k QD16
    random), made once per runtime."""
    made = {}

    def run(runtime_s):
        if runtime_s not in made:
            folder = tmp_path_factory.mktemp(f"sim-{runtime_s}s")
            run_ftl_sim("--config", repo_root / "conf" / "lab-1g.conf", "--precondition",
                        "seq", "--dist", "random", "--bs", "4k", "--qd", "16", "--runtime",
                        runtime_s, "--stats-dir", folder, "--summary",
                        folder / "summary.json")
            made[runtime_s] = folder
        return made[runtime_s]
    return run


def _partial_markers(axes):
    return [tuple(point) for collection in axes.collections
            if collection.get_gid() == "partial" for point in collection.get_offsets()]


@pytest.mark.parametrize("runtime_s, per", [(30, "per second"), (130, "per 10 s")])
@pytest.mark.parametrize("stem", sorted(COUNTS))
def test_plotted_counts_add_up_to_the_summary(sim_run, runtime_s, per, stem):
    run = load_run(sim_run(runtime_s))
    window = find_window(run)
    summary = summarize(run, window)
    figure, _ = timeseries_figure(run, window, COUNTS[stem])
    axes = figure.axes[0]
    assert per in axes.get_title()
    drawn = np.asarray(axes.get_lines()[0].get_ydata(), dtype=float)
    assert summary[stem]["total"] > 0
    assert drawn.sum() == summary[stem]["total"]
    # ftl-sim's last row ends with the run, mid-second: kept, and drawn hollow
    x = axes.get_lines()[0].get_xdata()
    assert _partial_markers(axes) == [(pytest.approx(x[-1]), pytest.approx(drawn[-1]))]


def test_the_30_s_run_has_more_than_two_points(sim_run):
    run = load_run(sim_run(30))
    figure, _ = timeseries_figure(run, find_window(run), COUNTS["erased_blocks"])
    assert len(figure.axes[0].get_lines()[0].get_xdata()) >= 25


def _extents(axes):
    renderer = axes.figure.canvas.get_renderer()
    return [text.get_window_extent(renderer) for text in axes.texts]


@pytest.mark.parametrize("y", [[5.0, 5.0, 5.0], [5.0, 5.01, 5.0], [0.0, 9.0, 8.9, 0.1]])
def test_extreme_labels_never_overlap(y):
    figure, axes = new_figure("t", "x", "y")
    axes.plot(range(len(y)), y)
    mark_extremes(axes, range(len(y)), y)
    first, second = _extents(axes)
    assert not first.overlaps(second)


def test_count_axes_tick_on_whole_numbers(sim_run):
    run = load_run(sim_run(30))
    victims = run_victims_figure(run).axes[0]
    for ticks in (victims.get_yticks(), victims.get_xticks()):
        assert np.array_equal(ticks, np.round(ticks))
    for spec in COUNTS.values():
        ticks = timeseries_figure(run, find_window(run), spec)[0].axes[0].get_yticks()
        assert np.array_equal(ticks, np.round(ticks))


def test_a_replay_is_titled_by_its_trace(sim_run, run_copy):
    folder = run_copy(sim_run(30))
    summary = json.loads((folder / "summary.json").read_text())
    summary["workload"]["trace"] = "/data/mixed-sizes.trace"
    (folder / "summary.json").write_text(json.dumps(summary))
    title = load_run(folder).metadata.title()
    assert "trace mixed-sizes.trace" in title and "bs=" not in title


def test_vm_and_sim_runs_are_told_apart(sim_run, run_copy, repo_root):
    sim = load_run(sim_run(30))
    vm_folder = run_copy(sim_run(30))
    (vm_folder / "summary.json").unlink()   # a VM run: no ftl-sim summary, its conf file
    (vm_folder / "config.conf").write_text((repo_root / "conf" / "lab-1g.conf").read_text())
    (vm_folder / "params.json").write_text(json.dumps(
        {"accel": "tcg", "accel_requested": "auto"}))
    assert distinguishing_labels([load_run(vm_folder), sim]) == ["VM (TCG)", "ftl-sim"]
