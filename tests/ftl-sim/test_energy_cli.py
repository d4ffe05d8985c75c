"""ftl-sim with the energy model on (docs/energy.md): the summary's joules priced by hand
from its own counts, equal to the sum of stats.csv's energy_j rows and to phases.csv's
workload phase; a recorded run replaying to the same joules; energy=off (the default)
leaving the summary and every statistics file as they were; a NAND figure missing refused
with its key and the profile named.

Figures (conf/lab-1g.conf: 4 KiB pages, tR 40 us, tPROG 200 us, erase 2 ms): VCC 3.3 V,
ICC1 25 mA, ICC2 30 mA, ICC3 20 mA, 100 pJ a channel byte, 5 pJ a link bit, 500 mW a busy
core, 300 mW of DRAM. One power state (ps_count=1 drops lab-1g's table), PS0, idle at
1000 mW: the static part is its time, the whole run."""
import csv
import json

import pytest

from test_zoned import _in_repo, summary_of  # noqa: F401

LAB = ["--config", "conf/lab-1g.conf", "--set", "ps_count=1"]
FIGURES = ["--set", "nand_vcc_mv=3300", "--set", "nand_icc_read_ua=25000",
           "--set", "nand_icc_prog_ua=30000", "--set", "nand_icc_erase_ua=20000",
           "--set", "nand_io_pj_per_byte=100", "--set", "pcie_fj_per_bit=5000",
           "--set", "ctrl_active_mw=500", "--set", "dram_active_mw=300",
           "--set", "ps0_idle_mw=1000"]
ON = ["--set", "energy=on", *FIGURES]
FRONT = ["--set", "pcie_gen=3", "--set", "ctrl_cores=2", "--set", "ctrl_read_ns=3000",
         "--set", "ctrl_write_ns=3000"]
WORK = ["--rw", "randrw", "--qd", "8", "--runtime", "1", "--precondition", "seq"]


# the summary prints joules to the nJ
EXACT = {"rel": 1e-8, "abs": 1e-9}


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_the_summary_prices_its_own_counts_and_the_rows_add_up(run_ftl_sim, tmp_path):
    """Whole-line GC erases a victim when it collects it, so erased_blocks counts the
    erases the flash did (paced GC may still owe some at the end: the energy follows the
    flash's operations, not the count)."""
    s, proc = summary_of(run_ftl_sim, tmp_path, *LAB, *ON, *FRONT, *WORK,
                         "--set", "gc_mode=line", "--stats-dir", tmp_path / "st")
    split = s["energy_split_j"]
    assert s["gc_runs"] > 0 and s["erased_blocks"] > 0, "the run is meant to collect"
    senses = s["host_read_pages"] + s["gc_read_pages"]     # every read is mapped: seq fill
    programs = s["host_write_pages"] + s["gc_write_pages"]
    assert split["nand_read"] == pytest.approx(senses * 40e-6 * 3.3 * 0.025, **EXACT)
    assert split["nand_program"] == pytest.approx(programs * 200e-6 * 3.3 * 0.030, **EXACT)
    assert split["nand_erase"] == pytest.approx(s["erased_blocks"] * 2e-3 * 3.3 * 0.020,
                                                **EXACT)
    assert split["channel"] == pytest.approx((senses + programs) * 4096 * 100e-12, **EXACT)
    assert split["link"] == pytest.approx(
        (s["link_up_bytes"] + s["link_down_bytes"]) * 8 * 5e-12, **EXACT)
    # 3 us of core time a command, 500 mW: every read and write
    assert split["controller"] == pytest.approx((s["reads"] + s["writes"]) * 3e-6 * 0.5,
                                                **EXACT)
    assert split["dram"] == pytest.approx(s["sim_time_s"] * 0.3, rel=1e-6)
    assert split["static"] == pytest.approx(s["sim_time_s"] * 1.0, rel=1e-6)
    assert s["energy_j"] == pytest.approx(sum(split.values()), **EXACT)
    assert s["mean_power_w"] == pytest.approx(s["energy_j"] / s["sim_time_s"], rel=1e-5)
    assert s["j_per_gib_written"] == pytest.approx(
        s["energy_j"] / (s["host_write_pages"] * 4096 / 2**30), **EXACT)
    assert "ps_time_s" not in s                             # one power state
    assert any(line.startswith("energy: ") for line in proc.stdout.splitlines())

    # stats.csv's rows cover the whole run, precondition included; phases.csv's rows are
    # cumulative, so the workload phase is its end row less its workload row
    stats = rows(tmp_path / "st" / "stats.csv")
    phases = {r["phase"]: r for r in rows(tmp_path / "st" / "phases.csv")}
    total = sum(float(r["energy_j"]) for r in stats)
    assert total == pytest.approx(float(phases["end"]["energy_j"]), rel=1e-6)
    workload = float(phases["end"]["energy_j"]) - float(phases["workload"]["energy_j"])
    assert s["energy_j"] == pytest.approx(workload, rel=1e-6)
    for r in stats[:-1]:        # whole seconds (the last row's interval_s is rounded)
        assert float(r["power_w"]) == pytest.approx(
            float(r["energy_j"]) / float(r["interval_s"]), rel=1e-3, abs=1e-6)


def test_without_a_precondition_the_summary_is_the_stats_rows_sum(run_ftl_sim, tmp_path):
    s, _ = summary_of(run_ftl_sim, tmp_path, *LAB, *ON, "--rw", "randwrite", "--qd", "4",
                      "--io-size", "16m", "--stats-dir", tmp_path / "st")
    total = sum(float(r["energy_j"]) for r in rows(tmp_path / "st" / "stats.csv"))
    assert s["energy_j"] == pytest.approx(total, rel=1e-6)
    assert s["energy_split_j"]["nand_program"] > 0


def test_a_recorded_run_replays_to_the_same_joules(run_ftl_sim, tmp_path):
    """Without a precondition the recording's measured part is the whole trace, which is
    what its replay measures: the same joules, to the printed nJ, and the same rows."""
    trace = tmp_path / "run.trace"
    recorded, _ = summary_of(run_ftl_sim, tmp_path, *LAB, *ON, *FRONT, "--rw", "randwrite",
                             "--qd", "8", "--io-size", "1g", "--stats-dir",
                             tmp_path / "recorded", "--trace-out", trace,
                             name="recorded.json")
    assert recorded["gc_runs"] > 0
    replayed, _ = summary_of(run_ftl_sim, tmp_path, *LAB, *ON, *FRONT, "--trace", trace,
                             "--stats-dir", tmp_path / "replayed", name="replayed.json")
    assert replayed["energy_j"] == recorded["energy_j"] > 0
    assert replayed["energy_split_j"] == recorded["energy_split_j"]
    for name in ("stats.csv", "phases.csv"):
        assert ((tmp_path / "replayed" / name).read_text() ==
                (tmp_path / "recorded" / name).read_text()), name


def test_energy_off_changes_neither_summary_nor_statistics(run_ftl_sim, tmp_path):
    """The figures without the switch change no figure and no statistics byte; only the
    summary's echo of the configuration shows them."""
    args = [*LAB, "--rw", "randrw", "--qd", "4", "--io-size", "8m"]
    plain, out_a = summary_of(run_ftl_sim, tmp_path, *args, "--stats-dir", tmp_path / "a",
                              name="a.json")
    figures, out_b = summary_of(run_ftl_sim, tmp_path, *args, *FIGURES,
                                "--stats-dir", tmp_path / "b", name="b.json")
    for s in (plain, figures):
        assert not {"energy_j", "energy_split_j", "ps_time_s"} & set(s)
    assert {k: v for k, v in plain.items() if k != "config"} == \
        {k: v for k, v in figures.items() if k != "config"}
    assert out_a.stdout == out_b.stdout
    assert "energy" not in out_a.stdout
    for name in ("stats.csv", "phases.csv", "nand.csv", "ch_util.csv"):
        assert (tmp_path / "a" / name).read_text() == (tmp_path / "b" / name).read_text()
    header = (tmp_path / "a" / "stats.csv").read_text().splitlines()[0]
    assert header.endswith(",kv_live_bytes,kv_waf")


def test_a_missing_figure_is_refused_naming_key_and_profile(run_ftl_sim, tmp_path):
    profile = tmp_path / "nand.conf"
    profile.write_text("nand_vcc_mv=3300\nnand_icc_read_ua=25000\nnand_icc_prog_ua=30000\n"
                       "nand_io_pj_per_byte=100\n")
    proc = run_ftl_sim(*LAB, "--config", profile, "--set", "energy=on", "--io-size", "1m",
                       check=False)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "ftl-sim: configuration: nand_icc_erase_ua: energy=on needs the NAND's array erase "
        f"current (ICC3), and none was given ({profile} gives nand_vcc_mv but not "
        "nand_icc_erase_ua) (see ftl-sim --help)"]
    proc = run_ftl_sim(*LAB, "--set", "energy=on", "--set", "nand_icc_read_ua=-5",
                       check=False)
    assert proc.returncode == 2 and "nand_icc_read_ua" in proc.stderr
    assert len(proc.stderr.splitlines()) == 1


@pytest.mark.parametrize("profile", ["mlc", "tlc", "qlc", "znand"])
def test_every_profile_prices_a_run(run_ftl_sim, tmp_path, profile):
    s, _ = summary_of(run_ftl_sim, tmp_path, *LAB, "--config", f"conf/nand/{profile}.conf",
                      "--set", "energy=on", "--rw", "randwrite", "--io-size", "4m")
    assert s["energy_split_j"]["nand_program"] > 0 and s["energy_split_j"]["channel"] > 0
    assert json.dumps(s["energy_j"]) != "null"
