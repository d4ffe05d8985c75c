"""Flexible Data Placement (placement=fdp): what the host must expect of the FDP commands,
judged at submission from the host model (CONTROLLER.md, "Flexible Data Placement
(placement=fdp)"; hw/femu/cmd/fdp/*.c), exactly where the contract is exact: the status
code, and the DW0 of Get Features. A mixin of Executor (executor.py).

Whether FDP is enabled (and saved enabled: 1Dh is saveable, and a controller reset makes
the saved value current while the group has no namespace) and each namespace's placement
handle list live in the namespace table (model.Namespaces): feature 1Dh changes only while
the endurance group has no namespace, so a Set Features 1Dh is ordered with the namespace
commands (ns_log), judged against the namespaces the admin queue will have reached,
whatever made it (template, mutation or noise: every field of it is judged). 1Eh's enables
(current and saved) are not modelled: fdp_surface.py sets and reads them itself. Admin
commands are judged against the prediction (the admin queue runs in order); I/O (I/O
Management, writes with DTYPE) against the committed table while no namespace command or
1Dh is queued (I/O races the admin queue), and a namespace command submitted later drops
those expectations (nsdep).

Only the FDP templates, by their exact tag (not mutated), are judged here: a mutated
field would need the device's whole order of checks.
"""
import struct
from typing import Optional, Tuple

from nvme_qtest import SC_INVALID_FIELD, SC_INVALID_NS

from .commands import BROADCAST, MAX_NSID

SC_CMD_SEQ_ERROR = 0x00C
SC_FDP_DISABLED = 0x029
SC_INVALID_PHL = 0x02A         # Invalid Placement Handle List
SC_INVALID_FORMAT = 0x10A
SC_FEAT_NOT_NS_SPEC = 0x10F
FID_FDP, FID_FDP_EVENTS = 0x1D, 0x1E
FEAT_CAP_SAVE, FEAT_CAP_NS, FEAT_CAP_CHANGE = 1 << 0, 1 << 1, 1 << 2
EVENT_TYPES = 4                # femu raises host event types 00h-03h
ENDGID = 1


def _valid(nsid: int) -> bool:
    return 1 <= nsid <= MAX_NSID


def ns_status(table, nsid: int) -> Optional[int]:
    """femu_ns_for_io: an invalid NSID is Invalid Namespace or Format, a valid inactive one
    Invalid Field; None for an active namespace."""
    if not _valid(nsid):
        return SC_INVALID_NS
    return None if table.active(nsid) is not None else SC_INVALID_FIELD


def config_rule(table, nsid: int, cdw10: int, cdw11: int, cdw12: int
                ) -> Tuple[object, str, tuple]:
    """Set Features 1Dh against the namespaces as the command finds them: (status ("ok"
    or a code), why, effect (("fdp", 0|1, SV 0|1) for a change or a save, () for none)).
    SV saves the value too (1Dh is saveable); a refused change saves nothing."""
    save = cdw10 >> 31
    if nsid not in (0, BROADCAST):
        if nsid > MAX_NSID:
            return SC_INVALID_NS, "Set Features 1Dh naming an invalid NSID", ()
        return SC_FEAT_NOT_NS_SPEC, "Set Features 1Dh naming a namespace", ()
    enable = bool(cdw12 & 1)
    if cdw11 & 0xFFFF != ENDGID or (enable and (cdw12 >> 8) & 0xFF):
        return SC_INVALID_FIELD, "Set Features 1Dh: ENDGID not 1, or FDPCIDX not 0", ()
    if enable == table.fdp_on:
        return "ok", "Set Features 1Dh to the value FDP has", \
            ("fdp", int(enable), 1) if save else ()
    if table.conventional():
        return SC_CMD_SEQ_ERROR, ("Set Features 1Dh changing FDP while the endurance "
                                  "group has a namespace"), ()
    return "ok", "Set Features 1Dh with no namespace", ("fdp", int(enable), save)


def handles_rule(table, ruhs: int, data: bytes, lba: int) -> Tuple[object, str, tuple]:
    """A create's FDP fields (cmd/fdp/fdp.c femu_fdp_ns_handles) once every check before them
    passed: (status or "ok", why, (handles, chosen))."""
    endgid, count = struct.unpack_from("<H", data, 102)[0], struct.unpack_from("<H", data, 392)[0]
    if endgid not in (0, ENDGID):
        return SC_INVALID_FIELD, "create with an ENDGID other than 0 or 1", ()
    if not table.fdp_on:
        return "ok", "create with FDP disabled (no handle)", ((), False)
    if count == 0:
        chosen = table.choose()
        if chosen is None:
            return SC_INVALID_PHL, "create without a list when every handle is the host's", ()
        if not table.format_shared(chosen, lba):
            return SC_INVALID_FORMAT, "create sharing the controller's handle in another " \
                                      "LBA format", ()
        return "ok", f"create given the controller's handle {chosen}", ((chosen,), True)
    if count > ruhs:
        return SC_INVALID_PHL, f"create with NPHNDLS {count} > NRUH {ruhs}", ()
    handles = struct.unpack_from(f"<{count}H", data, 512)
    for i, ruh in enumerate(handles):
        if ruh >= ruhs or ruh in handles[:i] or table.ruha(ruh) == 2:
            return SC_INVALID_PHL, (f"create with handle {ruh} past NRUH, listed twice or "
                                    "the controller's"), ()
    for ruh in handles:
        if not table.format_shared(ruh, lba):
            return SC_INVALID_FORMAT, f"create sharing handle {ruh} in another LBA format", ()
    return "ok", f"create with handles {list(handles)}", (tuple(handles), False)


class FdpRules:
    # ------------------------------------------------------------------ 1Dh, in order

    def _fdp_config_sub(self, rec: dict, flags: int, raw: bytearray, cdw10: int,
                        cdw11: int, exp, why):
        """A Set Features 1Dh on the admin queue, from any source: (expectation, why,
        create parameters, nsdep) like a namespace command's (ns_rules.py)."""
        m = self.m
        for p in m.pending.values():    # I/O judged against FDP as it was may run after
            if p.nsdep:
                p.expect = None
        pred = m.ns_pred if m.trusted else None
        if flags:
            exp, why, effect = "fail", "Set Features 1Dh with FUSE/PSDT set", ()
        elif pred is None:
            exp, why, effect = None, "", None
        else:
            nsid = struct.unpack_from("<I", raw, 4)[0]
            cdw12 = struct.unpack_from("<I", raw, 48)[0]
            exp, why, effect = config_rule(pred, nsid, cdw10, cdw11, cdw12)
            if effect:
                pred.apply(effect)
        if effect is None:
            m.ns_pred = None
        m.ns_seq += 1
        m.ns_log[m.ns_seq] = [effect, None]
        return exp, why, {"op": 0x09, "ns_seq": m.ns_seq, "effect": effect}, False

    # ------------------------------------------------------------------ the rest

    def _fdp_sub(self, rec: dict, admin: bool, opcode: int, raw: bytearray, cdw10: int,
                 cdw11: int, exp, why):
        """(expectation, why, nsdep, DW0) of an FDP template (by its exact tag)."""
        tag = rec.get("tag", "")
        tag = tag[5:] if tag.startswith("fdpq:") else tag     # a scenario's, judged alike
        m, fdp = self.m, self.variant.fdp
        if tag not in ("fdp-log", "fdp-getfeat", "fdp-setfeat", "iomr", "ioms", "pwrite",
                       "pwz") or not m.trusted:
            return exp, why, False, None
        nsid = struct.unpack_from("<I", raw, 4)[0]
        cdw12, cdw13 = struct.unpack_from("<II", raw, 48)
        if admin:
            table = m.ns_pred
            if table is None:
                return None, "", False, None
            if tag == "fdp-log" and opcode == 0x02:
                return (*self._fdp_log_rule(table, cdw10, cdw11, cdw12, cdw13), False, None)
            if tag == "fdp-getfeat" and opcode == 0x0A:
                exp, why, dw0 = self._fdp_get_rule(table, nsid, cdw10, cdw11)
                return exp, why, False, dw0
            if tag == "fdp-setfeat" and opcode == 0x09:
                return (*self._fdp_events_set_rule(table, nsid, cdw10, cdw11, rec, raw),
                        False, None)
            return exp, why, False, None
        table = m.ns
        if table is None or m.ns_admin_busy():
            return None, "", True, None
        status = ns_status(table, nsid)
        if status is not None:
            return status, "FDP I/O to an inactive or invalid namespace", True, None
        if tag in ("pwrite", "pwz") and opcode in (0x01, 0x08):
            if opcode == 0x08 and cdw12 & 1 << 25:
                return "ok", "Write Zeroes with DEAC (no placement)", True, None
            dtype = (cdw12 >> 20) & 0xF
            if table.fdp_on and dtype not in (0, 2):
                return SC_INVALID_FIELD, f"a write with DTYPE {dtype} (FDP on)", True, None
            if not table.fdp_on and dtype == 2:
                return SC_INVALID_FIELD, "a write with DTYPE 2 while FDP is off", True, None
            return "ok", f"a write with DTYPE {dtype}, FDP {'on' if table.fdp_on else 'off'}" \
                         " (an identifier the namespace lacks goes to handle 0)", True, None
        if not table.fdp_on and opcode in (0x12, 0x1D):
            return SC_FDP_DISABLED, "I/O Management with FDP disabled", True, None
        mo = cdw10 & 0xFF
        if opcode in (0x12, 0x1D) and mo == 0:
            return "ok", "I/O Management MO 0 does nothing", True, None
        if opcode in (0x12, 0x1D) and mo != 1:
            return SC_INVALID_FIELD, f"I/O Management MO {mo}", True, None
        if tag == "iomr" and opcode == 0x12:
            if (cdw11 + 1) * 4 > m.mdts_bytes:
                return SC_INVALID_FIELD, "RUH Status larger than MDTS", True, None
            if (cdw11 + 1) * 4 > 64 << 10:
                return None, "", True, None     # PRPs built for the first 64 KiB only
            return "ok", "RUH Status of an active namespace", True, None
        if tag == "ioms" and opcode == 0x1D:
            npid = (cdw10 >> 16) + 1
            if npid > fdp.ruhs:
                return SC_INVALID_FIELD, "RUH Update with NPID past MAXPIDS", True, None
            data = self._host_struct(raw, rec)
            if data is None:
                return None, "", True, None
            pids = struct.unpack_from(f"<{npid}H", data, 0)
            if any(p >= len(table.ns[nsid].handles) for p in pids):
                return SC_INVALID_FIELD, "RUH Update naming a handle the namespace lacks", \
                    True, None
            return "ok", "RUH Update of the namespace's handles", True, None
        return exp, why, True, None

    def _fdp_log_rule(self, table, cdw10: int, cdw11: int, cdw12: int, cdw13: int):
        """Get Log Page 20h-23h (cmd/admin/log.c, cmd/fdp/fdp_log.c): a fixed-size page (22h, 23h)
        checks its offset first; then LSI, FDP enabled (not for 20h), and the offset of a
        page built to its size (20h, 21h). The PRPs are the template's, for every byte."""
        fdp = self.variant.fdp
        lid = cdw10 & 0xFF
        offset = cdw12 | cdw13 << 32
        size = fdp.log_bytes(lid)
        bad_offset = offset & 3 or offset >= size
        if lid in (0x22, 0x23) and bad_offset:
            return SC_INVALID_FIELD, f"log {lid:#x} offset {offset} outside the page"
        if cdw11 >> 16 != ENDGID:
            return SC_INVALID_FIELD, f"log {lid:#x} with LSI {cdw11 >> 16} (not group 1)"
        if lid != 0x20 and not table.fdp_on:
            return SC_FDP_DISABLED, f"log {lid:#x} with FDP disabled"
        if bad_offset:
            return SC_INVALID_FIELD, f"log {lid:#x} offset {offset} outside the page"
        return "ok", f"log {lid:#x} of group 1 inside the page"

    def _fdp_get_rule(self, table, nsid: int, cdw10: int, cdw11: int):
        """Get Features 1Dh / 1Eh (cmd/admin/features.c, cmd/fdp/fdp_features.c): (expectation,
        why, DW0 on success)."""
        fid, sel = cdw10 & 0xFF, (cdw10 >> 8) & 7
        if sel > 3:
            return SC_INVALID_FIELD, "Get Features SEL beyond 3", None
        if fid == FID_FDP:
            if sel == 3:
                return "ok", "Get Features 1Dh capabilities", FEAT_CAP_SAVE | FEAT_CAP_CHANGE
            if cdw11 & 0xFFFF != ENDGID:
                return SC_INVALID_FIELD, "Get Features 1Dh of an ENDGID other than 1", None
            on = (table.fdp_on, True, table.fdp_saved)[sel]    # current, default, saved
            return "ok", f"Get Features 1Dh SEL {sel}", int(on)
        if fid != FID_FDP_EVENTS:
            return None, "", None
        if sel == 3:
            status = ns_status(table, nsid)
            if status is not None:
                return status, "Get Features 1Eh capabilities of no active namespace", None
            return "ok", "Get Features 1Eh capabilities", \
                FEAT_CAP_SAVE | FEAT_CAP_NS | FEAT_CAP_CHANGE
        if not table.fdp_on:
            return SC_FDP_DISABLED, "Get Features 1Eh with FDP disabled", None
        status = ns_status(table, nsid)
        if status is not None:
            return status, "Get Features 1Eh of no active namespace", None
        if cdw11 & 0xFFFF >= len(table.ns[nsid].handles):
            return SC_INVALID_FIELD, "Get Features 1Eh of a handle the namespace lacks", None
        return "ok", "Get Features 1Eh", min((cdw11 >> 16) & 0xFF, EVENT_TYPES)

    def _fdp_events_set_rule(self, table, nsid: int, cdw10: int, cdw11: int, rec: dict,
                             raw: bytearray):
        """Set Features 1Eh (SV or not: saveable): FDP enabled, the namespace, its handle,
        NOET 0 (nothing), the types in the buffer (one femu does not raise: Invalid
        Field)."""
        if cdw10 & 0xFF != FID_FDP_EVENTS:
            return None, ""
        if not table.fdp_on:
            return SC_FDP_DISABLED, "Set Features 1Eh with FDP disabled"
        status = ns_status(table, nsid)
        if status is not None:
            return status, "Set Features 1Eh of no active namespace"
        if cdw11 & 0xFFFF >= len(table.ns[nsid].handles):
            return SC_INVALID_FIELD, "Set Features 1Eh of a handle the namespace lacks"
        noet = (cdw11 >> 16) & 0xFF
        if noet == 0:
            return "ok", "Set Features 1Eh of no type"
        data = self._host_struct(raw, rec)
        if data is None:
            return None, ""
        if any(t >= EVENT_TYPES for t in data[:noet]):
            return SC_INVALID_FIELD, "Set Features 1Eh of a type femu does not raise"
        return "ok", "Set Features 1Eh of types 00h-03h"
