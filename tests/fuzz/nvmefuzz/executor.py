"""Runs action records against a target, keeps the host model in step, and raises a
Failure the moment the oracle sees one. The same code runs a fresh campaign and a
replay: everything a record does to the model is decided here, from the record and the
model, never from how the record was generated.

Records (JSON objects, key "a"):
  sub      write an SQE into an SQ's next slot (not yet rung), after its guest memory
  ring     publish every SQ's new tail (MMIO doorbell, or shadow + EventIdx rule)
  sync     ring, then reap until nothing owed is outstanding; check CSTS and stderr
  reg/rd   a BAR0 write/read at any offset and width
  cfg      a PCI config space write (through the 0xCF8 ports)
  disable / enable / toggle / shutdown / bad_enable   controller state changes
  remap    map the BARs again (after a DMA may have written config space)
  stall    leave the device alone for a moment (no reaping)
  idle     the device, left alone, must stop using CPU
"""
import struct
import time
from collections import defaultdict
from typing import Dict, List, Optional, Tuple

import nvme_qtest
from femu_lab.qtest import QTestError
from nvme_qtest import CAP, CC, CSTS, AQA, ASQ, ACQ, VS, Cqe, need_event

from . import judge as judging
from .failure import Failure
from .layout import (DBBUF_EVENTIDX, DBBUF_SHADOW, MAX_SLOTS, classify, cq_slot, sq_slot)
from .model import Cq, Model, Pending, Sq
from . import target as target_module
from .target import Target, sanitizer_report

NSZE = (64 << 20) // 512        # SMALL_GEOMETRY: devsz_mb=64 of 512-byte sectors
MDTS_BYTES = 4096 << 8          # target.DEVICE_PROPS mdts=8
QUEUES = 16                     # target.DEVICE_PROPS queues=16
CC_IOQES = 6 << 16 | 4 << 20    # IOSQES 64 bytes, IOCQES 16 bytes


def _pieces(off: int, width: int):
    """How QEMU's memory core cuts an access for a region of at most 8-byte accesses
    without unaligned support: (offset, size) pieces, each naturally aligned."""
    end = off + width
    while off < end:
        size = min(end - off, 8, (off & -off) or 8)
        size = 1 << (size.bit_length() - 1)
        yield off, size
        off += size


class Executor:
    def __init__(self, target: Target, deadline: float = 10.0):
        self.t, self.qt, self.nvme = target, target.qt, target.nvme
        self.deadline = deadline
        self.m = Model(QUEUES, NSZE, MDTS_BYTES)
        self.mem_ops: List[Tuple[int, object]] = []   # (addr, bytes | zero length)
        self.next_cid: Dict[int, int] = defaultdict(lambda: 1)
        self.ghosts = set()       # commands of deleted SQs: may still complete, harmlessly
        self.index = 0
        self.sent = 0             # SQEs submitted
        self.flood_sent = 0       # of which in pool-exhaustion floods
        self.statuses = defaultdict(int)   # (tag, status code) -> count, for tuning
        self.skipped = 0          # records a replay could not apply (no such queue)
        self.cap = self.nvme.readq(CAP)
        self.vs = self.nvme.readl(VS)

    # ------------------------------------------------------------------ entry point

    def run(self, rec: dict, index: int = 0) -> None:
        self.index = index
        try:
            getattr(self, "do_" + rec["a"])(rec)
        except Failure as failure:
            failure.index = index
            raise
        except QTestError as exc:
            raise self._lost(str(exc)) from None
        except OSError as exc:     # /proc gone: QEMU died under us
            raise self._lost(str(exc)) from None

    def _lost(self, what: str) -> Failure:
        """QEMU stopped answering: dead (crash) or alive and silent (hang)."""
        time.sleep(0.2)
        if not self.t.alive():
            text = self.qt.close()
            report = sanitizer_report(text)
            kind = "sanitizer" if report else "crash"
            tail = report or "\n".join(text.strip().splitlines()[-8:])
            failure = Failure(kind, f"QEMU exited ({self.qt.returncode}): {tail}")
        else:
            failure = Failure("hang", f"QEMU alive but not answering qtest: {what}")
        failure.index = self.index
        return failure

    def check_process(self) -> None:
        if not self.t.alive():
            raise self._lost("process exited")
        report = sanitizer_report(self.qt.drain_stderr())
        if report:
            raise Failure("sanitizer", report)

    # ------------------------------------------------------------------ guest memory

    def _flush_mem(self) -> None:
        """Write pending guest memory, merging runs that follow each other."""
        ops, self.mem_ops = self.mem_ops, []
        i = 0
        while i < len(ops):
            addr, data = ops[i]
            if isinstance(data, int):
                self.qt.memset(addr, data, 0)
                i += 1
                continue
            buf = bytearray(data)
            i += 1
            while i < len(ops) and not isinstance(ops[i][1], int) and \
                    ops[i][0] == addr + len(buf):
                buf += ops[i][1]
                i += 1
            self._write(addr, bytes(buf))

    def _write(self, addr: int, data: bytes) -> None:
        (self.qt.b64write if len(data) > 256 else self.qt.memwrite)(addr, data)

    def _read(self, addr: int, n: int) -> bytes:
        return self.qt.b64read(addr, n) if n > 256 else self.qt.memread(addr, n)

    # ------------------------------------------------------------------ submission

    def do_sub(self, rec: dict) -> None:
        m = self.m
        sq = m.sqs.get(rec["q"])
        if sq is None or not sq.ours or m.room(sq) <= 0 or (rec["q"] and not m.enabled):
            self.skipped += 1
            return
        raw = bytearray(bytes.fromhex(rec["sqe"]))
        opcode, flags = raw[0], raw[1] & 0xC3
        cdw10, cdw11 = struct.unpack_from("<II", raw, 40)
        admin = sq.qid == 0
        hazard, exp, why = judging.judge(rec, admin, opcode, flags, cdw11)
        create = None
        trusted = m.trusted           # before this entry's own hazards
        if admin and opcode in (0x00, 0x01, 0x04, 0x05):
            exp, why, create = self._queue_rule(opcode, flags, raw, cdw10, cdw11)
        if not admin and m.sq_changing(sq.qid):
            self._scramble(f"submission to SQ {sq.qid} while it is being deleted")
        if admin and opcode == 0x7C:
            prp1, prp2 = struct.unpack_from("<QQ", raw, 24)
            create = {"op": 0x7C, "ours": (prp1, prp2) == (DBBUF_SHADOW, DBBUF_EVENTIDX)}
        for addr, data in rec.get("mem", ()):
            self.mem_ops.append((addr, bytes.fromhex(data)))
        cid = self.next_cid[sq.qid]
        self.next_cid[sq.qid] = cid % 0xFFFE + 1
        struct.pack_into("<H", raw, 2, cid)
        sq.pending.append(bytes(raw))
        sq.tail = (sq.tail + 1) % sq.size
        # Owed only while the host trusts its view (and never a held AER); an expectation
        # is kept when this entry itself is what makes the view untrustworthy.
        owed = m.trusted and m.enabled and not (admin and opcode == 0x0C)
        m.pending[(sq.qid, cid)] = Pending(sq.qid, cid, opcode, self.index,
                                           exp if trusted else None, why, owed, create,
                                           rec.get("tag", ""))
        self.sent += 1
        self.flood_sent += rec.get("tag") == "flood"
        if hazard:
            self._scramble(f"{rec.get('tag', '')} writes guest RAM the host uses",
                           keep=(sq.qid, cid))

    def _scramble(self, why: str, keep=None) -> None:
        """Queue rings may no longer hold what the host wrote: nothing is owed, and no
        completion can be held against the device (except, for `keep`, the status the
        entry that caused this must have)."""
        self.m.chaos = True
        self.m.release_all()
        for key, p in self.m.pending.items():
            if key != keep:
                p.expect = None

    def _queue_rule(self, opcode, flags, raw, cdw10, cdw11):
        """(expectation, why, parameters) for a queue create/delete, judged against the
        queues that will exist when the device gets to it (the admin queue runs in
        order); no expectation when that is unknown. Then what the new queue's place
        does to the host's trust."""
        m = self.m
        prp1 = struct.unpack_from("<Q", raw, 24)[0]
        qid, qsize = cdw10 & 0xFFFF, (cdw10 >> 16) + 1
        create = {"op": opcode, "qid": qid, "size": qsize, "addr": prp1,
                  "cqid": cdw11 >> 16, "ours": False}
        where = classify(prp1, self.nvme.bars.values())
        exp, why = self._queue_expectation(opcode, flags, qid, qsize, prp1, cdw11, where)
        # A queue anywhere but its slot is never used: the host rings and reaps only its
        # own, so a queue elsewhere (even over MMIO) gets no entries and posts nothing.
        if opcode == 0x05:
            ours = prp1 == cq_slot(qid) and qid < MAX_SLOTS
            if ours and qid not in m.cqs and not m.queue_admin_busy():
                self.mem_ops.append((cq_slot(qid), 2048 * 16))   # phase tags start at 0
                create["ours"] = True
        elif opcode == 0x01:
            create["ours"] = prp1 == sq_slot(qid) and qid < MAX_SLOTS
        return exp, why, create

    def _queue_expectation(self, opcode, flags, qid, qsize, prp1, cdw11, where):
        m = self.m
        if self.m.pred is None or not m.trusted:
            self.m.pred = None
            return None, ""
        cqs, sqs = self.m.pred
        if flags:
            return "fail", "queue rule: FUSE/PSDT set"
        valid_qid = 1 <= qid <= m.queues
        placed = prp1 and not prp1 % m.page_size
        if opcode == 0x05:
            ien, iv = cdw11 & 2, cdw11 >> 16
            ok = (valid_qid and qid not in cqs and 2 <= qsize <= 2048 and cdw11 & 1 and
                  placed and not (ien and iv > m.queues))
            if ok and where in ("mmio", "unassigned", "rom"):
                return "fail", "queue-not-ram: CQ outside writable guest RAM accepted"
            if ok and where == "low":     # RAM or ROM shadow: either answer is fair
                self.m.pred = None
                return None, ""
            if ok:
                cqs.add(qid)
        elif opcode == 0x01:
            cqid = cdw11 >> 16
            ok = (valid_qid and qid not in sqs and 2 <= qsize <= 2048 and cqid in cqs and
                  cdw11 & 1 and placed)
            if ok and where in ("mmio", "unassigned"):
                return "fail", "queue-not-ram: SQ outside guest memory accepted"
            if ok and where in ("low", "rom"):
                self.m.pred = None
                return None, ""
            if ok:
                sqs[qid] = cqid
        elif opcode == 0x00:
            ok = valid_qid and qid in sqs
            if ok:
                del sqs[qid]
        else:
            ok = valid_qid and qid in cqs and qid not in sqs.values()
            if ok:
                cqs.discard(qid)
        return ("ok" if ok else "fail"), "queue rule (CONTROLLER.md)"

    # ------------------------------------------------------------------ doorbells

    def _publish(self, qid: int, cq: bool, value: int, old: int, always: bool = False) -> None:
        m = self.m
        if qid == 0 or m.dbbuf is None:
            self.nvme.writel(self.nvme.doorbell(qid, cq), value)
            return
        shadow, eventidx = m.dbbuf
        slot = (2 * qid + int(cq)) * 4
        self.qt.writel(shadow + slot, value)
        if always or need_event(self.qt.readl(eventidx + slot), value, old):
            self.nvme.writel(self.nvme.doorbell(qid, cq), value)

    def do_ring(self, rec: dict) -> None:
        """I/O queues first, the admin queue last: a delete and re-create of an SQ queued
        with them must not see this ring's tail for the old queue land on the new one."""
        self._flush_mem()
        for sq in sorted(self.m.sqs.values(), key=lambda q: q.qid == 0):
            if not sq.pending:
                continue
            start = (sq.tail - len(sq.pending)) % sq.size
            first = min(len(sq.pending), sq.size - start)
            self._write(sq.addr + start * 64, b"".join(sq.pending[:first]))
            if first < len(sq.pending):
                self._write(sq.addr, b"".join(sq.pending[first:]))
            sq.pending = []
            self._publish(sq.qid, False, sq.tail, sq.rung_tail, bool(rec.get("mm")))
            sq.rung_tail = sq.tail

    # ------------------------------------------------------------------ completions

    def _reap(self, cq: Cq) -> int:
        """Take what the device posted on cq; returns how many entries."""
        m = self.m
        taken = 0
        while True:
            owed = sum(1 for p in m.pending.values()
                       if p.sqid in m.sqs and m.sqs[p.sqid].cqid == cq.qid)
            count = min(cq.size - cq.head, max(8, owed + len(self.ghosts) + 4))
            raw = self._read(cq.addr + cq.head * 16, count * 16)
            got = 0
            for i in range(count):
                cqe = Cqe.unpack(raw[i * 16:(i + 1) * 16])
                if cqe.phase != cq.phase:
                    break
                self._complete(cq, cqe)
                got += 1
            old = cq.head
            cq.head += got
            if cq.head == cq.size:
                cq.head, cq.phase = 0, cq.phase ^ 1
            taken += got
            if got:
                self._publish(cq.qid, True, cq.head, old)
            if got < count or not got:
                return taken

    def _complete(self, cq: Cq, cqe: Cqe) -> None:
        m = self.m
        key = (cqe.sqid, cqe.cid)
        p = m.pending.pop(key, None)
        if p is None:
            if key in self.ghosts:
                self.ghosts.discard(key)
            elif m.trusted:
                raise Failure("spurious-cqe", f"{cqe} on CQ {cq.qid} matches no command "
                              "outstanding (posted after a reset or delete, or twice)")
            return
        if m.trusted:
            sq = m.sqs.get(cqe.sqid)
            if sq is not None and sq.cqid != cq.qid:
                raise Failure("wrong-cq", f"{cqe} for SQ {cqe.sqid} arrived on CQ {cq.qid}, "
                              f"not its CQ {sq.cqid}")
            if sq is not None and cqe.sqhd >= sq.size:
                raise Failure("bad-sqhd", f"{cqe}: SQ head beyond SQ {sq.qid} of {sq.size}")
            if cqe.code and not cqe.dnr:
                raise Failure("no-dnr", f"{cqe} (opcode {p.opcode:#04x}): an error without "
                              "DNR (CONTROLLER.md: every error completes with DNR set)")
        self.statuses[(p.tag.split(":")[0].split("/")[0], cqe.code)] += 1
        if p.expect == "ok" and cqe.code:
            raise Failure("status", f"opcode {p.opcode:#04x} on SQ {p.sqid} (record "
                          f"{p.index}): {cqe}; expected success ({p.why})")
        if p.expect == "fail" and not cqe.code:
            raise Failure("status", f"opcode {p.opcode:#04x} on SQ {p.sqid} (record "
                          f"{p.index}) succeeded; expected an error ({p.why}): {cqe}")
        if not cqe.code:
            self._applied(p, cqe)

    def _applied(self, p: Pending, cqe: Cqe) -> None:
        """A successful admin command that changes what the host may use."""
        m = self.m
        if p.sqid != 0:
            return
        c = p.create
        if c is not None and c["op"] == 0x05:
            m.cqs[c["qid"]] = Cq(c["qid"], c["size"], c["addr"], ours=c["ours"])
        elif c is not None and c["op"] == 0x01:
            m.sqs[c["qid"]] = Sq(c["qid"], c["size"], c["addr"], c["cqid"], ours=c["ours"])
        elif c is not None and c["op"] == 0x00 and c["qid"] in m.sqs:
            self._drop_sq(c["qid"])
        elif c is not None and c["op"] == 0x04 and c["qid"] in m.cqs:
            del m.cqs[c["qid"]]
            for qid in [q for q, sq in m.sqs.items() if sq.cqid == c["qid"]]:
                self._drop_sq(qid)
        elif c is not None and c["op"] == 0x7C:
            self._dbbuf_on(p)

    def _drop_sq(self, qid: int) -> None:
        m = self.m
        del m.sqs[qid]
        for key in [k for k in m.pending if k[0] == qid]:
            m.pending.pop(key)
            self.ghosts.add(key)

    def _dbbuf_on(self, p: Pending) -> None:
        """Shadow doorbells from now on. With the fuzzer's own pair, the shadows get the
        host's current values (the device filled them from its own view) and every
        queue is rung once, so nothing waits on a value the device missed. Any other
        pair the device accepted means it now reads tails the host does not write."""
        m = self.m
        if not p.create["ours"]:
            self._scramble("Doorbell Buffer Config elsewhere accepted")
            return
        m.dbbuf = (DBBUF_SHADOW, DBBUF_EVENTIDX)
        for sq in m.sqs.values():
            # Not an SQ whose delete is queued: the device may have run it (and a create
            # of the same qid) already, and the old tail would land on the new queue.
            if sq.qid and sq.ours and not m.sq_changing(sq.qid, (0x00,)):
                self._publish(sq.qid, False, sq.rung_tail, sq.rung_tail, always=True)
        for cq in m.cqs.values():
            if cq.qid and cq.ours and not m.sq_changing(cq.qid, (0x04,)):
                self._publish(cq.qid, True, cq.head, cq.head, always=True)

    # ------------------------------------------------------------------ sync

    def do_sync(self, rec: dict) -> None:
        """Everything owed must complete within the deadline; then CSTS must say what
        the host expects. Polls with a growing sleep: qtest round trips are the cost."""
        m = self.m
        self.do_ring({})
        deadline = time.monotonic() + self.deadline
        nap = 0.0002
        while True:
            self.check_process()
            got = 0
            for cq in list(m.cqs.values()):
                if cq.ours and cq.qid in m.cqs:
                    got += self._reap(cq)
            owed = [p for p in m.pending.values() if p.owed]
            if not owed:
                break
            if time.monotonic() > deadline:
                first = min(owed, key=lambda p: p.index)
                raise Failure("deadline", f"{len(owed)} command(s) not completed within "
                              f"{self.deadline:g} s, first opcode {first.opcode:#04x} on SQ "
                              f"{first.sqid} (record {first.index}); CSTS "
                              f"{self.nvme.readl(CSTS):#x}")
            if got:
                nap = 0.0002
            else:
                time.sleep(nap)
                nap = min(nap * 2, 0.01)
        self._check_csts()
        if not m.queue_admin_busy():
            self.m.pred = ({q for q in m.cqs if q}, {q: sq.cqid for q, sq in m.sqs.items() if q})
        if m.chaos:
            m.chaos_batches += 1

    def _check_csts(self) -> None:
        m = self.m
        csts = self.nvme.readl(CSTS)
        if not m.enabled or m.tainted:
            return
        if csts & nvme_qtest.CSTS_CFS:
            if m.trusted:
                raise Failure("csts", f"CSTS {csts:#x}: fatal status with every queue in "
                              "guest RAM and no pointer outside it")
            m.fatal = True
            m.release_all()
            return
        if not csts & nvme_qtest.CSTS_RDY:
            raise Failure("csts", f"CSTS {csts:#x}: RDY dropped while enabled, no reset")
        if not m.shut_down and (csts >> 2) & 3:
            raise Failure("csts", f"CSTS {csts:#x}: SHST set with no shutdown requested")

    # ------------------------------------------------------------------ registers

    def do_reg(self, rec: dict) -> None:
        """A BAR0 write. QEMU splits it into naturally aligned pieces of at most 8 bytes
        (an 8-byte write at 0x14 is two dword writes); femu drops pieces under 4 bytes,
        stores register dwords, and takes doorbells as single dwords only."""
        self._flush_mem()
        off, width, value = rec["off"], rec["w"], rec["v"]
        self.qt.command(f"write{'bwlq'[width.bit_length() - 1]} "
                        f"{self.nvme.bar0 + off:#x} {value:#x}")
        for piece_off, size in _pieces(off, width):
            piece = (value >> (8 * (piece_off - off))) & ((1 << (8 * size)) - 1)
            if size < 4:
                continue
            if piece_off >= 0x1000:
                if size == 4:
                    self._doorbell_effect(piece_off, piece)
                continue
            for i in range(0, size, 4):
                if piece_off + i == CC:
                    self._cc_effect((piece >> (8 * i)) & 0xFFFF_FFFF)

    def _doorbell_effect(self, off: int, value: int) -> None:
        m = self.m
        qid, is_cq = (off - 0x1000) // 8, bool((off - 0x1000) // 4 & 1)
        queue = (m.cqs if is_cq else m.sqs).get(qid)
        if queue is None:
            return   # no such queue: the write is ignored (or the queue not ours)
        value &= 0xFFFF
        expected = queue.head if is_cq else queue.rung_tail
        if value >= queue.size or value == expected:
            return   # out of range: ignored
        self._scramble(f"doorbell {off:#x} = {value} (host meant {expected})")

    def _cc_effect(self, cc: int) -> None:
        m = self.m
        if (cc ^ m.cc) & (1 | 3 << 14):
            m.tainted = True        # enable/shutdown behind the model's back
            self._scramble("CC EN/SHN written")
        m.cc = cc

    def do_rd(self, rec: dict) -> None:
        width = rec["w"]
        self.qt.command(f"read{'bwlq'[width.bit_length() - 1]} {self.nvme.bar0 + rec['off']:#x}")

    def do_cfg(self, rec: dict) -> None:
        """PCI config space write of our function (command register, BARs, MSI-X...)."""
        self._flush_mem()
        self.qt.pci_config_writel(nvme_qtest.SLOT, rec["off"], rec["v"])
        self.m.tainted = True
        self._scramble("PCI config space written")

    def do_mmio(self, rec: dict) -> None:
        """A write to another BAR of ours (the MSI-X table and PBA)."""
        base = self.nvme.bars.get(rec["bar"], (0, 0))[0]
        if base:
            self.qt.writel(base + rec["off"], rec["v"])

    def do_stop(self, rec: dict) -> None:
        """SIGTERM, as when a user quits: exit handlers run (statistics, the LPN dump,
        the threads stop). QEMU must exit, cleanly and without sanitizer reports."""
        self.check_process()
        code, text = self.t.stop()
        report = sanitizer_report(text)
        if report:
            raise Failure("sanitizer", report)
        if code is None:
            raise Failure("exit-hang", "QEMU did not exit within "
                          f"{target_module.EXIT_TIMEOUT:g} s of SIGTERM")
        if code != 0:
            tail = "\n".join(text.strip().splitlines()[-8:])
            raise Failure("exit-status", f"QEMU exited {code} after SIGTERM: {tail}")

    def do_remap(self, rec: dict) -> None:
        self.t.remap()

    def do_stall(self, rec: dict) -> None:
        self.do_ring({})
        time.sleep(rec.get("s", 0.2))
        self.check_process()

    def do_idle(self, rec: dict) -> None:
        self.check_process()
        share = self.t.idle_cpu_busy()
        if share is not None:
            raise Failure("busy-idle", f"QEMU kept using {share:.0%} of a core with the host "
                          f"doing nothing ({len(self.m.pending)} commands outstanding)")

    # ------------------------------------------------------------------ controller state

    def _wait_csts(self, what: str, done) -> int:
        deadline = time.monotonic() + self.deadline
        while True:
            csts = self.nvme.readl(CSTS)
            if done(csts):
                return csts
            if time.monotonic() > deadline:
                raise Failure("csts-stuck", f"{what}: CSTS {csts:#x} after {self.deadline:g} s")
            self.check_process()
            time.sleep(0.0005)

    def _untaint(self) -> None:
        """Before a state change: if a DMA or a config write may have moved our BARs or
        turned bus mastering off, put them back first, or the reset goes nowhere."""
        if self.m.tainted:
            self.t.remap()

    def _forget(self) -> None:
        self.m.forget_queues()
        self.m.enabled = False
        self.ghosts = set()
        self.m.pred = (set(), {})
        self.mem_ops = [(a, d) for a, d in self.mem_ops if not isinstance(d, int)]
        self.m.sqs = {}

    def do_disable(self, rec: dict) -> None:
        """CC.EN = 0 (a controller reset); RDY must drop."""
        self._untaint()
        self._flush_mem()
        self.m.cc &= ~(1 | 3 << 14)
        self.nvme.writel(CC, self.m.cc)
        self._wait_csts("disable", lambda c: not c & nvme_qtest.CSTS_RDY)
        self._forget()

    def _program_admin(self, rec: dict) -> int:
        asqs, acqs, mps = rec["asqs"], rec["acqs"], rec.get("mps", 0)
        self.mem_ops.append((cq_slot(0), acqs * 16))
        self._flush_mem()
        self.nvme.writel(AQA, (acqs - 1) << 16 | (asqs - 1))
        self.nvme.writeq(ASQ, sq_slot(0))
        self.nvme.writeq(ACQ, cq_slot(0))
        return 1 | mps << 7 | CC_IOQES

    def _ready(self, rec: dict, cc: int, what: str) -> None:
        """After CC.EN = 1 with good values: RDY, nothing else, registers as written."""
        csts = self._wait_csts(what, lambda c: c & (nvme_qtest.CSTS_RDY | nvme_qtest.CSTS_CFS))
        if csts != nvme_qtest.CSTS_RDY:
            raise Failure("csts", f"{what}: CSTS {csts:#x} after enabling with valid values "
                          "(want RDY alone: no CFS, SHST 0)")
        asqs, acqs = rec["asqs"], rec["acqs"]
        seen = (self.nvme.readl(CC), self.nvme.readl(AQA), self.nvme.readq(ASQ),
                self.nvme.readq(ACQ), self.nvme.readq(CAP), self.nvme.readl(VS))
        want = (cc, (acqs - 1) << 16 | (asqs - 1), sq_slot(0), cq_slot(0), self.cap, self.vs)
        if seen != want:
            raise Failure("registers", f"{what}: CC/AQA/ASQ/ACQ/CAP/VS read "
                          f"{[hex(v) for v in seen]}, want {[hex(v) for v in want]}")
        m = self.m
        m.enabled, m.cc, m.page_size = True, cc, 4096 << rec.get("mps", 0)
        m.cqs = {0: Cq(0, acqs, cq_slot(0))}
        m.sqs = {0: Sq(0, asqs, sq_slot(0), 0)}

    def do_enable(self, rec: dict) -> None:
        if self.m.enabled:
            self.do_disable(rec)
        cc = self._program_admin(rec)
        self.nvme.writel(CC, cc)
        self._ready(rec, cc, "enable")

    def do_toggle(self, rec: dict) -> None:
        """CC.EN 1 -> 0 -> 1 without waiting for RDY in between (a fast reset): the
        controller must come back reset, on the new admin queue."""
        self._untaint()
        self._flush_mem()
        self.nvme.writel(CC, self.m.cc & ~(1 | 3 << 14))
        self._forget()
        cc = self._program_admin(rec)
        self.nvme.writel(CC, cc)
        self._ready(rec, cc, "toggle")

    def do_shutdown(self, rec: dict) -> None:
        """CC.SHN = normal shutdown with commands in flight: SHST must reach complete."""
        m = self.m
        if not m.enabled:
            return
        self._untaint()
        self.do_ring({})
        m.cc = (m.cc & ~(3 << 14)) | 1 << 14
        self.nvme.writel(CC, m.cc)
        m.shut_down = True
        m.release_all()
        self._wait_csts("shutdown", lambda c: (c >> 2) & 3 == 2)

    def do_bad_enable(self, rec: dict) -> None:
        """Enable with one invalid value: the controller must report CFS, not RDY."""
        if self.m.enabled:
            self.do_disable(rec)
        self._flush_mem()
        self.nvme.writel(AQA, rec["aqa"])
        self.nvme.writeq(ASQ, rec["asq"])
        self.nvme.writeq(ACQ, rec["acq"])
        self.nvme.writel(CC, rec["cc"])
        csts = self._wait_csts("bad enable",
                               lambda c: c & (nvme_qtest.CSTS_RDY | nvme_qtest.CSTS_CFS))
        self.nvme.writel(CC, 0)
        self.m.cc = 0
        if not csts & nvme_qtest.CSTS_CFS:
            raise Failure("status", f"enable with {rec['why']} gave CSTS {csts:#x}, "
                          "want CFS (enable must fail)")
        self._wait_csts("disable after a failed enable", lambda c: not c & nvme_qtest.CSTS_RDY)
