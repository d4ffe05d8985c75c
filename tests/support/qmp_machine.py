"""QEMU with a QMP monitor for the device tests, through qemu.qmp's synchronous client
(qemu.qmp.legacy.QEMUMonitorProtocol): no QMP code of our own.

The monitor is one end of a socket pair QEMU inherits (-chardev socket,fd=N), so there is
no socket path to wait for and no port to pick; if QEMU exits, the client sees the end
of the stream at once. Every session is bounded: a watchdog kills QEMU after `timeout`
seconds (any command still waiting then ends with the connection), and QEMU is always
reaped when the block ends.
"""
import socket
import subprocess
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, Optional, Sequence

from qemu.qmp.legacy import QEMUMonitorProtocol

QUIT_TIMEOUT = 30   # a bound on waiting for QEMU to exit after `quit`, not a measured time


class QmpMachine:
    """A started QEMU: proc (its Popen, stderr piped), qmp (the negotiated client)."""

    def __init__(self, proc: subprocess.Popen, qmp: QEMUMonitorProtocol):
        self.proc = proc
        self.qmp = qmp
        self.quit_sent = False

    def command(self, command: dict) -> dict:
        """Send one QMP command object; return QEMU's reply as it is ('return' or 'error')."""
        return self.qmp.cmd_obj(command)

    def commands(self, commands: Sequence[dict]) -> List[dict]:
        return [self.command(command) for command in commands]

    def quit(self) -> int:
        """`quit`, then QEMU's exit status."""
        self.quit_sent = True
        self.command({"execute": "quit"})
        return self.proc.wait(timeout=QUIT_TIMEOUT)

    def stderr(self) -> str:
        """What QEMU wrote on stderr (once it has exited)."""
        return self.proc.stderr.read() if self.proc.stderr else ""


@contextmanager
def qmp_machine(qemu: Path, args: Sequence[str], timeout: float,
                cwd: Optional[Path] = None) -> Iterator[QmpMachine]:
    """Start `qemu ARGS` with a QMP monitor, yield a QmpMachine once the client has read
    the greeting and negotiated capabilities; at the end close the client and kill and
    reap QEMU if it still runs."""
    ours, theirs = socket.socketpair()
    monitor = ["-chardev", f"socket,id=qmp,fd={theirs.fileno()}",
               "-mon", "chardev=qmp,mode=control"]
    proc = subprocess.Popen([str(qemu), *args, *monitor], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            pass_fds=[theirs.fileno()], cwd=cwd)
    theirs.close()
    watchdog = threading.Timer(timeout, proc.kill)
    watchdog.start()
    qmp = QEMUMonitorProtocol(ours)
    machine = None
    try:
        qmp.settimeout(timeout)
        try:
            qmp.connect()
        except Exception as error:
            proc.kill()
            proc.wait()
            raise AssertionError(f"QEMU gave no QMP greeting ({error!r}), exit status "
                                 f"{proc.returncode}: {proc.stderr.read().strip()}") from None
        machine = QmpMachine(proc, qmp)
        yield machine
    finally:
        watchdog.cancel()
        try:
            qmp.close()
        except EOFError:
            # After `quit` QEMU closes the stream, which the client may report here (as
            # QEMU's own python/qemu/machine does, this is expected then, not otherwise).
            if machine is None or not machine.quit_sent:
                raise
        ours.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait()
