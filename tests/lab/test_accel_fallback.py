"""A run never waits on a dead KVM guest: with a stand-in QEMU that fails under KVM the way
broken nested hosts do (kvm_standin), a run whose probe said "KVM works" is stopped and
booted once more under TCG (the real QEMU), and says so; an explicit --accel kvm fails in
one line instead. Runs on any host: KVM itself is never used."""
import json
import shutil

import pytest

import kvm_standin
from lab_calls import SMALL_VM
from femu_guest import image as guest_image
from femu_lab.run import blackbox
from femu_lab.vm import accel, launch as vm

pytestmark = pytest.mark.vm
JOB = "echo ran-under-tcg > \"$FEMU_OUT/where.txt\"\n"


@pytest.fixture(scope="module")
def image():
    return guest_image.ensure_image(quiet=True)


@pytest.fixture
def probe_says_kvm_works(monkeypatch, tmp_path):
    """The cached verdict claims KVM works (so the run boots under KVM), kept in a test
    folder; record_failure writes there too."""
    cache = tmp_path / "accel-cache"
    monkeypatch.setattr(accel, "cache_dir", lambda: cache)
    monkeypatch.setattr(accel, "kvm_device_problem", lambda device="/dev/kvm": None)
    monkeypatch.setattr(accel, "boot_probe",
                        lambda *args, **kwargs: accel.Verdict(True, "stand-in: works", 0.1))
    return cache


def _spec(image, qemu, **fields):
    return vm.VmSpec(job=JOB, qemu=str(qemu), kernel=image.kernel, initramfs=image.initramfs,
                     job_timeout=120, **fields)


@pytest.mark.parametrize("mode, reason", [
    ("error", "KVM internal error. Suberror: 1"),
    ("silent", "the guest had not started its job 3 s into a KVM boot"),
    ("abort", "QEMU exited (-6) under KVM before the job started: qemu-system-x86_64: "
              "kvm.c:3877: kvm_buf_set_msrs: Assertion failed."),
])
def test_auto_falls_back_to_tcg_once(mode, reason, image, tmp_path, probe_says_kvm_works,
                                     monkeypatch):
    monkeypatch.setattr(vm, "KVM_JOB_START_SECONDS", 3)
    qemu = kvm_standin.write(tmp_path / "qemu", mode, shutil.which("qemu-system-x86_64"))
    result = vm.run(_spec(image, qemu, accel="auto"), tmp_path / "out", quiet=True)
    assert result.ok, result.summary()
    assert result.text("where.txt").strip() == "ran-under-tcg"
    assert (result.accel, result.accel_fallback) == ("tcg", reason)
    assert kvm_standin.calls(qemu) == ["yes", "no"]          # one KVM boot, one TCG boot
    assert (tmp_path / "out" / "console-kvm-failed.log").exists()
    # The failure is remembered: the next run on this host boot goes to TCG at once.
    stored = [json.loads(p.read_text()) for p in probe_says_kvm_works.glob("*.json")]
    assert [s["kvm"] for s in stored] == [False]
    again = vm.run(_spec(image, qemu, accel="auto"), tmp_path / "again", quiet=True)
    assert again.ok and again.accel == "tcg" and again.accel_fallback is None
    assert kvm_standin.calls(qemu) == ["yes", "no", "no"]


def test_explicit_kvm_does_not_fall_back(image, tmp_path, probe_says_kvm_works):
    qemu = kvm_standin.write(tmp_path / "qemu", "error", shutil.which("qemu-system-x86_64"))
    with pytest.raises(vm.VmError) as error:
        vm.run(_spec(image, qemu, accel="kvm"), tmp_path / "out", quiet=True)
    assert str(error.value).startswith("the guest failed under KVM: KVM internal error. "
                                       "Suberror: 1 (--accel kvm does not fall back to TCG")
    assert kvm_standin.calls(qemu) == ["yes"]


def test_a_lab_run_records_the_fallback(image, tmp_path, probe_says_kvm_works, monkeypatch,
                                        capsys):
    """run-blackbox's lab mode on the stand-in (wrapping the femu QEMU): one line says KVM
    was left for TCG; params.json and result.json name the accelerator and why."""
    from femu_lab import setup_steps
    femu_qemu = setup_steps.ensure_qemu()
    qemu = kvm_standin.write(tmp_path / "qemu", "error", str(femu_qemu))
    out = tmp_path / "run"
    status = blackbox.main(["--qemu", str(qemu), "--runtime", "3", "--out", str(out),
                            *SMALL_VM])
    err = capsys.readouterr().err
    assert status == 0, err
    lines = [l for l in err.splitlines() if "booted again under TCG" in l]
    assert lines == ["run-blackbox: KVM cannot run a guest here; this run was booted again "
                     "under TCG (details: docs/kvm-and-tcg.md, the KVM boot's console: "
                     "console-kvm-failed.log in the results folder)"]
    assert (out / "console-kvm-failed.log").is_file()
    params = json.loads((out / "params.json").read_text())
    result = json.loads((out / "result.json").read_text())
    for record in (params, result):
        assert record["accel"] == "tcg"
        assert record["accel_fallback"] == "KVM internal error. Suberror: 1"
    assert params["accel_requested"] == "auto"
