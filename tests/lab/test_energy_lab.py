"""femu-lab energy (femu_lab.energy): the tables assembled from canned ftl-sim summaries
(every figure where the summary put it, the runs closest to WAF 1, 2.5 and 7.9 with the
split per GiB worked out here), the APST tables each setting passes to ftl-sim, the
bursty trace (seeded, its gaps inside their bounds), and the one-line refusals of bad
arguments and of a summary without the energy figures."""
import csv

import pytest

from femu_lab import cli as lab_cli
from femu_lab.energy import apst as apst_lab, bursts, runs, waf as waf_lab

SPLIT = {"nand_read": 1.0, "nand_program": 6.0, "nand_erase": 0.5, "channel": 0.25,
         "link": 0.125, "controller": 0.0625, "dram": 0.03125, "static": 0.03125}


def canned(waf, energy_j, gib=2.0, page=4096):
    """A summary as ftl-sim writes it with energy=on (the fields the labs read)."""
    return {"geometry": {"page_bytes": page}, "host_write_pages": int(gib * (1 << 30)) // page,
            "waf": waf, "energy_j": energy_j, "mean_power_w": 1.5,
            "j_per_gib_written": energy_j / gib, "energy_split_j": dict(SPLIT),
            "p50_latency_us": 80.0, "p99_latency_us": 900.0, "mean_latency_us": 120.0,
            "ps_time_s": [3.0, 0.0, 1.5, 0.5], "ps_exits": 7, "ps_exit_wait_us_per_exit": 250.0,
            "sim_time_s": 5.0}


def test_waf_table_rows_are_the_summary(tmp_path):
    run = waf_lab.Run("hotcold", "greedy", "rand-77")
    row = waf_lab.table_row(run, canned(2.5, 16.0), tmp_path)
    assert row["setting"] == "hotcold greedy" and row["workload"] == "rand-77"
    assert row["waf"] == 2.5 and row["energy_j"] == 16.0 and row["j_per_gib_written"] == 8.0
    assert row["host_write_gib"] == 2.0
    assert row["split_nand_program_j"] == 6.0 and row["split_static_j"] == 0.03125
    assert row["folder"] == "runs/hotcold-greedy-rand-77"


def test_the_runs_closest_to_each_waf(tmp_path):
    rows = [waf_lab.table_row(waf_lab.Run("single", "greedy", name), canned(waf, joules),
                              tmp_path)
            for name, waf, joules in (("seq-75", 1.0, 11.0), ("rand-75", 2.32, 29.0),
                                      ("rand-77", 2.51, 31.0), ("rand-100", 7.86, 100.0))]
    picked = waf_lab.closest(rows, (1.0, 2.5, 7.9))
    assert [one["workload"] for one in picked] == ["seq-75", "rand-77", "rand-100"]
    # 2 GiB written in every run: each part's joules over 2
    assert picked[1]["nand_program_j_per_gib"] == 3.0
    assert picked[2]["j_per_gib_written"] == 50.0
    waf_lab.write_outputs(rows, picked, ["a note"], tmp_path, "title")
    with open(tmp_path / "energy-waf-targets.csv", newline="") as f:
        targets = list(csv.DictReader(f))
    assert [row["target_waf"] for row in targets] == ["1.0", "2.5", "7.9"]
    with open(tmp_path / "energy-waf.csv", newline="") as f:
        table = list(csv.DictReader(f))
    assert [float(row["j_per_gib_written"]) for row in table] == [5.5, 14.5, 15.5, 50.0]
    md = (tmp_path / "energy-waf.md").read_text()
    assert "| 2.5 | single greedy | rand-77 | 2.510 | 15.500 |" in md
    assert (tmp_path / "energy_waf.png").stat().st_size > 0


def test_workload_options_scale_with_the_device():
    words = waf_lab.workload_args("rand-77", 768 << 20, 1 << 30, 3)
    assert words[:4] == ["--precondition", "region", "--size", str(591 << 20)]
    assert words[-6:] == ["--qd", "16", "--io-size", str(1 << 30), "--seed", "3"]
    assert waf_lab.workload_args("rand-100", 768 << 20, 1 << 30, 1)[:2] == \
        ["--precondition", "seq"]


def test_a_summary_without_energy_is_one_line(tmp_path):
    summary = canned(2.0, 10.0)
    del summary["energy_j"]
    with pytest.raises(runs.RunReadError, match=r"summary.json: no 'energy_j'"):
        waf_lab.table_row(waf_lab.Run("single", "fifo", "seq-75"), summary, tmp_path)
    summary = canned(2.0, 10.0)
    summary["energy_split_j"].pop("dram")
    with pytest.raises(runs.RunReadError, match=r"energy_split_j/summary.json: no 'dram'"):
        waf_lab.table_row(waf_lab.Run("single", "fifo", "seq-75"), summary, tmp_path)


CONFIG = {"ps_count": "4", "ps0_nonop": "0", "ps1_nonop": "0", "ps2_nonop": "1",
          "ps3_nonop": "1"}


def test_apst_tables_per_setting():
    nonop = apst_lab.states(CONFIG)
    assert nonop == [False, False, True, True]
    assert apst_lab.apst_argument("off", nonop, 1) == "off"
    assert apst_lab.apst_argument("linux", nonop, 1) == "linux"
    # both operational states to PS3, the deepest, after 5 ms
    assert apst_lab.apst_argument("aggressive", nonop, 5) == "0:5:3,1:5:3"


def test_apst_needs_a_non_operational_state():
    with pytest.raises(Exception, match="no non-operational power state"):
        apst_lab.check_table(apst_lab.states({"ps_count": "1"}), "conf/x.conf")
    with pytest.raises(Exception, match="no non-operational power state"):
        apst_lab.check_table(apst_lab.states({"ps_count": "2"}), "conf/x.conf")


def test_apst_table_rows(tmp_path):
    rows = [apst_lab.table_row(setting, apst_lab.apst_argument(setting, [0, 0, 1, 1], 1),
                               canned(1.0, joules), tmp_path, 4)
            for setting, joules in (("off", 9.0), ("linux", 6.0), ("aggressive", 4.0))]
    assert rows[2]["apst"] == "0:1:3,1:1:3"
    assert [row["ps2_s"] for row in rows] == [1.5] * 3 and rows[0]["ps_exits"] == 7
    assert rows[1]["p99_latency_us"] == 900.0 and rows[1]["energy_j"] == 6.0
    md = apst_lab.markdown(rows, [False, False, True, True], ["note"])
    assert "| PS2 (non-op) (s) |" in md and "- aggressive: `0:1:3,1:1:3`" in md
    short = canned(1.0, 1.0)
    short["ps_time_s"] = [1.0]
    with pytest.raises(runs.RunReadError, match="'ps_time_s' is not a list of 4 states"):
        apst_lab.table_row("off", "off", short, tmp_path, 4)


def test_bursts_seeded_and_gaps_in_bounds():
    first = list(bursts.bursts(20, 30, (5.0, 4000.0), 768 << 20, 1.0, 7))
    again = list(bursts.bursts(20, 30, (5.0, 4000.0), 768 << 20, 1.0, 7))
    assert first == again and len(first) == 600
    assert all(one.op == "R" and one.length == 4096 and one.offset % 4096 == 0
               and one.offset < 768 << 20 for one in first)
    gaps = bursts.idle_gaps_ms(20, 30, (5.0, 4000.0), 768 << 20, 1.0, 7)
    assert len(gaps) == 19 and all(5.0 <= gap <= 4000.0 + 0.001 for gap in gaps)
    times = [one.time_us for one in first]
    assert times == sorted(times) and times[0] == 0
    other = list(bursts.bursts(20, 30, (5.0, 4000.0), 768 << 20, 1.0, 8))
    assert other != first


def test_bursty_trace_file_is_msr(tmp_path):
    path = bursts.write(tmp_path / "b.csv", 2, 3, (10.0, 10.0), 1 << 20, 0.5, 1)
    lines = path.read_text().splitlines()
    assert len(lines) == 6 and all(len(line.split(",")) == 7 for line in lines)
    assert {line.split(",")[3] for line in lines} <= {"Read", "Write"}


@pytest.mark.parametrize("argv, said", [
    (["waf", "--placements", "single,stream"], "unknown placement 'stream'"),
    (["waf", "--policies", "greedy,greedy"], "named twice"),
    (["waf", "--io-size", "12"], "not a size"),
    (["apst", "--gap-ms", "10:5"], "want MIN:MAX in ms"),
    (["apst", "--gap-ms", "0:5"], "want MIN:MAX in ms"),
    (["apst", "--read-fraction", "2"], "--read-fraction"),
    (["apst", "--trace-format", "csv"], "--trace-format"),
    (["bogus"], "invalid choice"),
])
def test_bad_arguments_are_one_line(capsys, argv, said):
    assert lab_cli.main(["energy", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and "\n" not in err


def test_a_missing_trace_or_folder_clash_is_one_line(capsys, tmp_path, ftl_sim):
    assert lab_cli.main(["energy", "apst", "--trace", str(tmp_path / "none.csv"), "-o",
                         str(tmp_path / "lab"), "--ftl-sim", str(ftl_sim)]) == 2
    assert "--trace" in capsys.readouterr().err
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "mine.txt").write_text("not a lab's")
    assert lab_cli.main(["energy", "apst", "-o", str(taken), "--ftl-sim", str(ftl_sim)]) == 2
    err = capsys.readouterr().err.strip()
    assert "is not a 'femu-lab energy apst' folder" in err and "\n" not in err
    assert (taken / "mine.txt").exists()


def test_placement_is_the_labs_own(capsys, tmp_path, ftl_sim):
    status = lab_cli.main(["energy", "waf", "--set", "placement=stream", "-o",
                           str(tmp_path / "lab"), "--ftl-sim", str(ftl_sim)])
    assert status == 2
    assert "--set placement: the lab sets it per run (use --placements)" in \
        capsys.readouterr().err


def test_a_configuration_without_a_sleep_state_is_refused(capsys, tmp_path, ftl_sim):
    """lab-1g's table shortened to its operational states (--set ps_count=3): nothing to
    move to, one line, no run."""
    out = tmp_path / "lab"
    assert lab_cli.main(["energy", "apst", "--set", "ps_count=3", "-o", str(out),
                         "--ftl-sim", str(ftl_sim)]) == 2
    err = capsys.readouterr().err.strip()
    assert "no non-operational power state (ps_count=3)" in err and "\n" not in err
    assert not (out / "runs").exists()
