"""What the host believes about the controller: its queues, the commands it is owed
completions for, and how far it can trust that belief.

Trust has three levels. Clean: every command must complete, CQEs must match commands.
Chaos: something (a DMA into a queue ring, a doorbell value the host never meant) may have
scrambled a ring, so completions are no longer owed, but the controller must stay sane.
Tainted: a DMA may have reached registers (ours, or the machine's), so the controller's
state is unknown until the host maps the BARs again and resets it.
"""
import copy
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

MAX_NSID = 32                  # NN
SECTOR = 512                   # the FTL sector (secsz), LBA format 0
PAGE_SECTORS = 8               # a flash page (secs_per_pg): namespaces are whole pages
LBAF_BYTES = (512, 4096)       # LBA formats 0 and 1


@dataclass
class Ns:
    """One allocated namespace as the host believes it is."""
    base: int                  # first FTL sector of its extent
    sectors: int               # its extent (whole flash pages)
    nbytes: int                # the bytes it addresses (NSZE x LBA size at creation)
    lba: int = SECTOR          # LBA size in bytes
    attached: bool = False
    zoned: bool = False        # the zoned namespace: outside the conventional capacity,
                               # never deleted, detached or formatted (CONTROLLER.md)
    handles: Tuple[int, ...] = ()   # FDP: placement handle i -> reclaim unit handle
    chosen: bool = False       # FDP: its one handle was the controller's choice

    @property
    def nsze(self) -> int:
        return self.nbytes // self.lba


class Namespaces:
    """The namespaces of the device, exactly (NSID -> Ns): capacity is handed out first
    fit in whole flash pages, so the model keeps every extent and can say what a create
    gets. NSID 1 is the fuzzer's data namespace and nothing generated may change it.

    With FDP (fdp_ruhs handles) the table also holds whether FDP is enabled (feature 1Dh,
    which changes only while no conventional namespace exists, so it is ordered with the
    namespace commands), its saved value (what a controller reset makes current while no
    namespace pins the current one) and each namespace's placement handle list: realize
    gives every namespace every handle."""

    def __init__(self, capacity: int, sizes_mib: Tuple[int, ...],
                 zoned: Optional[Tuple[int, int]] = None, fdp_ruhs: int = 0,
                 fdp_on: bool = True, fdp_saved: Optional[bool] = None):
        self.capacity = capacity                   # FTL sectors
        self.fdp_ruhs = fdp_ruhs                   # 0: FDP not offered
        self.fdp_on = bool(fdp_ruhs) and fdp_on
        self.fdp_saved = self.fdp_on if fdp_saved is None else bool(fdp_ruhs) and fdp_saved
        # log 22h (HBMW, MBMW, MBE) as last read: they never go down until the
        # configuration changes (then they start afresh, and so does this)
        self.fdp_stats: Optional[Tuple[int, int, int]] = None
        self.ns: Dict[int, Ns] = {}
        base = 0
        every = tuple(range(fdp_ruhs)) if self.fdp_on else ()
        for i, mib in enumerate(sizes_mib):
            sectors = -(-(mib << 20) // (SECTOR * PAGE_SECTORS)) * PAGE_SECTORS
            self.ns[i + 1] = Ns(base, sectors, sectors * SECTOR, attached=True,
                                handles=every)
            base += sectors
        if zoned is not None:                      # (NSID, NSZE): after the capacity
            nsid, nsze = zoned
            self.ns[nsid] = Ns(capacity, 0, nsze * SECTOR, attached=True, zoned=True)

    def copy(self) -> "Namespaces":
        return copy.deepcopy(self)

    def active(self, nsid: int) -> Optional[Ns]:
        ns = self.ns.get(nsid)
        return ns if ns is not None and ns.attached else None

    def active_ids(self) -> List[int]:
        return sorted(q for q, ns in self.ns.items() if ns.attached)

    def extent(self, sectors: int) -> Optional[int]:
        """First fit: the lowest base with `sectors` free after it, or None."""
        candidate, moved = 0, True
        while moved and candidate + sectors <= self.capacity:
            moved = False
            for ns in self.ns.values():
                if ns.zoned:
                    continue
                if ns.base < candidate + sectors and candidate < ns.base + ns.sectors:
                    candidate, moved = ns.base + ns.sectors, True
        return candidate if candidate + sectors <= self.capacity else None

    def free_nsid(self) -> Optional[int]:
        return next((q for q in range(1, MAX_NSID + 1) if q not in self.ns), None)

    # -- FDP (CONTROLLER.md, "Flexible Data Placement"; cmd/fdp/fdp.c)

    def conventional(self) -> List[int]:
        """The namespaces of the endurance group: allocated and not zoned."""
        return sorted(q for q, ns in self.ns.items() if not ns.zoned)

    def ruha(self, ruh: int) -> int:
        """Log 21h's attribute of a handle: 0 no namespace lists it, 1 a namespace's list
        names it, 2 the controller chose it (the last namespace by NSID decides, as in
        femu_fdp_ruh_usage)."""
        usage = 0
        for q in self.conventional():
            ns = self.ns[q]
            if ruh in ns.handles:
                usage = 2 if ns.chosen else 1
        return usage

    def choose(self) -> Optional[int]:
        """The handle a create without a list gets: the one the controller chose before,
        else the lowest no namespace uses; None when every handle is the host's."""
        usage = [self.ruha(h) for h in range(self.fdp_ruhs)]
        for want in (2, 0):
            if want in usage:
                return usage.index(want)
        return None

    def format_shared(self, ruh: int, lba: int) -> bool:
        """Namespaces sharing a handle have one LBA format."""
        return all(self.ns[q].lba == lba for q in self.conventional()
                   if ruh in self.ns[q].handles)

    # The effects of commands that succeeded (the rules are in ns_rules.py).
    def apply(self, effect: tuple) -> None:
        kind, nsid = effect[0], effect[1]
        if kind == "create":
            base, sectors, nbytes, lba = effect[2:6]
            handles, chosen = effect[6:8] if len(effect) > 6 else ((), False)
            self.ns[nsid] = Ns(base, sectors, nbytes, lba, handles=tuple(handles),
                               chosen=chosen)
        elif kind == "fdp":     # Set Features 1Dh: FDP now (nsid: 0/1), saved with SV
            if bool(nsid) != self.fdp_on:
                self.fdp_on = bool(nsid)
                self.fdp_stats = None
            if len(effect) > 2 and effect[2]:
                self.fdp_saved = bool(nsid)
        elif kind == "delete":
            self.ns.pop(nsid, None)
        elif kind in ("attach", "detach"):
            self.ns[nsid].attached = kind == "attach"
        elif kind == "format":
            self.ns[nsid].lba = effect[2]


    def controller_reset(self) -> None:
        """A controller reset: 1Dh takes its saved value unless a namespace of the group
        pins the current one (cmd/fdp/fdp_features.c); a change starts the statistics afresh."""
        if self.fdp_saved != self.fdp_on and not self.conventional():
            self.fdp_on = self.fdp_saved
            self.fdp_stats = None


NS_OPCODES = (0x0D, 0x15, 0x80)    # Namespace Management, Attachment, Format NVM


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
    nsdep: bool = False        # I/O whose expectation rests on namespaces other than 1
                               # (or on FDP's state)
    dw0: Optional[int] = None  # what DW0 of a success must be (FDP's Get Features)


class Model:
    def __init__(self, queues: int, nsze: int, mdts_bytes: int,
                 namespaces: Optional[Namespaces] = None):
        self.queues, self.nsze, self.mdts_bytes = queues, nsze, mdts_bytes
        # Namespaces as they are (None: unknown, after a command whose effect the host
        # cannot tell, or a ring it no longer trusts) and as the queued admin commands
        # will leave them (None: some command could go either way). Namespace state
        # outlives controller resets.
        self.ns: Optional[Namespaces] = namespaces
        self.ns_pred: Optional[Namespaces] = namespaces.copy() if namespaces else None
        self.ns_capacity = namespaces.capacity if namespaces else 0
        zoned = [(q, ns.nbytes // ns.lba) for q, ns in (namespaces.ns.items()
                                                         if namespaces else ()) if ns.zoned]
        self.zoned_table = zoned[0] if zoned else None     # (NSID, NSZE) of the zoned ns
        self.zoned_nsid = zoned[0][0] if zoned else None
        self.zone_wp: Dict[int, int] = {}    # zone -> write pointer zcheck last saw
        # Namespace commands in submission order: seq -> [effect, succeeded or None].
        self.ns_log: Dict[int, list] = {}
        self.ns_seq = 0
        # Since the last namespace check, the device may have run entries nobody wrote
        # (a scrambled ring): namespace 1 itself may have changed (nsfix repairs it).
        self.ns_dirty = False
        # The events an AER may complete with (DW0 values), because a command that can
        # raise one was submitted since the controller was enabled (a reset drops them).
        self.aer_events: set = set()
        # An I/O queue was created since the controller was enabled (Set Features
        # Number of Queues is then a Command Sequence Error).
        self.io_created = False
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
        # FTL sector ranges [first, end) a power cut tore (power_cut_lost.csv, kind torn):
        # they may read back Unrecovered Read Error until rewritten. Media state: it
        # outlives resets and cuts, and goes when nsfix finds namespace 1 without marks
        # (or deallocates it whole).
        self.torn: List[Tuple[int, int]] = []

    def torn_overlaps(self, first: int, end: int) -> bool:
        return any(a < end and first < b for a, b in self.torn)

    def forget_queues(self) -> None:
        """A reset: the controller forgets every queue and owes nothing. A namespace
        command it dropped may have run (a delete's unmap even survives the reset), so
        with one in flight the namespaces are unknown; else FDP takes its saved value
        where the reset lets it (Namespaces.controller_reset)."""
        if any(done is None for _, done in self.ns_log.values()):
            self.ns = None
        if self.ns is not None:
            self.ns.controller_reset()
        self.ns_log = {}
        self.sqs, self.cqs, self.pending, self.per_sq, self.admin = {}, {}, {}, {}, {}
        self.dbbuf = None
        self.dbbuf_window = set()
        self.pred = (set(), {})
        self.chaos = self.tainted = self.fatal = self.shut_down = False
        self.chaos_batches = 0
        self.aer_events = set()
        self.io_created = False
        self.ns_pred = self.ns.copy() if self.ns is not None else None

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

    def ns_admin_busy(self) -> bool:
        """A Namespace Management / Attachment or Format NVM has not completed."""
        return bool(self.ns_log)

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

    def quiet_sq(self, seed: int):
        """For a check that needs the device quiet (call after a sync): an I/O SQ picked
        by seed when the model trusts the device, it is enabled and nothing is owed, else
        None."""
        sqs = self.usable_sqs()
        if not self.trusted or not self.enabled or not sqs or \
                any(p.owed for p in self.pending.values()):
            return None
        return sqs[seed % len(sqs)]
