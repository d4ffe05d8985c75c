"""Launch a femu guest under QEMU, hand it a job, bring the results home.

    spec = VmSpec(job=Path("job.sh"), device_args=stock_nvme_args(Path("disk.img")))
    result = run(spec, Path("out"))
    result.files["fio.json"]       # bytes sent by the guest from $FEMU_OUT
    result.exit_status             # the job's exit status (None if it never ended)

Every launch has a host-side deadline; QEMU is always reaped (terminate, then
kill), and dies with the harness if the harness itself is killed (see guarded()).
"""
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Union

from femu_common.errors import RunFailure
from femu_common.progress import Progress
from femu_guest.image import ensure_image, load_manifest

from . import accel, results

JOB_START_MARKER = b"femu-guest: job start"
DEFAULT_APPEND = "console=ttyS0 panic=-1 quiet mitigations=off"
BOOT_MARGIN_SECONDS = 120      # host deadline = guest job timeout + this
BOOT_DEADLINE_SECONDS = 300    # no job start by then: a hung boot, booted again
BOOT_ATTEMPTS = 2
# Console lines of a guest kernel that crashed (an Oops comes first, a panic may follow),
# and of QEMU 10.0's TCG aborting in its own memory dispatch early in a boot (a vCPU's TLB
# naming a section of a dispatch map that changed under it: seen once in 2,700 tests on a
# loaded 2-core host, 1.8 s into the boot, no femu code on that path). Either way the job
# never started, so booting again loses nothing.
GUEST_CRASH_MARKS = (b"Kernel panic - not syncing", b"] Oops: ",
                     b"iotlb_to_section: Assertion")
# Under KVM the guest starts its job in a few seconds; one that has not within this
# deadline is a KVM that cannot run it (silent guests on some nested hosts).
KVM_JOB_START_SECONDS = 60
PROGRESS_INTERVAL_SECONDS = 5
FAILED_KVM_CONSOLE = "console-kvm-failed.log"   # the first console of a run moved to TCG


# Files for the job travel as fw_cfg items too (a trace to replay): the guest reads one
# at guest_file_path(NAME). fw_cfg names are at most 55 characters.
GUEST_FILES_FW_CFG = "opt/femu/file"
GUEST_FILE_NAME_MAX = 55 - len(GUEST_FILES_FW_CFG) - 1


def guest_file_path(name: str) -> str:
    """Where the guest reads the file spec.guest_files[name] (the kernel's qemu_fw_cfg
    sysfs view)."""
    return f"/sys/firmware/qemu_fw_cfg/by_name/{GUEST_FILES_FW_CFG}/{name}/raw"


class VmError(RunFailure):
    pass


@dataclass
class VmSpec:
    job: Union[Path, str, None]          # Path: a script file; str: script text; None: shell
    qemu: str = "qemu-system-x86_64"
    kernel: Optional[Path] = None        # default: the built guest image
    initramfs: Optional[Path] = None
    memory_mb: int = 1024
    cpus: int = 2
    machine: str = "q35"
    device_args: List[str] = field(default_factory=list)   # e.g. stock_nvme_args(...)
    extra_args: List[str] = field(default_factory=list)
    firmware_dirs: List[Path] = field(default_factory=list)  # QEMU -L folders
    job_timeout: int = 600               # guest-side: kills the job; 0 = none
    timeout: Optional[float] = None      # host-side hard deadline; default job_timeout + margin
    accel: str = field(default_factory=accel.default_from_env)   # auto | kvm | tcg
    guest_release: Optional[str] = None  # femu_guest release of the default image
    kernel_append: str = ""              # added to DEFAULT_APPEND
    echo_console: bool = False           # copy the console to stderr as it arrives
    reboot: bool = False                 # a guest reboot restarts the machine (default:
                                         # QEMU exits, -no-reboot; a panic then ends the run)
    guest_files: Dict[str, Path] = field(default_factory=dict)   # NAME -> a host file
                                         # the job reads at guest_file_path(NAME)


@dataclass
class RunResult:
    out_dir: Path
    console_log: Path
    results_raw: Path
    files: Dict[str, bytes]
    status: Dict[str, str]
    exit_status: Optional[int]           # the job's; None when it never reported one
    timed_out: bool                      # the job hit its guest-side timeout
    host_timed_out: bool                 # the harness had to kill QEMU
    complete: bool                       # the guest sent every result and the end line
    damaged: List[str]
    qemu_returncode: Optional[int]
    accel: str                           # the accelerator the result came from
    wall_seconds: float
    boot_to_job_seconds: Optional[float]  # QEMU start -> job start, host clock
    command: List[str]
    accel_fallback: Optional[str] = None  # why a KVM boot was abandoned for TCG, if one was

    @property
    def refused(self) -> List[str]:
        """Result files the guest would not send (names with blanks, reserved names),
        with blanks shown as '?'."""
        return self.status.get("refused", "").split()

    @property
    def ok(self) -> bool:
        return (self.complete and self.exit_status == 0 and not self.refused
                and not (self.timed_out or self.host_timed_out))

    def text(self, name: str) -> str:
        return self.files[name].decode(errors="replace")

    def summary(self) -> str:
        if self.host_timed_out:
            state = "host timeout: QEMU killed"
        elif self.timed_out:
            state = f"job timed out after {self.status.get('job_timeout', '?')}s"
        elif self.exit_status is None:
            state = f"no job status (QEMU exit {self.qemu_returncode})"
        else:
            state = f"job exit status {self.exit_status}"
        if self.refused:
            state += f"; result files refused by the guest: {' '.join(self.refused)}"
        if self.exit_status is None:   # QEMU refusing to start says why on its last line
            lines = self.console_log.read_text(errors="replace").strip().splitlines()
            state += f" [console: {lines[-1][:160]}]" if lines else " [console empty]"
        boot = f"{self.boot_to_job_seconds:.1f}s" if self.boot_to_job_seconds is not None else "-"
        return (f"{state}; {len(self.files)} result file(s); boot-to-job {boot}; "
                f"wall {self.wall_seconds:.1f}s ({self.accel}); console: {self.console_log}")

    def check(self) -> "RunResult":
        """Raise VmError with the console tail unless the job succeeded."""
        if not self.ok:
            tail = self.console_log.read_text(errors="replace").splitlines()[-25:]
            raise VmError(self.summary() + "\n" + "\n".join(tail))
        return self


def stock_nvme_args(backing_file: Path, serial: str = "femu0", drive_id: str = "nvm0") -> List[str]:
    """QEMU's own NVMe controller on a raw backing file."""
    return ["-drive", f"file={_escape(str(backing_file))},if=none,id={drive_id},format=raw",
            "-device", f"nvme,drive={drive_id},serial={serial}"]


def femu_args(config: Optional[Path] = None, stats_dir: Optional[Path] = None,
              **properties: Union[str, int]) -> List[str]:
    """The femu device (its FTL keeps the data in host memory: no backing file).
    properties are -device femu options, e.g. devsz_mb=96, pg_wr_lat=20000."""
    options = ["femu"]
    if config is not None:
        options.append(f"config={_escape(str(config))}")
    if stats_dir is not None:
        options.append(f"stats_dir={_escape(str(stats_dir))}")
    options += [f"{key}={_escape(str(value))}" for key, value in properties.items()]
    return ["-device", ",".join(options)]


def make_backing_file(path: Path, size_bytes: int) -> Path:
    """A sparse raw file of exactly size_bytes (kept if it already has that size)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.stat().st_size != size_bytes:
        with open(path, "wb") as f:
            f.truncate(size_bytes)
    return path


def _escape(value: str) -> str:
    return value.replace(",", ",,")   # QEMU option syntax: a literal comma is doubled


# Runs between setpriv and QEMU: $1 is the harness's pid. setpriv has already set the
# parent-death signal, so a harness dying from here on takes QEMU along; one that died
# before (the child was re-parented) would send no signal, which this check catches.
_GUARD_SCRIPT = ('[ "$PPID" = "$1" ] || { echo "femu-vm: the harness is gone; not starting" >&2; '
                 'exit 125; }; shift; exec "$@"')


def guarded(cmd: List[str], parent_pid: Optional[int] = None) -> List[str]:
    """cmd prefixed so that it is SIGKILLed when the harness dies.

    `setpriv --pdeathsig KILL` (util-linux, Essential on Debian) instead of a
    preexec_fn calling prctl: preexec_fn is unsafe in a process with threads (the
    console readers). The kernel sends the signal when the *thread* that started the
    child ends, so start it from a thread that outlives it (run() and interactive()
    wait for QEMU in the thread that started it).
    """
    if shutil.which("setpriv") is None:
        raise VmError("setpriv is missing (Debian package util-linux): it makes QEMU "
                      "die with the harness")
    parent = os.getpid() if parent_pid is None else parent_pid
    return ["setpriv", "--pdeathsig", "KILL", "--", "sh", "-c", _GUARD_SCRIPT,
            "femu-vm-guard", str(parent), *cmd]


def replace_result_files(files: Dict[str, bytes], folder: Path) -> Dict[str, Path]:
    """Write the result files into folder, emptied first: a reused --out keeps no file
    of an earlier run. Only that folder is cleared."""
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    return results.write_files(files, folder)


def tcg_append(kernel: Path) -> str:
    """The kernel arguments a TCG boot of this guest kernel needs (GuestImage.tcg_append,
    from the image's manifest beside the kernel; none for a kernel of no femu image)."""
    manifest = load_manifest(Path(kernel).parent) or {}
    value = manifest.get("tcg_append", "")
    return value if isinstance(value, str) else ""


def build_command(spec: VmSpec, kernel: Path, initramfs: Path, accelerator: str,
                  results_raw: Optional[Path], job_file: Optional[Path]) -> List[str]:
    needed = tcg_append(kernel) if accelerator == "tcg" else ""
    append = " ".join(part for part in (DEFAULT_APPEND, needed, spec.kernel_append) if part)
    cmd = [spec.qemu, "-nodefaults", "-no-user-config", "-display", "none",
           "-machine", f"{spec.machine},accel={accelerator}",
           "-cpu", "host" if accelerator == "kvm" else "max",
           "-m", str(spec.memory_mb), "-smp", str(spec.cpus),
           "-kernel", str(kernel), "-initrd", str(initramfs), "-append", append]
    if not spec.reboot:
        cmd.append("-no-reboot")
    for directory in spec.firmware_dirs:
        cmd += ["-L", str(directory)]
    if job_file is None:   # interactive: console + QEMU monitor (Ctrl-A c) on the terminal
        cmd += ["-chardev", "stdio,id=console,mux=on,signal=off", "-serial", "chardev:console",
                "-mon", "chardev=console"]
    else:
        cmd += ["-chardev", "stdio,id=console,signal=off", "-serial", "chardev:console",
                "-chardev", f"file,id=results,path={_escape(str(results_raw))}",
                "-serial", "chardev:results",
                "-fw_cfg", f"name=opt/femu/job,file={_escape(str(job_file))}",
                "-fw_cfg", f"name=opt/femu/timeout,string={int(spec.job_timeout)}"]
        for name, path in spec.guest_files.items():
            cmd += ["-fw_cfg", f"name={GUEST_FILES_FW_CFG}/{name},file={_escape(str(path))}"]
    return cmd + list(spec.device_args) + list(spec.extra_args)


def _image_paths(spec: VmSpec, quiet: bool):
    if spec.kernel and spec.initramfs:
        return spec.kernel, spec.initramfs
    image = ensure_image(quiet=quiet, release=spec.guest_release)   # builds only when out of date
    return spec.kernel or image.kernel, spec.initramfs or image.initramfs


class _ConsoleReader(threading.Thread):
    """Copies QEMU's console output to the log, noting when the job starts."""

    def __init__(self, stream, log_path: Path, echo: bool):
        super().__init__(daemon=True)
        self.stream, self.log_path, self.echo = stream, log_path, echo
        self.job_started_at: Optional[float] = None
        self.kvm_failure: Optional[str] = None   # QEMU's line saying KVM failed
        self.guest_crash: Optional[str] = None   # the guest kernel's Oops or panic line
        self.last_line = ""

    def run(self) -> None:
        with open(self.log_path, "wb") as log:
            for line in iter(self.stream.readline, b""):
                log.write(line)
                log.flush()
                if self.job_started_at is None and JOB_START_MARKER in line:
                    self.job_started_at = time.monotonic()
                if self.kvm_failure is None:
                    self.kvm_failure = accel.kvm_failure_in(line)
                if self.guest_crash is None and any(mark in line for mark in GUEST_CRASH_MARKS):
                    self.guest_crash = line.decode(errors="replace").strip()
                text = line.decode(errors="replace").rstrip()
                if text:
                    self.last_line = text
                if self.echo:
                    sys.stderr.write(text + "\n")
                    sys.stderr.flush()


def reap(proc: subprocess.Popen) -> None:
    """Stop proc if it still runs (terminate, then kill after 5 s) and wait for it."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class _Boot:
    proc: subprocess.Popen
    reader: _ConsoleReader
    host_timed_out: bool = False
    hung: bool = False                 # no job start within BOOT_DEADLINE_SECONDS (watch)
    crashed: Optional[str] = None      # the guest kernel crashed before its job (watch)
    kvm_failure: Optional[str] = None  # the guest could not run under KVM: why


def _boot(cmd, console_log: Path, spec: VmSpec, timeout: float, watch: bool, kvm: bool,
          log) -> _Boot:
    """Run QEMU until it exits or `timeout` passes. With watch, a job not started
    BOOT_DEADLINE_SECONDS in (when the host timeout is longer) is a hung boot; with kvm,
    QEMU reporting a KVM failure, or no job start KVM_JOB_START_SECONDS in, is a KVM that
    cannot run this guest. Either way QEMU is stopped and the caller decides."""
    started = time.monotonic()
    proc = subprocess.Popen(guarded(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT,
                            start_new_session=True)   # the terminal's Ctrl-C reaches us, not QEMU
    boot = _Boot(proc, _ConsoleReader(proc.stdout, console_log, spec.echo_console))
    reader = boot.reader
    reader.start()
    try:
        while True:
            now = time.monotonic()
            remaining = started + timeout - now
            if remaining <= 0:
                boot.host_timed_out = True
                log(f"host timeout after {timeout:.0f}s: stopping QEMU")
                break
            if kvm and reader.kvm_failure is not None:
                boot.kvm_failure = reader.kvm_failure
                break
            if kvm and reader.job_started_at is None and now - started > KVM_JOB_START_SECONDS:
                boot.kvm_failure = (f"the guest had not started its job "
                                    f"{KVM_JOB_START_SECONDS} s into a KVM boot")
                break
            if (watch and reader.job_started_at is None and timeout > BOOT_DEADLINE_SECONDS
                    and now - started > BOOT_DEADLINE_SECONDS):
                boot.hung = True
                break
            try:
                # Short waits while a KVM failure can still show, so it is acted on at once.
                step = 1 if kvm and reader.job_started_at is None else PROGRESS_INTERVAL_SECONDS
                proc.wait(timeout=min(step, remaining))
                break
            except subprocess.TimeoutExpired:
                phase = "job running" if reader.job_started_at else "booting"
                log(f"{phase}; console: {reader.last_line[:100]}")
    finally:
        reap(proc)
        reader.join(timeout=10)
        proc.stdout.close()
    if (watch and not kvm and reader.job_started_at is None and not boot.host_timed_out
            and reader.guest_crash is not None):
        boot.crashed = reader.guest_crash
    if kvm and boot.kvm_failure is None and reader.job_started_at is None \
            and not boot.host_timed_out:
        # QEMU exited on its own before the job: after a KVM failure report, or aborting
        # in KVM's own code (some nested hosts fail an MSR write that way).
        boot.kvm_failure = reader.kvm_failure or (
            f"QEMU exited ({proc.returncode}) under KVM before the job started: "
            f"{reader.last_line[:160]}")
    return boot


def run(spec: VmSpec, out_dir: Path, quiet: bool = False) -> RunResult:
    """Boot the guest with spec.job and wait (bounded) for it to power off.

    Under 'auto', a guest that cannot run under KVM (QEMU reports a KVM internal error,
    or the job has not started KVM_JOB_START_SECONDS in) is stopped and the same run is
    booted once under TCG; RunResult.accel_fallback says why. An explicit 'kvm' raises
    VmError instead (and accel.AccelError at once where the probe finds KVM unusable)."""
    if spec.job is None:
        raise VmError("run() needs a job; use interactive() for a shell")
    log = Progress("femu-vm", enabled=not quiet)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    kernel, initramfs = _image_paths(spec, quiet)
    requested = accel.check_choice(spec.accel)
    accelerator, _ = accel.resolve(requested, spec.qemu, spec.machine, kernel, initramfs,
                                   firmware_dirs=spec.firmware_dirs)
    job_file = out_dir / "job.sh"
    if isinstance(spec.job, Path):
        job_file.write_bytes(spec.job.read_bytes())
    else:
        job_file.write_text(spec.job)
    console_log, results_raw = out_dir / "console.log", out_dir / "serial-results.raw"
    results_raw.write_bytes(b"")
    timeout = spec.timeout if spec.timeout is not None else spec.job_timeout + BOOT_MARGIN_SECONDS
    if spec.job_timeout <= 0 and spec.timeout is None:
        timeout = 24 * 3600   # no guest timeout asked for: still never wait forever

    fallback: Optional[str] = None
    attempt = 1
    while True:
        cmd = build_command(spec, kernel, initramfs, accelerator, results_raw, job_file)
        log(f"starting QEMU ({accelerator}), host timeout {timeout:.0f}s, console -> {console_log}")
        started = time.monotonic()
        watch = attempt < BOOT_ATTEMPTS     # the last boot gets the whole host timeout
        boot = _boot(cmd, console_log, spec, timeout, watch, accelerator == "kvm", log)
        if boot.kvm_failure is not None:
            if requested == "kvm":
                raise VmError(f"the guest failed under KVM: {boot.kvm_failure} (--accel kvm "
                              f"does not fall back to TCG; console: {console_log})")
            fallback = boot.kvm_failure
            failed_console = console_log.rename(console_log.with_name(FAILED_KVM_CONSOLE))
            accel.record_failure(spec.qemu, kernel, initramfs, spec.machine, fallback,
                                 spec.firmware_dirs, console=failed_console)
            log(f"KVM cannot run this guest ({fallback}): booting the same run under TCG")
            results_raw.write_bytes(b"")
            accelerator = "tcg"
            continue
        if not boot.hung and boot.crashed is None:
            break
        # A TCG guest kernel now and then stalls early in boot (RCU stalls, its timers never
        # fire) while the host is busy, or crashes in its own code (an int3 Oops while it
        # patches its text on two vCPUs); the job never started, so nothing is lost by
        # booting it again.
        if boot.hung:
            log(f"the guest did not start its job within {BOOT_DEADLINE_SECONDS}s "
                f"(console: {boot.reader.last_line[:100]}): booting again")
            kept = f"console-hung-boot-{attempt}.log"
        else:
            log(f"the guest kernel crashed before its job ({boot.crashed[:100]}): "
                "booting again")
            kept = f"console-crashed-boot-{attempt}.log"
        console_log.rename(console_log.with_name(kept))
        results_raw.write_bytes(b"")
        attempt += 1
    wall = time.monotonic() - started
    reader = boot.reader

    parsed = results.parse(results_raw.read_bytes())
    replace_result_files(parsed.files, out_dir / "files")
    status = parsed.status
    try:
        exit_status = int(status["exit_status"])
    except (KeyError, ValueError):
        exit_status = None
    result = RunResult(
        out_dir=out_dir, console_log=console_log, results_raw=results_raw,
        files=parsed.files, status=status, exit_status=exit_status,
        timed_out=status.get("timed_out") == "1", host_timed_out=boot.host_timed_out,
        complete=parsed.complete, damaged=parsed.damaged,
        qemu_returncode=boot.proc.returncode, accel=accelerator, wall_seconds=wall,
        boot_to_job_seconds=(reader.job_started_at - started) if reader.job_started_at else None,
        command=cmd, accel_fallback=fallback)
    log(result.summary())
    return result


def interactive(spec: VmSpec, timeout: float = 3600, stdin=None, stdout=None) -> int:
    """A shell on the guest console in this terminal (or on the given stdin / stdout
    files or descriptors); QEMU still gets a deadline. Returns QEMU's exit status."""
    kernel, initramfs = _image_paths(spec, quiet=False)
    accelerator = accel.choose(spec.accel, spec.qemu, spec.machine, kernel, initramfs,
                               firmware_dirs=spec.firmware_dirs)
    cmd = build_command(spec, kernel, initramfs, accelerator, None, None)
    print(f"femu-vm: interactive guest ({accelerator}); 'exit' powers off, Ctrl-A x quits QEMU; "
          f"killed after {timeout:.0f}s", file=sys.stderr)
    proc = subprocess.Popen(guarded(cmd), stdin=stdin, stdout=stdout)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        print("femu-vm: interactive session timed out", file=sys.stderr)
        return 124
    except KeyboardInterrupt:
        return 130
    finally:
        reap(proc)
        if stdin is None and sys.stdin.isatty():   # QEMU leaves the terminal raw if killed
            subprocess.run(["stty", "sane"], check=False)
