"""A guest kernel that crashes before its job starts is booted once more: with a stand-in
QEMU whose first boot prints a guest Oops and panic and exits (as CI saw a TCG guest do,
an int3 Oops in run_timer_softirq), the run boots the real QEMU again, keeps the first
console, and its job runs. The same for QEMU's TCG aborting on its iotlb_to_section
assertion before the job (exit by SIGABRT, as a CI run saw once)."""
import shutil
import stat

import pytest

from femu_guest import image as guest_image
from femu_lab.vm import launch as vm

pytestmark = pytest.mark.vm
JOB = "echo ran > \"$FEMU_OUT/where.txt\"\n"
CRASH = ("[    0.944870] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI\n"
         "[    0.948159] Kernel panic - not syncing: Fatal exception in interrupt\n")
QEMU_ABORT = ("qemu-system-x86_64: ../qemu-src-10.0.13+ds/system/physmem.c:2671: "
              "iotlb_to_section: Assertion `section_index < d->map.sections_nb' failed.\n")


def crash_once(path, real_qemu, text=CRASH, exit_code="0"):
    """A stand-in QEMU: the first call prints text and exits (exit_code: a number, or
    'abort' to die by SIGABRT), later ones exec real_qemu."""
    said = path.with_name(path.name + ".console")
    said.write_text(text)
    leave = "kill -ABRT $$" if exit_code == "abort" else f"exit {exit_code}"
    path.write_text(f"""#!/bin/sh
if [ ! -e "{path}.booted" ]; then
    touch "{path}.booted"
    cat "{said}"
    {leave}
fi
exec "{real_qemu}" "$@"
""")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.parametrize("said,leave,mark", [
    (CRASH, "0", "Kernel panic - not syncing"),
    (QEMU_ABORT, "abort", "iotlb_to_section: Assertion"),
], ids=["guest-kernel-crash", "qemu-tcg-abort"])
def test_a_boot_that_crashed_before_its_job_is_booted_again(tmp_path, said, leave, mark):
    image = guest_image.ensure_image(quiet=True)
    qemu = crash_once(tmp_path / "qemu", shutil.which("qemu-system-x86_64"), said, leave)
    spec = vm.VmSpec(job=JOB, qemu=str(qemu), kernel=image.kernel, initramfs=image.initramfs,
                     job_timeout=120, accel="tcg")
    result = vm.run(spec, tmp_path / "out", quiet=True)
    assert result.ok, result.summary()
    assert result.text("where.txt").strip() == "ran"
    kept = (tmp_path / "out" / "console-crashed-boot-1.log").read_text()
    assert mark in kept
