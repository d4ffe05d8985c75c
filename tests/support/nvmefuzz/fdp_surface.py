"""Flexible Data Placement as records the random stream would not line up, judged exactly
(CONTROLLER.md, "Flexible Data Placement (placement=fdp)"). A mixin of Executor
(executor.py). Every command goes through the executor's own submission, so the statuses
fdp_rules.py and ns_rules.py expect hold here too, and the model follows each one.

fdpcheck (a quiet device: the host trusts its view, is owed nothing, knows the namespaces
and FDP's state). A Flush first, so every request queued before (a controller reset's
update of every handle included) has been served. Then:
- log 20h is the configuration the properties give, field for field (whole, and a slice
  at a random offset and length, nothing written past what the page holds);
- Get Features 1Dh says whether FDP is on; with it off, 21h-23h, 1Eh and I/O Management
  are FDP Disabled and a write with DTYPE 2 is Invalid Field, and that is all;
- log 21h gives each handle the attribute the namespaces' lists give it; log 22h's HBMW,
  MBMW and MBE never go down while the configuration stays (a change restarts them), and
  MBMW >= HBMW without a write buffer (every host page is programmed; a page programmed
  for a 512-byte write counts whole); log 23h's host events are well-formed, its
  controller events none;
- RUH Status of a namespace: one descriptor per placement handle, PID i, RUHID its list's
  entry, RUAMW at most a reclaim unit (exactly one, with EARUTR the whole time limit,
  when no RU is open), EARUTR within the limit (0 without one), reserved bytes 0; a
  shorter read is a prefix of it;
- RUH Update: a list with a handle the namespace lacks, or NPID past MAXPIDS, is Invalid
  Field and changes no handle (and raises no event); a valid one leaves each named
  handle without an open RU (RUAMW a whole RU) and the others as they were, unless the
  media was written meanwhile (GC after the update: MBMW moved); each named handle whose
  RU held data raises Reclaim Unit Not Fully Written where that type is enabled (set
  first, on or off, per handle), with the unwritten pages RUAMW said;
- the exact handle figures rest on MBMW showing every page placed: line GC counts a
  moved page when it places it, paced GC (`gc_mode=paced`, the default) when it charges
  the move's flash time later, so with paced GC they are not judged (`Fdp.gc_counted`);
- a Write or Write Zeroes of namespace 1 with DTYPE 2 and a placement identifier, valid
  or not: HBMW grows by its bytes; when the media was written by it alone, the handle it
  names (handle 0 for an identifier the namespace lacks) lost its pages and no other
  handle changed; an invalid identifier raises one Invalid Placement Identifier event
  (PID as given, the RUHID used) when that type is enabled on handle 0 and none when
  not; Get Features 1Eh shows the enables as set; the data reads back.

fdpcfg: FDP off or on (feature 1Dh), saved (SV) now and then. With namespaces present a
change is Command Sequence Error and changes nothing (Get Features 1Dh current and saved,
log 22h); then every namespace is deleted, wrong values are refused (an NSID, ENDGID,
FDPCIDX), and a change takes effect: log 22h starts at zero and 23h is empty, 21h names
no handle (or, off, the logs and 1Eh are FDP Disabled); Get Features 1Dh SEL 2 says what
was saved last. Namespaces 1 (40 MiB, 512-byte LBAs) and 2 (8 MiB, either LBA
format) are made again with random placement handle lists (a list the device must refuse
tried first now and then, a third namespace sometimes), each judged against the model.
"""
import random
import struct
import time
from typing import Dict, List, Optional, Tuple

from nvme_qtest import Command, Cqe

from . import prp
from .commands import placement_fields
from .failure import Failure
from .fdp_rules import EVENT_TYPES, SC_FDP_DISABLED, SC_INVALID_FIELD
from .integrity import pattern
from .layout import Picker, cq_slot, sq_slot
from .surface import _Stop
from .target import NAMESPACES_MIB

PIV, NSIDV, LV = 1, 2, 4
EVT_NOT_FULLY_WRITTEN, EVT_TIME_LIMIT, EVT_RESET, EVT_INVALID_PID = 0, 1, 2, 3
MAX_EVENTS = 63
LBA = 512
P_TIME_LIMIT = 0.15        # of FDP checks with a time limit: wait it out (1-3 s)
P_RESET = 0.2              # of FDP checks: a controller reset at the end


def u128(data: bytes, off: int) -> int:
    lo, hi = struct.unpack_from("<QQ", data, off)
    return lo | hi << 64


class FdpSurface:
    fdpchecks = 0          # FDP checks that went all the way
    fdp_exact = 0          # of their update and write checks, those judged to the page
    fdp_changes = 0        # FDP configuration changes made (fdpcfg)
    fdp_time_limits = 0    # time limits waited out and judged

    # ------------------------------------------------------------------ one command now

    def _fdp_now(self, sq, cmd: Command, mem=(), tag: str = "fdpcheck",
                 own: bool = False) -> Cqe:
        """Submit one command on sq and sync; its CQE. tag "fdpq:X" is judged as the
        template X would be (fdp_rules.py)."""
        m = self.m
        if sq is None or sq.qid not in m.sqs or m.room(sq) < 1 or not m.trusted:
            raise _Stop()
        cid, slot = self.next_cid[sq.qid], sq.tail
        rec = {"a": "sub", "q": sq.qid, "sqe": cmd.pack(0).hex(), "tag": tag,
               "mem": [[a, bytes(d).hex()] for a, d in mem]}
        if own:
            rec["own"] = 1
        self.do_sub(rec)
        self.do_sync({})
        cqe = self.last_cqe.pop((sq.qid, cid), None)
        if cqe is not None and own and cmd.nsid == 1:
            self._retire(sq, slot)      # a delete of namespace 1 must not run again
        if cqe is None or not m.trusted:
            raise _Stop()
        return cqe

    def _admin(self, cmd: Command, data: Optional[bytes] = None, tag: str = "fdpcfg",
               own: bool = False) -> Cqe:
        """An admin command with a scratch page as its buffer (data: what it holds)."""
        addr = self.cmds_scratch.alloc(4096, self.m.page_size)
        cmd.prp1 = addr
        return self._fdp_now(self.m.sqs.get(0), cmd, [(addr, data or bytes(4096))], tag, own)

    def _must(self, what: str, cqe: Cqe, want: int = 0) -> Cqe:
        if cqe.code != want:
            raise Failure("fdp", f"{what}: {cqe}; want status {want:#05x}")
        return cqe

    def _fdp_log(self, lid: int, nbytes: int, offset: int = 0, lsp: int = 0,
                 fill: int = 0xA5) -> Tuple[Cqe, bytes]:
        """Get Log Page lid of group 1 into one scratch page filled with `fill`: the CQE
        and the page's first nbytes (judged as an fdp-log template)."""
        addr = self.cmds_scratch.alloc(4096, self.m.page_size)
        numd = nbytes // 4
        cmd = Command(0x02, prp1=addr, cdw10=lid | lsp << 8 | (numd - 1) << 16,
                      cdw11=1 << 16, cdw12=offset)
        cqe = self._fdp_now(self.m.sqs.get(0), cmd, [(addr, bytes([fill]) * 4096)],
                            "fdpq:fdp-log")
        return cqe, self._read(addr, nbytes)

    def _set_events(self, nsid: int, phndl: int, types: List[int], on: bool,
                    save: bool = False) -> None:
        data = bytes(types).ljust(4096, b"\0")
        cqe = self._admin(Command(0x09, nsid=nsid, cdw10=0x1E | int(save) << 31,
                                  cdw11=phndl | len(types) << 16, cdw12=int(on)),
                          data, "fdpq:fdp-setfeat")
        self._must(f"Set Features 1Eh of namespace {nsid} handle {phndl} types {types} "
                   f"{'on' if on else 'off'}{', saved' if save else ''}", cqe)

    def _get_events(self, nsid: int, phndl: int, sel: int = 0) -> Dict[int, int]:
        addr = self.cmds_scratch.alloc(4096, self.m.page_size)
        cqe = self._fdp_now(self.m.sqs.get(0), Command(0x0A, nsid=nsid, prp1=addr,
                                                       cdw10=0x1E | sel << 8,
                                                       cdw11=phndl | 255 << 16),
                            [(addr, b"\xA5" * 4096)], "fdpq:fdp-getfeat")
        self._must(f"Get Features 1Eh SEL {sel} of namespace {nsid} handle {phndl}", cqe)
        raw = self._read(addr, 16)
        if raw[8:] != b"\xA5" * 8:
            raise Failure("fdp", f"Get Features 1Eh wrote past its {cqe.dw0} descriptors: "
                          f"{raw.hex()}")
        found = {raw[2 * i]: raw[2 * i + 1] for i in range(cqe.dw0)}
        if sorted(found) != list(range(EVENT_TYPES)) or any(v & ~1 for v in found.values()):
            raise Failure("fdp", f"Get Features 1Eh descriptors {raw[:8].hex()}: want types "
                          "00h-03h ascending, attributes bit 0 only")
        return found

    # ------------------------------------------------------------------ expected pages

    def _configs_page(self) -> bytes:
        f = self.variant.fdp
        page = bytearray(f.log_bytes(0x20))
        struct.pack_into("<HBBI", page, 0, 0, 0, 0, len(page))
        struct.pack_into("<HBBIHHIQI", page, 16, f.dsze, 0x80 | (0x10 if f.write_buffer
                                                                 else 0), 0, 1, f.ruhs,
                         f.ruhs - 1, 32, f.ru_bytes, f.time_limit_s)
        for i in range(f.ruhs):
            page[80 + 4 * i] = 2 if f.persistent else 1
        return bytes(page)

    def _check_configs(self, rng: random.Random) -> None:
        want = self._configs_page()
        cqe, got = self._fdp_log(0x20, 4096)
        self._must("log 20h", cqe)
        if got[:len(want)] != want or got[len(want):] != b"\xA5" * (4096 - len(want)):
            raise Failure("fdp", f"log 20h {got[:len(want) + 8].hex()}; want {want.hex()} "
                          "and nothing written past it")
        offset = rng.randrange(0, len(want), 4)
        nbytes = 4 * rng.randint(1, 1024 - offset // 4)
        cqe, got = self._fdp_log(0x20, nbytes, offset)
        self._must(f"log 20h at offset {offset}, {nbytes} bytes", cqe)
        part = want[offset:offset + nbytes]
        if got[:len(part)] != part or got[len(part):] != b"\xA5" * (nbytes - len(part)):
            raise Failure("fdp", f"log 20h at offset {offset} ({nbytes} bytes): "
                          f"{got[:len(part) + 8].hex()}; want {part.hex()}")

    def _check_usage(self, table) -> None:
        f = self.variant.fdp
        want = bytearray(f.log_bytes(0x21))
        struct.pack_into("<H", want, 0, f.ruhs)
        for h in range(f.ruhs):
            want[8 + 8 * h] = table.ruha(h)
        cqe, got = self._fdp_log(0x21, len(want))
        self._must("log 21h", cqe)
        if got != bytes(want):
            raise Failure("fdp", f"log 21h {got.hex()}; want {bytes(want).hex()} (the "
                          "handles the namespaces' lists name)")

    def _stats(self, table) -> Tuple[int, int, int]:
        """Log 22h (HBMW, MBMW, MBE), checked against the last read of this configuration
        (never lower) and MBMW >= HBMW without a write buffer; kept for the next."""
        cqe, data = self._fdp_log(0x22, 64)
        self._must("log 22h", cqe)
        if data[48:] != bytes(16):
            raise Failure("fdp", f"log 22h reserved bytes {data[48:].hex()}")
        now = (u128(data, 0), u128(data, 16), u128(data, 32))
        last = table.fdp_stats
        if last is not None and any(a < b for a, b in zip(now, last)):
            raise Failure("fdp", f"log 22h went down with FDP enabled and its configuration "
                          f"unchanged: HBMW/MBMW/MBE {last} -> {now}")
        if not self.variant.fdp.write_buffer and now[1] < now[0]:
            raise Failure("fdp", f"log 22h MBMW {now[1]} < HBMW {now[0]} without a write "
                          "buffer (every host page is programmed)")
        table.fdp_stats = now
        return now

    def _events(self, host: bool = True) -> List[bytes]:
        """Log 23h: the host events (64 bytes each), each well-formed; the controller
        events page is empty."""
        f = self.variant.fdp
        cqe, data = self._fdp_log(0x23, 4096, lsp=int(host))
        self._must("log 23h", cqe)
        count = struct.unpack_from("<I", data, 0)[0]
        if not host:
            if data != bytes(4096):
                raise Failure("fdp", f"log 23h controller events: {data[:80].hex()}; femu "
                              "raises none")
            return []
        if count > MAX_EVENTS or data[4:64] != bytes(60) or \
                data[64 * (count + 1):] != bytes(4096 - 64 * (count + 1)):
            raise Failure("fdp", f"log 23h: NUMFDPE {count}, header {data[:64].hex()}, or "
                          "bytes after the events not 0")
        events = [data[64 * (i + 1):64 * (i + 2)] for i in range(count)]
        for i, e in enumerate(events):
            bad = self._bad_event(e, f)
            if bad:
                raise Failure("fdp", f"log 23h event {i} of {count}: {bad}: {e.hex()}")
        return events

    @staticmethod
    def _bad_event(e: bytes, f) -> Optional[str]:
        etype, flags, pid = e[0], e[1], struct.unpack_from("<H", e, 2)[0]
        nsid = struct.unpack_from("<I", e, 12)[0]
        rgid, ruhid = struct.unpack_from("<HB", e, 32)
        unwritten, ru = struct.unpack_from("<QI", e, 40)
        if etype >= EVENT_TYPES:
            return f"type {etype:#x} (femu raises 00h-03h)"
        if not flags & LV or flags & ~7:
            return f"flags {flags:#x} (LV always, PIV, NSIDV)"
        if etype == 2 and flags != LV:
            return "a controller reset event with PIV or NSIDV"
        if etype == EVT_INVALID_PID and flags != PIV | NSIDV | LV:
            return "an Invalid Placement Identifier event without PIV and NSIDV"
        if (not flags & PIV and pid) or (not flags & NSIDV and nsid) or \
                (flags & NSIDV and not 1 <= nsid <= 32):
            return f"PID {pid} / NSID {nsid} against the flags"
        if etype in (0, 1) and flags & PIV and pid >= f.ruhs:
            return f"PID {pid} beyond the namespace's handles"
        if e[10] & 0x0E or e[11] or e[16:32] != bytes(16) or e[35:40] != bytes(5) or \
                e[52:] != bytes(12):
            return "reserved or type-specific bytes not 0 (or a timestamp origin)"
        if rgid or ruhid >= f.ruhs:
            return f"RGID {rgid} RUHID {ruhid}"
        if etype == EVT_INVALID_PID and (unwritten or ru != 0xFFFF_FFFF):
            return f"unwritten pages {unwritten} / RU {ru:#x} for no closed RU"
        if etype != EVT_INVALID_PID and (not 1 <= unwritten < f.ru_pages or ru == 0xFFFF_FFFF):
            return f"a closed RU with {unwritten} pages unwritten (RU {ru:#x})"
        return None

    def _events_after(self, before: List[bytes], new: List[Tuple], after: List[bytes],
                      what: str) -> None:
        """The events after `what` are those before plus `new` (tuples: type, flags, pid,
        nsid, ruhid, unwritten; timestamps and RU aside), the oldest dropped past 63."""
        want = (before + [None] * len(new))[-MAX_EVENTS:]
        fresh = new[len(new) - min(len(new), MAX_EVENTS):]
        if len(after) != len(want):
            raise Failure("fdp", f"{what}: {len(after)} events, want {len(want)} "
                          f"({len(before)} before, {len(new)} new: {new})")
        old = len(want) - len(fresh)
        if after[:old] != want[:old]:
            raise Failure("fdp", f"{what}: the events before it changed")
        for e, n in zip(after[old:], fresh):
            got = (e[0], e[1], struct.unpack_from("<H", e, 2)[0],
                   struct.unpack_from("<I", e, 12)[0], e[34],
                   struct.unpack_from("<Q", e, 40)[0])
            if got != n:
                raise Failure("fdp", f"{what}: new event (type, flags, PID, NSID, RUHID, "
                              f"unwritten) {got}; want {n}")

    def _ruh_status(self, sq, nsid: int, ns, nbytes: Optional[int] = None
                    ) -> List[Tuple[int, int, int, int]]:
        """I/O Management Receive RUH Status of nsid: [(PID, RUHID, EARUTR, RUAMW)],
        checked against the namespace's list and the limits."""
        f = self.variant.fdp
        full = f.ru_bytes // ns.lba
        want_len = 16 + 32 * len(ns.handles)
        nbytes = nbytes or (want_len + 4095) // 4096 * 4096
        page = self.m.page_size
        ptr = prp.build(Picker(random.Random(nsid), self.nvme.bars.values()), prp.Scratch(),
                        page, nbytes, offset=0, taken=set())
        self._lay(ptr, b"\xA5" * nbytes, page)
        cmd = Command(0x12, nsid=nsid, prp1=ptr.prp1, prp2=ptr.prp2, cdw10=1,
                      cdw11=nbytes // 4 - 1)
        cqe = self._fdp_now(sq, cmd, [(a, d) for a, d in ptr.mem], "fdpq:iomr")
        self._must(f"RUH Status of namespace {nsid}", cqe)
        data = self._gather(ptr, nbytes, page)
        n = min(nbytes, want_len)
        if data[n:] != b"\xA5" * (nbytes - n):
            raise Failure("fdp", f"RUH Status of namespace {nsid} wrote past its "
                          f"{want_len} bytes")
        if nbytes < 16:
            return []
        count = struct.unpack_from("<H", data, 14)[0]
        if data[:14] != bytes(14) or count != len(ns.handles):
            raise Failure("fdp", f"RUH Status of namespace {nsid}: header {data[:16].hex()}; "
                          f"want NRUHSD {len(ns.handles)}")
        out = []
        for i in range((n - 16) // 32):
            pid, ruhid, earutr, ruamw = struct.unpack_from("<HHIQ", data, 16 + 32 * i)
            rest = data[16 + 32 * i + 16:16 + 32 * i + 32]
            bad = None
            if (pid, ruhid) != (i, ns.handles[i]) or rest != bytes(16):
                bad = f"PID {pid} RUHID {ruhid}; want {i}, {ns.handles[i]}, reserved 0"
            elif ruamw > full or ruamw * ns.lba % f.page_bytes:
                bad = f"RUAMW {ruamw} LBAs: more than an RU ({full}) or not whole pages"
            elif earutr > f.time_limit_s or (ruamw == full and earutr != f.time_limit_s):
                bad = (f"EARUTR {earutr} s with RUAMW {ruamw} (limit {f.time_limit_s} s: "
                       "the whole of it while no RU is open)")
            if bad:
                raise Failure("fdp", f"RUH Status of namespace {nsid}, descriptor {i}: {bad}")
            out.append((pid, ruhid, earutr, ruamw))
        return out

    # ------------------------------------------------------------------ fdpcheck

    def do_fdpcheck(self, rec: dict) -> None:
        if self.variant.fdp is None:
            return
        self.do_sync({})
        m = self.m
        sq = m.quiet_sq(rec["seed"])
        if sq is None or m.ns is None or m.ns_admin_busy() or m.room(m.sqs[0]) < 1 or \
                m.room(sq) < 1 or m.ns.active(1) is None:
            return
        try:
            self._fdpcheck(sq, random.Random(rec["seed"]))
        except _Stop:
            return
        self.fdpchecks += 1

    def _fdpcheck(self, sq, rng: random.Random) -> None:
        m, table = self.m, self.m.ns
        self._must("Flush before the FDP check", self._fdp_now(sq, Command(0x00, nsid=1)))
        self._check_configs(rng)
        cqe = self._admin(Command(0x0A, cdw10=0x1D, cdw11=1), tag="fdpq:fdp-getfeat")
        self._must("Get Features 1Dh", cqe)
        if not table.fdp_on:
            self._fdp_off_checks(sq, rng)
            return
        self._check_usage(table)
        self._stats(table)
        self._events(host=False)
        self._events()
        nsid = 1 if rng.random() < 0.6 else rng.choice(
            [q for q in table.active_ids() if table.ns[q].handles])
        ns = table.ns[nsid]
        full = self._ruh_status(sq, nsid, ns)
        short = 4 * rng.randint(1, (16 + 32 * len(ns.handles)) // 4)
        part = self._ruh_status(sq, nsid, ns, short)
        if [(p, r, a) for p, r, _, a in part] != [(p, r, a) for p, r, _, a in full[:len(part)]]:
            raise Failure("fdp", f"RUH Status of {short} bytes {part} is no prefix of the "
                          f"whole {full}")
        if rng.random() < 0.5:
            self._bad_update(sq, rng, nsid, ns, full)
        self._update(sq, rng, nsid, ns)
        self._placed_write(sq, rng, table)
        if self.variant.fdp.time_limit_s and rng.random() < P_TIME_LIMIT:
            self._time_limit(sq, rng, table)
        if rng.random() < P_RESET:
            self._reset(sq, rng, table)

    def _fdp_off_checks(self, sq, rng: random.Random) -> None:
        """FDP disabled: the logs but 20h, 1Eh and I/O Management say so (judged by
        fdp_rules.py), a DTYPE 2 write is Invalid Field, another DTYPE writes."""
        for lid in (0x21, 0x22, 0x23):
            self._must(f"log {lid:#x} with FDP off", self._fdp_log(lid, 64)[0],
                       SC_FDP_DISABLED)
        self._must("Get Features 1Eh with FDP off",
                   self._admin(Command(0x0A, nsid=1, cdw10=0x1E, cdw11=4 << 16),
                               tag="fdpq:fdp-getfeat"), SC_FDP_DISABLED)
        self._must("RUH Status with FDP off", self._fdp_now(
            sq, Command(0x12, nsid=1, cdw10=1, cdw11=3,
                        prp1=self.cmds_scratch.alloc(4096, self.m.page_size)),
            tag="fdpq:iomr"), SC_FDP_DISABLED)
        slba = rng.randrange(self.m.nsze - 8)
        cqe = self._pwrite(sq, rng, slba, 8, 2, rng.randrange(16), 0x01)[0]
        self._must("a write with DTYPE 2 while FDP is off", cqe, SC_INVALID_FIELD)
        cqe = self._pwrite(sq, rng, slba, 8, rng.choice([0, 1, 3, 15]), 0, 0x01)[0]
        self._must("a write with DTYPE 0/1/other while FDP is off", cqe)

    def _bad_update(self, sq, rng: random.Random, nsid: int, ns, before) -> None:
        """A handle the namespace lacks among valid ones, or NPID past MAXPIDS: Invalid
        Field, and no handle, statistic or event changes."""
        f = self.variant.fdp
        events = self._events()
        stats = self._stats(self.m.ns)
        n = len(ns.handles)
        if rng.random() < 0.7:      # a handle the namespace lacks among valid ones
            k = rng.randint(0, min(3, f.ruhs - 1))
            pids = [rng.randrange(n) for _ in range(k)]
            pids.insert(rng.randint(0, k), rng.choice([n, f.ruhs, 0xFFFF,
                                                       rng.randint(n, 0xFFFF)]))
            npid = len(pids) - 1
        else:                       # NPID past MAXPIDS
            pids = [rng.randrange(n)]
            npid = rng.choice([f.ruhs, f.ruhs + 1, 0xFFFF])
        cqe = self._ioms(sq, nsid, pids, npid)
        self._must(f"RUH Update of PIDs {pids} (NPID {npid}) of namespace {nsid} with "
                   f"{len(ns.handles)} handles", cqe, SC_INVALID_FIELD)
        after = self._ruh_status(sq, nsid, ns)
        if [(p, r, a) for p, r, _, a in after] != [(p, r, a) for p, r, _, a in before]:
            raise Failure("fdp", f"a refused RUH Update changed the handles: {before} -> "
                          f"{after}")
        if self._stats(self.m.ns) != stats:
            raise Failure("fdp", "a refused RUH Update changed log 22h")
        self._events_after(events, [], self._events(), "a refused RUH Update")

    def _ioms(self, sq, nsid: int, pids: List[int], npid: int) -> Cqe:
        addr = self.cmds_scratch.alloc(4096, self.m.page_size)
        data = struct.pack(f"<{len(pids)}H", *pids).ljust(4096, b"\0")
        return self._fdp_now(sq, Command(0x1D, nsid=nsid, prp1=addr, cdw10=1 | npid << 16),
                             [(addr, data)], "fdpq:ioms")

    def _update(self, sq, rng: random.Random, nsid: int, ns) -> None:
        f = self.variant.fdp
        full = f.ru_bytes // ns.lba
        pids = rng.sample(range(len(ns.handles)), rng.randint(1, len(ns.handles)))
        if rng.random() < 0.2:
            pids.append(rng.choice(pids))           # a handle named twice
        pids = pids[:f.ruhs]
        enabled = {}
        for pid in sorted(set(pids)):
            enabled[pid] = rng.random() < 0.6
            self._set_events(nsid, pid, [EVT_NOT_FULLY_WRITTEN], enabled[pid])
        before = self._ruh_status(sq, nsid, ns)
        events = self._events()
        stats = self._stats(self.m.ns)
        cqe = self._ioms(sq, nsid, pids, len(pids) - 1)
        self._must(f"RUH Update of PIDs {pids} of namespace {nsid}", cqe)
        after = self._ruh_status(sq, nsid, ns)
        now = self._stats(self.m.ns)
        if now[0] != stats[0]:
            raise Failure("fdp", f"an RUH Update changed HBMW {stats[0]} -> {now[0]}")
        if now[1] == stats[1] and f.gc_counted:     # no page programmed since: exact
            self.fdp_exact += 1
            for pid, (_, ruhid, _, ruamw) in enumerate(after):
                want = full if pid in pids else before[pid][3]
                if ruamw != want:
                    raise Failure("fdp", f"after an RUH Update of PIDs {pids} of namespace "
                                  f"{nsid}: PID {pid} RUAMW {ruamw}, want {want} "
                                  f"(before: {before})")
        if now[1] != stats[1] or not f.gc_counted:
            # GC ran after a handle's update and may have opened (and the next update
            # closed) an RU: the events are only checked well-formed
            self._events()
            return
        # The FTL closes the handles in RUHID order; a closed RU that held data is an event
        new = []
        for ruh in sorted({ns.handles[p] for p in pids}):
            pid = ns.handles.index(ruh)
            ruamw = before[pid][3]
            if ruamw < full and enabled[pid]:
                pages = ruamw * ns.lba // f.page_bytes
                new.append((EVT_NOT_FULLY_WRITTEN, PIV | NSIDV | LV, pid, nsid, ruh, pages))
        self._events_after(events, new, self._events(), f"an RUH Update of PIDs {pids}")

    def _pwrite(self, sq, rng: random.Random, slba: int, nlb: int, dtype: int, dspec: int,
               opcode: int) -> Tuple[Cqe, bytes]:
        """A Write (pattern data) or Write Zeroes of namespace 1 with DTYPE and DSPEC: its
        CQE and the data the LBAs should now hold."""
        seed = rng.getrandbits(31)
        data = pattern(seed, nlb * LBA) if opcode == 0x01 else bytes(nlb * LBA)
        cmd = Command(opcode, nsid=1, cdw10=slba & 0xFFFF_FFFF, cdw11=slba >> 32,
                      cdw12=(nlb - 1) | dtype << 20, cdw13=dspec << 16)
        mem = []
        if opcode == 0x01:
            page = self.m.page_size
            ptr = prp.build(Picker(rng, self.nvme.bars.values()), prp.Scratch(), page,
                            len(data), taken=set())
            self._lay(ptr, data, page)
            cmd.prp1, cmd.prp2 = ptr.prp1, ptr.prp2
            mem = ptr.mem
        return self._fdp_now(sq, cmd, mem, "fdpq:pwrite"), data

    def _placed_write(self, sq, rng: random.Random, table) -> None:
        f = self.variant.fdp
        ns = table.ns[1]
        handles = len(ns.handles)
        valid = rng.random() < 0.6
        pid = rng.randrange(handles) if valid else rng.choice(
            [handles, f.ruhs, 0xFFFF, rng.randint(handles, 0xFFFF)])
        target = pid if valid else 0
        want3 = not valid and rng.random() < 0.7
        self._set_events(1, target, list(range(EVENT_TYPES)), False)
        if want3:
            self._set_events(1, target, [EVT_INVALID_PID], True)
        enables = self._get_events(1, target)
        if enables != {t: int(want3 and t == EVT_INVALID_PID) for t in range(EVENT_TYPES)}:
            raise Failure("fdp", f"Get Features 1Eh of namespace 1 handle {target}: "
                          f"{enables}, after setting only type 3 {'on' if want3 else 'off'}")
        opcode = 0x01 if rng.random() < 0.8 else 0x08
        nlb = rng.choice([1, 8, 16, 64, 256, rng.randint(1, 2048 if opcode == 1 else 256)])
        slba = rng.randrange(self.m.nsze - nlb + 1)
        if rng.random() < 0.5:
            slba -= slba % 8
        before = self._ruh_status(sq, 1, ns)
        events = self._events()
        stats = self._stats(table)
        cqe, data = self._pwrite(sq, rng, slba, nlb, 2, pid, opcode)
        self._must(f"{'Write' if opcode == 1 else 'Write Zeroes'} of {nlb} LBAs at {slba} "
                   f"with DTYPE 2 PID {pid}", cqe)
        after = self._ruh_status(sq, 1, ns)
        now = self._stats(table)
        pages = (slba + nlb - 1) // 8 - slba // 8 + 1
        if now[0] - stats[0] != nlb * LBA:
            raise Failure("fdp", f"a write of {nlb} LBAs moved HBMW by {now[0] - stats[0]}, "
                          f"want {nlb * LBA}")
        if now[1] - stats[1] < pages * f.page_bytes:
            raise Failure("fdp", f"a write of {pages} pages moved MBMW by only "
                          f"{now[1] - stats[1]}")
        if now[1] - stats[1] == pages * f.page_bytes and f.gc_counted:  # its pages alone
            self.fdp_exact += 1
            full = f.ru_pages
            for p, (_, ruhid, _, ruamw) in enumerate(after):
                left = before[p][3] * LBA // f.page_bytes
                if p != target:
                    wants = {left}
                else:   # fill the RU, then new ones (a time limit may close it first)
                    wants = {(left - pages) % full or full}
                    if f.time_limit_s:
                        wants.add((full - pages) % full or full)
                got = ruamw * LBA // f.page_bytes
                if got not in wants:
                    raise Failure("fdp", f"a write of {pages} pages with PID {pid} (handle "
                                  f"{target}): PID {p} has {got} pages left, want "
                                  f"{sorted(wants)} (before {left})")
        new = []
        if want3:
            new = [(EVT_INVALID_PID, PIV | NSIDV | LV, pid, 1, ns.handles[0], 0)]
        self._events_after(events, new, self._events(), f"a write with PID {pid}")
        got = self._read_back(sq, rng, slba, nlb)
        if got != data:
            at = next(i for i in range(len(got)) if got[i] != data[i])
            raise Failure("data", f"{nlb} LBAs at {slba} written with DTYPE 2 PID {pid} "
                          f"read back different, first at byte {at}")

    def _time_limit(self, sq, rng: random.Random, table) -> None:
        """fdp_ru_time_limit_s: a handle's RU opened by a write (after an update closed
        the one it had) has EARUTR 0 once the limit passed, keeps its pages, and the next
        write closes it first: one Reclaim Unit Time Limit Exceeded event (type 01h
        enabled alone on the handle) with the RU's unwritten pages, the PID and the NSID
        of that write, which goes to a new RU."""
        f = self.variant.fdp
        ns = table.ns[1]
        pid = rng.randrange(len(ns.handles))
        self._set_events(1, pid, list(range(EVENT_TYPES)), False)
        self._set_events(1, pid, [EVT_TIME_LIMIT], True)
        self._must(f"RUH Update of PID {pid}", self._ioms(sq, 1, [pid], 0))
        first = rng.choice([1, 8, 64, rng.randint(1, 256)])     # within MDTS
        slba = rng.randrange(0, self.m.nsze - 8 * first, 8)
        stats = self._stats(table)
        self._must(f"a write of {first} pages with PID {pid}",
                   self._pwrite(sq, rng, slba, 8 * first, 2, pid, 0x01)[0])
        opened = self._ruh_status(sq, 1, ns)[pid]
        programs = self._stats(table)[1] - stats[1]
        time.sleep(f.time_limit_s + 0.2)
        aged = self._ruh_status(sq, 1, ns)[pid]
        open_ru = opened[3] * LBA // f.page_bytes < f.ru_pages    # else no RU is open
        if (open_ru and aged[2] != 0) or aged[3] != opened[3]:
            raise Failure("fdp", f"PID {pid} {f.time_limit_s + 0.2:g} s after its RU opened "
                          f"(limit {f.time_limit_s} s): EARUTR {aged[2]}, RUAMW {aged[3]}; "
                          f"want 0 and RUAMW {opened[3]} as it was")
        events = self._events()
        stats = self._stats(table)
        second = rng.choice([1, 8, rng.randint(1, 256)])
        slba = rng.randrange(0, self.m.nsze - 8 * second, 8)
        cqe, data = self._pwrite(sq, rng, slba, 8 * second, 2, pid, 0x01)
        self._must(f"a write of {second} pages with PID {pid} past the time limit", cqe)
        after = self._ruh_status(sq, 1, ns)[pid]
        now = self._stats(table)
        full = f.ru_pages
        if programs == first * f.page_bytes and now[1] - stats[1] == second * f.page_bytes \
                and f.gc_counted:
            self.fdp_exact += 1
            want = (full - second) % full or full
            if after[3] * LBA // f.page_bytes != want:
                raise Failure("fdp", f"a write of {second} pages past the time limit: PID "
                              f"{pid} has {after[3] * LBA // f.page_bytes} pages left, want "
                              f"{want} (a new RU)")
            unwritten = (full - first) % full
            new = [(EVT_TIME_LIMIT, PIV | NSIDV | LV, pid, 1, ns.handles[pid], unwritten)]
            if not unwritten:       # the first write filled its RU: nothing to close
                new = []
            self._events_after(events, new, self._events(), "a write past the time limit")
        if self._read_back(sq, rng, slba, 8 * second) != data:
            raise Failure("data", f"{8 * second} LBAs at {slba} written past the time limit "
                          "read back different")
        self.fdp_time_limits += 1

    def _reset(self, sq, rng: random.Random, table) -> None:
        """A controller reset closes every open RU (femu's model), queued behind the work
        before it: after it (and an I/O queue pair made again, and a Flush behind it),
        namespace 1's handles have no open RU, and with type 02h enabled on one of them
        (set before) an RU it held with data was reported once, NSID and PID reserved,
        with RUAMW's pages unwritten (enabled when the reset came, saved or not). Other
        handles may report too (their enables are the random stream's), with type 02h
        only. After it the handle's enables are the saved ones: type 02h if it was
        enabled with SV, none if without."""
        f, m = self.variant.fdp, self.m
        ns = table.ns[1]
        pid = rng.randrange(len(ns.handles))
        save = rng.random() < 0.5
        self._set_events(1, pid, list(range(EVENT_TYPES)), False, save=True)
        self._set_events(1, pid, [EVT_RESET], True, save=save)
        saved = {t: int(save and t == EVT_RESET) for t in range(EVENT_TYPES)}
        if self._get_events(1, pid, sel=2) != saved:
            raise Failure("fdp", f"Get Features 1Eh SEL 2 of namespace 1 handle {pid}: want "
                          f"{saved} saved")
        before = self._ruh_status(sq, 1, ns)
        events = self._events()
        stats = self._stats(table)
        self.do_disable({})
        self.do_enable({"asqs": 64, "acqs": 64, "mps": 0})
        for cmd in (Command(0x05, prp1=cq_slot(1), cdw10=1 | 63 << 16, cdw11=1),
                    Command(0x01, prp1=sq_slot(1), cdw10=1 | 63 << 16, cdw11=1 | 1 << 16)):
            self.do_sub({"a": "sub", "q": 0, "sqe": cmd.pack(0).hex(), "tag": "fdpcheck",
                         "exp": "ok", "why": "an I/O queue pair on a fresh controller"})
        self.do_sync({})
        sq = m.sqs.get(1)
        if sq is None or not m.trusted:
            raise _Stop()
        self._must("Flush after a controller reset", self._fdp_now(sq, Command(0x00, nsid=1)))
        after = self._ruh_status(sq, 1, ns)
        now = self._stats(table)
        got = self._events()
        if self._get_events(1, pid) != saved:
            raise Failure("fdp", f"after a controller reset the event enables of namespace "
                          f"1 handle {pid} are not the saved ones {saved}")
        if got[:len(events)] == events:
            new = got[len(events):]
        elif len(got) == MAX_EVENTS:
            new = None          # old ones dropped: find the new ones by their type only
        else:
            raise Failure("fdp", f"a controller reset changed the events before it "
                              f"({len(events)} then, {len(got)} now)")
        if new is not None and any(e[0] != 2 for e in new):
            raise Failure("fdp", f"a controller reset raised events other than type 02h: "
                          f"{[e[0] for e in new]}")
        if now[1] != stats[1] or not f.gc_counted:
            return              # GC after a handle's close moved pages: no exact figures
        self.fdp_exact += 1
        full = f.ru_bytes // ns.lba
        if any(ruamw != full for *_, ruamw in after):
            raise Failure("fdp", f"after a controller reset namespace 1's handles {after}: "
                          f"want no RU open (RUAMW {full})")
        if new is None:
            return
        ruh = ns.handles[pid]
        mine = [e for e in new if e[34] == ruh]
        want = [] if before[pid][3] == full else [
            (2, LV, 0, 0, ruh, before[pid][3] * ns.lba // f.page_bytes)]
        seen = [(e[0], e[1], struct.unpack_from("<H", e, 2)[0],
                 struct.unpack_from("<I", e, 12)[0], e[34],
                 struct.unpack_from("<Q", e, 40)[0]) for e in mine]
        if seen != want:
            raise Failure("fdp", f"a controller reset, handle {ruh} (PID {pid}, RUAMW "
                          f"{before[pid][3]} of {full}): events {seen}, want {want}")

    def _read_back(self, sq, rng: random.Random, slba: int, nlb: int) -> bytes:
        page = self.m.page_size
        ptr = prp.build(Picker(rng, self.nvme.bars.values()), prp.Scratch(), page,
                        nlb * LBA, taken=set())
        self._lay(ptr, b"\x5A" * (nlb * LBA), page)
        cmd = Command(0x02, nsid=1, prp1=ptr.prp1, prp2=ptr.prp2, cdw10=slba & 0xFFFF_FFFF,
                      cdw11=slba >> 32, cdw12=nlb - 1)
        self._must(f"Read of {nlb} LBAs at {slba}", self._fdp_now(sq, cmd, ptr.mem))
        return self._gather(ptr, nlb * LBA, page)

    # ------------------------------------------------------------------ fdpcfg

    def do_fdpcfg(self, rec: dict) -> None:
        if self.variant.fdp is None:
            return
        self.do_sync({})
        m = self.m
        if not m.trusted or not m.enabled or any(p.owed for p in m.pending.values()) or \
                m.ns is None or m.ns_admin_busy() or 0 not in m.sqs or \
                m.room(m.sqs[0]) < 1 or not m.cqs[0].ours:
            return
        try:
            self._fdpcfg(random.Random(rec["seed"]))
        except _Stop:
            return

    def _set_fdp(self, on: bool, **fields) -> Cqe:
        cmd = Command(0x09, nsid=fields.get("nsid", 0), cdw10=0x1D | fields.get("sv", 0) << 31,
                      cdw11=fields.get("endgid", 1), cdw12=int(on) | fields.get("cidx", 0) << 8)
        return self._admin(cmd)

    def _fdp_get(self, sel: int = 0) -> bool:
        """Get Features 1Dh, current or (SEL 2) saved: judged against the model too."""
        cqe = self._admin(Command(0x0A, cdw10=0x1D | sel << 8, cdw11=1),
                          tag="fdpq:fdp-getfeat")
        self._must(f"Get Features 1Dh SEL {sel}", cqe)
        return bool(cqe.dw0 & 1)

    def _fdpcfg(self, rng: random.Random) -> None:
        m = self.m
        was = m.ns.fdp_on
        want = rng.random() < (0.3 if was else 0.85)
        if m.ns.conventional():
            # A change with namespaces present: Command Sequence Error (fdp_rules.py
            # judges it), and nothing changes.
            stats = self._stats(m.ns) if was else None
            saved = self._fdp_get(sel=2)
            self._set_fdp(not was, sv=int(rng.random() < 0.5))
            if self._fdp_get() != was or self._fdp_get(sel=2) != saved:
                raise Failure("fdp", "Set Features 1Dh refused with namespaces present, "
                              "yet FDP (or its saved value) changed")
            if was:
                after = self._stats(m.ns)
                if after[0] != stats[0]:
                    raise Failure("fdp", f"a refused Set Features 1Dh moved HBMW: {stats} "
                                  f"-> {after}")
        for nsid in m.ns.conventional():
            self._admin(Command(0x0D, nsid=nsid, cdw10=1), own=True)
        for _ in range(rng.randint(0, 3)):      # wrong values: refused, no change
            bad = rng.choice([{"nsid": rng.randint(1, 40)},
                              {"endgid": rng.choice([0, 2, 0xFFFF])}, {"cidx": 1}])
            self._set_fdp(not was if "cidx" not in bad else True,
                          sv=int(rng.random() < 0.3), **bad)
        changed = False
        for _ in range(rng.choice([1, 1, 1, 2, 3])):     # maybe off and on again
            target = not m.ns.fdp_on if rng.random() < 0.5 else want
            changed |= target != m.ns.fdp_on
            self._set_fdp(target, sv=int(rng.random() < 0.3))
            if self._fdp_get() != target:
                raise Failure("fdp", f"Set Features 1Dh {int(target)} with no namespace "
                              "succeeded, yet Get Features says otherwise")
            self._fdp_get(sel=2)        # the model says what was saved last
        if m.ns.fdp_on != want:
            changed = True
            self._set_fdp(want, sv=int(rng.random() < 0.3))
        if changed:
            self.fdp_changes += 1
        self._fdp_empty_checks(changed)
        self._remake(rng)

    def _fdp_empty_checks(self, changed: bool) -> None:
        """No namespace: with FDP on, no handle is used, and after a change the statistics
        and events start from nothing; with it off, the logs but 20h are FDP Disabled."""
        table = self.m.ns
        if not table.fdp_on:
            for lid in (0x21, 0x22, 0x23):
                self._must(f"log {lid:#x} with FDP off", self._fdp_log(lid, 64)[0],
                           SC_FDP_DISABLED)
            return
        self._check_usage(table)
        stats = self._stats(table)
        if changed and stats != (0, 0, 0):
            raise Failure("fdp", f"log 22h right after FDP was enabled (no namespace, no "
                          f"I/O since): {stats}; want 0, 0, 0")
        if changed and self._events():
            raise Failure("fdp", "log 23h right after FDP was enabled holds events")

    def _remake(self, rng: random.Random) -> None:
        """Namespaces 1 and 2 as realize has them (sizes, first fit, 2 maybe in 4 KiB
        LBAs), with random placement handle lists (tried until one is taken: the last
        try is one the model takes), attached; now and then a third."""
        ruhs = self.variant.fdp.ruhs
        for i, mib in enumerate(NAMESPACES_MIB):
            lbaf = 1 if i == 1 and rng.random() < 0.3 and self._placeable(4096) else 0
            cqe = None
            for attempt in range(6):
                data = self._create_data(mib << 20, lbaf)
                if attempt < 5 and rng.random() < 0.6:
                    placement_fields(rng, ruhs, data, self.m.ns_pred)
                else:
                    self._placement(data, rng)
                cqe = self._admin(Command(0x0D, cdw10=0), bytes(data))
                if cqe.code == 0:
                    break
            if cqe.code:
                raise Failure("fdp", f"no create of namespace {i + 1} succeeded: {cqe}")
            ctrl = struct.pack("<HH", 1, 0).ljust(4096, b"\0")
            self._must(f"attach namespace {cqe.dw0}",
                       self._admin(Command(0x15, nsid=cqe.dw0, cdw10=0), ctrl, own=True))
        if rng.random() < 0.3:
            data = self._create_data(rng.choice([4096, 1 << 20, 4 << 20]), rng.choice([0, 1]))
            placement_fields(rng, ruhs, data, self.m.ns_pred)
            self._admin(Command(0x0D, cdw10=0), bytes(data))

    @staticmethod
    def _create_data(nbytes: int, lbaf: int) -> bytearray:
        data = bytearray(4096)
        nsze = nbytes // (512 << 3 * lbaf)
        struct.pack_into("<QQ", data, 0, nsze, nsze)
        data[26] = lbaf
        return data

    def _placeable(self, lba: int) -> bool:
        """Whether a create in this LBA size can get a handle now (a free one sharing no
        other format, or the controller's)."""
        table = self.m.ns_pred
        if not table.fdp_on:
            return True
        chosen = table.choose()
        return bool(self._free(lba)) or (chosen is not None and
                                          table.format_shared(chosen, lba))

    def _free(self, lba: int) -> List[int]:
        table = self.m.ns_pred
        return [h for h in range(self.variant.fdp.ruhs)
                if table.ruha(h) != 2 and table.format_shared(h, lba)]

    def _placement(self, data: bytearray, rng: random.Random) -> None:
        """A placement handle list the model takes: a random non-empty set of the free
        handles, or NPHNDLS 0 (the controller's handle) when it fits."""
        table = self.m.ns_pred
        lba = 512 << 3 * (data[26] & 0xF)
        free = self._free(lba)
        chosen = table.choose()
        controller = chosen is not None and table.format_shared(chosen, lba)
        if not free or (controller and rng.random() < 0.25):
            handles = []
        else:
            handles = rng.sample(free, rng.randint(1, len(free)))
        struct.pack_into("<H", data, 392, len(handles))
        for i, h in enumerate(handles):
            struct.pack_into("<H", data, 512 + 2 * i, h)
