"""Where 'auto' ends on TCG (a /dev/kvm that cannot run a guest: expected on such hosts)
every command says one calm line under its own name, naming the docs and the probe's log,
which keeps what QEMU printed. Unit tier: a stand-in QEMU, no guest."""
import json
from types import SimpleNamespace

import pytest

import kvm_standin
from femu_lab import cli as lab_cli, commands, setup_steps
from femu_lab.vm import accel

pytestmark = pytest.mark.unit


@pytest.fixture
def named(monkeypatch):
    monkeypatch.setattr(setup_steps, "_program", "run-blackbox")   # restored afterwards


def test_the_probe_keeps_what_qemu_printed_in_its_log(tmp_path, guest_files):
    qemu = kvm_standin.write(tmp_path / "qemu", "abort")
    log = tmp_path / "cache" / "probe.log"
    verdict = accel.boot_probe(str(qemu), *guest_files, deadline=120, log=log)
    assert not verdict.kvm and verdict.log == str(log)
    text = log.read_text()
    assert "kvm_buf_set_msrs: Assertion failed." in text     # QEMU's own words, kept
    assert verdict.reason in text and accel.DOC in text


def test_the_cached_verdict_names_the_log(tmp_path, guest_files, monkeypatch):
    monkeypatch.setattr(accel, "kvm_device_problem", lambda device="/dev/kvm": None)
    qemu = kvm_standin.write(tmp_path / "qemu", "bios")
    first = accel.kvm_verdict(str(qemu), *guest_files, folder=tmp_path / "cache")
    again = accel.kvm_verdict(str(qemu), *guest_files, folder=tmp_path / "cache")
    assert again.cached and again.log == first.log
    assert first.log.endswith(".log") and "could not load PC BIOS" in open(first.log).read()
    stored = [json.loads(p.read_text()) for p in (tmp_path / "cache").glob("*.json")]
    assert [s["log"] for s in stored] == [first.log]


def test_the_fallback_line_is_calm_and_names_docs_and_log(tmp_path):
    log = tmp_path / "probe.log"
    log.write_text("QEMU exited (-6) ... Assertion failed\n")
    verdict = accel.Verdict(False, "QEMU exited (-6) under KVM: Assertion failed", 0.1,
                            log=str(log))
    assert verdict.fallback_line() == (
        f"KVM cannot run a guest here; using TCG (details: docs/kvm-and-tcg.md, the "
        f"probe's log: {log})")
    # No probe ran (no /dev/kvm) or its log is gone: the reason stands in for it.
    bare = accel.Verdict(False, "/dev/kvm: No such file or directory", 0.0)
    assert bare.fallback_line() == ("KVM cannot run a guest here (/dev/kvm: No such file or "
                                    "directory); using TCG (details: docs/kvm-and-tcg.md)")


@pytest.mark.parametrize("request_, chosen, said", [
    ("auto", "tcg", "KVM cannot run a guest here; using TCG"),
    ("auto", "kvm", "accelerator kvm: "),
    ("tcg", "tcg", None),
])
def test_choose_accel_says_one_line_under_the_commands_name(request_, chosen, said, tmp_path,
                                                            monkeypatch, capsys, named):
    log = tmp_path / "probe.log"
    log.write_text("output\n")
    verdict = accel.Verdict(chosen == "kvm", "QEMU exited (-6) under KVM: Assertion", 1.0,
                            log=str(log))
    monkeypatch.setattr(accel, "resolve", lambda *args, **kwargs: (chosen, verdict))
    setup_steps.speak_as("femu-lab crash")
    image = SimpleNamespace(kernel=tmp_path / "k", initramfs=tmp_path / "i")
    assert setup_steps.choose_accel(request_, tmp_path / "qemu", image) == chosen
    err = capsys.readouterr().err.splitlines()
    if said is None:
        assert err == []
    else:
        assert len(err) == 1 and err[0].startswith(f"femu-lab crash: {said}")
        assert "Assertion" not in err[0] or chosen == "kvm"


@pytest.mark.parametrize("command", ["crash", "bench", "fdp-lab"])
def test_femu_lab_names_its_subcommand_in_the_setup_lines(command, monkeypatch, capsys,
                                                          named):
    runner = commands.BY_NAME[command].load()
    monkeypatch.setattr(runner, "run",
                        lambda args, **kwargs: setup_steps.say("a setup line") or 0)
    assert lab_cli.main([command]) == 0
    assert capsys.readouterr().err.splitlines() == [f"femu-lab {command}: a setup line"]


def test_a_runs_failed_kvm_console_stays_in_its_results_folder(tmp_path):
    """The console of the KVM boot a run left for TCG (named by the fallback line) is moved
    into the results folder with the run's own console, not deleted with the VM folder."""
    from femu_lab.run import vm_run
    from femu_lab.vm import launch
    work = tmp_path / "run"
    vm_dir = work / "vm"
    vm_dir.mkdir(parents=True)
    (vm_dir / "console.log").write_text("tcg boot\n")
    (vm_dir / launch.FAILED_KVM_CONSOLE).write_text("KVM internal error\n")
    result = SimpleNamespace(command=["qemu"], out_dir=vm_dir,
                             console_log=vm_dir / "console.log")
    vm_run._collect(result, work, tmp_path / "final")
    assert (work / launch.FAILED_KVM_CONSOLE).read_text() == "KVM internal error\n"
    assert (work / "console.log").read_text() == "tcg boot\n" and not vm_dir.exists()


def test_a_failed_run_under_kvm_is_remembered_with_a_log(tmp_path, guest_files):
    console = tmp_path / "console-kvm-failed.log"
    accel.record_failure("qemu", *guest_files, "q35", "KVM internal error",
                         folder=tmp_path / "cache", console=console)
    verdict = accel.kvm_verdict("qemu", *guest_files, folder=tmp_path / "cache",
                                device_problem=lambda: None)
    assert verdict.cached and not verdict.kvm
    assert str(console) in open(verdict.log).read()
    assert verdict.fallback_line().endswith(f"the probe's log: {verdict.log})")
