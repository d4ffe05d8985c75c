"""QMP over a unix socket (`-qmp unix:PATH,server=on,wait=off`) for synchronous callers:
commands, and waiting for an event. The protocol is QEMU's own client, qemu.qmp's
QMPClient (asyncio), driven on an event loop of this connection's own; every wait is
bounded, and every failure is a QmpError with one line."""
import asyncio
import time
from pathlib import Path
from typing import Awaitable, Callable, Dict, List, Optional, TypeVar

from femu_common.errors import RunFailure
from qemu.qmp import ExecuteError, QMPClient, QMPError, Runstate

Result = TypeVar("Result")
CLOSE_SECONDS = 10.0


class QmpError(RunFailure):
    pass


class NoReply(QmpError):
    """Nothing came within the time given (QEMU still there)."""


def qmp_args(path: Path) -> List[str]:
    return ["-qmp", f"unix:{path},server=on,wait=off"]


class Qmp:
    def __init__(self, path: Path, connect_timeout: float = 120.0,
                 alive: Callable[[], bool] = lambda: True):
        """Connect (QEMU creates the socket as it starts; `alive` says whether it still
        runs) and leave capabilities negotiation done."""
        self._loop = asyncio.new_event_loop()
        self.events: List[Dict] = []   # events received and not yet waited for
        deadline = time.monotonic() + connect_timeout
        while True:
            # Made on the loop it runs on (its queues belong to that loop).
            self._client = self._loop.run_until_complete(self._new_client())
            try:
                # The greeting and qmp_capabilities are part of connect().
                self._call(self._client.connect(str(path)), 10.0 + connect_timeout,
                           "connect")
                break
            except QmpError as error:
                self._disconnect()
                if time.monotonic() > deadline or not alive():
                    self._loop.close()
                    raise QmpError(f"no QMP on {path}: {error}") from None
                time.sleep(0.2)

    @staticmethod
    async def _new_client() -> QMPClient:
        return QMPClient("femu-soak")

    def _call(self, step: Awaitable[Result], timeout: float, what: str) -> Result:
        try:
            return self._loop.run_until_complete(asyncio.wait_for(step, max(timeout, 0.01)))
        except asyncio.TimeoutError:
            raise NoReply(f"{what}: nothing within {timeout:.0f} s") from None
        except ExecuteError:
            raise
        except (QMPError, OSError, EOFError) as error:
            raise QmpError(f"{what}: {error} (QEMU exited?)") from None

    def _disconnect(self) -> None:
        try:
            self._call(self._client.disconnect(), CLOSE_SECONDS, "disconnect")
        except (QmpError, QMPError):
            pass   # QEMU went away first: nothing left to close

    def close(self) -> None:
        if self._loop.is_closed():
            return
        self._disconnect()
        self._loop.close()

    def __enter__(self) -> "Qmp":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def execute(self, command: str, timeout: float = 60.0, **arguments) -> object:
        """Run a command; its `return` value, or QmpError with QEMU's description."""
        try:
            return self._call(self._client.execute(command, arguments or None), timeout,
                              command)
        except ExecuteError as error:
            raise QmpError(f"{command}: {error.error.error.desc}") from None

    def wait_event(self, name: str, timeout: float,
                   match: Optional[Callable[[Dict], bool]] = None) -> Dict:
        """The first event `name` (already received or arriving within timeout) for
        which match(data) holds; it is taken off the list."""
        deadline = time.monotonic() + timeout
        while True:
            self.events += [dict(event) for event in self._client.events.clear()]
            for event in self.events:
                if event["event"] == name and (match is None or match(event.get("data", {}))):
                    self.events.remove(event)
                    return event
            left = deadline - time.monotonic()
            if left <= 0:
                raise NoReply(f"no {name} event within {timeout:.0f} s")
            if self._client.runstate != Runstate.RUNNING:
                raise QmpError("QMP connection closed (QEMU exited?)")
            try:
                event = self._call(self._client.events.get(), left, f"{name} event")
            except NoReply:
                continue   # the deadline: said at the top of the loop
            self.events.append(dict(event))
