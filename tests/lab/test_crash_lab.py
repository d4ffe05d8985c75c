"""The crash-consistency lab without a guest: the console's facts parsed into boots, a cut
judged by hand-computed cases, the guest job's text, the lab's arguments and its table.
(tests/guest/test_crash_lab_vm.py boots it.)"""
import subprocess
from types import SimpleNamespace

import pytest

from femu_common.cli_args import UsageError
from femu_lab import cli
from femu_lab.crash import guest, lab, runner
from femu_lab.crash.runner import ConfigResult, CrashConfig
from femu_lab.crash.verdict import (ConsoleError, CutVerdict, JOB_START, judge, parse_boots,
                                    parse_ranges)

BOOT = f"[    1.2] {JOB_START} at 1.20s uptime (timeout 0s)"


def console(*boots):
    """Lines of boots, each a list of crashlab facts (without the prefix)."""
    lines = []
    for facts in boots:
        lines += [BOOT] + [f"crashlab: {fact}" for fact in facts] + ["other noise"]
    return lines


def test_ranges():
    assert parse_ranges("1-3,7,9-10") == {1, 2, 3, 7, 9, 10}
    assert parse_ranges("") == set()
    with pytest.raises(ConsoleError):
        parse_ranges("1-x")


def test_a_cut_that_lost_log_records_and_a_page():
    """Records 1-5 and page writes (2, v3), (0, v4), (2, v6) reported durable; after the cut
    the log has 1-3 and 5, page 0 is at version 4, page 2 torn: 2 + 2 lost of 8."""
    lines = console(
        ["check fs=none", "workload-start", "D log 1", "D log 2", "D db 2 3", "D log 3",
         "D db 0 4", "D log 4", "D log 5", "D db 2 6"],
        ["check fs=present mount=ok fsck=repaired", "log-present 1-3,5", "db 4 0 T 0",
         "workload-start"])
    before, after = parse_boots(lines)
    assert before.fs == "none" and before.started and not after.durable_log
    assert after.checked and after.db == [4, 0, None, 0]
    v = judge(before, after)
    assert (v.durable_checked, v.lost, v.fsck) == (8, 3, "repaired")
    assert v.lost_log == [4] and v.lost_db == [(2, 3), (2, 6)]


def test_a_newer_version_than_the_durable_one_is_no_loss():
    before, after = parse_boots(console(
        ["check fs=none", "workload-start", "D db 1 7"],
        ["check fs=present mount=ok fsck=clean", "log-present ", "db 0 9"]))
    v = judge(before, after)
    assert (v.durable_checked, v.lost, v.fsck) == (1, 0, "clean")


def test_an_unmountable_file_system_loses_everything_durable():
    before, after = parse_boots(console(
        ["check fs=none", "workload-start", "D log 1", "D db 0 1"],
        ["check fs=present mount=failed fsck=failed"]))
    assert after.checked
    v = judge(before, after)
    assert (v.lost, v.fsck) == (2, "unmountable")


def test_damaged_console_lines_are_refused():
    with pytest.raises(ConsoleError):
        parse_boots(console(["check fs=maybe mount"]))
    before, after = parse_boots(console(["workload-start"], ["check fs=none"]))
    with pytest.raises(ConsoleError, match="no file system"):
        judge(before, after)


def test_the_job_is_valid_shell_for_each_configuration():
    for fs in ("ext4", "f2fs"):
        for barriers in (True, False):
            text = guest.job(fs, barriers)
            assert f"FS={fs}\n" in text and ("BARRIERS=on" if barriers else "BARRIERS=off") in text
            assert subprocess.run(["sh", "-n"], input=text, text=True).returncode == 0
    with pytest.raises(ValueError):
        guest.job("xfs", True)


def test_the_job_reads_back_a_database_page_by_page(tmp_path):
    """The check's awk program on a file of 3 pages: versions, a torn page, a missing one."""
    token = "P{:04d}V{:09d}\n"
    page = lambda p, v: token.format(p, v) * 256   # noqa: E731
    torn = token.format(1, 5) * 100 + token.format(1, 4) * 156
    (tmp_path / "db").write_text(page(0, 12) + torn + page(2, 0))
    text = guest.job("ext4", True, pages=4)
    start = text.index("awk -v pages=$PAGES '")
    program = text[start + len("awk -v pages=$PAGES '"):text.index("' $MNT/db", start)]
    out = subprocess.run(["awk", "-v", "pages=4", program, str(tmp_path / "db")],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "crashlab: db 12 T 0 T"


def test_arguments_and_device_checks(ftl_sim):
    args = cli.build_parser().parse_args(["crash", "--fs", "f2fs", "--barriers", "off",
                                          "--plp", "on,off"])
    assert [c.name for c in lab.configurations(args)] == ["f2fs-barriers-off-plp-on",
                                                           "f2fs-barriers-off-plp-off"]
    props = lab.device_props(["write_buffer_sectors=4096"])
    assert props["write_buffer_sectors"] == "4096" and props["devsz_mb"] == "96"
    with pytest.raises(UsageError, match="no volatile cache"):
        lab.device_props(["write_buffer_sectors=0"])
    with pytest.raises(UsageError, match="--plp"):
        lab.device_props(["plp=on"])


def test_the_plp_budget_is_checked_with_the_labs_own_plp(ftl_sim, capsys, tmp_path,
                                                          monkeypatch):
    """--set was checked without the lab's plp, so plp_budget_pages (valid with plp=on
    only) was refused even with --plp on: the budget model was out of the lab's reach."""
    built = []

    def run_config(config, qemu, folder, cuts, seed, props, **options):
        built.append(lab.device_config(props, config.plp))
        raise lab.CrashLabError("stop before booting")
    monkeypatch.setattr(lab.setup_steps, "ensure_qemu", lambda qemu: qemu)
    monkeypatch.setattr(lab.setup_steps, "ensure_guest",
                        lambda release=None: SimpleNamespace(kernel=None, initramfs=None))
    monkeypatch.setattr(lab.setup_steps, "choose_accel", lambda *args: "tcg")
    monkeypatch.setattr(lab, "run_config", run_config)
    assert cli.main(["crash", "--fs", "ext4", "--barriers", "on", "--plp", "on", "--set",
                     "plp_budget_pages=64", "-o", str(tmp_path)]) == 1
    assert "stop before booting" in capsys.readouterr().err
    assert [(c.values["plp"], c.values["plp_budget_pages"]) for c in built] == [("1", "64")]
    props = lab.device_props(["plp_budget_pages=64"], ["on"])
    assert runner.config_props(props, True)["plp"] == "on"
    for plps in (["off"], ["on", "off"]):
        status = cli.main(["crash", "--plp", ",".join(plps), "--set", "plp_budget_pages=64",
                           "-o", str(tmp_path / "refused")])
        err = capsys.readouterr().err.splitlines()
        assert status == 2 and len(err) == 1 and "--plp off:" in err[0], err
        assert "plp_budget_pages" in err[0] and not (tmp_path / "refused").exists()


def test_an_unknown_key_is_not_blamed_on_plp(ftl_sim, capsys):
    assert cli.main(["crash", "--plp", "off", "--set", "nosuch=1"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "nosuch" in err[0] and "--plp" not in err[0], err


@pytest.mark.parametrize("where", ["file", "file/below"])
def test_an_out_that_cannot_be_a_folder_is_one_line(ftl_sim, capsys, tmp_path, where):
    """mkdir raised FileExistsError / NotADirectoryError: a traceback."""
    (tmp_path / "file").write_text("kept")
    status = cli.main(["crash", "-o", str(tmp_path / where), "--qemu", str(tmp_path / "q")])
    err = capsys.readouterr().err.splitlines()
    assert status == 2 and len(err) == 1 and "is not a folder" in err[0], err
    assert (tmp_path / "file").read_text() == "kept"


def test_bad_command_lines_exit_2(capsys):
    assert cli.main(["crash", "--fs", "xfs"]) == 2
    assert "ext4, f2fs" in capsys.readouterr().err
    assert cli.main(["crash", "--cuts", "0"]) == 2


def test_the_table(tmp_path):
    stats = tmp_path / "stats"
    stats.mkdir()
    (stats / "power_cuts.csv").write_text(
        "cut,at_ns,plp,buffered_pages,buffered_sectors,torn_pages,plp_pages,lost_ranges\n"
        "1,5,0,3,20,1,0,4\n2,9,0,1,8,0,0,1\n")
    verdicts = [CutVerdict(10, 0, "clean", [], []), CutVerdict(12, 2, "repaired", [3], [])]
    result = ConfigResult(CrashConfig("ext4", False, False), verdicts, ["a", "b"], [10.0, 20.0])
    row = lab.table_row(result, tmp_path)
    assert row == {"configuration": "ext4-barriers-off-plp-off", "cuts": 2,
                   "durable_checked": 22, "lost": 2, "fsck_clean": 1, "fsck_repaired": 1,
                   "fsck_failed": 0, "unmountable": 0, "device_lost_sectors": 28,
                   "device_torn_pages": 1, "seconds_per_cycle": 15.0, "expected": "loss",
                   "verdict": "loss seen"}
    safe = ConfigResult(CrashConfig("ext4", True, False), [CutVerdict(5, 1, "clean", [1], [])],
                        ["a"], [1.0])
    assert lab.table_row(safe, tmp_path / "none")["verdict"] == "DURABLE WRITES LOST"
    text = lab.write_table([row], tmp_path)
    assert (tmp_path / "crash-lab.csv").read_text().splitlines()[1].startswith(
        "ext4-barriers-off-plp-off,2,22,2,1,1,0,0,28,1,15.0,loss,loss seen")
    assert text.splitlines()[2].startswith("| ext4-barriers-off-plp-off | 2 | 22 | 2 |")
    lab.write_cuts(result, tmp_path)
    assert (tmp_path / "cuts.csv").read_text().splitlines()[2] == "2,12,2,repaired,20.0,b,3,"


# ---- femu-lab run --power-cut: the spec

def test_cut_specs():
    from femu_lab.run import cut_spec
    assert cut_spec.parse("at=2.5", 1, runtime_s=60).at_s == 2.5
    assert cut_spec.parse("after-writes=40", 1).device_value == "after-writes=40"
    assert cut_spec.parse("after-flushes=3", 1).device_value == "after-flushes=3"
    drawn = cut_spec.parse("random=50", 7)
    assert drawn == cut_spec.parse("random=50", 7), "the same seed, the same point"
    assert 1 <= int(drawn.device_value.split("=")[1]) <= 50
    values = {cut_spec.parse("random", seed).device_value for seed in range(20)}
    assert len(values) > 10 and all(v.startswith("after-writes=") for v in values)
    for bad, message in [("at=0", "in the past"), ("at=-3", "in the past"),
                         ("at=x", "want seconds"), ("at=90", "after the workload"),
                         ("after-writes=0", "1 to"), ("after-flushes=", "1 to"),
                         ("random=0", "1 to"), ("soon", "want at=SECONDS")]:
        with pytest.raises(cut_spec.CutSpecError, match=message):
            cut_spec.parse(bad, 1, runtime_s=60)
    with pytest.raises(cut_spec.CutSpecError, match="no write buffer"):
        cut_spec.check_device(drawn, {"write_buffer_sectors": "0"})
    cut_spec.check_device(drawn, {"write_buffer_sectors": "1024"})


def test_run_refuses_bad_power_cuts(capsys):
    assert cli.main(["run", "--power-cut", "at=-1"]) == 2
    assert "a cut time in the past" in capsys.readouterr().err
    assert cli.main(["run", "--power-cut", "random"]) == 2       # lab-1g has no buffer
    assert "no write buffer" in capsys.readouterr().err


# isdigit() passes '²' (and int() then raised), int() refuses 5,000 digits, float() takes
# 'nan', '1_0' and Arabic-Indic digits: a spec holds ASCII digits only.
HOSTILE_SPECS = ["after-writes=²", "after-flushes=\u0663", "random=" + "9" * 5000,
                 "after-writes=" + "1" * 5000, "after-writes=+5", "after-writes= 5",
                 "after-writes=1_0", "at=nan", "at=inf", "at=1_0", "at=\u0661",
                 "after-writes=1\n2"]


@pytest.mark.parametrize("spec", HOSTILE_SPECS)
def test_cut_specs_take_ascii_digits_only(spec):
    from femu_lab.run import cut_spec
    with pytest.raises(cut_spec.CutSpecError) as error:
        cut_spec.parse(spec, 1, runtime_s=60)
    message = str(error.value)
    assert "\n" not in message and len(message) < 200, message


@pytest.mark.parametrize("spec", ["after-writes=²", "random=" + "9" * 5000])
def test_run_refuses_non_ascii_and_huge_counts_in_one_line(capsys, spec):
    assert cli.main(["run", "--power-cut", spec, "--accel", "tcg"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "want a whole number from 1 to" in err[0], err
