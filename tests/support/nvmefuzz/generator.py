"""Decides what to do next, one record at a time, looking at the host model (which the
executor updates as each record runs). All randomness comes from one random.Random, so
a seed names a run; the replay file, not the seed, is the exact record of it (a reset
racing a completion can change the model, and so the rest of the run)."""
import random
from typing import Iterator, Optional, Set

from .commands import Commands, to_record
from .layout import Picker, cq_slot, sq_slot
from .model import Model
from .variant import Variant

# How often things happen. A batch is a run of records ending in a sync.
P_REGISTER = 0.03          # per command: a register access in between
P_MID_FLIGHT = 0.08        # per batch: a reset, shutdown or toggle with commands in flight
P_AER_STORM = 0.03         # per batch
P_NSFIX = 0.7              # per batch, while the namespaces are unknown or may be damaged
P_TORN_FIX = 0.15          # per batch, while a power cut's torn pages may be in namespace 1
P_MUTATE_ADMIN, P_MUTATE_IO = 0.3, 0.25
P_NOISE_ADMIN, P_NOISE_IO = 0.15, 0.08
P_SHNPOOL = 0.003          # per batch, once a seed: CC.SHN with the request pool out
P_QSAVE = 0.02             # per batch, with a state_out: a QMP save during I/O
P_ZCHECK = 0.06            # per batch, with the zoned namespace: the zone check
P_FDPCHECK = 0.08          # per batch, with FDP: the FDP check
P_FDPCFG = 0.015           # per batch, with FDP: FDP off or on, the namespaces made again
P_PCUT = 0.05              # per batch, with a write buffer: a power cut mid-flight
PCUT_WAITS = [0, 0, 0.0002, 0.001, 0.005]   # s between the burst's doorbells and the cut
ADMIN_SIZES = [2, 4, 16, 32, 64, 64, 256, 1024, 2048]
SHADOW_EVENTS = ("disable", "shutdown", "toggle", "toggles")


class Generator:
    def __init__(self, rng: random.Random, model: Model, bars, skip: Set[str] = frozenset(),
                 variant: Optional[Variant] = None):
        self.rng, self.m, self.skip = rng, model, set(skip)
        self.variant = variant or Variant()
        self.picker = Picker(rng, bars, self.skip)
        self.cmds = Commands(self.picker, model, trust_dbbuf="dbbuf-trust" not in self.skip,
                             variant=self.variant)
        self.flooded = False
        self.shn_done = False
        self.ns_checked = False

    # ------------------------------------------------------------------ batches

    def records(self) -> Iterator[dict]:
        """An endless stream of batches."""
        while True:
            yield from self.batch()

    def batch(self) -> Iterator[dict]:
        m, r = self.m, self.rng
        self.picker.live_queues = [q.addr for q in m.sqs.values()] + \
                                  [q.addr for q in m.cqs.values()]
        if not m.enabled or m.tainted or m.fatal or m.shut_down or \
                (m.chaos and (m.chaos_batches >= 2 or r.random() < 0.5)) or self._stuck():
            yield from self.resync()
            yield {"a": "sync"}
            yield from self.nsfix()
            return
        if "flood" not in self.skip and not self.flooded and r.random() < 0.0005:
            self.flooded = True     # once a seed at most: 20k commands of one kind
            yield from self.flood()
            return
        if "shnpool" not in self.skip and not self.shn_done and r.random() < P_SHNPOOL:
            self.shn_done = True    # once a seed at most: 18k Flushes, CC.SHN
            yield {"a": "shnpool", "wait": r.choice([0.3, 1.0, 1.0, 2.0])}
            yield from self.resync()
            yield {"a": "sync"}
            return
        n = r.choices([r.randint(1, 3), r.randint(4, 48), r.randint(64, 256)],
                      [15, 75, 10])[0]
        storm = "aer" not in self.skip and r.random() < P_AER_STORM
        for i in range(n):
            if "reg" not in self.skip and r.random() < P_REGISTER:
                yield self.register()
            if storm and i < 48:
                yield self.sub(0, self.cmds.aer())
                continue
            yield from self.command()
        if r.random() < P_MID_FLIGHT:
            events = [e for e in SHADOW_EVENTS if e not in self.skip]
            if events:
                yield {"a": "ring"}
                yield from self.event(r.choice(events))
                for _ in range(r.randint(0, 8)):
                    yield from self.command()
        if self.variant.power_cut and "pcut" not in self.skip and r.random() < P_PCUT:
            yield from self.power_cut()
            return                  # the next batch enables the controller again
        if r.random() < 0.01:
            yield {"a": "ring"}
            yield {"a": "idle"}
        if self.variant.save and "qsave" not in self.skip and r.random() < P_QSAVE:
            yield {"a": "qsave", "hold": r.random() < 0.5, "reset": r.random() < 0.3,
                   "n": r.randint(1, 8)}
        yield {"a": "sync"}
        if self.variant.zoned and "zcheck" not in self.skip and r.random() < P_ZCHECK:
            yield {"a": "zcheck", "seed": r.getrandbits(31),
                   "nlb": r.choice([1, 8, 16, 64, r.randint(1, 2048)])}
        if self.variant.fdp and "fdpcheck" not in self.skip and r.random() < P_FDPCHECK:
            yield {"a": "fdpcheck", "seed": r.getrandbits(31)}
        if self.variant.fdp and "fdpcfg" not in self.skip and r.random() < P_FDPCFG:
            yield {"a": "fdpcfg", "seed": r.getrandbits(31)}
        if "pam_cfs" not in self.skip and r.random() < 0.01:
            yield {"a": "pam_cfs", "qid": r.randint(1, m.queues)}
        yield from self.nsfix()
        if "verify" not in self.skip and r.random() < 0.05:
            nlb = r.choice([1, 2, 8, 9, 64, r.randint(1, m.mdts_bytes // 512)])
            yield {"a": "verify", "seed": r.getrandbits(31), "nlb": nlb,
                   "slba": r.choice([0, m.nsze - nlb, r.randrange(m.nsze - nlb + 1)])}

    def nsfix(self) -> Iterator[dict]:
        """Check namespace 1 once at the start and whenever the device may have run
        entries nobody wrote; put the namespaces back in a known state when the model
        lost them (executor: ns_rules.py)."""
        m = self.m
        if "nsfix" not in self.skip and (not self.ns_checked or (
                (m.ns is None or m.ns_dirty) and self.rng.random() < P_NSFIX) or (
                m.torn and self.rng.random() < P_TORN_FIX)):
            self.ns_checked = True
            yield {"a": "nsfix"}

    def _stuck(self) -> bool:
        """The admin queue is full of held AERs and nothing else can be done."""
        sq = self.m.sqs.get(0)
        return sq is None or (self.m.room(sq) <= 0 and not self.m.usable_sqs())

    # ------------------------------------------------------------------ state changes

    def admin_params(self) -> dict:
        r = self.rng
        mps = 0 if r.random() < 0.85 else r.randint(1, 4)
        return {"asqs": r.choice(ADMIN_SIZES), "acqs": r.choice(ADMIN_SIZES), "mps": mps}

    def resync(self, params: Optional[dict] = None) -> Iterator[dict]:
        """Back to a known controller: BARs mapped (after a taint), reset, maybe a few
        enables that must fail, then a good enable."""
        if self.m.tainted:
            yield {"a": "remap"}
        yield {"a": "disable"}
        while "bad_enable" not in self.skip and self.rng.random() < 0.2:
            yield self.bad_enable()
        yield {"a": "enable", **(params or self.admin_params())}

    def bad_enable(self) -> dict:
        r, bars = self.rng, self.picker
        aqa, asq, acq = 31 << 16 | 31, sq_slot(0), sq_slot(0) + 0x2_0000
        cc = 1 | 6 << 16 | 4 << 20
        why = r.choice(["ASQS 0", "ACQS 0", "ASQ 0", "ACQ unaligned", "MPS 5", "CSS 1",
                        "AMS 1", "ASQ in MMIO", "ACQ in MMIO", "ACQ unassigned"])
        if why == "ASQS 0":
            aqa &= ~0xFFF
        elif why == "ACQS 0":
            aqa &= 0xFFF
        elif why == "ASQ 0":
            asq = 0
        elif why == "ACQ unaligned":
            acq += r.choice([4, 0x800, 0xFFC])
        elif why == "MPS 5":
            cc |= r.randint(5, 15) << 7
        elif why == "CSS 1":
            # 110b is a command set femu offers with zoned=on (then 111b is refused)
            cc |= r.choice([1, 2, 7 if self.variant.css else 6]) << 4
        elif why == "AMS 1":
            cc |= r.choice([1, 7]) << 11
        elif why == "ASQ in MMIO":
            asq = bars.address("mmio", 4096)
        elif why == "ACQ in MMIO":
            acq = bars.address("mmio", 4096)
        else:
            acq = bars.address("unassigned", 4096)
        return {"a": "bad_enable", "aqa": aqa, "asq": asq, "acq": acq, "cc": cc, "why": why}

    def event(self, kind: str) -> Iterator[dict]:
        if kind == "disable":      # a reset mid-flight
            yield {"a": "disable"}
            yield {"a": "enable", **self.admin_params()}
        elif kind == "shutdown":
            yield {"a": "shutdown"}
            yield {"a": "disable"}
            yield {"a": "enable", **self.admin_params()}
        elif kind == "toggle":
            yield {"a": "toggle", **self.admin_params()}
        else:                      # several fast toggles in a row
            for _ in range(self.rng.randint(2, 6)):
                yield {"a": "toggle", **self.admin_params()}

    def power_cut(self) -> Iterator[dict]:
        """A burst of I/O on the host's I/O queues (writes, some FUA so programs are in
        flight, Flushes, Reads, Write Zeroes), not reaped, then the power cut (`pcut`
        rings it first). Half the time what the batch sent is reaped and judged first;
        else it is in flight too. The cut comes after the ring ("now"), or armed to come
        right after the Nth acknowledged write or flush, mid-burst."""
        r, m, c = self.rng, self.m, self.cmds
        if r.random() < 0.5:
            yield {"a": "sync"}
        writes = flushes = 0
        for _ in range(r.randint(4, 48)):
            io = [sq for sq in m.usable_sqs()
                  if m.room(sq) > 0 and not m.sq_changing(sq.qid)]
            if not io:
                break
            sq = r.choice(io)
            kind = r.choices(["write", "fua", "flush", "read", "wz"], [8, 3, 2, 3, 1])[0]
            if kind in ("write", "fua"):
                sqe = c.rw(0x01)
                if kind == "fua":
                    sqe.cmd.cdw12 |= 1 << 30
                writes += 1
            elif kind == "read":
                sqe = c.rw(0x02)
            else:
                sqe = c.flush() if kind == "flush" else c.write_zeroes()
                flushes += kind == "flush"
            yield self.sub(sq.qid, sqe)
        how, x = "now", r.random()
        if x < 0.3 and writes:
            how = f"after-writes={r.randint(1, writes)}"
        elif x < 0.4 and flushes:
            how = f"after-flushes={r.randint(1, flushes)}"
        rec = {"a": "pcut", "how": how, "s": r.choice(PCUT_WAITS)}
        yield rec

    # ------------------------------------------------------------------ commands

    def sub(self, sqid: int, sqe) -> dict:
        return to_record(sqid, sqe)

    def command(self) -> Iterator[dict]:
        m, r = self.m, self.rng
        io = [sq for sq in m.usable_sqs() if m.room(sq) > 0 and not m.sq_changing(sq.qid)]
        admin = m.sqs.get(0)
        use_admin = admin is not None and m.room(admin) > 0 and \
            (not io or r.random() < 0.25)
        if use_admin:
            if not io and not m.io_created and r.random() < 0.1 and \
                    not any(p.opcode in (0x01, 0x05) for p in m.admin.values()):
                # Number of Queues is settable only before the first I/O queue
                yield self.sub(0, self.cmds.set_queues())
                return
            if r.random() < 0.04 and m.room(admin) > 1 and "aer" not in self.skip:
                # namespace notices on, and an AER for the next namespace change
                yield self.sub(0, self.cmds.notices_on())
                yield self.sub(0, self.cmds.aer())
                return
            if not io and "setup" not in self.skip and r.random() < 0.5 and m.room(admin) > 2:
                yield self.sub(0, self.cmds.create_cq())     # a queue pair to work with
                yield self.sub(0, self.cmds.create_sq())
                return
            yield self.sub(0, self.admin_command())
        elif io:
            sq = r.choice(io)
            yield self.sub(sq.qid, self.io_command())

    def admin_command(self):
        """A template (a third mutated), or noise; whichever, Commands.protect keeps
        Namespace Management, Attachment and Format NVM off namespace 1."""
        r, c = self.rng, self.cmds
        if r.random() < P_NOISE_ADMIN:
            return c.protect(c.noise(admin=True), admin=True)
        makers = [c.create_cq, c.create_sq, c.delete_sq, c.delete_cq, c.identify, c.get_log,
                  c.get_features, c.set_features, c.aer, c.abort, c.dbbuf, c.vendor_dump,
                  c.vendor_phase, c.get_log_any, c.features_any, c.vendor_any, c.dbbuf_any,
                  c.ns_create, c.ns_delete, c.ns_attach, c.format_nvm, c.get_lba_status,
                  c.set_queues, c.vendor_save]
        weights = [7, 7, 3, 3, 6, 5, 4, 4, 2, 2, 3, 1, 2, 2, 2, 1, 1,
                   2, 2, 3, 2, 2, 1, 1 if self.variant.save else 0.2]
        if self.variant.fdp:        # FDP: logs 20h-23h, features 1Dh/1Eh
            makers += [c.fdp_log, c.fdp_get_feature, c.fdp_set_feature]
            weights += [8, 6, 6]
        make = r.choices(makers, weights)[0]
        if make == c.aer and "aer" in self.skip:
            make = c.abort
        sqe = make()
        sqe = c.mutate(sqe) if r.random() < P_MUTATE_ADMIN else sqe
        return c.protect(sqe, admin=True)

    def io_command(self):
        """As admin_command; Write Uncorrectable never names namespace 1."""
        r, c = self.rng, self.cmds
        if r.random() < P_NOISE_IO:
            return c.protect(c.noise(admin=False), admin=False)
        makers = [c.rw, c.flush, c.write_zeroes, c.dsm, c.verify, c.compare,
                  c.write_uncor, c.io_other, c.copy, c.copy_other]
        weights = [60, 6, 8, 8, 4, 3, 3, 3, 4, 1]
        if self.variant.zoned:      # the zoned namespace: a third of the I/O
            makers += [c.zone_send, c.zone_recv, c.zone_append, c.zone_write]
            weights += [8, 6, 8, 18]
        if self.variant.kv:         # the KV namespace: Store, Retrieve, List, Delete, Exist
            makers += [c.kv_store, c.kv_retrieve, c.kv_list, c.kv_delete, c.kv_exist]
            weights += [20, 12, 6, 6, 6]
        if self.variant.fdp:        # FDP: I/O Management, writes with DTYPE and DSPEC
            makers += [c.io_mgmt_recv, c.io_mgmt_send, c.placed_write, c.placed_wz]
            weights += [8, 8, 25, 5]
        make = r.choices(makers, weights)[0]
        sqe = make()
        sqe = c.mutate(sqe) if r.random() < P_MUTATE_IO else sqe
        return c.protect(sqe, admin=False)

    # ------------------------------------------------------------------ registers

    def register(self) -> dict:
        r, m = self.rng, self.m
        kinds = {"intm": 3, "db-range": 3, "db-value": 2, "db-none": 2, "db-live": 1,
                 "db-odd": 1, "admin-regs": 2, "read": 4, "reserved": 2, "readonly": 1,
                 "cc-bits": 1, "cc-en": 0.5, "msix": 1, "cfg": 0.2, "msix-on": 0.6,
                 "msix-off": 0.3}
        names = [k for k in kinds if k not in self.skip] or ["read"]
        kind = r.choices(names, [kinds[k] for k in names])[0]
        if kind == "intm":
            return {"a": "reg", "off": r.choice([0x0C, 0x10]), "w": 4, "v": r.getrandbits(32)}
        if kind == "db-range":      # a doorbell of a queue the controller does not have
            qid = r.randrange(m.queues + 1, 0x3000 // 8)
            return {"a": "reg", "off": 0x1000 + 8 * qid + r.choice([0, 4]), "w": 4,
                    "v": r.getrandbits(16)}
        if kind in ("db-value", "db-live"):
            queues = [(q, False) for q in m.sqs] + [(q, True) for q in m.cqs]
            qid, cq = r.choice(queues) if queues else (0, False)
            size = (m.cqs if cq else m.sqs)[qid].size if queues else 2
            value = r.randrange(size, 0x1_0000) if kind == "db-value" else r.randrange(size)
            return {"a": "reg", "off": 0x1000 + 8 * qid + 4 * cq, "w": 4, "v": value}
        if kind == "db-none":
            qid = r.choice([q for q in range(1, m.queues + 1) if q not in m.sqs] or [1])
            return {"a": "reg", "off": 0x1000 + 8 * qid, "w": 4, "v": r.getrandbits(16)}
        if kind == "db-odd":
            return {"a": "reg", "off": 0x1000 + r.randrange(0x3000) | 1, "w": 4,
                    "v": r.getrandbits(32)}
        if kind == "admin-regs":    # latched only at the next enable, which rewrites them
            off, w = r.choice([(0x24, 4), (0x28, 8), (0x30, 8), (0x2C, 4), (0x34, 4)])
            return {"a": "reg", "off": off, "w": w, "v": r.getrandbits(8 * w)}
        if kind == "read":
            w = r.choice([1, 2, 4, 4, 8])
            return {"a": "rd", "off": r.randrange(0x4000 - 8), "w": w}
        if kind == "reserved":
            w = r.choice([1, 2, 4, 8])
            return {"a": "reg", "off": r.randrange(0x38, 0x1000 - 8), "w": w,
                    "v": r.getrandbits(8 * w)}
        if kind == "readonly":
            off, w = r.choice([(0x0, 8), (0x0, 4), (0x8, 4), (0x1C, 4), (0x20, 4)])
            return {"a": "reg", "off": off, "w": w, "v": r.getrandbits(8 * w)}
        if kind == "cc-bits":       # CC fields other than EN/SHN while enabled
            value = (m.cc & (1 | 3 << 14)) | (r.getrandbits(32) & ~(1 | 3 << 14))
            return {"a": "reg", "off": 0x14, "w": 4, "v": value}
        if kind == "cc-en":
            return {"a": "reg", "off": r.choice([0x14, 0x10]), "w": r.choice([4, 8]),
                    "v": r.getrandbits(32) if r.random() < 0.5 else r.getrandbits(64)}
        if kind == "msix":
            return {"a": "mmio", "bar": 4, "off": r.randrange(0, 0x1000, 4),
                    "v": r.getrandbits(32)}
        if kind == "msix-off":
            return {"a": "msix", "on": False}
        if kind == "msix-on":       # vectors aimed at the LAPIC, RAM, rings, MMIO, nothing
            vec = []
            for _ in range(r.randint(0, 6)):
                cls = r.choice(["lapic", "lapic", "msi", "queue", "mmio", "unassigned"])
                addr = (0xFEE0_0000 | r.getrandbits(12) << 8 if cls == "lapic"
                        else self.picker.address(cls, 4))
                vec.append([r.randrange(m.queues + 1), addr, r.getrandbits(32),
                            r.random() < 0.3])
            return {"a": "msix", "on": True, "fmask": r.random() < 0.15, "vec": vec}
        # config space: the command register (bus master, memory space) or a BAR
        off = r.choice([0x04, 0x04, 0x10, 0x14, 0x30])
        return {"a": "cfg", "off": off, "v": r.getrandbits(32)}

    # ------------------------------------------------------------------ pool exhaustion

    def flood(self) -> Iterator[dict]:
        """Fill ten full-size SQs sharing one CQ, with shadow doorbells on, and let the
        device sit with its request pool exhausted and the CQ full: it must idle."""
        yield from self.resync({"asqs": 64, "acqs": 64, "mps": 0})
        yield {"a": "sync"}
        yield self.sub(0, self.cmds.dbbuf())
        cq = self.cmds.create_cq()
        cq.cmd.cdw10 = 1 | 2047 << 16
        cq.cmd.prp1 = cq_slot(1)
        yield self.sub(0, cq)
        for qid in range(1, 11):
            sq = self.cmds.create_sq()
            sq.cmd.cdw10, sq.cmd.prp1 = qid | 2047 << 16, sq_slot(qid)
            sq.cmd.cdw11 = 1 | 1 << 16
            yield self.sub(0, sq)
        yield {"a": "sync"}
        for qid in range(1, 11):
            for _ in range(2047):
                rec = self.sub(qid, self.cmds.flush())
                rec["tag"] = "flood"
                yield rec
        yield {"a": "stall", "s": 0.3}
        yield {"a": "idle"}
        yield {"a": "sync"}
