"""What the host believes about the controller: its queues, the commands it is owed
completions for, and how far it can trust that belief.

Trust has three levels. Clean: every command must complete, CQEs must match commands.
Chaos: something (a DMA into a queue ring, a doorbell value the host never meant) may have
scrambled a ring, so completions are no longer owed, but the controller must stay sane.
Tainted: a DMA may have reached registers (ours, or the machine's), so the controller's
state is unknown until the host maps the BARs again and resets it.
"""
from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple


@dataclass
class Cq:
    qid: int
    size: int
    addr: int
    head: int = 0
    phase: int = 1
    ours: bool = True          # in the fuzzer's slot for this qid (so it can be reaped)


@dataclass
class Sq:
    qid: int
    size: int
    addr: int
    cqid: int
    tail: int = 0
    rung_tail: int = 0         # the tail the device was last told
    next_cid: int = 1
    ours: bool = True
    pending: list = field(default_factory=list)   # packed SQEs not yet in guest memory


@dataclass
class Pending:
    """A submitted command the host is waiting for."""
    sqid: int
    cid: int
    opcode: int
    index: int                 # its record's position in the action list
    expect: Optional[str] = None   # "ok", "fail": what its status must be
    why: str = ""              # what the expectation rests on (for the report)
    owed: bool = True          # must complete by the next sync's deadline
    create: Optional[dict] = None  # queue create/delete parameters, applied on success
    tag: str = ""              # what the generator made it as (for statistics)


class Model:
    def __init__(self, queues: int, nsze: int, mdts_bytes: int):
        self.queues, self.nsze, self.mdts_bytes = queues, nsze, mdts_bytes
        self.enabled = False
        self.cc = 0
        self.page_size = 4096
        self.sqs: Dict[int, Sq] = {}
        self.cqs: Dict[int, Cq] = {}
        self.pending: Dict[Tuple[int, int], Pending] = {}   # use add() and take()
        self.per_sq: Dict[int, int] = {}     # len(pending) by SQ: a flood has 20k of them
        self.admin: Dict[Tuple[int, int], Pending] = {}   # the admin ones among them
        self.dbbuf: Optional[Tuple[int, int]] = None
        # (qid, is_cq) whose doorbell the host wrote while a config of its own was queued:
        # the config's initialisation (read, then write back) may have overwritten it.
        self.dbbuf_window: set = set()
        self.chaos = False
        self.tainted = False
        self.fatal = False        # CSTS.CFS seen
        self.shut_down = False    # CC.SHN written since the last enable
        self.chaos_batches = 0
        # The I/O queues as they will be once the queued admin commands ran (CQ ids, SQ
        # id -> CQ id), or None when some command could go either way.
        self.pred: Optional[Tuple[set, dict]] = (set(), {})

    def forget_queues(self) -> None:
        """A reset: the controller forgets every queue and owes nothing."""
        self.sqs, self.cqs, self.pending, self.per_sq, self.admin = {}, {}, {}, {}, {}
        self.dbbuf = None
        self.dbbuf_window = set()
        self.pred = (set(), {})
        self.chaos = self.tainted = self.fatal = self.shut_down = False
        self.chaos_batches = 0

    @property
    def trusted(self) -> bool:
        return not (self.chaos or self.tainted or self.fatal or self.shut_down)

    def release_all(self) -> None:
        """Nothing outstanding is owed any more (a fatal status, a taint, a shutdown)."""
        for p in self.pending.values():
            p.owed = False

    def release_sq(self, sqid: int) -> None:
        for p in self.pending.values():
            if p.sqid == sqid:
                p.owed = False

    def add(self, p: Pending) -> None:
        self.pending[(p.sqid, p.cid)] = p
        self.per_sq[p.sqid] = self.per_sq.get(p.sqid, 0) + 1
        if p.sqid == 0:
            self.admin[(0, p.cid)] = p

    def take(self, key: Tuple[int, int]) -> Optional[Pending]:
        p = self.pending.pop(key, None)
        if p is not None:
            self.per_sq[p.sqid] -= 1
            self.admin.pop(key, None)
        return p

    def outstanding(self, sqid: int) -> int:
        return self.per_sq.get(sqid, 0)

    def room(self, sq: Sq) -> int:
        """How many more SQEs fit without overrunning entries the device may not have
        fetched: every command not yet completed (rung or not) might still sit in the
        ring."""
        return sq.size - 1 - self.outstanding(sq.qid)

    def queue_admin_busy(self) -> bool:
        """A queue create/delete is in flight, so the queue set is about to change."""
        return any(p.opcode in (0x00, 0x01, 0x04, 0x05) for p in self.admin.values())

    def sq_changing(self, qid: int, opcodes=(0x00, 0x01)) -> bool:
        """A delete or create of SQ qid is queued (or, with opcodes, whatever queue
        command): a submission to qid now could land in the old queue or the new one
        (the host would be racing itself)."""
        return any(p.opcode in opcodes and p.create is not None and p.create["qid"] == qid
                   for p in self.admin.values())

    def dbbuf_queued(self) -> bool:
        """A Doorbell Buffer Config of ours is queued (the device may switch any time)."""
        return any(p.opcode == 0x7C and p.create is not None and p.create["ours"]
                   for p in self.admin.values())

    def recreate_queued(self, qid: int, cq: bool = False) -> bool:
        """Both a delete and a create of queue qid are queued: the device may have swapped
        the queue already, and anything meant for the old one could land on the new."""
        delete, create = (0x04, 0x05) if cq else (0x00, 0x01)
        return self.sq_changing(qid, (delete,)) and self.sq_changing(qid, (create,))

    def future_queues(self):
        """(CQ ids, {SQ id: CQ id}) the next admin command will see, best guess."""
        if self.pred is not None:
            return self.pred
        return ({q for q in self.cqs if q}, {q: sq.cqid for q, sq in self.sqs.items() if q})

    def usable_sqs(self):
        """I/O SQs the host can submit to: its own rings, on a CQ it can reap."""
        return [sq for q, sq in sorted(self.sqs.items())
                if q and sq.ours and sq.cqid in self.cqs and self.cqs[sq.cqid].ours]
