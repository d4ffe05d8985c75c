"""A run's folder as it ends (lab_run.build_folder, for ftl-sim points and VM runs alike):
built as NAME.incomplete, its summaries name NAME when it succeeds and NAME.failed when it
fails, never NAME.incomplete; a failed run's one line names the .failed folder and the log
to read there. ftl-sim runs and a stand-in QEMU that does not start: no guest boots."""
import json
import shutil

import pytest

from femu_lab import devconfig, workloads
from femu_lab.run import sim_run, vm_run as lab_run
from lab_calls import LAB_1G, SMALL_SIM

pytestmark = pytest.mark.unit


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root, ftl_sim):
    monkeypatch.chdir(repo_root)   # config paths are relative to the repository
    monkeypatch.setenv("FEMU_BUILD_DIR", str(ftl_sim.parents[2]))


def sim_request(folder):
    config = devconfig.load(LAB_1G, devconfig.parse_overrides(SMALL_SIM[1::2]))
    return sim_run.SimRequest(workloads.resolve("gc-randwrite"), config, folder, runtime=5)


def assert_summaries_name(folder):
    """plots/summary.json and summary.md, and ftl-sim's summary.json, name folder only."""
    summary = json.loads((folder / "plots" / "summary.json").read_text())
    assert (summary["run"], summary["path"]) == (folder.name, str(folder))
    table = (folder / "plots" / "summary.md").read_text()
    assert f"| {folder.name} |" in table and f"**{folder.name}**" in table
    simulator = json.loads((folder / "summary.json").read_text())
    assert simulator["config_file"] == str(folder / "config.conf")
    assert simulator["config_files"] == [str(folder / "config.conf")]
    for path in (folder / "plots" / "summary.json", folder / "plots" / "summary.md",
                 folder / "summary.json"):
        assert ".incomplete" not in path.read_text(), path


def test_a_finished_run_names_its_folder_in_its_summaries(tmp_path):
    folder = tmp_path / "point"
    result = sim_run.run(sim_request(folder))
    assert result.folder == folder and not lab_run.incomplete_path(folder).exists()
    assert_summaries_name(folder)


def test_a_run_failing_after_its_analysis_names_the_failed_folder(tmp_path):
    folder = tmp_path / "point"
    request = sim_request(folder)

    def build(work):
        sim_run._run_in(request, work)             # ftl-sim, plots, summaries, result.json
        raise sim_run.SimRunError("stopped after the analysis")

    with pytest.raises(sim_run.SimRunError) as caught:
        lab_run.build_folder(folder, build, sim_run.SimRunError, (sim_run.LOG,))
    failed = lab_run.failed_path(folder)
    assert str(caught.value) == (f"stopped after the analysis; what was collected is in "
                                 f"{failed} (read {failed / 'ftl-sim.log'})")
    assert not folder.exists() and not lab_run.incomplete_path(folder).exists()
    assert_summaries_name(failed)


def test_a_failing_ftl_sim_names_its_log(tmp_path, monkeypatch, ftl_sim):
    fake = tmp_path / "build" / "tools" / "ftl-sim" / "ftl-sim"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\ncase \" $* \" in *\" --stats-dir \"*)\n"   # the run itself
                    "    echo 'ftl-sim: injected failure' >&2; exit 3 ;;\nesac\n"
                    f"exec {ftl_sim} \"$@\"\n")
    fake.chmod(0o755)
    monkeypatch.setenv("FEMU_BUILD_DIR", str(tmp_path / "build"))
    request = sim_request(tmp_path / "point")
    with pytest.raises(sim_run.SimRunError) as caught:
        sim_run.run(request)
    failed = tmp_path / "point.failed"
    assert str(caught.value) == ("ftl-sim failed (exit status 3): ftl-sim: injected failure; "
                                 f"what was collected is in {failed} "
                                 f"(read {failed / 'ftl-sim.log'})")


def test_a_vm_run_whose_qemu_does_not_start_names_its_console(tmp_path):
    """QEMU refusing to start: no job status, so the log to read is the console (QEMU's own
    messages are in it)."""
    qemu = tmp_path / "qemu"
    qemu.write_text("#!/bin/sh\necho \"qemu-system-x86_64: could not load PC BIOS "
                    "'bios-256k.bin'\" >&2\nexit 1\n")
    qemu.chmod(0o755)
    kernel, initramfs = tmp_path / "vmlinuz", tmp_path / "initramfs"
    kernel.write_bytes(b"")
    initramfs.write_bytes(b"")
    config = devconfig.load(LAB_1G, {})
    folder = tmp_path / "run"
    request = lab_run.LabRequest(workloads.resolve("gc-randwrite"), config, folder, qemu,
                                 runtime=5, accel="tcg", live=False, kernel=kernel,
                                 initramfs=initramfs)
    with pytest.raises(lab_run.LabRunError) as caught:
        lab_run.run(request)
    failed = lab_run.failed_path(folder)
    message = str(caught.value)
    assert "could not load PC BIOS 'bios-256k.bin'" in message
    assert message.endswith(f"; what was collected is in {failed} "
                            f"(read {failed / 'console.log'})")
    assert "could not load PC BIOS" in (failed / "console.log").read_text()


def test_the_log_named_by_the_error_comes_first_when_the_folder_has_it(tmp_path):
    for name in ("job.log", "console.log"):
        (tmp_path / name).write_text("x\n")
    logs = lab_run.RUN_LOGS
    assert lab_run._log_to_read(tmp_path, "console.log", logs) == \
        f" (read {tmp_path / 'console.log'})"
    assert lab_run._log_to_read(tmp_path, None, logs) == f" (read {tmp_path / 'job.log'})"
    (tmp_path / "job.log").unlink()
    assert lab_run._log_to_read(tmp_path, "job.log", logs) == \
        f" (read {tmp_path / 'console.log'})"
    shutil.rmtree(tmp_path)
    tmp_path.mkdir()
    assert lab_run._log_to_read(tmp_path, "job.log", logs) == ""
