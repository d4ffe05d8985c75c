"""Spec details: the Streams directive is checked on writes only, NUSE counts the LBAs
holding data exactly, deallocating never-written space allocates no host memory, and a
realize that fails leaks no file descriptor, thread or mapping."""
import struct
from pathlib import Path

from femu_device import LAUNCH_TIMEOUT, MACHINE
from nvme_qtest import (IO_READ, SMALL_GEOMETRY, femu_only, nvme_qemu, pattern, ready,  # noqa: F401
                        start)
from qmp_machine import qmp_machine

pytestmark = femu_only()


def nuse(nvme) -> int:
    cqe, data = nvme.identify(0, nsid=1)
    assert cqe.ok
    return struct.unpack_from("<Q", data, 16)[0]


def test_streams_directive_is_ignored_on_reads(start):
    nvme = start("placement=stream,nstreams=2").nvme
    sq = ready(nvme)[0]
    assert nvme.write(sq, 0, pattern(4096, 1)).ok
    xfer = nvme.transfer(4096)
    cmd = nvme.rw(sq, IO_READ, 0, 8, xfer)
    cmd.cdw12 |= 1 << 20                                    # DTYPE = Streams (reserved here)
    cmd.cdw13 = 7 << 16                                     # DSPEC beyond nstreams
    assert nvme.run(sq, cmd).ok
    assert nvme.contents(xfer) == pattern(4096, 1)


def test_nuse_counts_exactly(start):
    nvme = start().nvme
    sq = ready(nvme)[0]
    assert nuse(nvme) == 0
    assert nvme.write(sq, 3, pattern(512, 1)).ok           # one LBA of a flash page
    assert nuse(nvme) == 1
    assert nvme.write(sq, 3, pattern(1024, 2)).ok          # overlapping: LBA 4 is new
    assert nuse(nvme) == 2
    assert nvme.write_zeroes(sq, 100, 5).ok                # written, with zeroes
    assert nuse(nvme) == 7
    assert nvme.write_zeroes(sq, 100, 2, deac=True).ok
    assert nuse(nvme) == 5
    assert nvme.dsm_deallocate(sq, [(0, 16)]).ok
    assert nuse(nvme) == 3


def rss_anon_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no RssAnon")


def test_deallocating_unwritten_space_allocates_nothing(start):
    """2040 ranges with unaligned edges over never-written space: zeroing the edge pages
    in place used to commit two host pages per range (16 MiB here)."""
    machine = start()
    nvme = machine.nvme
    sq = ready(nvme)[0]
    before = rss_anon_bytes(machine.qt.pid)
    for cmd in range(8):
        ranges = [((cmd * 255 + i) * 64 + 1, 30) for i in range(255)]
        assert nvme.dsm_deallocate(sq, ranges).ok
    for i in range(64):
        assert nvme.write_zeroes(sq, 1000 + 64 * i + 3, 50, deac=bool(i % 2)).ok
    grown = rss_anon_bytes(machine.qt.pid) - before
    print(f"RssAnon grew {grown >> 10} KiB")
    assert grown < 4 << 20


def _qmp_session(qemu: Path, commands, pid_probe):
    """Run QMP commands one by one on a paused machine; pid_probe(pid) after each."""
    probes = []
    args = [*MACHINE, "-S", "-device", "pcie-root-port,id=rp0,bus=pcie.0,addr=0x5,chassis=1"]
    with qmp_machine(qemu, args, 5 * LAUNCH_TIMEOUT) as machine:   # 31 realizes at most
        for cmd in commands:
            reply = machine.command(cmd)
            probes.append((reply, pid_probe(machine.proc.pid)))
        machine.quit()
    return probes


def _resources(pid: int):
    fds = len(list(Path(f"/proc/{pid}/fd").iterdir()))
    threads = len(list(Path(f"/proc/{pid}/task").iterdir()))
    vm = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text()
              .splitlines() if line.startswith("VmSize:"))
    return fds, threads, vm


def test_failed_realize_leaks_nothing(nvme_qemu, tmp_path):
    """device_add whose statistics files cannot be created fails late in realize (after
    the namespace memory, MSI-X and the FTL exist): 30 attempts leave no fd, thread or
    mapping behind."""
    stats = tmp_path / "stats"
    (stats / "IOPSData.csv").mkdir(parents=True)            # a folder where a file must go
    add = {"execute": "device_add",
           "arguments": {"driver": "femu", "id": "f0", "bus": "rp0", "stats_dir": str(stats),
                         **{k: int(v) for k, v in (kv.split("=") for kv in
                                                   SMALL_GEOMETRY.split(","))}}}
    probes = _qmp_session(nvme_qemu, [add] * 31, _resources)
    assert all("error" in reply for reply, _ in probes)
    assert "stats_dir" in probes[0][0]["error"]["desc"]
    first, last = probes[0][1], probes[-1][1]
    assert last[0] == first[0], f"file descriptors {first[0]} -> {last[0]}"
    assert last[1] == first[1], f"threads {first[1]} -> {last[1]}"
    assert last[2] - first[2] < 64 << 10, f"VmSize {first[2]} -> {last[2]} KiB"
