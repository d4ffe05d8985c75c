"""Harness pieces that need no guest: QEMU's launch wrapper (dies with the harness,
refuses to start for a harness already gone) and the result folder of a reused --out."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from femu_lab.vm import launch as vm

EVENT_DEADLINE = 60   # an upper bound on waiting for a process to go, not a measurement


def _gone(pid: int) -> bool:
    """True once pid has exited (a zombie nobody reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _wait_gone(pid: int) -> bool:
    deadline = time.monotonic() + EVENT_DEADLINE
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.1)
    return False


# Runs in a child Python given the folder this femu_lab comes from as PYTHONPATH, so that it
# imports the same femu_lab as the test.
HARNESS = """
import subprocess, time
from femu_lab.vm import launch as vm
proc = subprocess.Popen(vm.guarded(["sleep", "600"]), stdin=subprocess.DEVNULL,
                        start_new_session=True)
print(proc.pid, flush=True)
time.sleep(600)
"""


def test_launched_command_dies_with_the_harness():
    # the folder holding the femu_lab package: one level up per dot of the module's name
    scripts = Path(vm.__file__).resolve().parents[vm.__name__.count(".")]
    path = os.pathsep.join(filter(None, [str(scripts), os.environ.get("PYTHONPATH")]))
    harness = subprocess.Popen([sys.executable, "-c", HARNESS], stdout=subprocess.PIPE,
                               text=True, env=dict(os.environ, PYTHONPATH=path))
    child = None
    try:
        child = int(harness.stdout.readline())
        # Wait until the guard has exec'd sleep: the parent-death signal is set by then.
        deadline = time.monotonic() + EVENT_DEADLINE
        while time.monotonic() < deadline:
            with open(f"/proc/{child}/cmdline", "rb") as f:
                if f.read().split(b"\0")[0] == b"sleep":
                    break
            time.sleep(0.05)
        harness.kill()
        harness.wait()
        assert _wait_gone(child), "the launched command outlived the harness"
    finally:
        if harness.poll() is None:
            harness.kill()
            harness.wait()
        harness.stdout.close()
        if child is not None and not _gone(child):
            os.kill(child, signal.SIGKILL)


def test_guard_refuses_to_start_for_a_parent_that_is_gone(tmp_path):
    marker = tmp_path / "ran"
    # Not our pid: as if the harness had died before the child started.
    proc = subprocess.run(vm.guarded(["touch", str(marker)], parent_pid=1),
                          capture_output=True, text=True, timeout=EVENT_DEADLINE)
    assert proc.returncode == 125
    assert "harness is gone" in proc.stderr
    assert not marker.exists()


def test_guard_runs_the_command_with_its_arguments(tmp_path):
    marker = tmp_path / "a b, c"
    proc = subprocess.run(vm.guarded(["touch", str(marker)]), capture_output=True,
                          timeout=EVENT_DEADLINE)
    assert proc.returncode == 0, proc.stderr
    assert marker.exists()


def test_reused_out_folder_keeps_no_old_result_files(tmp_path):
    files = tmp_path / "out" / "files"
    vm.replace_result_files({"old.txt": b"1", "sub/old.bin": b"2"}, files)
    sibling = tmp_path / "out" / "console.log"
    sibling.write_text("kept")
    written = vm.replace_result_files({"new.txt": b"3"}, files)
    assert sorted(str(p.relative_to(files)) for p in files.rglob("*")) == ["new.txt"]
    assert written == {"new.txt": files / "new.txt"}
    assert sibling.read_text() == "kept"   # only files/ is cleared


def _console_script(lines: str) -> list:
    """A stand-in for QEMU: prints lines on its console, then sleeps."""
    return [sys.executable, "-c", f"import sys, time; sys.stdout.write({lines!r}); "
            "sys.stdout.flush(); time.sleep(600)"]


def test_a_boot_that_never_starts_its_job_is_stopped_as_hung(tmp_path, monkeypatch):
    monkeypatch.setattr(vm, "BOOT_DEADLINE_SECONDS", 1)
    cmd = _console_script("[ 22.6] rcu: INFO: rcu_preempt detected stalls\n")
    boot = vm._boot(cmd, tmp_path / "console.log", vm.VmSpec(job="true"), EVENT_DEADLINE,
                    True, False, lambda _: None)
    assert boot.hung and not boot.host_timed_out and boot.proc.returncode is not None
    assert boot.kvm_failure is None
    assert "rcu_preempt" in (tmp_path / "console.log").read_text()


def test_a_boot_that_started_its_job_is_never_stopped_as_hung(tmp_path, monkeypatch):
    monkeypatch.setattr(vm, "BOOT_DEADLINE_SECONDS", 1)
    cmd = _console_script(vm.JOB_START_MARKER.decode() + "\n")
    boot = vm._boot(cmd, tmp_path / "console.log", vm.VmSpec(job="true"), 3, True, False,
                    lambda _: None)
    assert boot.reader.job_started_at is not None
    assert boot.host_timed_out and not boot.hung      # it ran to the host timeout instead


def test_a_guest_kernel_crash_before_the_job_is_a_failed_boot(tmp_path):
    """A TCG guest that Oopses and panics while it boots (CI saw an int3 Oops in
    run_timer_softirq, then 'Kernel panic - not syncing') exits before its job: booted
    again, as a hung boot is. A crash once the job runs is the job's, and the last boot is
    not watched."""
    crash = ("[    0.944870] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n"
             "[    0.948159] Kernel panic - not syncing: Fatal exception in interrupt\n")
    exits = [sys.executable, "-c", f"import sys; sys.stdout.write({crash!r})"]
    boot = vm._boot(exits, tmp_path / "c.log", vm.VmSpec(job="true"), EVENT_DEADLINE, True,
                    False, lambda _: None)
    assert boot.crashed == "[    0.944870] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI"
    assert not boot.hung and not boot.host_timed_out
    started = [sys.executable, "-c", "import sys; sys.stdout.write("
               f"{vm.JOB_START_MARKER.decode() + chr(10) + crash!r})"]
    assert vm._boot(started, tmp_path / "d.log", vm.VmSpec(job="true"), EVENT_DEADLINE,
                    True, False, lambda _: None).crashed is None
    assert vm._boot(exits, tmp_path / "e.log", vm.VmSpec(job="true"), EVENT_DEADLINE,
                    False, False, lambda _: None).crashed is None


def test_the_last_boot_is_not_watched(tmp_path, monkeypatch):
    monkeypatch.setattr(vm, "BOOT_DEADLINE_SECONDS", 1)
    boot = vm._boot(_console_script("booting\n"), tmp_path / "c.log", vm.VmSpec(job="true"),
                    3, False, False, lambda _: None)
    assert boot.host_timed_out and not boot.hung


def test_a_kvm_boot_reporting_a_kvm_failure_is_stopped_at_once(tmp_path):
    cmd = _console_script("KVM internal error. Suberror: 1\nemulation failure\n")
    boot = vm._boot(cmd, tmp_path / "c.log", vm.VmSpec(job="true"), EVENT_DEADLINE, True,
                    True, lambda _: None)
    assert boot.kvm_failure == "KVM internal error. Suberror: 1"
    assert not boot.host_timed_out and not boot.hung and boot.proc.returncode is not None


def test_a_silent_kvm_boot_is_stopped_at_the_kvm_deadline(tmp_path, monkeypatch):
    monkeypatch.setattr(vm, "KVM_JOB_START_SECONDS", 1)
    boot = vm._boot(_console_script(""), tmp_path / "c.log", vm.VmSpec(job="true"),
                    EVENT_DEADLINE, True, True, lambda _: None)
    assert boot.kvm_failure == "the guest had not started its job 1 s into a KVM boot"
    assert not boot.host_timed_out


def test_the_same_console_under_tcg_is_no_kvm_failure(tmp_path, monkeypatch):
    monkeypatch.setattr(vm, "KVM_JOB_START_SECONDS", 1)
    boot = vm._boot(_console_script("KVM internal error. Suberror: 1\n"), tmp_path / "c.log",
                    vm.VmSpec(job="true"), 3, False, False, lambda _: None)
    assert boot.kvm_failure is None and boot.host_timed_out
