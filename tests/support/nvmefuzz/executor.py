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
  mmio     a write to the MSI-X BAR;  msix  MSI-X on (vectors programmed) or off
  verify   write a pattern, read it back through other PRPs, compare (integrity.py)
  pam_cfs  a CQ whose memory stops being RAM must make the controller fatal (scenarios.py)
  zcheck   the zones as Report Zones gives them, and a write, append and stray write the
           host can judge from that (surface.py)
  qsave    a QMP save-state during I/O, maybe held while registers, QMP and a reset must
           still be served (surface.py)
  shnpool  CC.SHN with the request pool exhausted: SHST completes, the counts are saved
  fdpcheck the FDP logs, features, handle status, updates and placed writes on a quiet
           device, judged exactly (fdp_surface.py)
  fdpcfg   FDP off or on (feature 1Dh) with and without namespaces, and the namespaces
           made again with placement handle lists (fdp_surface.py)
  pcut     ring, then cut the power over QMP with everything in flight: the cut is done
           (ftl_check passed), the controller as at power-on, the host forgets what was
           in flight as after a reset (power.py)
  stop     SIGTERM, QEMU must exit cleanly

This file: dispatch, guest memory, submission and doorbells. queue_rules.py,
completions.py and controller.py hold the rest, as mixins of Executor.
"""
import struct
import time
from collections import defaultdict
from typing import Dict, List, Tuple

from femu_lab.vm.qmp import QmpError
from femu_lab.vm.qtest import QTestError
from nvme_qtest import CAP, VS, need_event

from . import judge as judging
from . import prp
from .completions import Completions
from .controller import ControllerActions
from .failure import Failure
from .fdp_rules import FdpRules
from .fdp_surface import FdpSurface
from .integrity import Integrity
from .layout import DBBUF_EVENTIDX, DBBUF_SHADOW, slot_owner
from .model import Model, Namespaces, Pending
from .ns_rules import NsRules
from .power import PowerCut
from .queue_rules import QueueRules
from .scenarios import Scenarios
from .surface import Surface
from .kv_commands import probe_kv_sectors
from .target import NAMESPACES_MIB, Target, sanitizer_report

CAPACITY = (64 << 20) // 512    # SMALL_GEOMETRY: devsz_mb=64 of 512-byte sectors
NSZE = (NAMESPACES_MIB[0] << 20) // 512     # namespace 1, LBA format 0 (512 B)
MDTS_BYTES = 4096 << 8          # target.DEVICE_PROPS mdts=8
QUEUES = 16                     # target.DEVICE_PROPS queues=16


class Executor(QueueRules, NsRules, Completions, ControllerActions, Integrity, Scenarios,
               Surface, FdpRules, FdpSurface, PowerCut):
    """One target, one host model; `run` one record at a time."""

    def __init__(self, target: Target, deadline: float = 10.0):
        self.t, self.qt, self.nvme = target, target.qt, target.nvme
        self.deadline = deadline
        self.variant = target.variant
        zoned, fdp, kv = self.variant.zoned, self.variant.fdp, self.variant.kv
        capacity, fixed = CAPACITY, (zoned.nsid, zoned.nsze) if zoned else None
        if kv:      # at the end of the space, kept like the zoned one: out of the capacity
            kv_sectors = probe_kv_sectors(self.nvme, CAPACITY, sum(
                (mib << 20) // 512 for mib in NAMESPACES_MIB))
            capacity, fixed = CAPACITY - kv_sectors, (kv.nsid, kv_sectors)
        self.m = Model(QUEUES, NSZE, MDTS_BYTES, Namespaces(
            capacity, NAMESPACES_MIB, fixed, fdp.ruhs if fdp else 0))
        self.stalls = target.stalls
        self.saves = 0            # C2h and QMP saves that completed
        self.mem_ops: List[Tuple[int, object]] = []   # (addr, bytes | zero length)
        self.next_cid: Dict[int, int] = defaultdict(lambda: 1)
        self.ghosts = set()       # commands of deleted SQs: may still complete, harmlessly
        self.index = 0
        self.sent = 0             # SQEs submitted
        self.flood_sent = 0       # of which in pool-exhaustion floods
        self.statuses = defaultdict(int)   # (tag, status code) -> count, for tuning
        self.last_cqe: Dict[Tuple[int, int], object] = {}   # for verify: its own CQEs
        self.skipped = 0          # records a replay could not apply (no such queue)
        self.msix_on = False      # MSI-X enabled (else pin interrupts)
        self.msix_wild = False    # some vector writes our registers or RAM the host uses
        self.cap = self.nvme.readq(CAP)
        self.cmds_scratch = prp.Scratch()  # pages for nsfix's own commands
        self.ns_repairs = 0       # namespace 1 damaged under chaos, repaired by nsfix
        self.ns_rebuilds = 0      # namespaces unknown, rebuilt by nsfix
        self.vs = self.nvme.readl(VS)

    # ------------------------------------------------------------------ entry point

    def run(self, rec: dict, index: int = 0) -> None:
        self.index = self.stalls.record = index
        try:
            getattr(self, "do_" + rec["a"])(rec)
        except Failure as failure:
            failure.index = index
            raise
        except (QTestError, QmpError) as exc:
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
        # Only an SQ the host owns, on a CQ it reaps (a replayed list may name others).
        if sq is None or not sq.ours or m.room(sq) <= 0 or not m.enabled or \
                sq.cqid not in m.cqs or not m.cqs[sq.cqid].ours:
            self.skipped += 1
            return
        raw = bytearray(bytes.fromhex(rec["sqe"]))
        opcode, flags = raw[0], raw[1] & 0xC3
        cdw10, cdw11 = struct.unpack_from("<II", raw, 40)
        admin = sq.qid == 0
        fdp, kv = self.variant.fdp is not None, self.variant.kv is not None
        hazard, exp, why = judging.judge(rec, admin, opcode, flags, cdw11, cdw10, fdp, kv)
        if hazard is None and not flags and judging.writes_host(admin, opcode, fdp, kv) and \
                any(slot_owner(p) >= 0 for p in struct.unpack_from("<QQ", raw, 24)):
            # A queue create's pointer (its slot) under an opcode mutated into one that
            # writes guest memory: an Identify into a live CQ ring (campaign seed 9)
            hazard = "chaos"
        create = None
        trusted = m.trusted           # before this entry's own hazards
        if admin and opcode in (0x00, 0x01, 0x04, 0x05):
            exp, why, create = self._queue_rule(opcode, flags, raw, cdw10, cdw11)
        exp, why, ns_create, nsdep = self._ns_sub(rec, admin, opcode, flags, raw, cdw10,
                                                  cdw11, exp, why)
        create = create or ns_create
        dw0 = None
        if fdp and not flags:
            exp, why, fdpdep, dw0 = self._fdp_sub(rec, admin, opcode, raw, cdw10, cdw11,
                                                  exp, why)
            nsdep = nsdep or fdpdep
        if not admin and self.m.torn and exp == "ok":
            exp, why = self._torn_read(opcode, raw, exp, why)
        if admin and opcode == 0xC2 and rec.get("tag") == "c2h" and not flags:
            # Vendor C2h: a save to state_out; Invalid Field without one. While a QMP save
            # is under way it may be refused: no expectation then.
            if not self.variant.save:
                exp, why = "fail", "C2h without a state_out"
            elif not self.qsave_busy:
                exp, why = "ok", "C2h with a state_out"
        if not admin and m.recreate_queued(sq.qid):
            # Behind a queued delete and re-create of its qid, this could land in either.
            self._scramble(f"submission to SQ {sq.qid} while it is being re-created",
                           io_only=True)
        if admin and opcode == 0x7C:
            prp1, prp2 = struct.unpack_from("<QQ", raw, 24)
            create = {"op": 0x7C, "ours": (prp1, prp2) == (DBBUF_SHADOW, DBBUF_EVENTIDX),
                      "pub": rec.get("pub", 1)}
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
        m.add(Pending(sq.qid, cid, opcode, self.index, exp if trusted else None, why, owed,
                      create, rec.get("tag", ""), nsdep, dw0 if trusted else None))
        self.sent += 1
        self.flood_sent += rec.get("tag") == "flood"
        if hazard:
            self._scramble(f"{rec.get('tag', '')} writes guest RAM the host uses",
                           keep=(sq.qid, cid))

    def _retire(self, sq, slot: int) -> None:
        """Zero an admin SQ slot whose command has completed. Every entry left in a ring
        may run again when a doorbell value the host never meant makes the device fetch
        old slots (chaos), so the host's own commands that delete or attach namespace 1
        (nsfix, the FDP configuration change) must not stay there: nothing generated
        names namespace 1, and the checks rely on its staying active. Zeroes are a Delete
        I/O SQ of queue 0: refused, harmless."""
        if self.m.sqs.get(sq.qid) is sq:
            self._write(sq.addr + slot * 64, bytes(64))

    def _scramble(self, why: str, keep=None, io_only: bool = False) -> None:
        """Queue rings may no longer hold what the host wrote: nothing is owed, and no
        completion can be held against the device (except, for `keep`, the status the
        entry that caused this must have). Unless only I/O queues are affected
        (io_only), the device may run admin entries nobody wrote: any namespace may have
        changed, 1 included, until nsfix has looked."""
        self.m.chaos = True
        self.m.release_all()
        if not io_only:
            self.m.ns = self.m.ns_pred = None
            self.m.ns_dirty = True
        for key, p in self.m.pending.items():
            if key != keep:
                p.expect = None

    # ------------------------------------------------------------------ doorbells

    def _publish(self, qid: int, cq: bool, value: int, old: int, always: bool = False) -> None:
        """A new SQ tail / CQ head: MMIO, or shadow + MMIO when EventIdx asks."""
        m = self.m
        doorbell = self.nvme.doorbell(qid, cq)
        config_queued = bool(qid) and m.dbbuf_queued()
        if config_queued:
            m.dbbuf_window.add((qid, cq))
        if config_queued and m.dbbuf is None:
            self._publish_in_window(qid, cq, value, doorbell)
            return
        if qid == 0 or m.dbbuf is None:
            self.nvme.writel(doorbell, value)
            return
        shadow, eventidx = m.dbbuf
        slot = (2 * qid + int(cq)) * 4
        self.qt.writel(shadow + slot, value)
        if always or need_event(self.qt.readl(eventidx + slot), value, old):
            self.nvme.writel(doorbell, value)

    def _publish_in_window(self, qid: int, cq: bool, value: int, doorbell: int) -> None:
        """A Doorbell Buffer Config of ours is queued and the host cannot know whether the
        device runs it now: from then on an MMIO value alone is ignored (the shadow wins,
        in QEMU's nvme too), and the config starts the shadow at the newest MMIO value.
        Shadow, MMIO, shadow, MMIO is right if the config lands at one instant: before
        (the shadow writes stand, the MMIO kicks), between (a later shadow write fixes the
        shadow, the last MMIO kicks) or after (it starts from this MMIO value). It does
        not: the device reads the values, then writes the shadows, and a write between
        the two is lost, so the value is published again once the config completed."""
        slot = DBBUF_SHADOW + (2 * qid + int(cq)) * 4
        for _ in range(2):
            self.qt.writel(slot, value)
            self.nvme.writel(doorbell, value)

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
