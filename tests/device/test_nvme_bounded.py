"""Work a guest can queue is bounded: Dataset Management within advertised limits, QEMU
exit and controller reset prompt whatever is queued, LPN dumps coalesced, phase markers
capped, and a shutdown's late save never reports a stale "complete"."""
import base64
import struct
import time
from typing import List

from nvme_qtest import (ADM_IDENTIFY, ADM_VENDOR_LPN_COUNTS, ADM_VENDOR_PHASE, CC, CSTS,
                        CSTS_RDY, IO_DSM, SC_INVALID_FIELD, SC_LBA_OUT_OF_RANGE, Command,
                        POLL_SLEEP, femu_only, nvme_qemu, pattern, ready, start,  # noqa: F401
                        thread_cpu_seconds, trace_args, traced, wait_for)

pytestmark = femu_only()

SC_CMD_SIZE_LIMIT = 0x183
GIB_LBAS = (1 << 30) // 512
# The shipped 12 GiB default (femu-default.conf), overriding the tests' small geometry.
DEFAULT_GEOMETRY = ("pgs_per_blk=256,blks_per_pl=256,luns_per_ch=8,nchs=8,devsz_mb=12288")
DEFAULT_NSZE = 12288 * 2048
EXIT_DEADLINE = 15.0      # hangs only: today's work finishes in well under a second


def submit_batch(nvme, sq, commands: List[Command]) -> List[int]:
    """Write the commands into consecutive SQ slots with one memory write per run of
    slots, ring once; return their CIDs (fast enough for thousands of commands)."""
    cids, runs, start_slot, blob = [], [], sq.tail, b""
    for cmd in commands:
        cid = sq.next_cid
        sq.next_cid = sq.next_cid % 0xFFFE + 1
        cids.append(cid)
        blob += cmd.pack(cid)
        sq.tail = (sq.tail + 1) % sq.size
        if sq.tail == 0:
            runs.append((start_slot, blob))
            start_slot, blob = 0, b""
    if blob:
        runs.append((start_slot, blob))
    for slot, data in runs:
        nvme.qt.command(f"b64write {sq.addr + 64 * slot:#x} {len(data):#x} "
                        f"{base64.b64encode(data).decode()}")
    nvme.ring_sq(sq)
    return cids


def dsm(nvme, ranges) -> Command:
    table = b"".join(struct.pack("<IIQ", 0, nlb, slba) for slba, nlb in ranges)
    return Command(IO_DSM, nsid=1, prp1=nvme.buffer(table), cdw10=len(ranges) - 1,
                   cdw11=1 << 2)


# ---- Dataset Management limits

def test_identify_reports_dsm_limits(start):
    nvme = start(DEFAULT_GEOMETRY).nvme
    ready(nvme, io_queues=0)
    buf = nvme.mem.alloc(4096)
    cqe = nvme.admin(Command(ADM_IDENTIFY, prp1=buf, cdw10=0x06, cdw11=0))
    assert cqe.ok
    dmrl, dmrsl, dmsl = struct.unpack_from("<xxxBIQ", nvme.qt.memread(buf, 16))
    assert (dmrl, dmrsl, dmsl) == (255, GIB_LBAS, GIB_LBAS)
    cqe = nvme.admin(Command(ADM_IDENTIFY, prp1=buf, cdw10=0x06, cdw11=2 << 24))
    assert cqe.code == SC_INVALID_FIELD                     # only the NVM command set


def test_dsm_beyond_the_limits_is_refused(start):
    nvme = start(DEFAULT_GEOMETRY).nvme
    sq = ready(nvme)[0]
    assert nvme.write(sq, 100, pattern(4096, 1)).ok
    too_long = [(0, GIB_LBAS + 1)]
    too_much = [(0, GIB_LBAS // 2), (GIB_LBAS, GIB_LBAS // 2 + 8)]
    too_many = [(8 * i, 8) for i in range(256)]
    for ranges in (too_long, too_much, too_many):
        assert nvme.run(sq, dsm(nvme, ranges)).code == SC_CMD_SIZE_LIMIT
    assert nvme.run(sq, dsm(nvme, [(DEFAULT_NSZE - 8, 16)])).code == SC_LBA_OUT_OF_RANGE
    cqe, got = nvme.read(sq, 100, 8)
    assert cqe.ok and got == pattern(4096, 1)              # refused means untouched
    assert nvme.run(sq, dsm(nvme, [(0, GIB_LBAS)])).ok     # exactly the limit


def queue_heavy_dsms(nvme, sq, count: int = 64) -> None:
    """count DSMs over the whole 12 GiB namespace: 256 ranges of the full namespace each
    (what kept the FTL thread busy for about a minute before the limits existed; refused
    now), then 8 within the limits (255 ranges of 1 GiB / 255 blocks each)."""
    step = DEFAULT_NSZE // 255
    ranges = [(i * step, GIB_LBAS // 255) for i in range(255)]
    old_style = [(0, DEFAULT_NSZE)] * 256
    cmds = [dsm(nvme, old_style if i < count - 8 else ranges) for i in range(count)]
    submit_batch(nvme, sq, cmds)


def machine_with_dsms_queued(start, tmp_path):
    """A 12 GiB default device whose FTL thread has 64 DSMs to get through."""
    log = tmp_path / "femu-trace.log"
    machine = start(DEFAULT_GEOMETRY, extra=trace_args(log, "femu_cmd"))
    sq = ready(machine.nvme, size=128)[0]
    queue_heavy_dsms(machine.nvme, sq)
    # fetched, with the FTL thread: the poller traces femu_cmd for each DSM it has taken
    # (refused, or handed to the FTL thread)
    wait_for(lambda: traced(log, "femu_cmd sqid 1 cid ") >= 64, timeout=30,
             what="femu_cmd trace events of the 64 DSMs")
    return machine


def test_qemu_exits_promptly_with_dsms_queued(start, tmp_path):
    machine = machine_with_dsms_queued(start, tmp_path)
    began = time.monotonic()
    machine.qt.terminate(timeout=60)
    took = time.monotonic() - began
    print(f"exit with 64 DSMs queued: {took:.2f} s")
    assert machine.qt.returncode == 0 and took < EXIT_DEADLINE


def test_reset_is_prompt_with_dsms_queued(start, tmp_path):
    nvme = machine_with_dsms_queued(start, tmp_path).nvme
    began = time.monotonic()
    nvme.disable()
    sq = ready(nvme)[0]
    assert nvme.write(sq, 0, pattern(4096, 2)).ok          # served, not queued behind
    took = time.monotonic() - began
    print(f"reset + re-enable + one write with 64 DSMs queued: {took:.2f} s")
    assert took < EXIT_DEADLINE


# ---- vendor dumps and markers

def test_lpn_dumps_are_coalesced(start, tmp_path):
    """200 C0h at once on the 12 GiB default (3 M per-LPN counts a dump): each completes,
    but one dump is in flight at a time and the rest wait for the next, so the FTL thread
    spends about two dumps' CPU time, not two hundred (CPU time: counts, not rates)."""
    stats = tmp_path / "stats"
    machine = start(f"{DEFAULT_GEOMETRY},stats_dir={stats}")
    nvme = machine.nvme
    assert nvme.enable(asq_entries=256, acq_entries=256) & CSTS_RDY
    write_last_page(nvme)

    def ftl_cpu() -> float:
        return thread_cpu_seconds(machine.qt.pid, "femu-ftl")

    before = ftl_cpu()
    assert nvme.admin(Command(ADM_VENDOR_LPN_COUNTS), timeout=60).ok
    one = max(ftl_cpu() - before, 0.05)
    before = ftl_cpu()
    cids = submit_batch(nvme, nvme.asq, [Command(ADM_VENDOR_LPN_COUNTS)] * 200)
    assert all(cqe.ok for cqe in nvme.wait_all(nvme.asq, cids, timeout=120))
    many = ftl_cpu() - before
    print(f"one dump {one:.2f} s of FTL-thread CPU; 200 C0h commands {many:.2f} s")
    assert many < 10 * one


def test_phase_markers_are_capped(start, tmp_path):
    stats = tmp_path / "stats"
    nvme = start(f"stats_dir={stats}").nvme
    nvme.enable(asq_entries=256, acq_entries=256)
    marker = Command(ADM_VENDOR_PHASE, cdw12=int.from_bytes(b"mark", "little"))
    left = 4096
    while left:                                             # a 256-entry queue holds 255
        batch = min(left, 255)
        cids = submit_batch(nvme, nvme.asq, [marker] * batch)
        assert all(c.ok for c in nvme.wait_all(nvme.asq, cids, timeout=60))
        left -= batch
    cqe = nvme.admin(marker)
    assert cqe.code == SC_INVALID_FIELD and cqe.dnr
    rows = (stats / "phases.csv").read_text().splitlines()
    assert len(rows) == 1 + 4096


# ---- shutdown status

def write_last_page(nvme) -> None:
    """A dump covers every LPN up to the highest written: make that all 3 M of them."""
    sq = nvme.io_queue_pair(1, 16)
    assert nvme.write(sq, DEFAULT_NSZE - 8, pattern(4096, 9)).ok
    assert nvme.delete_sq(1).ok and nvme.delete_cq(1).ok


def _shst(nvme) -> int:
    return (nvme.readl(CSTS) >> 2) & 3


def shst_stays_normal_until_the_save_is_back(nvme, timeout: float = 120) -> None:
    """Poll SHST, which must stay 0, until the withdrawn shutdown's save of the per-LPN
    counts has come back to the poller. Dumps run one at a time and in order, so a vendor
    C0h dump sent now completes only after that save was answered: its CQE is the end of
    the watch (a deadline bounds it), not a wait of fixed length."""
    cid = nvme.submit(nvme.asq, Command(ADM_VENDOR_LPN_COUNTS))
    deadline = time.monotonic() + timeout
    while (0, cid) not in nvme.done:
        assert _shst(nvme) == 0
        assert time.monotonic() < deadline, f"no C0h completion within {timeout} s"
        nvme.reap(nvme.asq.cq)
        time.sleep(POLL_SLEEP)
    assert nvme.done.pop((0, cid)).ok
    assert _shst(nvme) == 0


def test_no_stale_shutdown_complete_after_reset(start, tmp_path):
    """CC.SHN starts a save of 3 M per-LPN counts; a reset before it ends must not see
    SHST "complete" appear later, on the re-enabled controller."""
    stats = tmp_path / "stats"
    nvme = start(f"{DEFAULT_GEOMETRY},stats_dir={stats}").nvme
    ready(nvme, io_queues=0)
    write_last_page(nvme)
    nvme.writel(CC, nvme.readl(CC) | 1 << 14)               # normal shutdown
    nvme.writel(CC, 0)                                      # reset at once
    ready(nvme, io_queues=0)
    shst_stays_normal_until_the_save_is_back(nvme)


def test_no_stale_shutdown_complete_after_shn_cleared(start, tmp_path):
    stats = tmp_path / "stats"
    nvme = start(f"{DEFAULT_GEOMETRY},stats_dir={stats}").nvme
    ready(nvme, io_queues=0)
    write_last_page(nvme)
    cc = nvme.readl(CC)
    nvme.writel(CC, cc | 1 << 14)
    nvme.writel(CC, cc)                                     # shutdown withdrawn
    nvme.wait_csts(0xC, 0)                                  # the poller has seen it
    shst_stays_normal_until_the_save_is_back(nvme)
    nvme.writel(CC, cc | 1 << 14)                           # a real one still completes
    nvme.wait_csts(0xC, 0x8, timeout=60)
