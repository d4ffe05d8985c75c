"""A stand-in QEMU for hosts whose /dev/kvm cannot run a guest: under KVM it does what
such hosts do, otherwise it runs the real QEMU. So the KVM fallback is tested on any
host, with or without KVM.

Modes under KVM:
  error   prints QEMU's KVM internal-error report and stalls (the VM is stopped, QEMU
          keeps running), as a nested host does on the guest kernel's first unsupported
          instruction;
  silent  prints nothing and stalls;
  marker  prints the probe's marker and exits (a KVM that works, for the probe tests);
  bios    fails the way QEMU does without its firmware folder;
  abort   aborts in KVM's code (an MSR write nested hosts refuse), as on this project's
          machines.
"""
import shlex
from pathlib import Path

from femu_lab.vm import accel

MODES = {
    "error": 'printf "%s\\n" "KVM internal error. Suberror: 1" "emulation failure" >&2\n'
             "exec sleep 600\n",
    "silent": "exec sleep 600\n",
    "marker": f'printf "%s\\n" "{accel.PROBE_MARKER.decode()}"\nexit 0\n',
    "bios": "echo \"qemu-system-x86_64: could not load PC BIOS 'bios-256k.bin'\" >&2\n"
            "exit 1\n",
    "abort": 'echo "qemu-system-x86_64: kvm.c:3877: kvm_buf_set_msrs: Assertion failed." >&2\n'
             "kill -ABRT $$\n",
}


def write(path: Path, mode: str, real_qemu: str = "false") -> Path:
    """An executable stand-in at path; calls without KVM exec real_qemu with the same
    arguments. Every call appends its accelerator (kvm or other) to path + '.calls'."""
    calls = path.with_name(path.name + ".calls")
    path.write_text(
        "#!/bin/sh\n"
        "kvm=no\n"
        'for arg in "$@"; do\n'
        '    case "$arg" in kvm|*accel=kvm*) kvm=yes ;; esac\n'
        "done\n"
        f'echo "$kvm" >>{shlex.quote(str(calls))}\n'
        'if [ "$kvm" = yes ]; then\n'
        + "".join("    " + line + "\n" for line in MODES[mode].splitlines()) +
        "fi\n"
        f'exec {shlex.quote(real_qemu)} "$@"\n')
    path.chmod(0o755)
    return path


def calls(path: Path) -> list:
    """The accelerators the stand-in was started with, in order ('yes' = KVM)."""
    log = path.with_name(path.name + ".calls")
    return log.read_text().split() if log.exists() else []
