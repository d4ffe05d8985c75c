"""femu-lab bench's ftl-sim row: the measured window from phases.csv, per-second IOPS from
stats.csv, the row's figures and bound, and one real (simulated-time) ftl-sim run."""
import pytest

from femu_lab.bench import sim as bench_sim
from femu_lab.bench.sim import SimError
from femu_lab.bench.stats import Geometry, flash_time_bound_iops

LAB_1G = Geometry(luns=16, page_bytes=4096, pg_rd_lat_ns=40000, pg_wr_lat_ns=200000)

PHASES = "time_s,phase\n0.000,precondition\n2.458,workload\n6.613,end\n"
STATS = ("time_s,interval_s,iops,waf\n"
         "1.000,1.000,80016.00,1.0\n2.000,1.000,80000.00,1.0\n"
         "3.000,1.000,50000.00,1.0\n"     # 2-3 s: the fill ends inside it
         "4.000,1.000,9000.00,2.0\n5.000,1.000,3000.00,4.0\n6.000,1.000,6000.00,5.0\n"
         "6.500,0.500,8000.00,5.0\n"      # the last, short row of a run
         "7.000,1.000,100.00,5.0\n")       # 6-7 s: the run ends inside it


def test_measured_window_from_phases():
    assert bench_sim.measured_window(PHASES) == (2.458, 6.613)
    assert bench_sim.measured_window("time_s,phase\n0.5,workload\n") == (0.5, float("inf"))
    with pytest.raises(SimError, match="no 'workload' phase"):
        bench_sim.measured_window("time_s,phase\n0.000,precondition\n")


def test_per_second_iops_only_whole_seconds_of_the_workload():
    assert bench_sim.per_second_iops(STATS, 2.458, 6.613) == [9000.0, 3000.0, 6000.0]


def test_row_figures_and_bound():
    summary = {"iops": 3250.57, "waf": 6.777, "p99_latency_us": 195559.4, "sim_time_s": 30.2}
    row = bench_sim.figures(summary, [9000.0, 3000.0, 6000.0], LAB_1G)
    assert row["worst_iops"] == 3000.0 and row["cv"] == pytest.approx(0.408248, rel=1e-5)
    assert row["bound_iops"] == pytest.approx(16 / (6.777 * 200e-6 + 5.777 * 40e-6))
    assert row["percent_of_bound"] == pytest.approx(100 * 3250.57 / row["bound_iops"])
    assert (row["iops"], row["waf"], row["p99_us"]) == (3250.57, 6.777, 195559.4)


def test_command_passes_overrides_as_sets(tmp_path):
    args = bench_sim.command(tmp_path / "ftl-sim", tmp_path / "c.conf",
                             {"placement": "hotcold", "hot_threshold": "6"}, 30, tmp_path)
    assert args[1:7] == ["--config", str(tmp_path / "c.conf"), "--set", "placement=hotcold",
                         "--set", "hot_threshold=6"]
    joined = " ".join(args)
    assert "--rw randwrite --bs 4k --qd 32 --precondition seq --runtime 30" in joined


def test_a_real_ftl_sim_run(ftl_sim, repo_root, tmp_path):
    row = bench_sim.run(ftl_sim, repo_root / "conf" / "lab-1g.conf", {}, 5, tmp_path / "sim",
                        LAB_1G)
    assert row["waf"] > 1.0 and row["iops"] > 0
    assert len(row["seconds"]) in (4, 5)          # whole simulated seconds of a 5 s run
    assert 0 < row["worst_iops"] <= max(row["seconds"])
    assert row["bound_iops"] == pytest.approx(flash_time_bound_iops(LAB_1G, row["waf"]))
    assert row["iops"] <= row["bound_iops"] * 1.05   # flash time bounds the simulator too


def test_a_failing_ftl_sim_is_one_line(ftl_sim, tmp_path):
    bad = tmp_path / "bad.conf"
    bad.write_text("colour=blue\n")
    with pytest.raises(SimError, match="ftl-sim failed \\(exit status 2\\)") as caught:
        bench_sim.run(ftl_sim, bad, {}, 5, tmp_path / "sim", LAB_1G)
    assert "\n" not in str(caught.value)
