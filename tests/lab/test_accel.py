"""The accelerator choice (femu_lab.vm.accel): the probe boot against a stand-in QEMU in each
way a broken KVM shows itself, the cached verdict, FEMU_ACCEL and --accel on every entry
point. Nothing here needs KVM or a guest: the probe's guest kernel is a dummy file."""
import argparse

import pytest

import kvm_standin
from femu_lab import cli as lab_cli, setup_steps
from femu_lab.bench import runner as bench
from femu_lab.run import blackbox
from femu_lab.vm import accel, cli as vm_cli

pytestmark = pytest.mark.unit


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv(accel.ENV_VAR, raising=False)


# ---- the probe boot ------------------------------------------------------------------

def test_probe_sees_a_kvm_internal_error_at_once(tmp_path, guest_files):
    qemu = kvm_standin.write(tmp_path / "qemu", "error")
    verdict = accel.boot_probe(str(qemu), *guest_files, deadline=120)
    assert not verdict.kvm
    assert "KVM internal error" in verdict.reason
    assert kvm_standin.calls(qemu) == ["yes"]


def test_probe_gives_up_on_a_silent_guest_at_its_deadline(tmp_path, guest_files):
    qemu = kvm_standin.write(tmp_path / "qemu", "silent")
    verdict = accel.boot_probe(str(qemu), *guest_files, deadline=1)
    assert not verdict.kvm
    assert verdict.reason == ("the probe guest printed no sign of life under KVM within 1 s")


def test_probe_accepts_the_guest_marker(tmp_path, guest_files):
    qemu = kvm_standin.write(tmp_path / "qemu", "marker")
    verdict = accel.boot_probe(str(qemu), *guest_files, deadline=120)
    assert verdict.kvm and verdict.reason.startswith("a guest ran under KVM")


def test_probe_names_qemus_last_line_when_it_exits(tmp_path, guest_files):
    qemu = kvm_standin.write(tmp_path / "qemu", "bios")
    verdict = accel.boot_probe(str(qemu), *guest_files, deadline=120)
    assert not verdict.kvm
    assert verdict.reason.startswith("QEMU exited (1) under KVM before the guest reached "
                                     "user space: ")
    assert "could not load PC BIOS" in verdict.reason


def test_probe_of_a_missing_qemu_is_a_verdict_not_a_crash(tmp_path, guest_files):
    verdict = accel.boot_probe(str(tmp_path / "no-qemu"), *guest_files)
    assert not verdict.kvm and verdict.reason.startswith("cannot start ")


def test_probe_command_boots_the_guest_kernel_with_the_probe_flag(guest_files):
    cmd = accel.probe_command("qemu", *guest_files, "q35", [accel.Path("/fw")])
    assert cmd[:3] == ["qemu", "-L", "/fw"]
    assert "femu.probe=1" in cmd[cmd.index("-append") + 1]
    assert cmd[cmd.index("-machine") + 1] == "q35,accel=kvm"
    assert cmd[cmd.index("-kernel") + 1] == str(guest_files[0])


def test_the_marker_is_the_one_the_guest_init_prints(repo_root):
    init = (repo_root / "scripts/guest/init").read_text()
    prefix = b"femu-guest: "
    assert accel.PROBE_MARKER.startswith(prefix)
    assert f'say "{accel.PROBE_MARKER[len(prefix):].decode()}"' in init
    assert "femu.probe=1" in init


# ---- the cached verdict --------------------------------------------------------------

class CountingProbe:
    def __init__(self, kvm=False):
        self.calls, self.kvm = 0, kvm

    def __call__(self, qemu, kernel, initramfs, machine, firmware_dirs, log=None):
        self.calls += 1
        return accel.Verdict(self.kvm, f"probe {self.calls}", 1.5)


def _verdict(tmp_path, guest_files, probe, **kwargs):
    return accel.kvm_verdict("qemu-standin", *guest_files, folder=tmp_path / "cache",
                             probe=probe, device_problem=lambda: None, **kwargs)


def test_one_probe_per_qemu_guest_and_host_boot(tmp_path, guest_files, monkeypatch):
    boot_id = tmp_path / "boot_id"
    boot_id.write_text("boot-1\n")
    monkeypatch.setattr(accel, "BOOT_ID", boot_id)
    probe = CountingProbe()
    first = _verdict(tmp_path, guest_files, probe)
    again = _verdict(tmp_path, guest_files, probe)
    assert (first.cached, again.cached, probe.calls) == (False, True, 1)
    assert again.reason == "probe 1" and not again.kvm
    assert "cached verdict" in again.describe() and "probe took 1.5 s" in first.describe()

    guest_files[0].write_bytes(b"another kernel")          # a rebuilt guest kernel
    assert _verdict(tmp_path, guest_files, probe).reason == "probe 2"
    boot_id.write_text("boot-2\n")                          # the host rebooted
    assert _verdict(tmp_path, guest_files, probe).reason == "probe 3"
    assert _verdict(tmp_path, guest_files, probe, machine="pc").reason == "probe 4"
    assert _verdict(tmp_path, guest_files, probe).reason == "probe 3"


def test_a_damaged_cache_entry_is_probed_again(tmp_path, guest_files):
    probe = CountingProbe()
    _verdict(tmp_path, guest_files, probe)
    for entry in (tmp_path / "cache").glob("*.json"):
        entry.write_text("{not json")
    assert _verdict(tmp_path, guest_files, probe).reason == "probe 2"


def test_no_usable_kvm_device_needs_no_probe(tmp_path, guest_files):
    probe = CountingProbe(kvm=True)
    verdict = accel.kvm_verdict("qemu", *guest_files, folder=tmp_path, probe=probe,
                                device_problem=lambda: "/dev/kvm: No such file or directory")
    assert (verdict.kvm, verdict.reason, probe.calls) == (
        False, "/dev/kvm: No such file or directory", 0)


def test_a_run_that_failed_under_kvm_turns_the_cached_verdict(tmp_path, guest_files):
    probe = CountingProbe(kvm=True)
    assert _verdict(tmp_path, guest_files, probe).kvm
    accel.record_failure("qemu-standin", *guest_files, "q35", "KVM internal error",
                         folder=tmp_path / "cache")
    verdict = _verdict(tmp_path, guest_files, probe)
    assert not verdict.kvm and verdict.cached and probe.calls == 1
    assert verdict.reason == "a run's guest failed under KVM: KVM internal error"


def test_resolve(monkeypatch, guest_files):
    calls = []

    def fake_verdict(qemu, kernel, initramfs, machine, firmware_dirs):
        calls.append(qemu)
        return accel.Verdict(False, "the probe guest failed under KVM: KVM internal error", 2.0)

    monkeypatch.setattr(accel, "kvm_verdict", fake_verdict)
    assert accel.resolve("tcg", "q", kernel=guest_files[0], initramfs=guest_files[1])[0] == "tcg"
    assert calls == []                                   # TCG asked for: no probe
    assert accel.resolve("auto", "q", kernel=guest_files[0], initramfs=guest_files[1])[0] == "tcg"
    with pytest.raises(accel.AccelError) as error:
        accel.resolve("kvm", "q", kernel=guest_files[0], initramfs=guest_files[1])
    assert str(error.value) == ("--accel kvm: KVM cannot run a guest here: the probe guest "
                                "failed under KVM: KVM internal error (use --accel tcg or auto)")
    with pytest.raises(accel.AccelError):
        accel.resolve("hvf")


def test_kvm_failure_lines():
    assert accel.kvm_failure_in(b"booting\nKVM internal error. Suberror: 1\n") == \
        "KVM internal error. Suberror: 1"
    assert accel.kvm_failure_in(b"error: kvm run failed Bad address\n") == \
        "error: kvm run failed Bad address"
    assert accel.kvm_failure_in(b"femu-guest: job start\n") is None


# ---- FEMU_ACCEL and --accel ----------------------------------------------------------

def test_requested_prefers_the_option_then_the_environment(monkeypatch, no_env):
    assert accel.requested() == "auto"
    monkeypatch.setenv(accel.ENV_VAR, "tcg")
    assert accel.requested() == "tcg" and accel.requested("kvm") == "kvm"
    monkeypatch.setenv(accel.ENV_VAR, "foo")
    with pytest.raises(accel.AccelError, match=r"^FEMU_ACCEL=foo: not an accelerator"):
        accel.requested()


def _parse(monkeypatch, env, *argv):
    if env is None:
        monkeypatch.delenv(accel.ENV_VAR, raising=False)
    else:
        monkeypatch.setenv(accel.ENV_VAR, env)
    parser = argparse.ArgumentParser()
    accel.add_argument(parser)
    return parser.parse_args(list(argv)).accel


def test_the_option_defaults_to_the_environment(monkeypatch, capsys):
    assert _parse(monkeypatch, None) == "auto"
    assert _parse(monkeypatch, "tcg") == "tcg"
    assert _parse(monkeypatch, "tcg", "--accel", "kvm") == "kvm"
    assert _parse(monkeypatch, "foo", "--accel", "tcg") == "tcg"   # the option wins
    with pytest.raises(SystemExit) as exit_:
        _parse(monkeypatch, "foo")
    assert exit_.value.code == 2
    assert "FEMU_ACCEL=foo: not an accelerator (auto, kvm or tcg)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        _parse(monkeypatch, None, "--accel", "hvf")
    assert "--accel hvf: not an accelerator" in capsys.readouterr().err


ENTRY_POINTS = {
    "run-blackbox": lambda: blackbox.main([]),
    "femu-lab run": lambda: lab_cli.main(["run"]),
    "femu-lab sweep": lambda: lab_cli.main(["sweep", "--workload", "randwrite",
                                            "--set", "gc_policy=greedy,fifo"]),
    "femu-lab bench": lambda: lab_cli.main(["bench"]),
    "femu-vm run": lambda: vm_cli.main(["run", "--job", "job.sh", "--out", "out"]),
    "femu-lab soak": lambda: lab_cli.main(["soak"]),
}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_a_bad_femu_accel_is_one_line_and_exit_2(entry, monkeypatch, capsys):
    monkeypatch.setenv(accel.ENV_VAR, "foo")
    with pytest.raises(SystemExit) if entry == "femu-vm run" else _no_raise():
        status = ENTRY_POINTS[entry]()
        assert status == 2
    err = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert len(err) == 1 and "FEMU_ACCEL=foo: not an accelerator" in err[0]


class _no_raise:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_explicit_kvm_without_kvm_stops_before_anything_is_built(monkeypatch, capsys):
    monkeypatch.setattr(accel, "kvm_device_problem",
                        lambda device="/dev/kvm": "/dev/kvm: No such file or directory")

    def must_not_build(*args, **kwargs):
        raise AssertionError("built something before refusing --accel kvm")

    for step in ("ensure_ftl_sim", "ensure_qemu", "ensure_guest"):
        monkeypatch.setattr(setup_steps, step, must_not_build)
    status = blackbox.main(["--accel", "kvm"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2
    assert err == ["run-blackbox.sh: error: --accel kvm: KVM cannot run a guest here: "
                   "/dev/kvm: No such file or directory (use --accel tcg or auto)"]


def test_bench_takes_the_guest_options():
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--accel", "tcg", "--guest-release", "bookworm"])
    assert (args.accel, args.guest_release) == ("tcg", "bookworm")


def test_a_tcg_boot_gets_the_kernel_arguments_its_image_needs(tmp_path):
    """trixie's kernel needs tsc=unstable under TCG (femu_guest.image.TCG_APPEND): the
    harness reads it from the manifest beside the kernel; KVM boots go without it."""
    from femu_lab.vm import launch as vm
    kernel, initramfs = tmp_path / "vmlinux", tmp_path / "initramfs.cpio"
    (tmp_path / "manifest.json").write_text('{"tcg_append": "tsc=unstable"}')
    spec = vm.VmSpec(job="true", kernel_append="femu.wait_nvme=5")

    def append(accelerator, kernel=kernel):
        cmd = vm.build_command(spec, kernel, initramfs, accelerator, tmp_path / "r", None)
        return cmd[cmd.index("-append") + 1]

    assert append("tcg") == f"{vm.DEFAULT_APPEND} tsc=unstable femu.wait_nvme=5"
    assert append("kvm") == f"{vm.DEFAULT_APPEND} femu.wait_nvme=5"
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert append("tcg", other / "vmlinux") == f"{vm.DEFAULT_APPEND} femu.wait_nvme=5"
