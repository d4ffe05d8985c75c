"""Which QEMU accelerator a run uses: KVM only when a real guest runs under it, else TCG.

A host can have a /dev/kvm that answers the API and even starts a paused VM, yet cannot
run a guest (nested virtualisation in cloud VMs and sandboxes: the guest kernel dies with
"KVM internal error ... emulation failure", or never prints). So 'auto' boots the
project's own guest kernel under KVM with `femu.probe=1` (its init prints PROBE_MARKER on
the serial port and powers off) and picks KVM only if the marker arrives within
PROBE_SECONDS. The verdict is cached per QEMU binary, guest kernel + initramfs and host
boot (/proc/sys/kernel/random/boot_id), so a host pays for one probe per boot.

The request comes from --accel, else the FEMU_ACCEL environment variable, else 'auto'.
Where 'auto' ends on TCG the commands say one calm line (fallback_line): on such hosts it is
the expected outcome, and the probe's whole output is kept in a log beside the verdict.
"""
import argparse
import fcntl
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence, Tuple

from femu_common.errors import RunFailure

CHOICES = ("auto", "kvm", "tcg")
ENV_VAR = "FEMU_ACCEL"
PROBE_MARKER = b"femu-guest: accelerator probe: user space reached"
# What QEMU prints when KVM cannot run the guest's instructions (then the VM stops with
# runstate internal-error and QEMU keeps running, so the text is the signal).
KVM_FAILURE_TEXT = (b"KVM internal error", b"kvm run failed", b"KVM: entry failed")
# Under KVM the guest reaches user space in one or two seconds; the same boot under TCG
# takes ~7 s. A broken KVM either fails at once or stays silent, so a short deadline.
PROBE_SECONDS = 20
PROBE_MEMORY_MB = 512        # room for the ~100 MB uncompressed initramfs
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
DOC = "docs/kvm-and-tcg.md"   # where the fallback line sends a reader

_KVM_GET_API_VERSION = 0xAE00
_KVM_CREATE_VM = 0xAE01
_KVM_API_VERSION = 12


class AccelError(RunFailure):
    """A request that cannot be met: an unknown name, or KVM asked for where it cannot
    run a guest. The message is one line; exit status 2, as a bad argument's."""
    exit_status = 2


@dataclass
class Verdict:
    kvm: bool                # a real guest ran under KVM
    reason: str              # one line: why KVM is or is not used
    probe_seconds: float     # what the probe cost when it ran (0 when none was needed)
    cached: bool = False     # read from the cache instead of probing now
    log: str = ""            # the probe's output (or the failed run's reason), if kept

    def describe(self) -> str:
        how = "cached verdict" if self.cached else f"probe took {self.probe_seconds:.1f} s"
        return f"{'kvm' if self.kvm else 'tcg'}: {self.reason} ({how})"

    def fallback_line(self) -> str:
        """What a command says when 'auto' ends on TCG: expected on hosts whose KVM
        cannot run a guest, so calm; the reason is in the log (or here when none)."""
        if self.log and Path(self.log).is_file():
            return (f"KVM cannot run a guest here; using TCG (details: {DOC}, the probe's "
                    f"log: {self.log})")
        return f"KVM cannot run a guest here ({self.reason}); using TCG (details: {DOC})"


# ---- the request -------------------------------------------------------------------

def check_choice(value: str, source: str = "--accel") -> str:
    if value not in CHOICES:
        spelled = f"{source}{value}" if source.endswith("=") else f"{source} {value}"
        raise AccelError(f"{spelled}: not an accelerator (auto, kvm or tcg)")
    return value


def requested(value: Optional[str] = None) -> str:
    """The accelerator asked for: value (from --accel) if given, else FEMU_ACCEL, else auto."""
    if value is not None:
        return check_choice(value)
    env = os.environ.get(ENV_VAR)
    if env is None or env == "":
        return "auto"
    return check_choice(env, f"{ENV_VAR}=")


def default_from_env() -> str:
    """VmSpec's default: FEMU_ACCEL or auto (an unknown name raises AccelError)."""
    return requested(None)


def _argparse_choice(value: str) -> str:
    try:
        if value.startswith(f"{ENV_VAR}="):   # add_argument's default from a bad FEMU_ACCEL
            return check_choice(value[len(ENV_VAR) + 1:], f"{ENV_VAR}=")
        return check_choice(value)
    except AccelError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_argument(parser: argparse.ArgumentParser) -> None:
    """--accel for a CLI: default FEMU_ACCEL, else auto. A bad value, from either place,
    is argparse's one-line usage error (exit 2)."""
    env = os.environ.get(ENV_VAR) or "auto"
    parser.add_argument(
        "--accel", type=_argparse_choice, metavar="auto|kvm|tcg",
        # argparse runs type() on a string default too, so a bad FEMU_ACCEL is refused here.
        default=env if env in CHOICES else f"{ENV_VAR}={env}",
        help=f"QEMU accelerator (default: ${ENV_VAR}, else auto = KVM only when a probe "
             "boot shows a real guest runs under it, else TCG)")


# ---- the probe ---------------------------------------------------------------------

def kvm_device_problem(device: str = "/dev/kvm") -> Optional[str]:
    """None when the kernel answers the KVM API and creates a VM, else why not."""
    try:
        fd = os.open(device, os.O_RDWR | os.O_CLOEXEC)
    except OSError as error:
        return f"{device}: {error.strerror}"
    try:
        version = fcntl.ioctl(fd, _KVM_GET_API_VERSION, 0)
        if version != _KVM_API_VERSION:
            return f"{device}: KVM API version {version}, not {_KVM_API_VERSION}"
        os.close(fcntl.ioctl(fd, _KVM_CREATE_VM, 0))
        return None
    except OSError as error:
        return f"{device}: cannot create a VM ({error.strerror})"
    finally:
        os.close(fd)


def kvm_failure_in(text: bytes) -> Optional[str]:
    """The line of QEMU's output that says KVM failed, if any."""
    for line in text.splitlines():
        if any(sign in line for sign in KVM_FAILURE_TEXT):
            return line.decode(errors="replace").strip()[:160]
    return None


def probe_command(qemu: str, kernel: Path, initramfs: Path, machine: str,
                  firmware_dirs: Sequence[Path] = ()) -> list:
    firmware = [arg for folder in firmware_dirs for arg in ("-L", str(folder))]
    return [qemu, *firmware, "-nodefaults", "-no-user-config", "-display", "none",
            "-machine", f"{machine},accel=kvm", "-cpu", "host",
            "-m", str(PROBE_MEMORY_MB), "-smp", "1", "-no-reboot",
            "-kernel", str(kernel), "-initrd", str(initramfs),
            "-append", "console=ttyS0 panic=-1 quiet femu.probe=1",
            "-chardev", "stdio,id=console,signal=off", "-serial", "chardev:console"]


def boot_probe(qemu: str, kernel: Path, initramfs: Path, machine: str = "q35",
               firmware_dirs: Sequence[Path] = (), deadline: float = PROBE_SECONDS,
               log: Optional[Path] = None) -> Verdict:
    """Boot the guest kernel under KVM until it prints PROBE_MARKER, KVM fails, QEMU
    exits or deadline seconds pass; QEMU is always reaped. With log, the command, the
    verdict and all QEMU printed go into that file (Verdict.log names it)."""
    command = probe_command(qemu, kernel, initramfs, machine, firmware_dirs)
    verdict, output = _probe(command, deadline)
    if log is not None:
        _write_log(log, verdict, shlex.join(command), output)
        verdict.log = str(log)
    return verdict


def _write_log(path: Path, verdict: Verdict, what: str, output: bytes) -> None:
    text = (f"# the KVM probe: {what}\n# verdict: {'kvm' if verdict.kvm else 'tcg'}: "
            f"{verdict.reason}\n# {DOC} explains the probe and the fallback to TCG\n")
    if output:
        text += "# its output:\n" + output.decode(errors="replace")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _probe(command: list, deadline: float) -> Tuple[Verdict, bytes]:
    qemu = command[0]
    started = time.monotonic()
    try:
        proc = subprocess.Popen(command,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as error:
        return Verdict(False, f"cannot start {qemu}: {error.strerror}", 0.0), b""
    output = bytearray()
    seen = threading.Event()

    def read() -> None:
        for line in iter(proc.stdout.readline, b""):
            output.extend(line)
            if PROBE_MARKER in line or kvm_failure_in(line):
                seen.set()
        seen.set()   # end of output: QEMU exited

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    seen.wait(deadline)
    elapsed = time.monotonic() - started
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    reader.join(timeout=5)
    proc.stdout.close()
    text = bytes(output)
    if PROBE_MARKER in text:
        return Verdict(True, f"a guest ran under KVM (user space in {elapsed:.1f} s)",
                       elapsed), text
    failure = kvm_failure_in(text)
    if failure:
        return Verdict(False, f"the probe guest failed under KVM: {failure}", elapsed), text
    if elapsed >= deadline:
        return Verdict(False, f"the probe guest printed no sign of life under KVM within "
                              f"{deadline:.0f} s", elapsed), text
    lines = [l for l in text.decode(errors="replace").splitlines() if l.strip()]
    last = lines[-1].strip()[:160] if lines else "no output"
    return Verdict(False, f"QEMU exited ({proc.returncode}) under KVM before the guest "
                          f"reached user space: {last}", elapsed), text


# ---- the cached verdict ------------------------------------------------------------

def _file_key(path: Path) -> str:
    try:
        stat = Path(path).resolve().stat()
    except OSError:
        return f"{path}:missing"
    return f"{Path(path).resolve()}:{stat.st_size}:{stat.st_mtime_ns}"


def _host_boot() -> str:
    try:
        return BOOT_ID.read_text().strip()
    except OSError:
        return "unknown-boot"


def cache_key(qemu: str, kernel: Path, initramfs: Path, machine: str,
              firmware_dirs: Sequence[Path] = ()) -> str:
    binary = shutil.which(qemu) or qemu
    text = "\n".join([_file_key(Path(binary)), _file_key(kernel), _file_key(initramfs),
                      machine, *map(str, firmware_dirs), _host_boot()])
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def cache_dir() -> Path:
    from femu_guest.paths import package_cache_dir
    return package_cache_dir() / "accel"


def kvm_verdict(qemu: str, kernel: Path, initramfs: Path, machine: str = "q35",
                firmware_dirs: Sequence[Path] = (), folder: Optional[Path] = None,
                probe: Optional[Callable[..., Verdict]] = None,
                device_problem: Optional[Callable[[], Optional[str]]] = None) -> Verdict:
    """The cached verdict for this QEMU, guest and host boot, probing once if there is
    none. Concurrent callers wait for one probe (a lock file) instead of each probing.
    probe and device_problem default to boot_probe and kvm_device_problem."""
    problem = (device_problem or kvm_device_problem)()
    if problem is not None:
        return Verdict(False, problem, 0.0)
    folder = folder or cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{cache_key(qemu, kernel, initramfs, machine, firmware_dirs)}.json"
    with open(folder / ".probe.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            stored = json.loads(path.read_text())
            return Verdict(bool(stored["kvm"]), str(stored["reason"]),
                           float(stored["probe_seconds"]), cached=True,
                           log=str(stored.get("log", "")))   # older verdicts kept no log
        except (OSError, ValueError, KeyError, TypeError):
            pass   # none yet, or damaged: probe again
        verdict = (probe or boot_probe)(qemu, kernel, initramfs, machine, firmware_dirs,
                                        log=path.with_suffix(".log"))
        _store(path, verdict)
        return verdict


def _store(path: Path, verdict: Verdict) -> None:
    partial = path.with_name(f"{path.stem}.{os.getpid()}.partial")
    partial.write_text(json.dumps(asdict(verdict)) + "\n")
    os.replace(partial, path)   # readers see the old verdict or the new one, never half


def record_failure(qemu: str, kernel: Path, initramfs: Path, machine: str, reason: str,
                   firmware_dirs: Sequence[Path] = (), folder: Optional[Path] = None,
                   console: Optional[Path] = None) -> None:
    """A run's guest failed under KVM although the probe's did not: later runs on this
    host boot use TCG at once. The verdict's log names the reason and the run's console."""
    folder = folder or cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{cache_key(qemu, kernel, initramfs, machine, firmware_dirs)}.json"
    verdict = Verdict(False, f"a run's guest failed under KVM: {reason}", 0.0,
                      log=str(path.with_suffix(".log")))
    _write_log(Path(verdict.log), verdict, "a run's boot under KVM (the probe's passed)",
               f"the run's console: {console}\n".encode() if console else b"")
    _store(path, verdict)


def _guest_kernel(kernel: Optional[Path], initramfs: Optional[Path],
                  guest_release: Optional[str]):
    if kernel is not None and initramfs is not None:
        return kernel, initramfs
    from femu_guest.image import ensure_image
    image = ensure_image(quiet=True, release=guest_release)
    return kernel or image.kernel, initramfs or image.initramfs


def preflight(request: str) -> None:
    """Before anything is built: an explicit 'kvm' on a host whose kernel offers no usable
    KVM at all raises AccelError (the boot probe comes later, once there is a guest)."""
    if check_choice(request) == "kvm":
        problem = kvm_device_problem()
        if problem is not None:
            raise AccelError(f"--accel kvm: KVM cannot run a guest here: {problem} "
                             f"(use --accel tcg or auto)")


def resolve(request: str, qemu: str = "qemu-system-x86_64", machine: str = "q35",
            kernel: Optional[Path] = None, initramfs: Optional[Path] = None,
            guest_release: Optional[str] = None,
            firmware_dirs: Sequence[Path] = ()) -> Tuple[str, Verdict]:
    """('kvm' or 'tcg', the verdict behind it) for a request of auto, kvm or tcg.
    An explicit 'kvm' where no guest runs under KVM raises AccelError naming the reason."""
    check_choice(request)
    if request == "tcg":
        return "tcg", Verdict(False, "TCG asked for", 0.0)
    verdict = kvm_verdict(qemu, *_guest_kernel(kernel, initramfs, guest_release),
                          machine=machine, firmware_dirs=firmware_dirs)
    if verdict.kvm:
        return "kvm", verdict
    if request == "kvm":
        raise AccelError(f"--accel kvm: KVM cannot run a guest here: {verdict.reason} "
                         f"(use --accel tcg or auto)")
    return "tcg", verdict


def choose(request: str = "auto", qemu: str = "qemu-system-x86_64", machine: str = "q35",
           kernel: Optional[Path] = None, initramfs: Optional[Path] = None,
           guest_release: Optional[str] = None, firmware_dirs: Sequence[Path] = ()) -> str:
    """'kvm' or 'tcg' for a request of 'auto', 'kvm' or 'tcg'."""
    return resolve(request, qemu, machine, kernel, initramfs, guest_release, firmware_dirs)[0]
