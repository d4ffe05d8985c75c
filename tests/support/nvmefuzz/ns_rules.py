"""Namespaces: what the host must expect of a Namespace Management, Namespace Attachment
or Format NVM command, judged against the namespaces that will exist when the device
gets to it (the admin queue runs in order), and of the commands whose outcome rests on
a namespace other than 1; what a success does to the model; and `nsfix`, which checks
namespace 1 and brings the namespaces back to a state the host knows. A mixin of
Executor (executor.py).

Effects are applied to the committed table in submission order (a delete that goes to
the FTL can complete after the attach queued behind it), each once its command
completed; a command the host cannot judge (mutated, noise, a reset dropped it, a ring
the host no longer trusts) makes the namespaces unknown until nsfix.
"""
import struct
from typing import Optional

from nvme_qtest import Command

from .commands import BROADCAST, LBA, MAX_NSID
from .failure import Failure
from .fdp_rules import handles_rule
from .kv_commands import CSI_KV
from .layout import META_BASE, META_END
from .model import LBAF_BYTES, NS_OPCODES, PAGE_SECTORS, SECTOR, Namespaces
from .target import NAMESPACES_MIB

AER_NS_NOTICE = 0x04_0002      # notice, namespace attribute changed, log page 04h
AER_LBA_ALERT = 0x0E_0502      # notice, LBA status information alert, log page 0Eh


def _valid(nsid: int) -> bool:
    return 1 <= nsid <= MAX_NSID


class NsRules:
    # ------------------------------------------------------------------ submission

    def _ns_sub(self, rec: dict, admin: bool, opcode: int, flags: int, raw: bytearray,
                cdw10: int, cdw11: int, exp, why):
        """(expectation, why, create parameters, nsdep) for any entry: namespace
        commands are judged here; a few templates (by their exact tag: not mutated) get
        an expectation from the namespace model."""
        m = self.m
        if admin and opcode == 0x09 and cdw10 & 0xFF == 0x1D and self.variant.fdp:
            return self._fdp_config_sub(rec, flags, raw, cdw10, cdw11, exp, why)
        if admin and opcode in NS_OPCODES:
            m.aer_events.add(AER_NS_NOTICE)     # an AER may complete with it from now on
            for p in m.pending.values():    # I/O judged against the namespaces as they
                if p.nsdep:                 # were may now run after this command
                    p.expect = None
            exp, why, effect = self._ns_change(opcode, flags, raw, rec, cdw10, cdw11,
                                               exp, why)
            m.ns_seq += 1
            m.ns_log[m.ns_seq] = [effect, None]
            return exp, why, {"op": opcode, "ns_seq": m.ns_seq, "effect": effect}, False
        if not admin and opcode == 0x04:
            m.aer_events.add(AER_LBA_ALERT)     # LBAs marked: the alert, if enabled
            if struct.unpack_from("<I", raw, 4)[0] in (1, BROADCAST):
                m.ns_dirty = True   # never generated (Commands.protect): nsfix clears it
        tag = rec.get("tag", "")
        if tag in ("feat-ns", "lbastat-ns", "setfeat-nq", "wu") and not flags and m.trusted:
            nsid = struct.unpack_from("<I", raw, 4)[0]
            if tag == "wu":
                got = self._ns_io(nsid, raw)
                return got[0], got[1], None, True
            if tag == "setfeat-nq":
                return (*self._queues_rule(), None, False)
            table = m.ns_pred
            if table is not None and nsid in table.ns and table.ns[nsid].zoned:
                table = None        # the zoned namespace: no rule the host relies on
            if table is not None:
                if tag == "lbastat-ns":
                    ns = table.active(nsid)
                    slba = cdw10 | cdw11 << 32
                    if ns is not None:
                        exp = "ok" if slba < ns.nsze else "fail"
                        why = "Get LBA Status of an active namespace"
                        if exp == "fail":
                            why = "Get LBA Status: SLBA past the namespace"
                    else:
                        exp, why = "fail", "Get LBA Status of an inactive or invalid NSID"
                else:
                    active = table.active(nsid) is not None
                    exp = "ok" if active else "fail"
                    why = ("Error Recovery (namespace specific) of an " +
                           ("active" if active else "inactive or invalid") + " namespace")
        return exp, why, None, False

    def _ns_io(self, nsid: int, raw: bytearray):
        """Write Uncorrectable on a namespace >= 2: against the committed namespaces,
        while no namespace command is queued (I/O races the admin queue)."""
        m = self.m
        if m.ns is None or m.ns_admin_busy():
            return None, ""
        if _valid(nsid) and m.ns.active(nsid) is None:
            return "fail", "I/O to a valid but inactive namespace"
        if not _valid(nsid):
            return "fail", "I/O to an invalid NSID"
        if m.ns.ns[nsid].zoned:
            return "fail", "Write Uncorrectable on the zoned namespace (Invalid Opcode)"
        slba = struct.unpack_from("<Q", raw, 40)[0]
        nlb = (struct.unpack_from("<I", raw, 48)[0] & 0xFFFF) + 1
        if slba + nlb <= m.ns.ns[nsid].nsze:
            return "ok", "Write Uncorrectable inside an active namespace"
        return "fail", "Write Uncorrectable past the end of the namespace"

    def _queues_rule(self):
        """Set Features Number of Queues: Command Sequence Error once an I/O queue was
        created since the enable (the admin queue runs in order: a create queued before
        this one counts when it will succeed)."""
        m = self.m
        if m.io_created:
            return "fail", "Number of Queues after an I/O queue was created"
        creates = [p for p in m.admin.values() if p.opcode in (0x01, 0x05)]
        if any(p.expect is None for p in creates):
            return None, ""
        if any(p.expect == "ok" for p in creates):
            return "fail", "Number of Queues behind a queue create that succeeds"
        return "ok", "Number of Queues before any I/O queue was created"

    def _ns_change(self, opcode, flags, raw, rec, cdw10, cdw11, judged, judged_why):
        """(expectation, why, effect) of a namespace command; the effect (a tuple for
        Namespaces.apply, or None: unknown) is also applied to the prediction. `judged`
        is what the entry alone says (judge.py: a list or structure that is not guest
        memory, FUSE/PSDT): such a command fails and changes nothing."""
        m = self.m
        pred = m.ns_pred if m.trusted else None
        if pred is None:
            m.ns_pred = None
            return None, "", None
        if flags:
            return "fail", "namespace command with FUSE/PSDT set", ()
        if judged == "fail":
            return "fail", judged_why, ()
        nsid = struct.unpack_from("<I", raw, 4)[0]
        verdict, why, effect = self._ns_judge(pred, opcode, nsid, raw, rec, cdw10, cdw11)
        if verdict is None:
            m.ns_pred = None
            return None, "", None
        if verdict == "ok":
            pred.apply(effect)
            return "ok", why, effect
        return verdict, why, ()         # "fail" or a status code; () : nothing changes

    def _host_struct(self, raw, rec) -> Optional[bytes]:
        """The 4 KiB the device will read through PRP1: a page of the scratch arena this
        record filled whole (nothing else writes there), or None."""
        prp1 = struct.unpack_from("<Q", raw, 24)[0]
        if prp1 % self.m.page_size or not META_BASE <= prp1 < META_END:
            return None
        data = None
        for addr, hexdata in rec.get("mem", ()):
            if addr == prp1 and len(hexdata) == 8192:
                data = bytes.fromhex(hexdata)
            elif data is not None and prp1 < addr + len(hexdata) // 2 and addr < prp1 + 4096:
                return None             # written over by a later piece of the record
        return data

    def _ns_judge(self, pred: Namespaces, opcode, nsid, raw, rec, cdw10, cdw11):
        """CONTROLLER.md's rules for 0Dh, 15h and 80h against `pred`: (verdict, why,
        effect); verdict None when the host cannot tell (then no effect is known)."""
        sel = cdw10 & 0xF
        if (nsid == 1 and not rec.get("own")) or nsid == BROADCAST:
            # Never generated (Commands.protect); a replay that has one leaves the
            # namespaces unknown and namespace 1 to be checked. ("own": the FDP
            # configuration change deletes and makes namespace 1 again, judged as any.)
            self.m.ns_dirty = True
            return None, "", None
        if opcode == 0x0D:
            if sel == 1:
                if not _valid(nsid):
                    return "fail", "Namespace Management delete of an invalid NSID", None
                if nsid not in pred.ns:
                    return "fail", "Namespace Management delete of an unallocated NSID", None
                if pred.ns[nsid].zoned:
                    return "fail", "delete of the zoned namespace", None
                return "ok", "delete of an allocated namespace", ("delete", nsid)
            if sel != 0:
                return "fail", "Namespace Management SEL not 0 or 1", None
            if cdw11 >> 24 == CSI_KV and getattr(getattr(self, "variant", None), "kv", None):
                self.m.ns_dirty = True      # a KV namespace, maybe: nsfix makes them known
                return None, "", None
            if cdw11 >> 24:
                return "fail", "Namespace Management create with a CSI other than NVM", None
            data = self._host_struct(raw, rec)
            if data is None:
                return None, "", None
            return self._ns_create(pred, data)
        if opcode == 0x15:
            if sel not in (0, 1):
                return "fail", "Namespace Attachment SEL not 0 or 1", None
            if not _valid(nsid):
                return "fail", "Namespace Attachment of an invalid NSID", None
            ns = pred.ns.get(nsid)
            if ns is None:
                return "fail", "Namespace Attachment of an unallocated NSID", None
            data = self._host_struct(raw, rec)
            if data is None:
                return None, "", None
            if struct.unpack_from("<HH", data, 0) != (1, 0):
                return "fail", "Namespace Attachment with a list other than [0]", None
            if sel == 0:
                if ns.attached:
                    return "fail", "attach of an attached namespace", None
                return "ok", "attach of an allocated, detached namespace", ("attach", nsid)
            if not ns.attached:
                return "fail", "detach of a detached namespace", None
            if ns.zoned:
                return "fail", "detach of the zoned namespace", None
            return "ok", "detach of an attached namespace", ("detach", nsid)
        # Format NVM
        if not _valid(nsid):
            return "fail", "Format NVM of an invalid NSID", None
        if pred.active(nsid) is None:
            return "fail", "Format NVM of an inactive namespace", None
        if pred.ns[nsid].zoned:
            return "fail", "Format NVM of the zoned namespace", None
        new = (cdw10 & 0xF) | ((cdw10 >> 12) & 3) << 4
        if new < len(LBAF_BYTES) and pred.ns[nsid].nbytes < LBAF_BYTES[new]:
            # femu keeps at least one LBA in the new format (ns.c), else Invalid Format
            return "fail", "Format NVM to an LBA larger than the namespace", None
        lbaf = sel | ((cdw10 >> 12) & 3) << 4
        if lbaf >= len(LBAF_BYTES) or (cdw10 >> 5) & 7:
            return "fail", "Format NVM: LBA format beyond NLBAF, or PI", None
        if (cdw10 >> 9) & 7 > 1:
            return "fail", "Format NVM: SES beyond user data erase", None
        return "ok", "Format NVM of an active namespace", ("format", nsid, LBAF_BYTES[lbaf])

    def _ns_create(self, pred: Namespaces, data: bytes):
        nsze, ncap = struct.unpack_from("<QQ", data, 0)
        flbas, dps, nmic = data[26], data[29], data[30]
        lbaf = flbas & 0xF
        if flbas & 0x70 or dps or nmic:
            return "fail", "create with metadata, PI or sharing", None
        if lbaf >= len(LBAF_BYTES):
            return "fail", "create with an LBA format beyond NLBAF", None
        if nsze == 0 or ncap == 0 or ncap > nsze:
            return "fail", "create with NSZE/NCAP 0 or NCAP > NSZE", None
        if ncap != nsze:
            return "fail", "create thin provisioned", None
        lba = LBAF_BYTES[lbaf]
        placed = ((), False)
        if pred.fdp_ruhs:       # FDP: ENDGID and the placement handle list, exactly
            verdict, why, placed = handles_rule(pred, pred.fdp_ruhs, data, lba)
            if verdict != "ok":
                return verdict, why, None
        per_lba = lba // SECTOR
        if nsze > pred.capacity // per_lba:
            return "fail", "create larger than the capacity", None
        sectors = -(-nsze * per_lba // PAGE_SECTORS) * PAGE_SECTORS
        nsid = pred.free_nsid()
        if nsid is None:
            return "fail", "create with every NSID allocated", None
        base = pred.extent(sectors)
        if base is None:
            return "fail", "create with no free extent that large", None
        return ("ok", f"create of {nsze} LBAs of {lba} B (first fit at sector {base})",
                ("create", nsid, base, sectors, nsze * lba, lba, *placed))

    # ------------------------------------------------------------------ completion

    def _ns_done(self, p, cqe) -> None:
        """A namespace command completed: apply what the finished prefix of them did to
        the committed table, in submission order."""
        m = self.m
        seq, effect = p.create["ns_seq"], p.create["effect"]
        if seq not in m.ns_log:
            return
        if not cqe.code and effect and effect[0] == "create" and m.trusted and \
                cqe.dw0 != effect[1]:
            raise Failure("namespace", f"{cqe}: Namespace Management create returned NSID "
                          f"{cqe.dw0}, the lowest free NSID is {effect[1]}")
        m.ns_log[seq][1] = not cqe.code
        while m.ns_log:
            first = next(iter(m.ns_log))
            effect, done = m.ns_log[first]
            if done is None:
                break
            del m.ns_log[first]
            if not done or m.ns is None:
                continue
            if effect is None:
                m.ns = None             # it succeeded and the host cannot tell how
            elif effect:
                m.ns.apply(effect)

    # ------------------------------------------------------------------ nsfix

    def _admin_now(self, cmd: Command, data: Optional[bytes] = None, read: bool = False):
        """Run one admin command now (a page of the scratch arena as its PRP1): its CQE
        and, with read, the page; None if it could not be submitted."""
        m = self.m
        addr = self.cmds_scratch.alloc(4096, m.page_size)
        cmd.prp1 = addr
        mem = [[addr, (data or bytes(4096)).hex()]] if data is not None or read else []
        cid = self.next_cid[0]
        sq = m.sqs.get(0)
        slot = sq.tail if sq is not None else 0
        self.do_sub({"a": "sub", "q": 0, "sqe": cmd.pack(0).hex(), "tag": "nsfix",
                     "mem": mem})
        self.do_sync({})
        cqe = self.last_cqe.pop((0, cid), None)
        if cqe is None:
            return None, b""
        if cmd.opcode in NS_OPCODES and cmd.nsid in (1, BROADCAST):
            self._retire(sq, slot)          # a delete of namespace 1 must not run again
        return cqe, self._read(addr, 4096) if read else b""

    def _nsfix_must(self, what: str, cmd: Command, data: Optional[bytes] = None,
                    read: bool = False):
        cqe, page = self._admin_now(cmd, data, read)
        if cqe is None:
            raise _NsfixStop()
        if cqe.code:
            raise Failure("status", f"nsfix: {what}: {cqe}; expected success")
        return cqe, page

    def do_nsfix(self, rec: dict) -> None:
        """Check namespace 1 (active, its size and LBA format, no uncorrectable LBAs);
        when it was damaged while the host did not trust its rings (a scrambled ring may
        run entries nobody wrote), repair it; when it changed otherwise, that is a
        finding. When the namespaces are unknown, delete every namespace >= 2 and create
        namespace 2 again, so the model knows every extent."""
        m = self.m
        self.do_sync({})
        if not m.trusted or not m.enabled or any(p.owed for p in m.pending.values()) or \
                m.ns_admin_busy() or 0 not in m.sqs or m.room(m.sqs[0]) < 1 or \
                not m.cqs[0].ours:
            return
        try:
            self._nsfix(m)
        except _NsfixStop:
            return

    def _nsfix(self, m) -> None:
        cqe, page = self._nsfix_must("Identify namespace 1", Command(0x06, nsid=1, cdw10=0),
                                     read=True)
        nsze, flbas = struct.unpack_from("<Q", page, 0)[0], page[26] & 0xF
        shape_ok = nsze == m.nsze and flbas == 0
        marks = 0
        torn = False
        if shape_ok:
            cqe, page = self._nsfix_must(
                "Get LBA Status of namespace 1",
                Command(0x86, nsid=1, cdw12=1023, cdw13=0x11 << 24), read=True)
            marks = struct.unpack_from("<I", page, 0)[0]
            # a power cut's torn pages read uncorrectable until rewritten (power.py)
            torn = bool(marks) and self._torn_marks_ok(page)
        if not shape_ok or marks:
            if not m.ns_dirty and not torn:
                raise Failure("namespace", f"namespace 1 is not as realized "
                              f"(namespaces=...) and no command named it since: Identify "
                              f"NSZE {nsze} FLBAS {flbas} (want {m.nsze}, 0), {marks} "
                              f"uncorrectable range(s)" +
                              (" not all in pages a power cut tore" if m.torn else ""))
            if not torn or m.ns_dirty:
                self.ns_repairs += 1
        if shape_ok and marks:      # deallocate it whole: that clears every mark
            table = struct.pack("<IIQ", 0, m.nsze, 0).ljust(4096, b"\0")
            self._io_now_dsm(table)
            self.torn_repairs += torn and not m.ns_dirty
        if shape_ok:
            m.torn = []             # none left in namespace 1 (the rest is not judged)
        if shape_ok and m.ns is not None:
            m.ns_dirty = False
            return
        # Rebuild: every namespace >= 2 deleted (1 too, if it is not what it should be),
        # then 1 (if need be) and 2 created and attached as at realize, first fit. With
        # FDP, 1 goes too (its placement handles are unknown), FDP stays as it is (Get
        # Features 1Dh says which, and SEL 2 what is saved), and both get every handle,
        # as at realize.
        fdp = self.variant.fdp
        fdp_on = fdp_saved = False
        if fdp is not None:
            cqe, _ = self._nsfix_must("Get Features 1Dh", Command(0x0A, cdw10=0x1D, cdw11=1))
            fdp_on = bool(cqe.dw0 & 1)
            cqe, _ = self._nsfix_must("Get Features 1Dh saved",
                                      Command(0x0A, cdw10=0x1D | 2 << 8, cdw11=1))
            fdp_saved = bool(cqe.dw0 & 1)
            shape_ok = False
        _, page = self._nsfix_must("Identify allocated namespaces",
                                   Command(0x06, nsid=0, cdw10=0x10), read=True)
        allocated = [q for q in struct.unpack("<1024I", page) if q]
        for nsid in allocated:
            if nsid == m.zoned_nsid:
                continue            # the zoned namespace stays (and cannot be deleted)
            if nsid >= 2 or not shape_ok:
                self._nsfix_must(f"delete namespace {nsid}",
                                 Command(0x0D, nsid=nsid, cdw10=1))
        want = [1, 2] if not shape_ok else [2]
        for nsid in want:
            lbas = (NAMESPACES_MIB[nsid - 1] << 20) // LBA
            ident = bytearray(4096)
            struct.pack_into("<QQ", ident, 0, lbas, lbas)
            if fdp_on:
                struct.pack_into("<H", ident, 392, fdp.ruhs)
                struct.pack_into(f"<{fdp.ruhs}H", ident, 512, *range(fdp.ruhs))
            cqe, _ = self._nsfix_must(f"create namespace {nsid}", Command(0x0D, cdw10=0),
                                      data=bytes(ident))
            if cqe.dw0 != nsid:
                raise Failure("namespace", f"nsfix: create with NSIDs {nsid}.. free "
                              f"returned NSID {cqe.dw0}")
            ctrl = struct.pack("<HH", 1, 0).ljust(4096, b"\0")
            self._nsfix_must(f"attach namespace {nsid}", Command(0x15, nsid=nsid, cdw10=0),
                             data=ctrl)
        m.ns = Namespaces(m.ns_capacity, NAMESPACES_MIB, m.zoned_table,
                          fdp.ruhs if fdp else 0, fdp_on, fdp_saved)
        m.ns_pred = m.ns.copy()
        m.ns_dirty = False
        m.torn = []                 # every namespace made again: their marks cleared
        self.ns_rebuilds += 1

    def _io_now_dsm(self, table: bytes) -> None:
        """Deallocate namespace 1 whole (one range) on an I/O queue, now."""
        m = self.m
        sqs = m.usable_sqs()
        if not sqs or m.room(sqs[0]) < 1:
            raise _NsfixStop()
        sq = sqs[0]
        addr = self.cmds_scratch.alloc(4096, m.page_size)
        cmd = Command(0x09, nsid=1, prp1=addr, cdw10=0, cdw11=4)
        cid = self.next_cid[sq.qid]
        self.do_sub({"a": "sub", "q": sq.qid, "sqe": cmd.pack(0).hex(), "tag": "nsfix",
                     "mem": [[addr, table.hex()]]})
        self.do_sync({})
        cqe = self.last_cqe.pop((sq.qid, cid), None)
        if cqe is None:
            raise _NsfixStop()
        if cqe.code:
            raise Failure("status", f"nsfix: deallocate namespace 1: {cqe}; expected success")


class _NsfixStop(Exception):
    """The check could not go on (no room, or trust lost on the way): try later."""
