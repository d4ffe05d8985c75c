"""Which QEMU accelerator works here: KVM when it really works, else TCG.

/dev/kvm can exist without working (nested setups, sandboxes). Two checks:
the kernel must answer the KVM API version and create a VM, and then QEMU
itself must get a paused KVM machine with `-cpu host` up and down again (on
some hosts that fails only when QEMU loads the vCPU's MSRs).
"""
import fcntl
import os
import subprocess
from functools import lru_cache

_KVM_GET_API_VERSION = 0xAE00
_KVM_CREATE_VM = 0xAE01
_KVM_API_VERSION = 12
_PROBE_TIMEOUT = 20


def kvm_device_works(device: str = "/dev/kvm") -> bool:
    try:
        fd = os.open(device, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if fcntl.ioctl(fd, _KVM_GET_API_VERSION, 0) != _KVM_API_VERSION:
            return False
        os.close(fcntl.ioctl(fd, _KVM_CREATE_VM, 0))
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


@lru_cache(maxsize=None)
def kvm_works(qemu: str = "qemu-system-x86_64", machine: str = "q35") -> bool:
    if not kvm_device_works():
        return False
    args = [qemu, "-accel", "kvm", "-cpu", "host", "-machine", machine, "-nodefaults",
            "-no-user-config", "-display", "none", "-S", "-monitor", "stdio"]
    try:
        proc = subprocess.run(args, input="quit\n", capture_output=True, text=True,
                              timeout=_PROBE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):  # run() kills and reaps on timeout
        return False
    return proc.returncode == 0


def choose(requested: str = "auto", qemu: str = "qemu-system-x86_64", machine: str = "q35") -> str:
    """'kvm' or 'tcg' for a request of 'auto', 'kvm' or 'tcg'."""
    if requested not in ("auto", "kvm", "tcg"):
        raise ValueError(f"unknown accelerator {requested!r} (auto, kvm or tcg)")
    if requested == "auto":
        return "kvm" if kvm_works(qemu, machine) else "tcg"
    return requested
