"""Queue create/delete: what the host must expect of one, from the queues that will
exist when the device gets to it (the admin queue runs in order), and whether the new
queue is one the host can use. A mixin of Executor (executor.py)."""
import struct

from .layout import MAX_SLOTS, classify, cq_slot, sq_slot


class QueueRules:
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
        entry = 16 if opcode == 0x05 else 64
        last = classify(prp1 + qsize * entry - 1, self.nvme.bars.values())
        if where == "ram" and last != "ram":
            where = "unassigned"   # runs off the end of RAM: not all of it is memory
        exp, why = self._queue_expectation(opcode, flags, qid, qsize, prp1, cdw11, where)
        # A queue anywhere but its slot is never used: the host rings and reaps only its
        # own, so a queue elsewhere (even over MMIO) gets no entries and posts nothing.
        if opcode == 0x05:
            ours = prp1 == cq_slot(qid) and qid < MAX_SLOTS
            # Zeroed (so its phase tags mean something) unless a CQ with this qid is
            # live or on its way: then this create fails and the slot is in use.
            if ours and qid not in m.cqs and not self._cq_recreating(qid):
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
