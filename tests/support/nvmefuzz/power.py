"""Power cuts mid-flight (`pcut`, variants with a write buffer): the burst of I/O the
generator queued before it is rung, and without reaping anything the power is cut over
QMP (`qom-set power-cut now`; backend/power_cut.c). A mixin of Executor (executor.py).

The oracle: `power-cut-status` must reach "cut K at T ns: ..." (K one more than the cuts
made so far, `power-cuts` agreeing) within 3 deadlines; "failed: ..." is a finding (the
device runs ftl_check after every cut: an FTL a drive could not power on with). Then the
controller is as at power-on: CSTS 0 (RDY clear, no CFS, SHST 0) and, when no DMA or
config write may have reached our registers, CC, AQA, ASQ, ACQ and INTMS 0, CAP and VS
unchanged. The host forgets everything in flight exactly as after a reset (no command
dropped by the cut ever completes: a CQE for one afterwards is spurious), and the next
batch enables the controller again as after a disable.

Data: the host keeps no model of LBA contents across records (`verify` writes and reads
back within one record, and a cut is a record of its own), so lost buffered writes need
nothing. Pages whose program was in flight (power_cut_lost.csv's "torn" ranges, in
stats_dir) read back Unrecovered Read Error until rewritten: the model keeps them
(Model.torn), a well-formed Read, Compare, Verify or Copy of namespace 1 that touches
them may get 0x281 instead of success, and nsfix accepts uncorrectable LBAs of namespace
1 inside them (any other is still a finding) and deallocates namespace 1, which clears
them. At the end of a seed that cut, QEMU must still answer (qtest and QMP: as many cuts
as were made, the last one done) before its SIGTERM exit."""
import csv
import re
import struct
import time

from nvme_qtest import ACQ, AQA, ASQ, CAP, CC, CSTS, VS

from .failure import Failure
from .variant import QOM_PATH

SC_UNRECOVERED_READ = 0x281
CUT_FACTOR = 3              # a cut serves what the FTL has queued first: deadline x 3
ARM_WAIT = 0.2              # s for an armed cut to fire before it is disarmed (a full
                            # CQ holds the acknowledgements it counts)
INTMS = 0x0C
READS = (0x02, 0x05, 0x0C, 0x19)    # Read, Compare, Verify, Copy (its sources)
STATUS = re.compile(r"cut (\d+) at \d+ ns: (\d+) buffered sectors lost \(\d+ pages\), "
                    r"(\d+) pages torn")
EVERYTHING = (0, 1 << 63)   # torn ranges the host could not read: any sector


class PowerCut:
    power_cuts = 0          # cuts made (and checked)
    cut_lost_sectors = 0    # buffered sectors the cuts lost
    cut_torn_pages = 0      # pages torn
    torn_repairs = 0        # namespace 1 deallocated by nsfix for a cut's torn pages

    def _qom_get(self, prop: str):
        value, err = self.t.qmp("qom-get", path=QOM_PATH, property=prop)
        if err:
            raise Failure("qmp", f"qom-get {prop}: {err}")
        return value

    def do_pcut(self, rec: dict) -> None:
        """how: "now" (after the ring and `s` seconds), or "after-writes=N" /
        "after-flushes=N", armed before the ring so the cut lands mid-burst, right after
        the Nth acknowledged write or flush (with the FTL's requests queued behind it
        served first: programs in flight then tear)."""
        if not self.variant.qmp:
            self.skipped += 1       # a replay's record on a device without QMP
            return
        made = self._qom_get("power-cuts")
        if made != self.power_cuts:
            raise Failure("power-cut", f"power-cuts reads {made}, the host made "
                          f"{self.power_cuts} cuts")
        want = made + 1
        how = rec.get("how", "now")
        armed = how != "now"
        tainted = self.m.tainted
        if armed:
            self._qom_set_cut(how)
        self.do_ring({})
        if rec.get("s"):
            time.sleep(rec["s"])    # let the device fetch (and the FTL program) some
        if armed:
            self._armed_fired(want, how)
        else:
            self._qom_set_cut("now")
        status, got = self._cut_done(want, armed)
        self._untaint()             # BARs moved or bus mastering off: map them again
        self._check_power_on(got, tainted)
        found = STATUS.match(status)
        lost, torn = (int(found.group(2)), int(found.group(3))) if found else (0, 0)
        if got > want:              # a cut whose status the host did not see
            self.m.torn.extend(self._torn_ranges(want, False))
        if torn:
            self.m.torn.extend(self._torn_ranges(got, True))
        self._forget()
        self.m.cc = 0
        self.power_cuts += got - made
        self.cut_lost_sectors += lost
        self.cut_torn_pages += torn

    def _qom_set_cut(self, value: str) -> None:
        _, err = self.t.qmp("qom-set", path=QOM_PATH, property="power-cut", value=value)
        if err:
            raise Failure("power-cut", f"qom-set power-cut {value}: {err}")

    def _armed_fired(self, want: int, how: str) -> None:
        """Wait (ARM_WAIT) for the armed cut to fire; if the burst did not get that far
        (commands refused, the host's rings scrambled) disarm it and cut now. A cut that
        fires just as it is disarmed refuses the "now" (already under way), or is done
        before it: then "now" makes one cut more (_cut_done accepts it)."""
        deadline = time.monotonic() + ARM_WAIT
        while time.monotonic() < deadline:
            if not self._qom_get("power-cut-status").startswith("armed: "):
                return              # fired: cutting, or done
            time.sleep(0.001)
        self._qom_set_cut("off")
        if self._qom_get("power-cut-status").startswith(f"cut {want} "):
            return
        _, err = self.t.qmp("qom-set", path=QOM_PATH, property="power-cut", value="now")
        if err and "already under way" not in err:
            raise Failure("power-cut", f"qom-set power-cut now (after {how} was disarmed): "
                          f"{err}")

    def _cut_done(self, want: int, armed: bool):
        """(power-cut-status, K) once cut `want` is done (with an armed cut, maybe cut
        want + 1: see _armed_fired): "failed: ..." is a finding."""
        limit = CUT_FACTOR * self.deadline
        deadline = time.monotonic() + limit
        done = [want, want + 1] if armed else [want]
        while True:
            status = self._qom_get("power-cut-status")
            for cut in done:
                if status.startswith(f"cut {cut} "):
                    return status, cut
            if status.startswith("failed:"):
                raise Failure("power-cut", f"power cut {want}: {status}")
            if status != "cutting" and not (armed and (status == "disarmed" or
                                                       status.startswith("armed: "))):
                raise Failure("power-cut", f"power cut {want}: status {status!r}, want "
                              f"'cutting' then 'cut {want} ...'")
            if time.monotonic() > deadline:
                raise Failure("power-cut-stuck", f"power cut {want} not done within "
                              f"{limit:g} s (status {status!r})")
            self.check_process()
            time.sleep(0.001)

    def _check_power_on(self, cut: int, tainted: bool) -> None:
        """The controller as at power-on: CSTS 0 (the device publishes "cut K" only once
        it has power cycled the controller); the registers the cut clears read 0 (unless
        a DMA or config write may have reached them before the cut)."""
        nvme = self.nvme
        csts = nvme.readl(CSTS)
        if csts:
            time.sleep(0.05)
            raise Failure("cut-csts", f"CSTS {csts:#x} once power-cut-status said cut {cut} "
                          f"done ({nvme.readl(CSTS):#x} 50 ms later); want 0, the "
                          "controller as at power-on")
        if tainted:
            return
        seen = (nvme.readl(CC), nvme.readl(AQA), nvme.readq(ASQ), nvme.readq(ACQ),
                nvme.readl(INTMS), nvme.readq(CAP), nvme.readl(VS))
        want = (0, 0, 0, 0, 0, self.cap, self.vs)
        if seen != want:
            raise Failure("registers", f"after power cut {cut}: CC/AQA/ASQ/ACQ/INTMS/CAP/VS "
                          f"read {[hex(v) for v in seen]}, want {[hex(v) for v in want]}")

    def _torn_ranges(self, cut: int, torn: bool):
        """Cut `cut`'s torn FTL sector ranges from stats_dir/power_cut_lost.csv (torn:
        its status said some pages were); every sector when the file cannot be read, or
        has none of them."""
        try:
            with open(self.t.stats_dir / "power_cut_lost.csv", newline="") as f:
                rows = [(int(r["slba"]), int(r["nlb"])) for r in csv.DictReader(f)
                        if int(r["cut"]) == cut and r["kind"] == "torn"]
        except (OSError, ValueError, KeyError):
            return [EVERYTHING]
        if rows:
            return [(s, s + n) for s, n in rows]
        return [EVERYTHING] if torn else []

    def _torn_read(self, opcode: int, raw, exp, why: str):
        """A well-formed read of namespace 1 over LBAs a cut tore: success or Unrecovered
        Read Error (the LBA may have been rewritten since). Copy: any torn LBA of
        namespace 1 (its sources are in the host's table)."""
        m = self.m
        if opcode not in READS or struct.unpack_from("<I", raw, 4)[0] != 1:
            return exp, why
        table = m.ns.ns if m.ns is not None else {}
        if 1 not in table:
            hit = True          # where namespace 1 sits is unknown
        else:
            base = table[1].base
            if opcode == 0x19:
                first, end = base, base + m.nsze
            else:
                slba = struct.unpack_from("<Q", raw, 40)[0]
                first = base + slba
                end = first + (struct.unpack_from("<I", raw, 48)[0] & 0xFFFF) + 1
            hit = m.torn_overlaps(first, end)
        if not hit:
            return exp, why
        return (0, SC_UNRECOVERED_READ), (f"{why}, or Unrecovered Read Error "
                                          f"({SC_UNRECOVERED_READ:#x}): a power cut tore "
                                          "some of its LBAs")

    def _torn_marks_ok(self, page: bytes) -> bool:
        """Get LBA Status of namespace 1 (its page): every uncorrectable LBA it lists
        lies in a range a power cut tore."""
        m = self.m
        if not m.torn:
            return False
        table = m.ns.ns if m.ns is not None else {}
        base = table[1].base if 1 in table else 0
        count = struct.unpack_from("<I", page, 0)[0]
        for i in range(min(count, (len(page) - 8) // 16)):
            slba, nlb = struct.unpack_from("<QI", page, 8 + 16 * i)
            first = base + slba
            end = first + nlb + 1
            if not any(a <= first and end <= b for a, b in m.torn):
                return False
        return True

    def _power_final(self) -> None:
        """At the end of a seed that cut: QEMU answers qtest and QMP, the device counts
        the cuts the host made and the last one is done."""
        if not self.power_cuts or not self.variant.qmp:
            return
        self.nvme.readl(CSTS)
        made = self._qom_get("power-cuts")
        status = self._qom_get("power-cut-status")
        if made != self.power_cuts or not status.startswith(f"cut {made} "):
            raise Failure("power-cut", f"at the end: power-cuts {made}, status {status!r}; "
                          f"the host made {self.power_cuts} cuts")
