"""Compat mode (run-blackbox.sh IMAGE [STATS_DIR]): the image and port checks, the
QEMU command line, and end-to-end boots of a bootable qcow2 / raw disk of the femu
guest (tests/support/boot_disk.py) that must come up with ssh on the forwarded port,
see the femu disk, and power off from the console with nothing left running.
"""
import os
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import List

import pytest

import boot_disk
from cpio_reader import read_cpio
from femu_guest import image as guest_image
from femu_lab import devconfig
from femu_lab.run import compat
from femu_lab.paths import QEMU as FEMU_QEMU

REPO_ROOT = Path(__file__).resolve().parents[2]

WRAPPER = REPO_ROOT / "build-femu" / "run-blackbox.sh"
BANNER_WAIT_SECONDS = 180
POWEROFF_WAIT_SECONDS = 90
HARD_LIMIT_SECONDS = 600
SHELL_READY = b"'poweroff -f' or exit to stop."   # the guest's /etc/profile banner


# ---- image checks --------------------------------------------------------

def _one_line_error(image: Path) -> str:
    with pytest.raises(compat.CompatError) as caught:
        compat.image_format(image)
    message = str(caught.value)
    assert "\n" not in message and str(image) in message
    return message


def test_missing_image(tmp_path):
    assert "does not exist" in _one_line_error(tmp_path / "nope.qcow2")


def test_folder_image(tmp_path):
    assert "folder" in _one_line_error(tmp_path)


def test_empty_image(tmp_path):
    image = tmp_path / "empty.img"
    image.write_bytes(b"")
    assert "empty" in _one_line_error(image)


def test_garbage_image(tmp_path):
    image = tmp_path / "garbage.img"
    image.write_bytes(b"not a disk image\n" * 10)
    assert "neither qcow2 nor raw" in _one_line_error(image)


def test_raw_image_without_boot_sector(tmp_path):
    image = tmp_path / "blank.img"
    image.write_bytes(bytes(4096))
    assert "boot signature" in _one_line_error(image)


@pytest.mark.integration   # runs qemu-img
def test_formats_recognised(tmp_path):
    qcow2 = tmp_path / "disk.qcow2"
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", str(qcow2), "16M"], check=True)
    assert compat.image_format(qcow2) == "qcow2"
    raw = tmp_path / "disk.img"
    raw.write_bytes(bytes(510) + b"\x55\xaa" + bytes(1024))
    assert compat.image_format(raw) == "raw"
    # A raw image that starts like a qcow2 header is what format probing would misread:
    # it is taken for qcow2 here too, and QEMU is told so explicitly (never probing).


# ---- port checks ---------------------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_busy_port():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        with pytest.raises(compat.CompatError) as caught:
            compat.check_port(port)
    message = str(caught.value)
    assert str(port) in message and "--ssh-port" in message and "\n" not in message


@pytest.mark.parametrize("port", [0, 65536, -1])
def test_port_out_of_range(port):
    with pytest.raises(compat.CompatError, match="not a TCP port"):
        compat.check_port(port)


def test_free_port_accepted():
    compat.check_port(free_port())


# ---- before QEMU starts --------------------------------------------------

@pytest.fixture(scope="module")
def lab_config() -> devconfig.DeviceConfig:
    return devconfig.load(devconfig.DEFAULT_CONFIG, {})


def test_bad_image_stops_before_anything(tmp_path, lab_config):
    stats = tmp_path / "stats"
    with pytest.raises(compat.CompatError, match="does not exist"):
        compat.run_image(tmp_path / "missing.qcow2", stats, config=lab_config,
                         qemu=FEMU_QEMU, smp=1, mem_mb=512, ssh_port=free_port())
    assert not stats.exists()


@pytest.mark.integration   # runs qemu-img
def test_busy_port_stops_before_anything(tmp_path, lab_config):
    image = tmp_path / "disk.qcow2"
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", str(image), "16M"], check=True)
    stats = tmp_path / "stats"
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        with pytest.raises(compat.CompatError, match="--ssh-port"):
            compat.run_image(image, stats, config=lab_config, qemu=FEMU_QEMU, smp=1,
                             mem_mb=512, ssh_port=listener.getsockname()[1])
    assert not stats.exists()


@pytest.mark.integration   # runs qemu-img
def test_missing_qemu(tmp_path, lab_config):
    image = tmp_path / "disk.qcow2"
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", str(image), "16M"], check=True)
    with pytest.raises(compat.CompatError, match="femu-compile.sh"):
        compat.run_image(image, None, config=lab_config, qemu=tmp_path / "no-qemu", smp=1,
                         mem_mb=512, ssh_port=free_port())


def test_command_line(tmp_path):
    image = tmp_path / "my,disk.qcow2"
    cmd = compat.build_command(image, "qcow2", qemu=FEMU_QEMU, accelerator="tcg", smp=2,
                               mem_mb=2048, ssh_port=8123, config_file=tmp_path / "c.conf",
                               stats_dir=tmp_path / "stats")
    args = dict(zip(cmd[1::2], cmd[2::2]))
    drive = cmd[cmd.index("-drive") + 1]
    assert drive == f"file={tmp_path}/my,,disk.qcow2,if=none,id=osdisk,format=qcow2"
    devices = [cmd[i + 1] for i, word in enumerate(cmd) if word == "-device"]
    assert "scsi-hd,drive=osdisk,bus=scsi0.0,bootindex=0" in devices
    assert f"femu,config={tmp_path}/c.conf,stats_dir={tmp_path}/stats" in devices
    assert args["-netdev"] == "user,id=net0,hostfwd=tcp:127.0.0.1:8123-:22"
    assert any(d.startswith("virtio-net-pci,netdev=net0") for d in devices)
    assert args["-cpu"] == "max" and args["-machine"].endswith("accel=tcg")
    assert args["-smp"] == "2" and args["-m"] == "2048"
    assert args["-serial"] == "chardev:console" and "-kernel" not in cmd
    raw = compat.build_command(image, "raw", qemu=FEMU_QEMU, accelerator="kvm", smp=1,
                               mem_mb=512, ssh_port=8080, config_file=tmp_path / "c.conf",
                               stats_dir=None)
    assert raw[raw.index("-drive") + 1].endswith(",format=raw")
    assert "-cpu" in raw and raw[raw.index("-cpu") + 1] == "host"
    assert not any("stats_dir" in word for word in raw)


# ---- the guest image's ssh side ------------------------------------------

@pytest.fixture(scope="module")
def guest(pytestconfig) -> guest_image.GuestImage:
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():   # a first build shows its progress
        return guest_image.ensure_image()


def test_guest_has_ssh_parts(guest):
    entries = {name: body for name, _, body, _ in read_cpio(guest.initramfs.read_bytes())}
    for path in ("usr/sbin/dropbear", "usr/bin/dropbearkey", "etc/femu/modules.ssh",
                 "etc/shells", "etc/dropbear"):
        assert path in entries, path
    ssh_modules = entries["etc/femu/modules.ssh"].decode()
    # Each NIC driver is shipped as a module, or built into the release's kernel (trixie's
    # 6.12 has virtio_pci built in; the manifest names those).
    builtin = set(guest.manifest.get("builtin_modules", []))
    for module in ("virtio_net", "virtio_pci"):
        assert f"/{module}.ko" in ssh_modules or module in builtin, module
    # Job mode loads what it always did: no NIC drivers on its boot path.
    assert "virtio" not in entries["etc/femu/modules.load"].decode()
    # The image's root account stays locked; init empties it only with femu.ssh=1.
    assert entries["etc/passwd"].startswith(b"root:x:")


# ---- end to end ----------------------------------------------------------

@pytest.fixture(scope="module")
def femu_qemu() -> Path:
    if not FEMU_QEMU.exists():
        pytest.fail(f"{FEMU_QEMU} is missing: build it with build-femu/femu-compile.sh")
    return FEMU_QEMU


@pytest.fixture(scope="module")
def boot_disks(guest, tmp_path_factory):
    missing = boot_disk.missing_tools()
    if missing:
        pytest.fail(f"missing {' '.join(missing)}: run scripts/install-deps.sh "
                    "(scripts/deps/compat.apt)")
    folder = tmp_path_factory.mktemp("boot-disks")
    return {fmt: boot_disk.make_boot_disk(guest, folder / f"guest.{fmt}", fmt=fmt)
            for fmt in ("qcow2", "raw")}


class Console:
    """Collects what QEMU writes to the console pipe, from a thread."""

    def __init__(self, fd: int):
        self.data = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, args=(fd,), daemon=True)
        self._thread.start()

    def _read(self, fd: int) -> None:
        with os.fdopen(fd, "rb", buffering=0) as stream:
            for chunk in iter(lambda: stream.read(4096), b""):
                with self._lock:
                    self.data += chunk

    def text(self) -> str:
        with self._lock:
            return self.data.decode(errors="replace")

    def wait_for(self, needle: bytes, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self._lock:
                if needle in self.data:
                    return True
            time.sleep(0.5)
        return False


def wait_for_ssh_banner(port: int, seconds: float, still_running) -> bytes:
    """The first bytes of 127.0.0.1:port once they are an SSH banner (b'' on timeout)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and still_running():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
                conn.settimeout(15)
                first = conn.recv(64)
            if first.startswith(b"SSH-2.0-"):
                return first
        except OSError:
            pass   # QEMU forwards before the guest listens: reset or closed at first
        time.sleep(1)
    return b""


def ssh(port: int, command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["ssh", "-F", "/dev/null", "-p", str(port), "-o", "BatchMode=yes",
         "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
         "-o", "ConnectTimeout=30", "-o", "LogLevel=ERROR", "root@127.0.0.1", command],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


def processes_naming(word: str) -> List[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if word.encode() in cmdline and int(pid) != os.getpid():
            found.append(f"{pid}: {cmdline.decode(errors='replace')[:200]}")
    return found


def check_running_guest(port: int, console: Console, config: devconfig.DeviceConfig,
                        still_running) -> None:
    """ssh answers on the forwarded port, the guest sees the femu disk at the configured
    size and writes to it; then the console's shell is ready for power-off."""
    banner = wait_for_ssh_banner(port, BANNER_WAIT_SECONDS, still_running)
    assert banner, f"no SSH banner on 127.0.0.1:{port}; console:\n{console.text()[-3000:]}"
    login = ssh(port, "cat /sys/block/nvme0n1/size && "
                      "dd if=/dev/urandom of=/dev/nvme0n1 bs=4096 count=64 conv=fsync")
    assert login.returncode == 0, login.stderr
    assert int(login.stdout.split()[0]) * 512 == config.logical_bytes
    assert console.wait_for(SHELL_READY, 60), console.text()[-3000:]


def power_off(write_console, console: Console, finished) -> None:
    """`poweroff -f` typed on the serial console, repeated while QEMU still runs."""
    deadline = time.monotonic() + POWEROFF_WAIT_SECONDS
    while not finished() and time.monotonic() < deadline:
        write_console(b"poweroff -f\n")
        for _ in range(20):
            if finished():
                break
            time.sleep(0.5)
    assert finished(), f"QEMU still running after poweroff; console:\n{console.text()[-3000:]}"


def check_stats(stats: Path, config: devconfig.DeviceConfig) -> None:
    assert (stats / "config.conf").read_text().endswith(config.text)
    rows = (stats / "IOPSData.csv").read_text().splitlines()
    assert rows[0] == "time,read,write"
    # The guest's 64 page writes were counted by the device.
    assert sum(int(row.split(",")[2]) for row in rows[1:]) > 0, rows


@pytest.fixture
def ssh_client():
    if subprocess.run(["which", "ssh"], capture_output=True).returncode != 0:
        pytest.fail("ssh is missing: run scripts/install-deps.sh (scripts/deps/compat.apt)")


@pytest.mark.parametrize("fmt", ["qcow2", "raw"])
def test_boot_with_run_image(fmt, boot_disks, femu_qemu, lab_config, ssh_client, tmp_path):
    image, stats, port = boot_disks[fmt], tmp_path / "stats", free_port()
    console_in, to_console = os.pipe()
    from_console, console_out = os.pipe()
    console = Console(from_console)
    outcome: dict = {}

    def boot() -> None:
        try:
            outcome["status"] = compat.run_image(
                image, stats, config=lab_config, qemu=femu_qemu, smp=2, mem_mb=1024,
                ssh_port=port, stdin=console_in, stdout=console_out,
                timeout=HARD_LIMIT_SECONDS)
        except BaseException as error:   # reported by the test thread below
            outcome["error"] = error

    runner = threading.Thread(target=boot)
    runner.start()
    try:
        check_running_guest(port, console, lab_config, runner.is_alive)
        power_off(lambda data: os.write(to_console, data), console,
                  lambda: not runner.is_alive())
    finally:
        if runner.is_alive():
            for line in processes_naming(str(image)):   # QEMU of this test only
                os.kill(int(line.split(":")[0]), 9)
        runner.join(30)
        for fd in (to_console, console_in, console_out):
            os.close(fd)
    assert "error" not in outcome, outcome.get("error")
    assert outcome["status"] == 0
    assert processes_naming(str(image)) == []
    check_stats(stats, lab_config)


def test_boot_with_run_blackbox_sh(boot_disks, femu_qemu, lab_config, ssh_client, tmp_path):
    if not WRAPPER.exists():
        pytest.skip(f"{WRAPPER.relative_to(REPO_ROOT)} is not in the tree yet")
    image, stats, port = boot_disks["qcow2"], tmp_path / "stats", free_port()
    # --config explicitly: the size check below needs the config the guest runs with.
    proc = subprocess.Popen([str(WRAPPER), str(image), str(stats), "--ssh-port", str(port),
                             "--config", str(lab_config.source)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    console = Console(os.dup(proc.stdout.fileno()))
    proc.stdout.close()
    proc.stdout = None   # the Console thread reads it; communicate() must not

    def write_console(data: bytes) -> None:
        try:
            proc.stdin.write(data)
            proc.stdin.flush()
        except BrokenPipeError:   # QEMU is just gone: power_off sees it next
            pass

    try:
        check_running_guest(port, console, lab_config, lambda: proc.poll() is None)
        power_off(write_console, console, lambda: proc.poll() is not None)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
        stderr = proc.communicate(timeout=30)[1].decode(errors="replace")
    assert proc.returncode == 0, stderr
    assert f"ssh -p {port} root@localhost" in stderr
    assert processes_naming(str(image)) == []
    check_stats(stats, lab_config)
