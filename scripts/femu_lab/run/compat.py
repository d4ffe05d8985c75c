"""FEMU-compatible mode of run-blackbox.sh: boot the user's own disk image (qcow2 or
raw, BIOS boot through its own bootloader) as the OS disk, with the femu NVMe SSD
attached, ssh forwarded from the host's localhost and the serial console on the
terminal, as FEMU's run-blackbox.sh did.

    status = run_image(Path("u20s.qcow2"), Path("stats"), config=devconfig.load(None, {}),
                       qemu=paths.QEMU, smp=2, mem_mb=4096)
"""
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import List, Optional

from femu_common.errors import InputError

from ..devconfig import DeviceConfig
from ..vm import accel, launch as vm

QCOW2_MAGIC = b"QFI\xfb"
SECTOR_BYTES = 512
BOOT_SIGNATURE = b"\x55\xaa"      # last two bytes of a BIOS boot sector (MBR or VBR)
# FEMU ran its guests on QEMU's default PC machine (i440FX); images made for it
# (network interface names from PCI slots, fstab, grub) expect that machine.
MACHINE = "pc"
PROG = "run-blackbox.sh"


class CompatError(InputError):
    """A bad image, port or setting; the message is one line naming it."""


def image_format(image: Path) -> str:
    """'qcow2' or 'raw' for a usable OS disk image; CompatError otherwise."""
    image = Path(image)
    if not image.exists():
        raise CompatError(f"disk image {image} does not exist")
    if image.is_dir():
        raise CompatError(f"disk image {image} is a folder, not a disk image file")
    if not image.is_file():
        raise CompatError(f"disk image {image} is not a regular file")
    try:
        with open(image, "rb") as f:
            head = f.read(SECTOR_BYTES)
    except OSError as error:
        raise CompatError(f"cannot read disk image {image}: {error.strerror}") from None
    if not os.access(image, os.W_OK):   # QEMU opens the OS disk read-write
        raise CompatError(f"disk image {image} is read-only: the guest writes to its OS disk")
    if head.startswith(QCOW2_MAGIC):
        return "qcow2"
    size = image.stat().st_size
    if size == 0:
        raise CompatError(f"disk image {image} is empty")
    hint = "convert other formats with 'qemu-img convert -O qcow2'"
    if size % SECTOR_BYTES:
        raise CompatError(f"disk image {image} is neither qcow2 nor raw (its size, {size} bytes, "
                          f"is not a whole number of 512-byte sectors); {hint}")
    if head[510:512] != BOOT_SIGNATURE:
        raise CompatError(f"disk image {image} is neither qcow2 nor a bootable raw disk "
                          f"(no boot signature 55 AA at byte 510); {hint}")
    return "raw"


def check_port(port: int) -> None:
    """CompatError unless QEMU can listen on 127.0.0.1:port for the ssh forward."""
    if not isinstance(port, int) or not 1 <= port <= 65535:
        raise CompatError(f"ssh port {port} is not a TCP port number (1-65535)")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As QEMU's forwarder does: a port whose old connections linger is still usable.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except PermissionError:
            raise CompatError(f"ssh port {port} needs root to listen on; pick one above 1023 "
                              "with --ssh-port") from None
        except OSError:
            raise CompatError(f"ssh port {port} on 127.0.0.1 is already in use (another VM?); "
                              "pick a free one with --ssh-port") from None


def _escape(value: str) -> str:
    return value.replace(",", ",,")   # QEMU option syntax: a literal comma is doubled


def build_command(image: Path, fmt: str, *, qemu: Path, accelerator: str, smp: int,
                  mem_mb: int, ssh_port: int, config_file: Path,
                  stats_dir: Optional[Path]) -> List[str]:
    return [
        str(qemu), "-name", "femu-blackbox", "-nodefaults", "-no-user-config",
        "-display", "none",
        "-machine", f"{MACHINE},accel={accelerator}",
        "-cpu", "host" if accelerator == "kvm" else "max",
        "-smp", str(smp), "-m", str(mem_mb),
        # format given, never probed: a raw image must not be able to pass for another
        # format (QEMU's probing of raw images is a known hazard).
        "-drive", f"file={_escape(str(Path(image).resolve()))},if=none,id=osdisk,format={fmt}",
        # virtio-scsi, as FEMU's own run scripts attached the OS disk: the guest sees it
        # as /dev/sda, which images prepared for FEMU name in fstab and grub (virtio-blk
        # would rename it /dev/vda); faster than emulated IDE, and SeaBIOS boots it.
        "-device", "virtio-scsi-pci,id=scsi0",
        "-device", "scsi-hd,drive=osdisk,bus=scsi0.0,bootindex=0",
        # ssh forward bound to the host's loopback only: the lab guest's root login
        # must not be reachable from other machines. No iPXE ROM: a disk that does not
        # boot then stops at SeaBIOS's message instead of trying network boot.
        "-netdev", f"user,id=net0,hostfwd=tcp:127.0.0.1:{ssh_port}-:22",
        "-device", "virtio-net-pci,netdev=net0,romfile=",
        # Serial console and QEMU monitor muxed on the terminal (Ctrl-A c switches,
        # Ctrl-A x quits); signal=off: Ctrl-C goes to the guest, not to QEMU.
        "-chardev", "stdio,id=console,mux=on,signal=off",
        "-serial", "chardev:console", "-mon", "chardev=console",
        *vm.femu_args(config=config_file, stats_dir=stats_dir),
    ]


class _Stopped(Exception):
    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_stopped(signum, _frame):
    raise _Stopped(signum)


def _restore_terminal(stdin) -> None:
    """QEMU leaves a terminal raw when it is killed instead of quitting."""
    stream = sys.stdin if stdin is None else stdin
    try:
        fd = stream if isinstance(stream, int) else stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    if os.isatty(fd):
        subprocess.run(["stty", "sane"], stdin=fd, check=False)


def _checked_settings(qemu: Path, smp: int, mem_mb: int) -> None:
    if not Path(qemu).is_file() or not os.access(qemu, os.X_OK):
        raise CompatError(f"QEMU {qemu} is missing: build it with build-femu/femu-compile.sh")
    if not isinstance(smp, int) or smp < 1:
        raise CompatError(f"--smp {smp}: expected a number of CPUs of at least 1")
    if not isinstance(mem_mb, int) or mem_mb < 64:
        raise CompatError(f"--mem {mem_mb}: expected MiB of guest memory, at least 64")


def _config_file(config: DeviceConfig, stats_dir: Optional[Path]) -> Path:
    if stats_dir is None:
        handle, name = tempfile.mkstemp(prefix="femu-config-", suffix=".conf")
        os.close(handle)
        return config.write(Path(name))
    if stats_dir.exists() and not stats_dir.is_dir():
        raise CompatError(f"stats folder {stats_dir} exists and is not a folder")
    try:
        stats_dir.mkdir(parents=True, exist_ok=True)
        return config.write(stats_dir / "config.conf")
    except OSError as error:
        raise CompatError(f"cannot write to stats folder {stats_dir}: {error.strerror}") from None


def run_image(image: Path, stats_dir: Optional[Path], *, config: DeviceConfig, qemu: Path,
              smp: int, mem_mb: int, ssh_port: int = 8080, accel: str = "auto",
              stdin=None, stdout=None, timeout: Optional[float] = None) -> int:
    """Boot image with the femu SSD until the guest powers off or Ctrl-A x; returns
    QEMU's exit status (124 when timeout seconds passed and QEMU was killed, 128+N
    when a signal N stopped it or this harness). CompatError before QEMU starts when
    the image, port or a setting is unusable."""
    fmt = image_format(image)
    check_port(ssh_port)
    _checked_settings(qemu, smp, mem_mb)
    accelerator = _choose_accel(accel, qemu)
    stats_dir = Path(stats_dir).resolve() if stats_dir is not None else None
    config_file = _config_file(config, stats_dir)
    cmd = build_command(Path(image), fmt, qemu=qemu, accelerator=accelerator, smp=smp,
                        mem_mb=mem_mb, ssh_port=ssh_port, config_file=config_file,
                        stats_dir=stats_dir)
    stats = f"stats in {stats_dir}" if stats_dir else "no stats folder"
    print(f"{PROG}: booting {image} ({fmt}, {accelerator}) with the femu SSD ({config.name}); "
          f"ssh -p {ssh_port} root@localhost; {stats}; Ctrl-A x quits", file=sys.stderr)
    try:
        return _run_qemu(cmd, stdin, stdout, timeout)
    finally:
        if stats_dir is None:
            config_file.unlink(missing_ok=True)


def _choose_accel(requested: str, qemu: Path) -> str:
    try:
        # The probe boots the project's own guest kernel (built first if missing).
        return accel.choose(requested, str(qemu), MACHINE)
    except (ValueError, accel.AccelError) as error:
        raise CompatError(str(error)) from None


def _run_qemu(cmd: List[str], stdin, stdout, timeout: Optional[float]) -> int:
    # SIGTERM / SIGHUP to this harness: stop QEMU and restore the terminal instead of
    # dying with the terminal left raw (handlers can only be set in the main thread).
    in_main = threading.current_thread() is threading.main_thread()
    previous = {}
    if in_main:
        for signum in (signal.SIGTERM, signal.SIGHUP):
            previous[signum] = signal.signal(signum, _raise_stopped)
    proc = None
    try:
        proc = subprocess.Popen(vm.guarded(cmd), stdin=stdin, stdout=stdout)
        status = proc.wait(timeout=timeout)
        return 128 - status if status < 0 else status
    except subprocess.TimeoutExpired:
        print(f"{PROG}: stopping QEMU after the {timeout:.0f} s limit", file=sys.stderr)
        return 124
    except KeyboardInterrupt:
        return 130
    except _Stopped as stop:
        return 128 + stop.signum
    finally:
        killed = proc is not None and proc.poll() is None
        if killed:
            vm.reap(proc)
        if killed or (proc is not None and proc.returncode < 0):
            _restore_terminal(stdin)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
