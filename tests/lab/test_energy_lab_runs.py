"""femu-lab energy, for real (--quick, in ftl-sim, a few seconds each): on lab-1g the
joules per GiB written rise with WAF, the split adds up to the total, and the runs
closest to WAF 1, 2.5 and 7.9 are picked; on the bursty trace APST off never leaves PS0
(no exits) while the aggressive table exits more often than Linux's, its p99 latency is
above off's and it spends less energy."""
import csv
import json

import pytest

from femu_lab import cli as lab_cli
from femu_lab.energy import runs


def table(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def waf_lab(tmp_path_factory, ftl_sim):
    out = tmp_path_factory.mktemp("energy") / "waf"
    assert lab_cli.main(["energy", "waf", "--quick", "-o", str(out),
                         "--ftl-sim", str(ftl_sim)]) == 0
    return out


def test_joules_per_gib_rise_with_waf(waf_lab):
    rows = table(waf_lab / "energy-waf.csv")
    assert len(rows) == 6     # single, hotcold x seq-75, rand-77, rand-100
    for setting in ("single greedy", "hotcold greedy"):
        mine = sorted((float(row["waf"]), float(row["j_per_gib_written"]))
                      for row in rows if row["setting"] == setting)
        wafs = [waf for waf, _ in mine]
        assert wafs[0] == pytest.approx(1.0, abs=0.01) and wafs[-1] > 6
        joules = [per_gib for _, per_gib in mine]
        assert joules == sorted(joules) and joules[0] < joules[-1] / 3
    for row in rows:   # the split is the total, and J/GiB is it over the GiB written
        parts = sum(float(row[f"split_{part}_j"]) for part in runs.PARTS)
        assert parts == pytest.approx(float(row["energy_j"]), rel=1e-6)
        assert float(row["j_per_gib_written"]) * float(row["host_write_gib"]) == \
            pytest.approx(float(row["energy_j"]), rel=1e-6)


def test_closest_runs_and_the_run_folders(waf_lab):
    targets = table(waf_lab / "energy-waf-targets.csv")
    assert [row["target_waf"] for row in targets] == ["1.0", "2.5", "7.9"]
    assert targets[0]["workload"] == "seq-75" and targets[2]["workload"] == "rand-100"
    folder = waf_lab / targets[1]["folder"]
    command = (folder / "sim-cmdline.txt").read_text()
    assert "--set energy=on" in command and "--precondition region" in command
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["waf"] == pytest.approx(float(targets[1]["waf"]))
    assert (waf_lab / "energy_waf.png").stat().st_size > 0
    assert json.loads((waf_lab / "lab.json").read_text())["tool"] == "femu-lab energy waf"


@pytest.fixture(scope="module")
def apst_lab(tmp_path_factory, ftl_sim):
    out = tmp_path_factory.mktemp("energy") / "apst"
    assert lab_cli.main(["energy", "apst", "--quick", "-o", str(out),
                         "--ftl-sim", str(ftl_sim)]) == 0
    return {row["setting"]: row for row in table(out / "energy-apst.csv")}, out


def test_apst_trades_latency_for_energy(apst_lab):
    rows, out = apst_lab
    off, linux, aggressive = rows["off"], rows["linux"], rows["aggressive"]
    assert float(off["ps_exits"]) == 0
    assert all(float(value) == 0 for key, value in off.items()
               if key.startswith("ps") and key.endswith("_s") and key != "ps0_s")
    assert float(aggressive["ps_exits"]) > float(linux["ps_exits"]) > 0
    assert float(aggressive["p99_latency_us"]) > float(off["p99_latency_us"])
    assert float(off["energy_j"]) > float(linux["energy_j"]) > float(aggressive["energy_j"])
    for setting in rows:
        assert (out / f"power-{setting}.png").stat().st_size > 0
        assert "--apst" in (out / "runs" / setting / "sim-cmdline.txt").read_text()
