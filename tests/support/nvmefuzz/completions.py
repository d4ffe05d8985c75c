"""Reaping completions and the sync point: every owed command completes within the
deadline, every CQE matches a command, statuses are what the contract says, and a
successful admin command updates the host's view. A mixin of Executor (executor.py)."""
import time

import nvme_qtest
from nvme_qtest import CSTS, Cqe

from .failure import Failure
from .layout import DBBUF_EVENTIDX, DBBUF_SHADOW
from .model import Cq, Pending, Sq
from .ns_rules import AER_LBA_ALERT, AER_NS_NOTICE


class Completions:
    def _reap(self, cq: Cq) -> int:
        """Take what the device posted on cq; returns how many entries."""
        m = self.m
        taken = 0
        while True:
            owed = sum(m.outstanding(q) for q, sq in m.sqs.items() if sq.cqid == cq.qid)
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
        p = m.take(key)
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
        if p.tag in ("verify", "nsfix", "zcheck", "fdpcheck", "fdpcfg") or \
                p.tag.startswith("fdpq:"):
            self.last_cqe[key] = cqe
        if p.sqid == 0 and p.opcode == 0x0C and m.trusted:
            self._check_aer(p, cqe)
        if isinstance(p.expect, int) and cqe.code != p.expect:
            raise Failure("status", f"opcode {p.opcode:#04x} on SQ {p.sqid} (record "
                          f"{p.index}): {cqe}; expected status {p.expect:#05x} ({p.why})")
        if isinstance(p.expect, tuple) and cqe.code not in p.expect:
            raise Failure("status", f"opcode {p.opcode:#04x} on SQ {p.sqid} (record "
                          f"{p.index}): {cqe}; expected status "
                          f"{' or '.join(f'{c:#05x}' for c in p.expect)} ({p.why})")
        if p.expect == "ok" and cqe.code:
            raise Failure("status", f"opcode {p.opcode:#04x} on SQ {p.sqid} (record "
                          f"{p.index}): {cqe}; expected success ({p.why})")
        if p.dw0 is not None and not cqe.code and m.trusted and cqe.dw0 != p.dw0:
            raise Failure("status", f"opcode {p.opcode:#04x} on SQ {p.sqid} (record "
                          f"{p.index}): {cqe}; expected DW0 {p.dw0:#x} ({p.why})")
        if p.expect == "fail" and not cqe.code:
            raise Failure("status", f"opcode {p.opcode:#04x} on SQ {p.sqid} (record "
                          f"{p.index}) succeeded; expected an error ({p.why}): {cqe}")
        if p.create is not None and "ns_seq" in p.create:
            self._ns_done(p, cqe)
        if not cqe.code:
            self._applied(p, cqe)

    def _check_aer(self, p: Pending, cqe: Cqe) -> None:
        """An AER completes with success only for an event femu raises: the namespace
        attribute notice (DW0 040002h), possible once a Namespace Management, Attachment
        or Format NVM was sent since the enable, and the LBA status information alert
        (DW0 0E0502h), possible once a Write Uncorrectable was (a reset drops queued
        events). An error is AER Limit Exceeded, or Invalid Field for FUSE/PSDT (judged
        already)."""
        m = self.m
        if not cqe.code:
            if cqe.dw0 not in m.aer_events:
                raise Failure("aer", f"AER (record {p.index}) completed: {cqe}; femu raises "
                              f"the namespace attribute notice ({AER_NS_NOTICE:#x}) after a "
                              f"namespace command and the LBA status alert "
                              f"({AER_LBA_ALERT:#x}) after a Write Uncorrectable; possible "
                              f"since the enable: "
                              f"{sorted(hex(e) for e in m.aer_events) or 'none'}")
        elif cqe.code != nvme_qtest.SC_AER_LIMIT and p.expect != "fail":
            raise Failure("aer", f"AER (record {p.index}) completed: {cqe}; an AER gets "
                          f"success (an event) or AER Limit Exceeded "
                          f"({nvme_qtest.SC_AER_LIMIT:#x})")

    def _applied(self, p: Pending, cqe: Cqe) -> None:
        """A successful admin command that changes what the host may use."""
        m = self.m
        if p.sqid != 0:
            return
        c = p.create
        if c is not None and c["op"] in (0x01, 0x05):
            m.io_created = True     # Number of Queues is fixed until the next reset
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
            m.take(key)
            self.ghosts.add(key)

    def _dbbuf_on(self, p: Pending) -> None:
        """Shadow doorbells from now on. The controller must start the shadows at the
        doorbell values the host last wrote (as QEMU's nvme does). With "pub" the host
        does not rely on that: it writes its current values and rings every queue once,
        so nothing waits on a value the device missed. Any other pair the device
        accepted means it now reads tails the host does not write."""
        m = self.m
        if not p.create["ours"]:
            # Shadow doorbells are for I/O queues only.
            self._scramble("Doorbell Buffer Config elsewhere accepted", io_only=True)
            return
        m.dbbuf = (DBBUF_SHADOW, DBBUF_EVENTIDX)
        if p.create.get("pub", 1):
            self._republish(list(m.sqs), list(m.cqs))
            return
        # Without "pub" the host relies on the controller starting the shadows, but only
        # for values written before the config was queued: one written while it ran may
        # fall between the device reading the doorbells and writing the shadows (found by
        # seed 436), so it is written again now.
        window = sorted(m.dbbuf_window)
        self._republish([q for q, is_cq in window if not is_cq],
                        [q for q, is_cq in window if is_cq])
        if not m.dbbuf_queued():
            m.dbbuf_window.clear()

    def _republish(self, sq_ids, cq_ids) -> None:
        """Write the host's current value to these queues' shadows and ring each once.
        Not a queue whose delete and re-create are queued: the device may have run them
        already, and the old value would land on the new queue. A delete alone is
        harmless (a deleted queue's doorbell is ignored), and so is a create alone (it
        fails: the qid is taken)."""
        m = self.m
        for qid in sq_ids:
            sq = m.sqs.get(qid)
            if qid and sq is not None and sq.ours and not m.recreate_queued(qid):
                self._publish(qid, False, sq.rung_tail, sq.rung_tail, always=True)
        for qid in cq_ids:
            cq = m.cqs.get(qid)
            if qid and cq is not None and cq.ours and not m.recreate_queued(qid, cq=True):
                self._publish(qid, True, cq.head, cq.head, always=True)

    def _cq_recreating(self, qid: int) -> bool:
        return self.m.sq_changing(qid, (0x05,))

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
        if not m.ns_admin_busy():
            m.ns_pred = m.ns.copy() if m.ns is not None else None
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
