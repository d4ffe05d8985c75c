"""A small QMP client over a unix socket (`-qmp unix:PATH,server=on,wait=off`): commands,
and waiting for an event. Every wait is bounded."""
import json
import socket
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional


class QmpError(RuntimeError):
    pass


def qmp_args(path: Path) -> List[str]:
    return ["-qmp", f"unix:{path},server=on,wait=off"]


class Qmp:
    def __init__(self, path: Path, connect_timeout: float = 120.0,
                 alive: Callable[[], bool] = lambda: True):
        """Connect (QEMU creates the socket as it starts; `alive` says whether it still
        runs) and leave capabilities negotiation done."""
        deadline = time.monotonic() + connect_timeout
        while True:
            try:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self._sock.connect(str(path))
                break
            except OSError as error:
                self._sock.close()
                if time.monotonic() > deadline or not alive():
                    raise QmpError(f"no QMP on {path}: {error}") from None
                time.sleep(0.2)
        self._buffer = b""
        self.events: List[Dict] = []
        self._read(10.0 + connect_timeout)           # the greeting
        self.execute("qmp_capabilities")

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> "Qmp":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _read(self, timeout: float) -> Dict:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise QmpError(f"no QMP message within {timeout:.0f} s")
            self._sock.settimeout(left)
            try:
                chunk = self._sock.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                raise QmpError("QMP connection closed (QEMU exited?)")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def execute(self, command: str, timeout: float = 60.0, **arguments) -> object:
        """Run a command; its `return` value, or QmpError with QEMU's description."""
        message: Dict = {"execute": command}
        if arguments:
            message["arguments"] = arguments
        self._sock.sendall(json.dumps(message).encode() + b"\n")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(max(deadline - time.monotonic(), 0.01))
            if "event" in reply:
                self.events.append(reply)
            elif "error" in reply:
                raise QmpError(f"{command}: {reply['error'].get('desc', reply['error'])}")
            elif "return" in reply:
                return reply["return"]

    def wait_event(self, name: str, timeout: float,
                   match: Optional[Callable[[Dict], bool]] = None) -> Dict:
        """The first event `name` (already received or arriving within timeout) for
        which match(data) holds; it is taken off the list."""
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if event["event"] == name and (match is None or match(event.get("data", {}))):
                    self.events.remove(event)
                    return event
            left = deadline - time.monotonic()
            if left <= 0:
                raise QmpError(f"no {name} event within {timeout:.0f} s")
            reply = self._read(left)
            if "event" in reply:
                self.events.append(reply)
