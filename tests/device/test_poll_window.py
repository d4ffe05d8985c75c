"""The poller's busy-waits (hw/femu/top/poll_window.c), read through the QOM property
poll-counters: an idle controller never polls, and every poll window and spin stays
within its cap. Counts only, never a measured time against a guess."""
import time

from femu_lab.vm.qmp import Qmp, qmp_args
from nvme_qtest import IO_READ, femu_only, pattern, ready, start, wait_for  # noqa: F401

pytestmark = femu_only()

DEV = "/machine/peripheral/femu0"
QUIET_READS = 5              # reads of the counters, 0.1 s apart, that must all agree


class Device:
    """An enabled controller with QMP and one I/O queue pair."""

    def __init__(self, start, tmp_path, shadow=False, props=""):
        socket = tmp_path / "qmp.sock"
        self.nvme = start("id=femu0" + props, extra=qmp_args(socket)).nvme
        ready(self.nvme, io_queues=0)
        if shadow:
            assert self.nvme.doorbell_buffer_config().ok
        self.sq = self.nvme.io_queue_pair(1, 16)
        self.qmp = Qmp(socket, connect_timeout=30).__enter__()

    def counters(self):
        text = self.qmp.execute("qom-get", path=DEV, property="poll-counters")
        return {key: int(value) for key, value in (word.split("=") for word in text.split())}

    def qd1_reads(self, count):
        """Write `count` pages, then read each back alone (QD1)."""
        for lba in range(0, 8 * count, 8):
            assert self.nvme.write(self.sq, lba, pattern(4096, lba)).ok
        for lba in range(0, 8 * count, 8):
            cqe, data = self.nvme.read(self.sq, lba, 8)
            assert cqe.ok and data == pattern(4096, lba)

    def settled(self):
        """The counters once two reads 0.1 s apart agree (the last window has ended)."""
        def same():
            first = self.counters()
            time.sleep(0.1)
            return first if first == self.counters() else None
        return wait_for(same, what="the poll counters to settle")

    def stays(self, counters):
        for _ in range(QUIET_READS):
            time.sleep(0.1)
            assert self.counters() == counters, "the poller polled with no I/O"

    def close(self):
        self.qmp.__exit__(None, None, None)


def test_an_idle_controller_never_polls(start, tmp_path):
    """No I/O (only admin commands): no window, no spin. After I/O, once the last window
    ended, the counters stand still while the controller idles."""
    d = Device(start, tmp_path, shadow=True)
    try:
        idle = d.counters()
        assert idle["windows"] == 0 and idle["spins"] == 0, idle
        d.stays(idle)
        d.qd1_reads(4)
        d.stays(d.settled())
    finally:
        d.close()


def _check_bounds(c):
    assert c["found"] + c["due"] + c["expired"] + c["preempted"] == c["windows"], c
    assert c["window_ns"] <= c["windows"] * c["cap_ns"], c
    assert c["spin_found"] <= c["spins"], c
    assert c["spin_ns"] <= c["spins"] * c["spin_cap_ns"], c


def test_poll_windows_after_io_are_bounded_and_counted(start, tmp_path):
    """QD1 reads: each read's completion comes pg_rd_lat (40 us) after its fetch, which
    teaches the window that gap; the poll after a completion then ends empty (a qtest host
    answers far later than a guest; or the host preempts the poll), so windows run, end
    and stay within the cap."""
    for shadow in (False, True):
        folder = tmp_path / ("shadow" if shadow else "mmio")
        folder.mkdir()
        d = Device(start, folder, shadow=shadow)
        try:
            d.qd1_reads(12)
            c = d.settled()
            assert c["windows"] >= 1 and c["expired"] + c["preempted"] >= 1, c
            _check_bounds(c)
        finally:
            d.close()


def test_poll_window_us_0_turns_the_window_off(start, tmp_path):
    d = Device(start, tmp_path, shadow=True, props=",poll_window_us=0")
    try:
        d.qd1_reads(12)
        c = d.settled()
        assert c["windows"] == 0 and c["cap_ns"] == 0, c
        _check_bounds(c)
    finally:
        d.close()


def test_poll_window_us_beyond_the_cap_is_refused(launch):
    proc = launch("femu,poll_window_us=201")
    assert proc.returncode != 0
    assert "poll_window_us: 201 is out of range [0, 200]" in proc.stderr, proc.stderr
