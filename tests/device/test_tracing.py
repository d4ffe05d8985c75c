"""Device observability: QEMU trace events (`-trace 'femu_*'`) follow a command from
doorbell to completion, GC shows up, and guest errors are logged with `-d guest_errors`
(hw/femu/CONTROLLER.md, "Tracing")."""
import re

from nvme_qtest import Command, Machine, femu_only, nvme_qemu, pattern, ready  # noqa: F401

pytestmark = femu_only()

# The engine cross-check's small device: GC starts after a few hundred page writes.
SMALL = "nchs=1,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=16,devsz_mb=3"


def logged(nvme_qemu, tmp_path, options, work, props=""):
    """Run work(nvme) on a controller started with QEMU logging options; the log text."""
    log = tmp_path / "qemu.log"
    machine = Machine(nvme_qemu, tmp_path, props, extra=[*options, "-D", str(log)])
    try:
        work(machine.nvme)
        machine.qt.terminate()      # a clean exit flushes the log
    finally:
        machine.qt.close()
    return log.read_text()


def test_trace_events_follow_commands(nvme_qemu, tmp_path):
    def work(nvme):
        sq = ready(nvme)[0]
        assert nvme.write(sq, 0, pattern(4096, 1)).ok
        assert nvme.read(sq, 0, 8)[0].ok
        nvme.disable()

    text = logged(nvme_qemu, tmp_path, ["-trace", "femu_*"], work)
    for event in ("femu_mmio_write", "femu_enable", "femu_doorbell", "femu_fetch",
                  "femu_cmd", "femu_cqe_post", "femu_irq_pin", "femu_reset"):
        assert f"{event} " in text, f"no {event} in the trace"
    # The write (opcode 1) and the read (opcode 2) on SQ 1, each executed and completed.
    assert re.search(r"femu_cmd sqid 1 cid \d+ opcode 0x1 nsid 1 status 0x0\b", text)
    assert re.search(r"femu_cmd sqid 1 cid \d+ opcode 0x2 nsid 1 status 0x0\b", text)
    assert len(re.findall(r"femu_cqe_post cqid 1 sqid 1 cid \d+ status 0x0 ", text)) == 2
    assert "femu_doorbell qid 1 sq tail 1" in text


def test_trace_shows_gc(nvme_qemu, tmp_path):
    def work(nvme):
        sq = ready(nvme)[0]
        for round_ in range(3):              # 3 x the logical space, 16 pages a command
            for lba in range(0, 768 * 8, 128):
                assert nvme.run(sq, Command(0x08, nsid=1, cdw10=lba, cdw12=127)).ok

    text = logged(nvme_qemu, tmp_path, ["-trace", "femu_gc"], work, SMALL)
    runs = re.findall(r"femu_gc (foreground|background) GC: (\d+) lines, (\d+) pages moved, "
                      r"(\d+) blocks erased", text)
    assert runs, "no femu_gc event"
    assert all(int(lines) >= 1 and int(erased) >= 2 * int(lines)
               for _, lines, _, erased in runs)


def test_guest_errors_are_logged(nvme_qemu, tmp_path):
    def work(nvme):
        sq = ready(nvme)[0]
        nvme.writel(nvme.doorbell(sq.qid, False), 1000)          # beyond the 64 entries
        nvme.writel(nvme.doorbell(200, False), 1)                # no such queue
        assert nvme.run(sq, Command(0x7F, nsid=1)).status == 0x4001   # Invalid Opcode, DNR

    text = logged(nvme_qemu, tmp_path, ["-d", "guest_errors"], work)
    assert "femu: SQ tail doorbell of queue 1: 1000 is beyond the queue's 64 entries" in text
    assert "no such doorbell" in text
    assert re.search(r"femu: sqid 1 cid \d+ opcode 0x7f nsid 1: status 0x4001", text)
