"""Submission queue entries: a well-formed template for each command femu implements,
a one-field mutation of any of them, and entries of random dwords. Each is an `Sqe`:
the command (its CID is the executor's business), the guest memory it needs written
first, and what the oracle may expect of its status."""
import struct
from dataclasses import dataclass, field
from typing import List, Optional, Set, Tuple

from nvme_qtest import Command

from . import prp
from .kv_commands import KvCommands
from .layout import DBBUF_EVENTIDX, DBBUF_SHADOW, Picker, cq_slot, sq_slot

ADMIN_WRITES_HOST = {0x02, 0x06, 0x86}    # Get Log Page, Identify, Get LBA Status
IO_WRITES_HOST = {0x02}                   # Read
LBA = 512
# Log pages and the bytes an offset may point into: error information, SMART, firmware
# slot, Changed Namespace List (4 KiB), LBA Status Information (its size varies, the
# 16-byte header is always there), OCP SMART / Health Information Extended.
LOG_SIZES = {0x01: 4 * 64, 0x02: 512, 0x03: 512, 0x04: 4096, 0x0E: 16, 0xC0: 512}
FEATURES = [0x01, 0x02, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x15]
BROADCAST = 0xFFFF_FFFF
MAX_NSID = 32
# Commands that change a namespace's state or data in ways the model does not follow
# for namespace 1 (its data is what the integrity checks and every well-formed Read and
# Write use): Namespace Management (a delete), Namespace Attachment (a detach), Format
# NVM (admin), and Write Uncorrectable (I/O). Whatever generated or mutated one of them,
# it never names NSID 1 or FFFFFFFFh (every namespace, 1 included): see Commands.protect.
GUARDED_ADMIN = (0x0D, 0x15, 0x80)
GUARDED_IO = (0x04,)
NAME_CHARS = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"
# Copy limits femu reports for 512-byte LBAs (Identify Namespace MSRC (0-based), MSSRL, MCL)
COPY_MSRC, COPY_MSSRL, COPY_MCL = 127, 1024, 4096


@dataclass
class Sqe:
    cmd: Command
    mem: List[Tuple[int, bytes]] = field(default_factory=list)
    classes: Set[str] = field(default_factory=set)   # classes of the data pointers
    list_class: Optional[str] = None
    prp1_class: str = ""
    prp2_class: str = ""
    transfer: bool = False     # success means the device moved data through PRP1
    exp: Optional[str] = None  # "ok" / "fail"
    why: str = ""
    tag: str = ""


class Commands(KvCommands):
    """Builds entries against the host's current view (page size, namespace size)."""

    def __init__(self, picker: Picker, model, trust_dbbuf: bool = True, variant=None):
        self.picker, self.rng, self.model = picker, picker.rng, model
        self.trust_dbbuf = trust_dbbuf
        self.scratch = prp.Scratch()
        self.zoned = variant.zoned if variant is not None else None
        self.kv = variant.kv if variant is not None else None
        self.save = bool(variant is not None and variant.save)
        self.fdp = variant.fdp if variant is not None else None
        self.write_cache = bool(variant is not None and variant.write_cache)

    # -- helpers

    def _with_data(self, sqe: Sqe, length: int) -> Sqe:
        ptr = prp.build(self.picker, self.scratch, self.model.page_size, length)
        return self._attach(sqe, ptr)

    def _attach(self, sqe: Sqe, ptr: prp.Pointers) -> Sqe:
        sqe.cmd.prp1, sqe.cmd.prp2 = ptr.prp1, ptr.prp2
        sqe.mem += ptr.mem
        sqe.classes |= ptr.classes
        sqe.list_class = ptr.list_class
        sqe.prp1_class = ptr.prp1_class
        sqe.prp2_class = ptr.prp2_class
        sqe._ptr = ptr
        return sqe

    def _u32(self) -> int:
        r = self.rng
        return r.choice([0, 1, 2, 0xFF, 0xFFFF, 0xFFFF_FFFF, 0x8000_0000,
                         r.getrandbits(32), r.getrandbits(32), r.randrange(64)])

    def _nsid(self) -> int:
        return self.rng.choice([0, 1, 1, 2, 3, MAX_NSID, MAX_NSID + 1, 0xFFFF_FFFE,
                                0xFFFF_FFFF, self.rng.getrandbits(32)])

    def protect(self, sqe: Sqe, admin: bool) -> Sqe:
        """The one rule every entry obeys, whatever made it (template, mutation, noise):
        a command of GUARDED_ADMIN / GUARDED_IO never names namespace 1 or FFFFFFFFh.
        Such an NSID is redirected at generation time to another one (mostly the
        sacrificial namespace 2), so every other field stays as random as it was."""
        c, r = sqe.cmd, self.rng
        guarded = GUARDED_ADMIN if admin else GUARDED_IO
        spared = (1, BROADCAST, self.kv.nsid) if admin and self.kv else (1, BROADCAST)
        if c.opcode in guarded and c.nsid & 0xFFFF_FFFF in spared:
            c.nsid = r.choice([2, 2, 2, r.randint(3, MAX_NSID), 0, MAX_NSID + 1,
                               0xFFFF_FFFE, r.randrange(MAX_NSID + 1, BROADCAST)])
            if c.nsid in spared:
                c.nsid = 2
            sqe.tag += "/ns1-spared"
        return sqe

    # -- namespaces other than 1, as the model sees them

    def _others(self, want=None, committed: bool = False):
        """NSIDs >= 2 the model knows of (want(ns) picks), or [] when it does not know:
        the predicted table for admin commands (which run in order), the committed one
        for I/O (which races them)."""
        table = self.model.ns if committed else self.model.ns_pred
        if table is None:
            return []
        return sorted(q for q, ns in table.ns.items()
                      if q >= 2 and not ns.zoned and (want is None or want(ns)))

    def _other_nsid(self, want=None, committed: bool = False) -> int:
        """A namespace >= 2 (mostly one that fits `want`), now and then any NSID but 1
        and FFFFFFFFh (unallocated, 0, past NN)."""
        r = self.rng
        known = self._others(want, committed)
        if known and r.random() < 0.85:
            return r.choice(known)
        return r.choice([2, 2, r.randint(2, MAX_NSID), r.randint(2, MAX_NSID), 0,
                         MAX_NSID + 1, 0xFFFF_FFFE])

    def _host_page(self, data: bytes, tag: str, cmd: Command) -> Sqe:
        """An entry whose PRP1 names one page of the scratch arena holding `data` (a
        structure the device reads: nothing the host's commands write lands there, so
        the oracle can know what the device will find)."""
        addr = self.scratch.alloc(4096, self.model.page_size)
        cmd.prp1 = addr
        sqe = Sqe(cmd, mem=[(addr, bytes(data))], classes={"meta"}, prp1_class="meta",
                  transfer=True, tag=tag)
        sqe._ptr = prp.Pointers(addr, 0, classes={"meta"}, prp1_class="meta",
                                prp2_class="")
        return sqe

    # -- admin templates

    def identify(self) -> Sqe:
        """Every CNS femu has, with NSIDs for which it succeeds whatever the namespaces
        are: controller, namespace 1 (and any valid NSID: zeroes when inactive, the
        shared formats for FFFFFFFFh), active/allocated lists, descriptors of namespace 1,
        the NVM command set controller data, the controller lists (any CNTID)."""
        r = self.rng
        anyns = r.randint(1, MAX_NSID)
        cns, nsid = r.choice([(0x01, 0), (0x00, 1), (0x02, 0), (0x03, 1), (0x02, 1),
                              (0x00, anyns), (0x00, BROADCAST), (0x06, 0),
                              (0x10, 0), (0x10, r.randrange(0xFFFF_FFFE)), (0x11, 1),
                              (0x11, anyns), (0x11, BROADCAST), (0x12, anyns),
                              (0x12, 1), (0x13, r.getrandbits(32))])
        cntid = r.choice([0, 0, 1, r.getrandbits(16)]) if cns in (0x12, 0x13) else 0
        sqe = Sqe(Command(0x06, nsid=nsid, cdw10=cns | cntid << 16), transfer=True,
                  exp="ok", why="well-formed Identify", tag="identify")
        return self._with_data(sqe, 4096)

    def get_log(self) -> Sqe:
        r = self.rng
        lid = r.choice(list(LOG_SIZES))
        size = LOG_SIZES[lid]
        offset = 0 if r.random() < 0.7 else r.randrange(0, size, 4)
        numd = r.randrange(1, (size - offset) // 4 + 8)       # 1-based dwords
        # SMART takes the controller (0, FFFFFFFFh) or an active namespace (1); the
        # others do not look at the NSID. RAE (bit 15) matters to 04h: without it the
        # read clears the Changed Namespace List and lets the next notice through.
        nsid = r.choice([0, 1, BROADCAST]) if lid == 0x02 else r.choice([0, BROADCAST])
        cmd = Command(0x02, nsid=nsid, cdw10=lid | r.randrange(2) << 15 |
                      ((numd - 1) & 0xFFFF) << 16, cdw11=(numd - 1) >> 16, cdw12=offset)
        sqe = Sqe(cmd, transfer=True, exp="ok", why="well-formed Get Log Page", tag="log")
        return self._with_data(sqe, numd * 4)

    def get_log_any(self) -> Sqe:
        """Any LID, offset (dword aligned or not, inside or past the log) and length."""
        r = self.rng
        lid = r.choice([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x0D, 0x0E, 0x70, 0x80,
                        0xC0, 0xC1, 0xFF, r.randrange(256)])
        offset = r.choice([0, 4, 6, 508, 512, 4096, r.getrandbits(12), r.getrandbits(64)])
        numd = r.choice([1, 2, 128, 1024, 0x10000, r.randrange(1, 4096)])
        cmd = Command(0x02, nsid=self._nsid(), cdw10=lid | r.randrange(16) << 8 |
                      ((numd - 1) & 0xFFFF) << 16, cdw11=(numd - 1) >> 16,
                      cdw12=offset & 0xFFFF_FFFF, cdw13=offset >> 32)
        return self._with_data(Sqe(cmd, tag="log-any"), min(numd * 4, 64 << 10))

    def features_any(self) -> Sqe:
        """Get or Set Features with any FID, selector, save bit and value."""
        r = self.rng
        fid = r.choice(FEATURES + [0x00, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x80, 0xC0,
                                   r.randrange(256)])
        opcode = r.choice([0x09, 0x0A])
        cdw10 = fid | (r.randrange(8) << 8 if opcode == 0x0A else r.randrange(2) << 31)
        sqe = Sqe(Command(opcode, nsid=self._nsid(), cdw10=cdw10, cdw11=self._u32()),
                  tag="features-any")
        return self._with_data(sqe, 4096) if r.random() < 0.3 else sqe

    def vendor_any(self) -> Sqe:
        """C0h/C1h with whatever CDWs (names with bad characters, no NUL, empty)."""
        r = self.rng
        return Sqe(Command(r.choice([0xC0, 0xC1]), nsid=self._nsid(), cdw10=self._u32(),
                           cdw12=self._u32(), cdw13=self._u32(), cdw14=self._u32(),
                           cdw15=self._u32()), tag="vendor-any")

    def dbbuf_any(self) -> Sqe:
        """Doorbell Buffer Config at page-aligned places anywhere: RAM the host uses,
        MMIO (our own BAR0, MMCONFIG, IOAPIC, HPET...), nothing, ROM."""
        p, page = self.picker, self.model.page_size
        c1, c2 = p.wild_class(), p.wild_class()
        sqe = Sqe(Command(0x7C, prp1=p.address(c1, page), prp2=p.address(c2, page)),
                  tag="dbbuf-any")
        sqe.classes, sqe.prp1_class, sqe.prp2_class = {c1, c2}, c1, c2
        return sqe

    def get_features(self) -> Sqe:
        """Any FID and SEL (06h, Volatile Write Cache, fails without a write buffer).
        Error Recovery (05h) is namespace specific: Get names an
        active namespace (1, whose state never changes; or another, judged against the
        namespaces by the executor); every other FID ignores the NSID."""
        r = self.rng
        fid = r.choice(FEATURES)
        cdw11 = r.randrange(self.model.queues + 1) if fid == 0x09 else 0
        cmd = Command(0x0A, nsid=r.choice([0, 1, BROADCAST]), cdw10=fid | r.randrange(4) << 8,
                      cdw11=cdw11)
        if fid == 0x05:
            cmd.nsid = 1
            if r.random() < 0.3:
                cmd.nsid = self._other_nsid(lambda ns: ns.attached)
                return Sqe(cmd, tag="feat-ns")
        if fid == 0x06 and not self.write_cache:
            return Sqe(cmd, exp="fail", why="Volatile Write Cache without a cache",
                       tag="getfeat")
        return Sqe(cmd, exp="ok", why="well-formed Get Features", tag="getfeat")

    def set_features(self) -> Sqe:
        """Values femu takes (LBA Status Information Attributes, 15h: any, answered
        with 0; Volatile Write Cache, 06h, only with a write buffer: the variant's). Error Recovery (05h) names namespace 1 or FFFFFFFFh (every namespace),
        or another namespace the executor judges; the other features take NSID 0 or
        FFFFFFFFh."""
        r = self.rng
        fid = r.choice([0x01, 0x02, 0x04, 0x05, 0x06, 0x08, 0x0A, 0x0B, 0x15])
        value = {0x01: r.getrandbits(32), 0x02: r.randrange(8) << 5, 0x15: r.getrandbits(32),
                 0x04: r.randrange(2) << 20 | r.getrandbits(16),
                 0x05: r.getrandbits(16), 0x06: r.randrange(2), 0x08: r.getrandbits(16),
                 0x0A: r.randrange(2), 0x0B: r.getrandbits(32) | r.randrange(2) << 8}[fid]
        # (0Bh: namespace attribute notices, bit 8, on three times in four)
        cmd = Command(0x09, nsid=r.choice([0, BROADCAST]), cdw10=fid, cdw11=value)
        if fid == 0x05:
            cmd.nsid = r.choice([1, BROADCAST])
            if r.random() < 0.3:
                cmd.nsid = self._other_nsid(lambda ns: ns.attached)
                return Sqe(cmd, tag="feat-ns")
        if fid == 0x06 and not self.write_cache:
            return Sqe(cmd, exp="fail", why="Volatile Write Cache without a cache",
                       tag="setfeat")
        return Sqe(cmd, exp="ok", why="well-formed Set Features", tag="setfeat")

    def set_queues(self) -> Sqe:
        """Set Features Number of Queues: allowed only until an I/O queue is created
        after an enable (then Command Sequence Error); the executor judges it."""
        r = self.rng
        n = lambda: r.choice([0, 1, 15, 63, r.randrange(0xFFFF)])   # noqa: E731
        return Sqe(Command(0x09, cdw10=0x07, cdw11=n() | n() << 16), tag="setfeat-nq")

    def get_lba_status(self) -> Sqe:
        """Get LBA Status (86h): the uncorrectable LBAs of a range. Namespace 1 never has
        any (nothing may make them), so it succeeds; another namespace is judged by the
        executor."""
        r = self.rng
        other = r.random() < 0.35
        nsid = self._other_nsid(lambda ns: ns.attached) if other else 1
        nsze = self.model.nsze
        if other and self.model.ns_pred is not None and nsid in self.model.ns_pred.ns:
            nsze = self.model.ns_pred.ns[nsid].nsze
        slba = r.choice([0, 0, nsze - 1, r.randrange(max(1, nsze))])
        mndw = r.choice([0, 1, 5, 63, 1023, r.randrange(4096)])     # 0-based dwords
        rl = r.choice([0, 0, 1, 8, 0xFFFF, r.getrandbits(16)])
        atype = r.choice([0x10, 0x11])
        cmd = Command(0x86, nsid=nsid, cdw10=slba & 0xFFFF_FFFF, cdw11=slba >> 32,
                      cdw12=mndw, cdw13=rl | atype << 24)
        if other:
            sqe = Sqe(cmd, transfer=True, tag="lbastat-ns")
        else:
            sqe = Sqe(cmd, transfer=True, exp="ok", tag="lbastat",
                      why="well-formed Get LBA Status of namespace 1")
        return self._with_data(sqe, (mndw + 1) * 4)

    # -- namespaces (never 1: the executor judges these against the namespace model)

    def ns_create(self) -> Sqe:
        """Namespace Management create from a host Identify Namespace structure: mostly
        sizes that fit (or just do not) in either LBA format, now and then one field the
        device must refuse."""
        r = self.rng
        lbaf = r.choice([0, 0, 1])
        lba = (512, 4096)[lbaf]
        nsze = r.choice([1, 8, 100, (1 << 20) // lba, (4 << 20) // lba, (8 << 20) // lba,
                         (16 << 20) // lba, (17 << 20) // lba,
                         r.randrange(1, (16 << 20) // lba + 1)])
        ncap, flbas, dps, nmic = nsze, lbaf, 0, 0
        bad = r.random()
        if bad < 0.12:
            which = r.choice(["ncap-", "ncap+", "zero", "meta", "pi", "dps", "nmic",
                              "lbaf", "huge"])
            if which == "ncap-":
                ncap = nsze - 1
            elif which == "ncap+":
                ncap = nsze + 1
            elif which == "zero":
                nsze = ncap = 0
            elif which == "meta":
                flbas |= 0x10
            elif which == "pi":
                flbas |= r.choice([0x20, 0x40])
            elif which == "dps":
                dps = r.randint(1, 7)
            elif which == "nmic":
                nmic = 1
            elif which == "lbaf":
                flbas = r.randint(2, 15)
            else:
                nsze = ncap = r.choice([2**32, 2**63, 2**64 - 1])
        data = bytearray(4096)
        struct.pack_into("<QQ", data, 0, nsze, ncap)
        data[26], data[29], data[30] = flbas, dps, nmic
        if self.fdp is not None:
            self.placement_fields(data, self.model.ns_pred)
        cmd = Command(0x0D, nsid=r.choice([0, 0, 0, self._nsid()]), cdw10=0,
                      cdw11=0 if r.random() < 0.95 else r.randint(1, 255) << 24)
        return self._host_page(data, "ns-create", cmd)

    def placement_fields(self, data: bytearray, table) -> None:
        placement_fields(self.rng, self.fdp.ruhs, data, table)

    def ns_delete(self) -> Sqe:
        nsid = self._other_nsid()
        return Sqe(Command(0x0D, nsid=nsid, cdw10=1 if self.rng.random() < 0.95
                           else self.rng.randint(2, 15)), tag="ns-delete")

    def ns_attach(self) -> Sqe:
        """Attach (SEL 0) or detach (SEL 1) a namespace >= 2 with this controller's list,
        [1, 0], or now and then a list the device must refuse."""
        r = self.rng
        sel = r.choice([0, 1, 1]) if r.random() < 0.95 else r.randint(2, 15)
        nsid = self._other_nsid(lambda ns: ns.attached == (sel == 1))
        entries = [1, 0] if r.random() < 0.9 else r.choice([[0], [1, 1], [2, 0, 0], [1, 0xFFFF]])
        data = struct.pack(f"<{len(entries)}H", *entries).ljust(4096, b"\0")
        return self._host_page(data, "ns-attach", Command(0x15, nsid=nsid, cdw10=sel))

    def format_nvm(self) -> Sqe:
        """Format NVM of an active namespace >= 2: LBA format 0 or 1, SES 0 or 1, mostly;
        now and then a format, PI or SES femu refuses."""
        r = self.rng
        nsid = self._other_nsid(lambda ns: ns.attached)
        lbaf, ses, pi, mset = r.choice([0, 1]), r.choice([0, 1]), 0, r.randrange(2)
        lbafu = 0
        if r.random() < 0.1:
            which = r.choice(["lbaf", "lbafu", "ses", "pi"])
            if which == "lbaf":
                lbaf = r.randint(2, 15)
            elif which == "lbafu":
                lbafu = r.randint(1, 3)
            elif which == "ses":
                ses = r.randint(2, 7)
            else:
                pi = r.randint(1, 7)
        cdw10 = lbaf | mset << 4 | pi << 5 | r.randrange(2) << 8 | ses << 9 | lbafu << 12
        return Sqe(Command(0x80, nsid=nsid, cdw10=cdw10), tag="format")

    def notices_on(self) -> Sqe:
        """Asynchronous Event Configuration with the namespace attribute notices on."""
        value = self.rng.getrandbits(32) | 1 << 8
        return Sqe(Command(0x09, cdw10=0x0B, cdw11=value), exp="ok",
                   why="well-formed Set Features", tag="setfeat")

    def aer(self) -> Sqe:
        return Sqe(Command(0x0C), tag="aer")

    def abort(self) -> Sqe:
        r = self.rng
        return Sqe(Command(0x08, cdw10=r.randrange(17) | r.getrandbits(16) << 16),
                   exp="ok", why="Abort always succeeds", tag="abort")

    def dbbuf(self) -> Sqe:
        sqe = Sqe(Command(0x7C, prp1=DBBUF_SHADOW, prp2=DBBUF_EVENTIDX), exp="ok",
                  why="well-formed Doorbell Buffer Config", tag="dbbuf")
        sqe._ptr = prp.Pointers(DBBUF_SHADOW, DBBUF_EVENTIDX, classes=set())
        # Half the time the host trusts the controller to start the shadows at the
        # doorbell values (as QEMU's nvme does); else it writes them itself afterwards.
        sqe.republish = self.rng.random() < 0.5 or not self.trust_dbbuf
        return sqe

    def vendor_dump(self) -> Sqe:
        return Sqe(Command(0xC0), exp="ok", why="C0h with a stats_dir", tag="c0")

    def vendor_phase(self) -> Sqe:
        r = self.rng
        name = bytes(r.choice(NAME_CHARS) for _ in range(r.randrange(1, 17))).ljust(16, b"\0")
        words = struct.unpack("<4I", name)
        return Sqe(Command(0xC1, cdw12=words[0], cdw13=words[1], cdw14=words[2],
                           cdw15=words[3]), exp="ok", why="C1h with a valid name", tag="c1")

    def create_cq(self) -> Sqe:
        r, m = self.rng, self.model
        cqs, _ = m.future_queues()
        free = [q for q in range(1, m.queues + 1) if q not in cqs]
        qid = r.choice(free) if free else r.randrange(1, m.queues + 1)
        size = self._qsize()
        ien = r.random() < 0.5
        iv = r.randrange(m.queues + 1) if ien else 0
        return Sqe(Command(0x05, prp1=cq_slot(qid), cdw10=qid | (size - 1) << 16,
                           cdw11=1 | int(ien) << 1 | iv << 16), tag="create-cq")

    def create_sq(self) -> Sqe:
        r, m = self.rng, self.model
        cqs, sqs = m.future_queues()
        free = [q for q in range(1, m.queues + 1) if q not in sqs]
        qid = r.choice(free) if free else r.randrange(1, m.queues + 1)
        cqid = r.choice(sorted(cqs)) if cqs else qid
        return Sqe(Command(0x01, prp1=sq_slot(qid), cdw10=qid | (self._qsize() - 1) << 16,
                           cdw11=1 | r.randrange(4) << 1 | cqid << 16), tag="create-sq")

    def delete_sq(self) -> Sqe:
        _, sqs = self.model.future_queues()
        ids = sorted(sqs) or [self.rng.randrange(1, self.model.queues + 1)]
        return Sqe(Command(0x00, cdw10=self.rng.choice(ids)), tag="delete-sq")

    def delete_cq(self) -> Sqe:
        cqs, sqs = self.model.future_queues()
        idle = sorted(q for q in cqs if q not in sqs.values())
        ids = idle or sorted(cqs) or [1]
        return Sqe(Command(0x04, cdw10=self.rng.choice(ids)), tag="delete-cq")

    def _qsize(self) -> int:
        r = self.rng
        return r.choice([2, 3, 8, 16, 32, 64, 64, 128, 256, 1024, 2048, r.randrange(2, 2049)])

    # -- I/O templates

    def _range(self, max_blocks: int) -> Tuple[int, int]:
        r = self.rng
        nlb = r.choice([1, 1, 2, 8, 8, 16, r.randrange(1, max_blocks + 1)])
        nlb = min(nlb, max_blocks)
        slba = r.randrange(0, self.model.nsze - nlb + 1)
        if r.random() < 0.2:   # the edges of the namespace
            slba = r.choice([0, self.model.nsze - nlb])
        return slba, nlb

    def rw(self, opcode: Optional[int] = None) -> Sqe:
        opcode = opcode if opcode is not None else self.rng.choice([0x01, 0x02])
        slba, nlb = self._range(self.model.mdts_bytes // LBA)
        cmd = Command(opcode, nsid=1, cdw10=slba & 0xFFFF_FFFF, cdw11=slba >> 32,
                      cdw12=nlb - 1)
        sqe = Sqe(cmd, transfer=True, exp="ok", why="well-formed Read/Write",
                  tag="write" if opcode == 1 else "read")
        return self._with_data(sqe, nlb * LBA)

    def flush(self) -> Sqe:
        return Sqe(Command(0x00, nsid=self.rng.choice([1, 0xFFFF_FFFF])), exp="ok",
                   why="well-formed Flush", tag="flush")

    def write_zeroes(self) -> Sqe:
        slba, nlb = self._range(256)
        cmd = Command(0x08, nsid=1, cdw10=slba & 0xFFFF_FFFF, cdw11=slba >> 32,
                      cdw12=(nlb - 1) | self.rng.randrange(2) << 25)
        return Sqe(cmd, exp="ok", why="well-formed Write Zeroes", tag="wz")

    def verify(self) -> Sqe:
        """Verify (0Ch) of namespace 1: flash reads, no transfer; within VSL (4 MiB).
        Namespace 1 never holds uncorrectable LBAs, so it succeeds (FUA and LR need
        nothing of femu)."""
        r = self.rng
        slba, nlb = self._range(8192)
        cmd = Command(0x0C, nsid=1, cdw10=slba & 0xFFFF_FFFF, cdw11=slba >> 32,
                      cdw12=(nlb - 1) | r.randrange(4) << 30)
        return Sqe(cmd, exp="ok", why="well-formed Verify of namespace 1", tag="verify-io")

    def compare(self) -> Sqe:
        """Compare (05h) of namespace 1 with whatever a data buffer holds: the host does
        not know what the LBAs hold, so no expectation (the integrity check compares what
        it wrote)."""
        slba, nlb = self._range(self.model.mdts_bytes // LBA)
        cmd = Command(0x05, nsid=1, cdw10=slba & 0xFFFF_FFFF, cdw11=slba >> 32,
                      cdw12=nlb - 1)
        return self._with_data(Sqe(cmd, tag="compare"), nlb * LBA)

    def write_uncor(self) -> Sqe:
        """Write Uncorrectable (04h) on an active namespace >= 2 (never 1), inside it
        when the model knows its size; the executor judges it."""
        r = self.rng
        nsid = self._other_nsid(lambda ns: ns.attached, committed=True)
        table = self.model.ns
        nsze = table.ns[nsid].nsze if table is not None and nsid in table.ns else 2048
        nlb = min(nsze, r.choice([1, 1, 8, 64, 0x10000, r.randint(1, 0x10000)]))
        slba = r.choice([0, nsze - nlb, r.randrange(max(1, nsze - nlb + 1))])
        cmd = Command(0x04, nsid=nsid, cdw10=slba & 0xFFFF_FFFF, cdw11=slba >> 32,
                      cdw12=nlb - 1)
        return Sqe(cmd, tag="wu")

    def io_other(self) -> Sqe:
        """Read, Write, Compare or Verify on a namespace >= 2 (whose LBAs may be
        uncorrectable, or gone): no expectation."""
        r = self.rng
        opcode = r.choice([0x01, 0x02, 0x02, 0x05, 0x0C])
        nsid = self._other_nsid(lambda ns: ns.attached, committed=True)
        nlb = r.choice([1, 8, 64])
        slba = r.choice([0, r.randrange(2048), r.randrange(16384)])
        cmd = Command(opcode, nsid=nsid, cdw10=slba, cdw12=nlb - 1)
        sqe = Sqe(cmd, tag="io-ns")
        return self._with_data(sqe, nlb * LBA) if opcode != 0x0C else sqe

    def dsm(self) -> Sqe:
        r, nsze = self.rng, self.model.nsze
        count = r.choice([1, 1, 2, 4, 16, 64, 256, r.randrange(1, 257)])
        table = b""
        for _ in range(count):
            kind = r.random()
            if kind < 0.6:
                nlb = r.choice([1, 8, 64, 4096, r.randrange(1, nsze)])
                slba = r.randrange(0, max(1, nsze - nlb))
            elif kind < 0.75:   # the whole namespace, every time
                slba, nlb = 0, nsze
            elif kind < 0.9:    # past the end, or wrapping 64 bits
                slba = r.choice([nsze, nsze - 1, 2**64 - 1, 2**64 - 8, r.getrandbits(64)])
                nlb = r.choice([1, 2, 16, 0xFFFF_FFFF])
            else:
                slba, nlb = r.randrange(nsze), r.choice([0, 0xFFFF_FFFF, r.getrandbits(32)])
            table += struct.pack("<IIQ", r.getrandbits(32) if r.random() < 0.1 else 0, nlb, slba)
        ad = r.random() < 0.85
        cmd = Command(0x09, nsid=1, cdw10=count - 1,
                      cdw11=int(ad) << 2 | r.randrange(4))
        sqe = Sqe(cmd, transfer=ad, tag="dsm")
        sqe = self._with_data(sqe, len(table))
        ptr = sqe._ptr
        for addr, n, chunk in _segments(ptr, self.model.page_size, table):
            sqe.mem.append((addr, chunk))
        return sqe

    # -- Copy, the zoned namespace, the state save

    def copy(self) -> Sqe:
        """Copy (19h, descriptor format 0) inside namespace 1: within MSRC, MSSRL and MCL
        and the namespace it succeeds (namespace 1 has no uncorrectable LBAs); now and
        then one thing the device must refuse (a range or the destination past the end or
        wrapping, too many ranges, a range or the whole over its limit, a descriptor
        format other than 0 (the cross-namespace formats 2 and 3 included), PRINFO,
        STCW)."""
        r, nsze = self.rng, self.model.nsze
        count = r.choice([1, 1, 2, 3, 8, r.randint(1, COPY_MSRC + 1)])
        ranges = []
        budget = COPY_MCL
        for _ in range(count):
            nlb = min(budget - (count - len(ranges) - 1), r.choice(
                [1, 8, 64, r.randint(1, COPY_MSSRL)]), COPY_MSSRL)
            nlb = max(1, nlb)
            budget -= nlb
            ranges.append([r.randrange(nsze - nlb + 1), nlb])
        total = sum(n for _, n in ranges)
        sdlba = r.choice([0, nsze - total, r.randrange(nsze - total + 1)])
        nr, cdw12_extra = count - 1, 0
        exp, why = "ok", "Copy inside namespace 1 within MSRC, MSSRL and MCL"
        if budget < 0 or total > COPY_MCL:
            exp, why = None, ""
        if r.random() < 0.2:
            exp, why = "fail", "Copy the device must refuse: "
            which = r.choice(["src-end", "src-wrap", "dst-end", "dst-wrap", "msrc",
                              "mssrl", "mcl", "format", "prinfo", "stcw"])
            why += which
            if which == "src-end":
                ranges[-1][0] = nsze - ranges[-1][1] + r.randint(1, 8)
            elif which == "src-wrap":
                ranges[-1][0] = 2**64 - r.randint(1, ranges[-1][1])
            elif which == "dst-end":
                sdlba = nsze - total + r.randint(1, 8)
            elif which == "dst-wrap":
                sdlba = 2**64 - r.randint(1, 8)
            elif which == "msrc":
                ranges = (ranges * (COPY_MSRC + 2))[:COPY_MSRC + 2]
                ranges = [[s_, 1] for s_, _ in ranges]
                nr = len(ranges) - 1
            elif which == "mssrl":
                ranges[0][1] = COPY_MSSRL + r.randint(1, 64)
                ranges[0][0] = r.randrange(nsze - ranges[0][1])
            elif which == "mcl":
                ranges = [[r.randrange(nsze - COPY_MSSRL), COPY_MSSRL] for _ in range(5)]
                nr = 4
            elif which == "format":
                cdw12_extra |= r.choice([1, 2, 3, 0xF]) << 8
            elif which == "prinfo":
                cdw12_extra |= r.choice([1 << 12, 8 << 12, 1 << 26, 8 << 26])
            else:
                cdw12_extra |= 1 << 24
        return self._copy_sqe(1, sdlba, ranges, nr, cdw12_extra, exp, why, "copy")

    def _copy_sqe(self, nsid, sdlba, ranges, nr, cdw12_extra, exp, why, tag) -> Sqe:
        # At most one page of entries (the scratch page): 129 ranges for a too-large NR
        # need not all be there, the device refuses NR first or cannot read them.
        table = b"".join(struct.pack("<8xQH14x", s_ & 0xFFFF_FFFF_FFFF_FFFF,
                                     (n - 1) & 0xFFFF) for s_, n in ranges)[:4096]
        cmd = Command(0x19, nsid=nsid, cdw10=sdlba & 0xFFFF_FFFF,
                      cdw11=(sdlba >> 32) & 0xFFFF_FFFF, cdw12=nr | cdw12_extra)
        sqe = self._host_page(table, tag, cmd)
        sqe.exp, sqe.why = exp, why
        return sqe

    def copy_other(self) -> Sqe:
        """Copy on another namespace (>= 2: formatted, detached, deleted, or the zoned
        one), into a zone at (or near) its write pointer, sources anywhere: the host
        cannot know the zone states or the LBA formats, so only refusals that hold
        whatever they are are expected (too many ranges, another descriptor format)."""
        r, z = self.rng, self.zoned
        if z is not None and r.random() < 0.7:
            nsid, nsze = z.nsid, z.nsze
            zone = r.randrange(z.zones)
            sdlba = self._wp_hint(zone) + r.choice([0, 0, 0, 1, -1, z.zone_lbas])
        else:
            nsid, nsze = self._other_nsid(lambda ns: ns.attached, committed=True), 16384
            sdlba = r.randrange(nsze)
        count = r.choice([1, 1, 2, 4])
        ranges = [[r.randrange(nsze), r.choice([1, 8, 16, 64])] for _ in range(count)]
        nr, extra, exp, why = count - 1, 0, None, ""
        if r.random() < 0.1:
            extra, exp, why = r.choice([1, 2, 3]) << 8, "fail", "Copy descriptor format not 0"
        return self._copy_sqe(nsid, sdlba, ranges, nr, extra, exp, why, "copy-ns")

    def _wp_hint(self, zone: int) -> int:
        """Where the host last saw the zone's write pointer (zcheck), else its start."""
        z = self.zoned
        return self.model.zone_wp.get(zone, zone * z.zone_lbas)

    def zone_send(self) -> Sqe:
        """Zone Management Send: close, finish, open, reset, offline on a zone or with
        Select All. Whether it succeeds rests on the zone states, which the host does not
        follow: only what is refused whatever they are is expected (another ZSA, ZRWA,
        an SLBA that is no zone start or past the namespace without Select All)."""
        r, z = self.rng, self.zoned
        zsa = r.choice([1, 2, 3, 4, 4, 5, 1, 3])
        select_all = r.random() < 0.15
        slba = r.randrange(z.zones) * z.zone_lbas
        exp, why = None, ""
        roll = r.random()
        if roll < 0.06:
            zsa, exp, why = r.choice([0x00, 0x06, 0x10, 0x11, 0xFF]), "fail", "ZSA not 1-5"
        elif roll < 0.09:
            zsa |= 1 << 9
            exp, why = "fail", "ZRWA set"
        elif roll < 0.15:
            slba += r.choice([1, z.zone_lbas - 1, r.randrange(1, z.zone_lbas)])
            if not select_all:
                exp, why = "fail", "Zone Management Send SLBA not a zone start"
        elif roll < 0.18:
            slba = z.nsze + r.choice([0, z.zone_lbas, 2**40])
            if not select_all:
                exp, why = "fail", "Zone Management Send SLBA past the namespace"
        cmd = Command(0x79, nsid=z.nsid, cdw10=slba & 0xFFFF_FFFF, cdw11=slba >> 32,
                      cdw13=zsa | int(select_all) << 8)
        return Sqe(cmd, exp=exp, why=why, tag="zsend")

    def zone_recv(self) -> Sqe:
        """Report Zones from any LBA, any filter, partial or not, any length: a
        well-formed one succeeds whatever the zones are."""
        r, z = self.rng, self.zoned
        nbytes = r.choice([64, 128, 200, 512, 4096, 64 * (z.zones + 1), 8192,
                           r.randrange(4, 16384, 4)])
        slba = r.choice([0, r.randrange(z.zones) * z.zone_lbas, r.randrange(z.nsze),
                         z.nsze - 1])
        zrasf, zra, partial = r.randrange(8), 0, r.randrange(2)
        exp, why = "ok", "well-formed Report Zones"
        roll = r.random()
        if roll < 0.04:
            zrasf, exp, why = r.randint(8, 255), "fail", "Report Zones filter beyond 7"
        elif roll < 0.08:
            zra, exp, why = r.choice([1, 2, 0xFF]), "fail", "Zone Receive Action not 0"
        elif roll < 0.12:
            slba, exp, why = z.nsze + r.choice([0, 1, 2**33]), "fail", "SLBA past the namespace"
        cmd = Command(0x7A, nsid=z.nsid, cdw10=slba & 0xFFFF_FFFF, cdw11=slba >> 32,
                      cdw12=nbytes // 4 - 1, cdw13=zra | zrasf << 8 | partial << 16)
        sqe = Sqe(cmd, transfer=True, exp=exp, why=why, tag="zrecv")
        return self._with_data(sqe, nbytes)

    def zone_append(self) -> Sqe:
        """Zone Append to a zone start (success rests on the zone), or to an LBA that is
        no zone start (Invalid Field whatever the zones are)."""
        r, z = self.rng, self.zoned
        nlb = r.choice([1, 1, 8, 16, 64, r.randint(1, 256)])
        zslba = r.randrange(z.zones) * z.zone_lbas
        exp, why = None, ""
        if r.random() < 0.08:
            zslba += r.randrange(1, z.zone_lbas)
            exp, why = "fail", "Zone Append ZSLBA not a zone start"
        cmd = Command(0x7D, nsid=z.nsid, cdw10=zslba, cdw12=nlb - 1)
        sqe = Sqe(cmd, transfer=True, exp=exp, why=why, tag="zappend")
        return self._with_data(sqe, nlb * LBA)

    def zone_write(self) -> Sqe:
        """Write or Write Zeroes on the zoned namespace at the write pointer the host
        last saw, or just off it, or a Read anywhere in it: no expectation."""
        r, z = self.rng, self.zoned
        zone = r.randrange(z.zones)
        slba = self._wp_hint(zone) + r.choice([0, 0, 0, 8, -1, 1, r.randrange(z.zone_lbas)])
        slba = max(0, slba)
        nlb = r.choice([1, 8, 8, 16, 64, r.randint(1, 256)])
        opcode = r.choice([0x01, 0x01, 0x01, 0x08, 0x02])
        cmd = Command(opcode, nsid=z.nsid, cdw10=slba, cdw12=nlb - 1)
        sqe = Sqe(cmd, tag="zwrite")
        return self._with_data(sqe, nlb * LBA) if opcode != 0x08 else sqe

    def vendor_save(self) -> Sqe:
        """C2h: save the device state to state_out. The executor judges it (success with
        a state_out and no QMP save under way; Invalid Field without one)."""
        return Sqe(Command(0xC2, nsid=self.rng.choice([0, 0, 1, BROADCAST])), tag="c2h")

    # -- Flexible Data Placement (placement=fdp; the executor judges these: fdp_rules.py)

    def _fdp_nsid(self, committed: bool = False) -> int:
        """Mostly an active namespace the model knows (1 most often), now and then an
        inactive, invalid or broadcast NSID."""
        r = self.rng
        table = self.model.ns if committed else self.model.ns_pred
        active = table.active_ids() if table is not None else [1]
        roll = r.random()
        if roll < 0.55 and 1 in active:
            return 1
        if roll < 0.9 and active:
            return r.choice(active)
        return r.choice([0, 0xFFFF_FFFF, r.randint(2, MAX_NSID), MAX_NSID + 1,
                         r.getrandbits(32)])

    def _phndl(self, nsid: int, committed: bool = False) -> int:
        """A placement handle of the namespace (mostly), or one past its list."""
        r = self.rng
        table = self.model.ns if committed else self.model.ns_pred
        ns = table.ns.get(nsid) if table is not None else None
        count = len(ns.handles) if ns is not None else self.fdp.ruhs
        if r.random() < 0.85 and count:
            return r.randrange(count)
        return r.choice([count, count + 1, self.fdp.ruhs, 0xFFFF, r.getrandbits(16)])

    def fdp_log(self) -> Sqe:
        """Log 20h-23h: any offset (mostly dword aligned and inside the page), any length
        (PRPs for all of it), LSP (23h: bit 0 picks host events), LSI mostly 1 (the
        endurance group), RAE, any NSID (unused)."""
        r = self.rng
        lid = r.choice([0x20, 0x21, 0x22, 0x22, 0x23, 0x23])
        size = self.fdp.log_bytes(lid)
        offset = 0 if r.random() < 0.6 else r.choice(
            [r.randrange(0, size, 4), r.randrange(size + 64), size, 4096, 2**32, 2**63,
             r.randrange(1, 8)])
        numd = r.choice([1, 2, 16, size // 4, size // 4 + 1, 1024, r.randint(1, 4096)])
        lsi = 1 if r.random() < 0.85 else r.choice([0, 2, 0xFFFF, r.getrandbits(16)])
        lsp = r.choice([0, 1, 1, r.randrange(128)])
        cmd = Command(0x02, nsid=r.choice([0, 1, BROADCAST, r.getrandbits(32)]),
                      cdw10=lid | lsp << 8 | r.randrange(2) << 15 | ((numd - 1) & 0xFFFF) << 16,
                      cdw11=(numd - 1) >> 16 | lsi << 16, cdw12=offset & 0xFFFF_FFFF,
                      cdw13=offset >> 32)
        return self._with_data(Sqe(cmd, transfer=True, tag="fdp-log"), numd * 4)

    def fdp_get_feature(self) -> Sqe:
        """Get Features 1Dh (ENDGID mostly 1) or 1Eh (a namespace and placement handle,
        NOET 0-255), any SEL (4-7 are refused), DW0 judged."""
        r = self.rng
        sel = r.choice([0, 0, 0, 1, 2, 3]) if r.random() < 0.95 else r.randint(4, 7)
        if r.random() < 0.4:
            endgid = 1 if r.random() < 0.85 else r.choice([0, 2, 0xFFFF])
            cmd = Command(0x0A, nsid=r.choice([0, 1, BROADCAST]), cdw10=0x1D | sel << 8,
                          cdw11=endgid | r.getrandbits(16) << 16)
            return Sqe(cmd, tag="fdp-getfeat")
        nsid = self._fdp_nsid()
        noet = r.choice([0, 1, 2, 3, 4, 5, 255, r.randrange(256)])
        cmd = Command(0x0A, nsid=nsid, cdw10=0x1E | sel << 8,
                      cdw11=self._phndl(nsid) | noet << 16)
        return self._host_page(bytes(4096), "fdp-getfeat", cmd)

    def fdp_set_feature(self) -> Sqe:
        """Set Features 1Eh: enable or disable the NOET event types of the data buffer
        (types 0-3, now and then one femu does not raise) on a namespace's placement
        handle; or 1Dh (FDP off or on, configuration index, ENDGID, SV, an NSID), which
        changes nothing while a namespace exists (Command Sequence Error for a change)."""
        r = self.rng
        sv = int(r.random() < 0.04) << 31
        if r.random() < 0.25:
            endgid = 1 if r.random() < 0.85 else r.choice([0, 2, 0xFFFF])
            cdw12 = r.choice([0, 1, 1]) | (0 if r.random() < 0.9 else r.randrange(256)) << 8
            cmd = Command(0x09, nsid=r.choice([0, 0, BROADCAST, 1, MAX_NSID + 1]),
                          cdw10=0x1D | sv, cdw11=endgid, cdw12=cdw12)
            return Sqe(cmd, tag="fdp-cfg")
        nsid = self._fdp_nsid()
        noet = r.choice([0, 1, 1, 2, 4, r.randint(1, 255)])
        types = [r.randrange(4) for _ in range(noet)]
        if noet and r.random() < 0.1:
            types[r.randrange(noet)] = r.choice([4, 5, 0x80, 0xFF])
        cmd = Command(0x09, nsid=nsid, cdw10=0x1E | sv, cdw11=self._phndl(nsid) | noet << 16,
                      cdw12=r.choice([0, 1, 1, r.getrandbits(32)]))
        return self._host_page(bytes(types).ljust(4096, b"\0"), "fdp-setfeat", cmd)

    def io_mgmt_recv(self) -> Sqe:
        """I/O Management Receive: MO 1 (RUH Status) mostly, 0 (nothing) or another; NUMD
        up to past MDTS; PRPs for what fits."""
        r = self.rng
        mo = r.choice([1, 1, 1, 1, 0]) if r.random() < 0.95 else r.randint(2, 255)
        numd = r.choice([1, 4, 8, 12, 16 + 8 * r.randrange(17), 1024,
                         r.randint(1, 4096)])
        if r.random() < 0.04:
            numd = self.model.mdts_bytes // 4 + r.choice([1, 1024, 2**20])
        cmd = Command(0x12, nsid=self._fdp_nsid(committed=True),
                      cdw10=mo | (r.getrandbits(16) << 16 if r.random() < 0.2 else 0),
                      cdw11=numd - 1)
        sqe = Sqe(cmd, transfer=True, tag="iomr")
        return self._with_data(sqe, min(numd * 4, 64 << 10))

    def io_mgmt_send(self) -> Sqe:
        """I/O Management Send MO 1 (RUH Update): NPID + 1 placement identifiers, mostly
        handles of the namespace (maybe twice), now and then one it lacks or an NPID past
        MAXPIDS; MO 0 or another."""
        r = self.rng
        nsid = self._fdp_nsid(committed=True)
        mo = 1 if r.random() < 0.9 else r.choice([0, 0, 2, r.randrange(256)])
        count = r.choice([1, 1, 2, 3, r.randint(1, self.fdp.ruhs)])
        pids = [self._phndl(nsid, committed=True) for _ in range(count)]
        npid = count - 1
        if r.random() < 0.05:
            npid = r.choice([self.fdp.ruhs, self.fdp.ruhs + 1, 0xFFFF])
        data = struct.pack(f"<{len(pids)}H", *pids).ljust(4096, b"\0")
        cmd = Command(0x1D, nsid=nsid, cdw10=mo | npid << 16)
        return self._host_page(data, "ioms", cmd)

    def _dtype(self) -> Tuple[int, int]:
        """(CDW12 DTYPE bits, CDW13 DSPEC bits): DTYPE 0, 1 (Streams), 2 (Data Placement)
        mostly, or another; DSPEC a handle (mostly below NRUH) or anything."""
        r = self.rng
        dtype = r.choice([0, 2, 2, 2, 1]) if r.random() < 0.9 else r.randint(3, 15)
        dspec = r.randrange(self.fdp.ruhs) if r.random() < 0.8 else r.choice(
            [self.fdp.ruhs, 0xFFFF, r.getrandbits(16)])
        return dtype << 20, dspec << 16

    def placed_write(self) -> Sqe:
        """A Write of namespace 1 with DTYPE and DSPEC (judged: fdp_rules.py)."""
        sqe = self.rw(0x01)
        dtype, dspec = self._dtype()
        sqe.cmd.cdw12 |= dtype
        sqe.cmd.cdw13 |= dspec
        sqe.exp, sqe.why, sqe.tag = None, "", "pwrite"
        return sqe

    def placed_wz(self) -> Sqe:
        """Write Zeroes of namespace 1 with DTYPE and DSPEC (with DEAC they are unused)."""
        sqe = self.write_zeroes()
        dtype, dspec = self._dtype()
        sqe.cmd.cdw12 |= dtype
        sqe.cmd.cdw13 |= dspec
        sqe.exp, sqe.why, sqe.tag = None, "", "pwz"
        return sqe

    # -- mutation and noise

    def mutate(self, sqe: Sqe) -> Sqe:
        """Change one field; whatever was expected no longer is."""
        r, c = self.rng, sqe.cmd
        sqe.exp, sqe.why = None, ""
        field_name = r.choice(["opcode", "fuse", "psdt", "nsid", "cdw10", "cdw10", "cdw11",
                               "cdw12", "cdw13", "cdw14", "cdw15", "mptr", "prp", "prp",
                               "prp", "lba"])
        if field_name == "opcode":
            c.opcode = r.randrange(256)
        elif field_name in ("fuse", "psdt"):
            setattr(c, field_name, r.randrange(1, 4))
        elif field_name == "nsid":
            c.nsid = self._nsid()
        elif field_name.startswith("cdw"):
            old = getattr(c, field_name)
            setattr(c, field_name, old ^ (1 << r.randrange(32)) if r.random() < 0.5
                    else self._u32())
        elif field_name == "mptr":
            c.mptr = r.getrandbits(64)
        elif field_name == "prp":
            ptr = getattr(sqe, "_ptr", None)
            if ptr is None:
                ptr = prp.Pointers(c.prp1, c.prp2, classes=set())
            sqe.tag += "/" + prp.bend(self.picker, ptr, self.model.page_size)
            self._attach(sqe, ptr)
        else:   # the LBA range at and past the end, and NLB wrapping 64 bits
            nsze = self.model.nsze
            slba = r.choice([nsze, nsze - 1, nsze - (c.cdw12 & 0xFFFF), 2**64 - 1,
                             2**64 - 1 - (c.cdw12 & 0xFFFF), 2**63, r.getrandbits(64)])
            c.cdw10, c.cdw11 = slba & 0xFFFF_FFFF, slba >> 32
            if r.random() < 0.5:
                c.cdw12 = (c.cdw12 & ~0xFFFF) | r.choice([0xFFFF, 0x7FF, 0x800, 1])
        sqe.tag += ":" + field_name
        return sqe

    def noise(self, admin: bool) -> Sqe:
        """An entry of random fields; pointers still come from the address classes."""
        r = self.rng
        c = Command(r.randrange(256), nsid=self._nsid(), cdw10=self._u32(), cdw11=self._u32(),
                    cdw12=self._u32(), cdw13=self._u32(), cdw14=self._u32(), cdw15=self._u32(),
                    fuse=r.choice([0, 0, 0, 0, 1, 2, 3]), psdt=r.choice([0, 0, 0, 0, 1, 2, 3]),
                    mptr=r.choice([0, r.getrandbits(64)]))
        sqe = Sqe(c, tag="noise")
        c1, c2 = self.picker.wild_class(), self.picker.wild_class()
        c.prp1 = self.picker.address(c1, r.choice([1, 4, 4096]))
        c.prp2 = self.picker.address(c2, r.choice([8, 4096]))
        sqe.classes = {c1, c2}
        sqe.list_class = c2
        sqe.prp1_class, sqe.prp2_class = c1, c2
        return sqe


def placement_fields(r, ruhs: int, data: bytearray, table) -> None:
    """FDP fields of a create's host structure: ENDGID (bytes 103:102: 0 mostly, the
    group now and then, rarely another), NPHNDLS (393:392) and the placement handle list
    from byte 512: mostly handles the controller did not choose (table: the namespaces as
    the create will find them, None: unknown), in any order; NPHNDLS 0 (the controller's
    handle); now and then a list the device must refuse (a handle twice, one past NRUH,
    the controller's, NPHNDLS past NRUH)."""
    endgid = r.choice([0, 0, 0, 0, 1, 1]) if r.random() < 0.97 else r.choice(
        [2, 0xFFFF, r.getrandbits(16)])
    struct.pack_into("<H", data, 102, endgid)
    free = [h for h in range(ruhs) if table is None or table.ruha(h) != 2]
    roll = r.random()
    handles = [] if roll < 0.2 or not free else r.sample(free, r.randint(1, len(free)))
    count = len(handles)
    if roll > 0.9:
        which = r.choice(["dup", "range", "chosen", "count", "count"])
        if which == "dup" and handles:
            handles.append(r.choice(handles))
        elif which == "range":
            handles.append(r.choice([ruhs, ruhs + 1, 0xFF, 0xFFFF, r.getrandbits(16)]))
        elif which == "chosen" and table is not None and table.choose() is not None:
            handles.append(table.choose())
        elif which == "count":
            handles += [r.randrange(ruhs) for _ in range(r.randint(1, 4))]
        count = len(handles)
        if which == "count":
            count = r.choice([ruhs + 1, 128, 129, 0xFFFF, count])
    struct.pack_into("<H", data, 392, count)
    for i, h in enumerate(handles):
        struct.pack_into("<H", data, 512 + 2 * i, h & 0xFFFF)


def to_record(sqid: int, sqe: Sqe) -> dict:
    """The serialisable 'sub' record: replaying it submits the same 64 bytes (with the
    CID of the moment) after writing the same guest memory."""
    c = sqe.cmd
    for name in ("prp1", "prp2", "mptr"):        # bent pointers may have run past 2^64
        setattr(c, name, getattr(c, name) & 0xFFFF_FFFF_FFFF_FFFF)
    for name in ("nsid", "cdw10", "cdw11", "cdw12", "cdw13", "cdw14", "cdw15"):
        setattr(c, name, getattr(c, name) & 0xFFFF_FFFF)
    rec = {"a": "sub", "q": sqid, "sqe": c.pack(0).hex(), "tag": sqe.tag}
    if sqe.mem:
        rec["mem"] = [[addr, data.hex()] for addr, data in sqe.mem]
    if sqe.classes:
        rec["cls"] = sorted(sqe.classes)
    for key, value in (("lcls", sqe.list_class), ("p1cls", sqe.prp1_class),
                       ("p2cls", sqe.prp2_class)):
        if value:
            rec[key] = value
    if sqe.exp:
        rec["exp"], rec["why"] = sqe.exp, sqe.why
    if getattr(sqe, "republish", True) is False:
        rec["pub"] = 0
    return rec


def _segments(ptr: prp.Pointers, page: int, data: bytes):
    """Split data over the pages ptr's PRP1/PRP2 name (a table fits in two pages)."""
    first = min(len(data), page - (ptr.prp1 % page))
    yield ptr.prp1, first, data[:first]
    if first < len(data):
        yield ptr.prp2, len(data) - first, data[first:]
