"""The issue-29 surface as records the random stream would not line up: the zone check,
a QMP save during I/O (held, with registers, QMP and a reset that must still be served),
and CC.SHN with the request pool exhausted. A mixin of Executor (executor.py).

zcheck: run only while the host trusts its view and is owed nothing, so no other command
can move a zone meanwhile. Report Zones gives every zone; each descriptor must be
well-formed (type 2, ZSLBA and ZCAP as realized, a state the device has, WP where that
state puts it) and the open and active zones within max_open and max_active. From those
states the host knows what a write at the write pointer of an empty zone must get
(CONTROLLER.md: an active resource first, 0x1BD; then an open one, closing the oldest
implicitly open zone, 0x1BE with none), and, once it landed: the zone implicitly open
(or full) with its WP moved, a Zone Append returning the WP as its LBA, a Copy of the
zone's own data to the WP succeeding, a write off the WP failing with Zone Invalid
Write, and the data reading back.

qsave: the QMP `save-state` property (qom-set returns at once; `save-state-status` says
"saving PATH", "saved PATH" or "failed: ..."). With `x-save-hold` the save waits before
writing and, by design, command fetching waits with it: meanwhile register writes and
QMP commands must still return (their times go to the stall figures) and a reset
(CC.EN = 0) must clear RDY at once. Commands rung before the save complete after it."""
import random
import struct
import time

import nvme_qtest
from nvme_qtest import CC, CSTS, Command, Cqe

from . import prp
from .failure import Failure
from .integrity import pattern
from .layout import Picker, cq_slot, sq_slot
from .variant import QOM_PATH

EMPTY, IMP_OPEN, EXP_OPEN, CLOSED, READ_ONLY, FULL, OFFLINE = 0x1, 0x2, 0x3, 0x4, 0xD, 0xE, 0xF
STATES = {EMPTY, IMP_OPEN, EXP_OPEN, CLOSED, READ_ONLY, FULL, OFFLINE}
SC_ZONE_INVALID_WRITE, SC_TOO_MANY_ACTIVE, SC_TOO_MANY_OPEN = 0x1BC, 0x1BD, 0x1BE
ZSA_RESET = 0x4
INTMS, INTMC = 0x0C, 0x10
SHN_QUEUES, SHN_DEPTH = 9, 2048      # 9 x 2047 Flushes: more than the request pool
SAVE_FACTOR = 3                      # a save may take longer than a command: deadline x 3


class _Stop(Exception):
    """The check cannot go on (no room, trust lost): try another time."""


class Surface:
    qsave_busy = False
    zchecks = 0           # zone checks that went all the way (write, append, copy, read)
    shutdowns = 0         # CC.SHN with the pool exhausted, checked

    # ------------------------------------------------------------------ one command now

    def _now(self, sq, cmd: Command, mem=()) -> Cqe:
        """Submit one command on sq and sync: its CQE (the host is owed nothing else)."""
        m = self.m
        if m.room(sq) < 1 or not m.trusted or sq.qid not in m.sqs:
            raise _Stop()
        cid = self.next_cid[sq.qid]
        self.do_sub({"a": "sub", "q": sq.qid, "sqe": cmd.pack(0).hex(), "tag": "zcheck",
                     "mem": [[a, bytes(d).hex()] for a, d in mem]})
        self.do_sync({})
        cqe = self.last_cqe.pop((sq.qid, cid), None)
        if cqe is None or not m.trusted:
            raise _Stop()
        return cqe

    # ------------------------------------------------------------------ zcheck

    def _report(self, sq, z, slba: int = 0):
        """Report Zones (all) from slba: [(zs, zcap, zslba, wp)], checked well-formed."""
        nbytes = 64 * (z.zones + 1)
        addr = self.cmds_scratch.alloc(4096, self.m.page_size)
        cqe = self._now(sq, Command(0x7A, nsid=z.nsid, prp1=addr, cdw10=slba & 0xFFFF_FFFF,
                                    cdw11=slba >> 32, cdw12=nbytes // 4 - 1),
                        [(addr, bytes(nbytes))])
        if cqe.code:
            raise Failure("zones", f"Report Zones from LBA {slba}: {cqe}; expected success")
        data = self._read(addr, nbytes)
        first = slba // z.zone_lbas
        want = z.zones - first
        nr = struct.unpack_from("<Q", data, 0)[0]
        if nr != want:
            raise Failure("zones", f"Report Zones from LBA {slba}: {nr} zones, want {want}")
        zones = []
        for i in range(want):
            off = 64 * (i + 1)
            zt, zs = data[off], data[off + 1] >> 4
            zcap, zslba, wp = struct.unpack_from("<QQQ", data, off + 8)
            zone = first + i
            bad = None
            if zt != 2 or zs not in STATES:
                bad = f"type {zt} state {zs:#x}"
            elif zcap != z.zone_lbas or zslba != zone * z.zone_lbas:
                bad = f"ZCAP {zcap} ZSLBA {zslba} (want {z.zone_lbas}, {zone * z.zone_lbas})"
            elif zs in (EMPTY, READ_ONLY, OFFLINE) and wp != zslba:
                bad = f"state {zs:#x} with WP {wp} (want ZSLBA {zslba})"
            elif zs == FULL and wp != zslba + zcap:
                bad = f"full with WP {wp} (want {zslba + zcap})"
            elif zs in (IMP_OPEN, EXP_OPEN, CLOSED) and not zslba <= wp < zslba + zcap:
                bad = f"state {zs:#x} with WP {wp} outside [{zslba}, {zslba + zcap})"
            if bad:
                raise Failure("zones", f"Report Zones, zone {zone}: {bad}")
            zones.append((zs, zcap, zslba, wp))
            self.m.zone_wp[zone] = wp
        if slba == 0:
            opened = sum(zs in (IMP_OPEN, EXP_OPEN) for zs, *_ in zones)
            active = opened + sum(zs == CLOSED for zs, *_ in zones)
            if (z.max_open and opened > z.max_open) or (z.max_active and active > z.max_active):
                raise Failure("zones", f"{opened} zones open, {active} active: over max_open "
                              f"{z.max_open} / max_active {z.max_active}")
        return zones

    def do_zcheck(self, rec: dict) -> None:
        z = self.variant.zoned
        if z is None:
            return
        self.do_sync({})
        sq = self.m.quiet_sq(rec["seed"])
        if sq is None:
            return
        try:
            self._zcheck(sq, z, rec)
        except _Stop:
            return

    def _zcheck(self, sq, z, rec: dict) -> None:
        rng = random.Random(rec["seed"])
        zones = self._report(sq, z)
        empty = [i for i, (zs, *_) in enumerate(zones) if zs == EMPTY]
        if not empty:       # make one: reset a zone that can be reset
            resettable = [i for i, (zs, *_) in enumerate(zones)
                          if zs in (IMP_OPEN, EXP_OPEN, CLOSED, FULL)]
            if not resettable:
                return
            zone = rng.choice(resettable)
            cqe = self._now(sq, Command(0x79, nsid=z.nsid, cdw10=zone * z.zone_lbas,
                                        cdw13=ZSA_RESET))
            if cqe.code:
                raise Failure("zones", f"Reset of zone {zone} ({zones[zone][0]:#x}): {cqe}; "
                              "expected success")
            zones = self._report(sq, z)
            if zones[zone][0] != EMPTY:
                raise Failure("zones", f"zone {zone} is {zones[zone][0]:#x} after a Reset")
            empty = [zone]
        zone = rng.choice(empty)
        zslba = zone * z.zone_lbas
        opened = sum(zs in (IMP_OPEN, EXP_OPEN) for zs, *_ in zones)
        implicit = sum(zs == IMP_OPEN for zs, *_ in zones)
        active = opened + sum(zs == CLOSED for zs, *_ in zones)
        want, why = 0, "a write at the write pointer of an empty zone"
        if z.max_active and active >= z.max_active:
            want, why = SC_TOO_MANY_ACTIVE, f"{active} zones active (max_active {z.max_active})"
        elif z.max_open and opened >= z.max_open and not implicit:
            want, why = SC_TOO_MANY_OPEN, (f"{opened} zones explicitly open (max_open "
                                           f"{z.max_open})")
        # room left for the append (8) and the copy (16) in one read back within MDTS
        nlb = max(1, min(rec.get("nlb", 8), z.zone_lbas, self.m.mdts_bytes // 512 - 24))
        data = pattern(rec["seed"], nlb * 512)
        cqe = self._io_data(sq, rng, 0x01, z.nsid, zslba, data)
        if cqe.code != want:
            raise Failure("zones", f"Write of {nlb} LBAs at the start of empty zone {zone} "
                          f"({why}): {cqe}; want status {want:#x}")
        after = self._report(sq, z)
        if want:
            if after[zone][0] != EMPTY:
                raise Failure("zones", f"a refused write left zone {zone} {after[zone][0]:#x}")
            return
        state, wp = after[zone][0], after[zone][3]
        full = nlb == z.zone_lbas
        if (state, wp) != ((FULL, zslba + z.zone_lbas) if full else (IMP_OPEN, zslba + nlb)):
            raise Failure("zones", f"after {nlb} LBAs written to empty zone {zone}: state "
                          f"{state:#x} WP {wp}; want {'full' if full else 'implicitly open'} "
                          f"at {zslba + nlb}")
        if full:
            return
        room = z.zone_lbas - nlb
        k = min(room, rng.choice([1, 4, 8]))
        extra = pattern(rec["seed"] ^ 0x5A5A, k * 512)
        cqe = self._io_data(sq, rng, 0x7D, z.nsid, zslba, extra)
        if cqe.code or cqe.dw0 | cqe.dw1 << 32 != wp:
            raise Failure("zones", f"Zone Append of {k} LBAs to zone {zone} with WP {wp}: "
                          f"{cqe}; want success at LBA {wp}")
        wp += k
        if wp + 1 < zslba + z.zone_lbas:
            cqe = self._io_data(sq, rng, 0x01, z.nsid, wp + 1, bytes(512))
            if cqe.code != SC_ZONE_INVALID_WRITE:
                raise Failure("zones", f"Write one LBA past the WP {wp} of zone {zone}: "
                              f"{cqe}; want Zone Invalid Write ({SC_ZONE_INVALID_WRITE:#x})")
        n = min(nlb, 16, zslba + z.zone_lbas - wp)
        if n:
            table = struct.pack("<8xQH14x", zslba, n - 1)
            addr = self.cmds_scratch.alloc(4096, self.m.page_size)
            cqe = self._now(sq, Command(0x19, nsid=z.nsid, prp1=addr, cdw10=wp & 0xFFFF_FFFF,
                                        cdw11=wp >> 32), [(addr, table)])
            if cqe.code:
                raise Failure("zones", f"Copy of {n} LBAs of zone {zone} to its WP {wp}: "
                              f"{cqe}; expected success")
        got = self._read_lbas(sq, rng, z.nsid, zslba, nlb + k + n)
        want_data = data + extra + data[:n * 512]
        if got != want_data:
            at = next(i for i in range(len(got)) if got[i] != want_data[i])
            raise Failure("data", f"zone {zone}: what was written, appended and copied does "
                          f"not read back, first difference at byte {at}")
        self.zchecks += 1

    def _io_data(self, sq, rng, opcode: int, nsid: int, slba: int, data: bytes) -> Cqe:
        page = self.m.page_size
        # every data page new (taken): a page named twice would hold only its last piece
        ptr = prp.build(Picker(rng, self.nvme.bars.values()), prp.Scratch(), page, len(data),
                        taken=set())
        self._lay(ptr, data, page)
        cmd = Command(opcode, nsid=nsid, prp1=ptr.prp1, prp2=ptr.prp2,
                      cdw10=slba & 0xFFFF_FFFF, cdw11=slba >> 32, cdw12=len(data) // 512 - 1)
        return self._now(sq, cmd, [(a, d) for a, d in ptr.mem])

    def _read_lbas(self, sq, rng, nsid: int, slba: int, nlb: int) -> bytes:
        page = self.m.page_size
        ptr = prp.build(Picker(rng, self.nvme.bars.values()), prp.Scratch(), page, nlb * 512,
                        taken=set())
        self._lay(ptr, b"\xA5" * (nlb * 512), page)
        cmd = Command(0x02, nsid=nsid, prp1=ptr.prp1, prp2=ptr.prp2,
                      cdw10=slba & 0xFFFF_FFFF, cdw11=slba >> 32, cdw12=nlb - 1)
        cqe = self._now(sq, cmd, [(a, d) for a, d in ptr.mem])
        if cqe.code:
            raise Failure("zones", f"Read of {nlb} LBAs at {slba}: {cqe}; expected success")
        return self._gather(ptr, nlb * 512, page)

    # ------------------------------------------------------------------ QMP save

    def _save_status(self, path: str) -> str:
        """save-state-status once the save of path has ended (polled with a deadline)."""
        deadline = time.monotonic() + SAVE_FACTOR * self.deadline
        while True:
            status, err = self.t.qmp("qom-get", path=QOM_PATH, property="save-state-status")
            if err:
                raise Failure("qmp", f"qom-get save-state-status: {err}")
            if status != f"saving {path}":
                return status
            if time.monotonic() > deadline:
                raise Failure("save", f"the save of {path} did not end within "
                              f"{SAVE_FACTOR * self.deadline:g} s (status {status!r})")
            self.check_process()
            time.sleep(0.005)

    def do_qsave(self, rec: dict) -> None:
        if not self.variant.save:
            return
        m, t = self.m, self.t
        self.do_ring({})
        path = str(t.state_out)
        hold = bool(rec.get("hold"))
        if hold:
            self._qmp_set("x-save-hold", True)
        _, err = t.qmp("qom-set", path=QOM_PATH, property="save-state", value=path)
        if err:
            if hold:
                self._qmp_set("x-save-hold", False)
            if "already under way" in err:      # a C2h's save: refused, not queued
                return
            raise Failure("qmp", f"qom-set save-state {path}: {err}")
        self.qsave_busy = True
        for p in m.pending.values():           # a C2h queued meanwhile may be refused
            if p.opcode == 0xC2 and p.sqid == 0:
                p.expect = None
        if hold:
            self._held(path, rec)
            self._qmp_set("x-save-hold", False)
        status = self._save_status(path)
        self.qsave_busy = False
        if status != f"saved {path}":
            raise Failure("save", f"QMP save-state {path}: status {status!r}")
        if not t.state_out.exists():
            raise Failure("save", f"QMP save-state said saved, but {path} is not there")
        self.saves += 1

    def _qmp_set(self, prop: str, value) -> None:
        _, err = self.t.qmp("qom-set", path=QOM_PATH, property=prop, value=value)
        if err:
            raise Failure("qmp", f"qom-set {prop} {value}: {err}")

    def _held(self, path: str, rec: dict) -> None:
        """While the save waits: QMP and register writes answer, a reset is served."""
        deadline = time.monotonic() + self.deadline
        while True:
            status, err = self.t.qmp("qom-get", path=QOM_PATH, property="save-state-status")
            if err or status == f"saving {path}" or time.monotonic() > deadline:
                break
            time.sleep(0.002)
        if status != f"saving {path}":
            raise Failure("save", f"a held save of {path}: status {status!r}, want 'saving'")
        for _ in range(rec.get("n", 4)):
            self.nvme.writel(INTMS, 0)          # masks nothing, but a register write
            self.nvme.writel(INTMC, 0)
            self.t.qmp("qom-get", path=QOM_PATH, property="save-state-status")
            self.nvme.readl(CSTS)
        second, err = self.t.qmp("qom-set", path=QOM_PATH, property="save-state",
                                 value=path + ".second")
        if not err or "already under way" not in err:
            raise Failure("save", f"a second QMP save while one is held: {second!r} {err!r}; "
                          "want 'a save is already under way'")
        if rec.get("reset") and self.m.enabled and not self.m.tainted:
            self.do_disable({})                 # RDY must read 0 when the write returns

    # ------------------------------------------------------------------ CC.SHN, pool out

    def do_shnpool(self, rec: dict) -> None:
        """Exhaust the request pool (a 2-entry CQ never consumed, 9 SQs of 2047
        Flushes), then CC.SHN: SHST must reach complete and lpn_access_count.csv be
        written (the pool keeps a request for the shutdown's save)."""
        m = self.m
        self.do_sync({})
        self._untaint()
        if m.enabled:
            self.do_disable({})
        self.do_enable({"asqs": 64, "acqs": 64, "mps": 0})
        subs = [Command(0x05, prp1=cq_slot(1), cdw10=1 | 1 << 16, cdw11=1)]
        subs += [Command(0x01, prp1=sq_slot(q), cdw10=q | (SHN_DEPTH - 1) << 16,
                         cdw11=1 | 1 << 16) for q in range(1, SHN_QUEUES + 1)]
        for cmd in subs:
            self.do_sub({"a": "sub", "q": 0, "sqe": cmd.pack(0).hex(), "tag": "shnpool",
                         "exp": "ok", "why": "queue create on a fresh controller"})
        self.do_sync({})
        if not m.trusted or any(q not in m.sqs for q in range(1, SHN_QUEUES + 1)):
            return
        flushes = SHN_DEPTH - 1
        for q in range(1, SHN_QUEUES + 1):
            entries = bytearray()
            for i in range(flushes):
                sqe = bytearray(Command(0x00, nsid=1).pack(0))
                struct.pack_into("<H", sqe, 2, i + 1)
                entries += sqe
            self._write(sq_slot(q), bytes(entries))
        self.mem_ops = []
        for q in range(1, SHN_QUEUES + 1):
            self.nvme.writel(self.nvme.doorbell(q, False), flushes)
        self.sent += SHN_QUEUES * flushes
        self.flood_sent += SHN_QUEUES * flushes
        m.shut_down = True              # nothing the host does not reap is owed
        m.release_all()
        time.sleep(rec.get("wait", 1.0))   # let the device fetch until the pool is out
        csv = self.t.stats_dir / "lpn_access_count.csv"
        csv.unlink(missing_ok=True)
        m.cc = (m.cc & ~(3 << 14)) | 1 << 14
        self.nvme.writel(CC, m.cc)
        deadline = time.monotonic() + SAVE_FACTOR * self.deadline
        while (self.nvme.readl(CSTS) >> 2) & 3 != 2:
            if time.monotonic() > deadline:
                raise Failure("csts-stuck", f"CC.SHN with the request pool exhausted: CSTS "
                              f"{self.nvme.readl(CSTS):#x} after {SAVE_FACTOR * self.deadline:g} s")
            self.check_process()
            time.sleep(0.002)
        if not csv.exists():
            raise Failure("shutdown", "CC.SHN with the request pool exhausted reached "
                          "shutdown complete without writing lpn_access_count.csv")
        self.shutdowns += 1
        self.do_disable({})
