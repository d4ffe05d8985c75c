"""Data integrity: write a known pattern through one PRP layout and read it back through
another; the bytes must match. Run only when the host trusts its view and nothing it is
owed is in flight, so no other command can touch those blocks or pages meanwhile. A
mixin of Executor (executor.py)."""
import random
import struct

from nvme_qtest import SC_COMPARE_FAILURE, Command, Cqe

from . import prp
from .commands import LBA
from .failure import Failure
from .layout import Picker


def pattern(seed: int, nbytes: int) -> bytes:
    """Every 8 bytes name the seed and their offset: a misplaced page shows where."""
    return b"".join(struct.pack("<II", seed, i) for i in range(0, nbytes, 8))[:nbytes]


class Integrity:
    def do_verify(self, rec: dict) -> None:
        m = self.m
        self.do_sync({})
        sq = m.quiet_sq(rec["seed"])
        if sq is None or m.room(sq) < 2:
            return
        rng = random.Random(rec["seed"])
        picker, scratch = Picker(rng, self.nvme.bars.values()), prp.Scratch()
        nbytes = rec["nlb"] * LBA
        data = pattern(rec["seed"], nbytes)
        taken = set()
        out = prp.build(picker, scratch, m.page_size, nbytes, taken=taken)
        back = prp.build(picker, scratch, m.page_size, nbytes, taken=taken)
        self._lay(out, data, m.page_size)
        self._lay(back, b"\xA5" * nbytes, m.page_size)
        write = self._io(sq, 0x01, rec["slba"], rec["nlb"], out, *self._placement_dw(rng))
        read = self._io(sq, 0x02, rec["slba"], rec["nlb"], back)
        if write.code or read.code:
            raise Failure("status", f"verify write/read of {rec['nlb']} blocks at "
                          f"{rec['slba']}: {write} / {read}; expected success")
        got = self._gather(back, nbytes, m.page_size)
        if got != data:
            at = next(i for i in range(nbytes) if got[i] != data[i])
            raise Failure("data", f"read back {nbytes} bytes at LBA {rec['slba']} differ "
                          f"from what was written, first at byte {at}: "
                          f"{got[at:at + 16].hex()} != {data[at:at + 16].hex()}")
        # The host knows these LBAs now: Compare with what was written must succeed, a
        # Compare with one byte changed must fail with Compare Failure, a Verify succeed.
        if m.room(sq) < 3:
            return
        same = self._io(sq, 0x05, rec["slba"], rec["nlb"], out)
        flip = rng.randrange(nbytes)
        self._poke(out, flip, data[flip] ^ (1 << rng.randrange(8)), m.page_size)
        differ = self._io(sq, 0x05, rec["slba"], rec["nlb"], out)
        verify = self._io(sq, 0x0C, rec["slba"], rec["nlb"], out)
        if same.code or differ.code != SC_COMPARE_FAILURE or verify.code:
            raise Failure("status", f"Compare of the {rec['nlb']} blocks at {rec['slba']} "
                          f"just written: {same} (want success), with byte {flip} changed: "
                          f"{differ} (want Compare Failure {SC_COMPARE_FAILURE:#x}); "
                          f"Verify: {verify} (want success)")

    def _placement_dw(self, rng: random.Random):
        """With FDP, the write's (CDW12 DTYPE, CDW13 DSPEC) bits: while FDP is on, DTYPE 2
        with any placement identifier (one the namespace lacks goes to handle 0), or 0;
        while off, a DTYPE other than 2; (0, 0) without FDP or when the host does not
        know its state."""
        table = self.m.ns
        if self.variant.fdp is None or table is None or self.m.ns_admin_busy():
            return 0, 0
        if table.fdp_on:
            dtype = rng.choice([0, 2, 2])
            return dtype << 20, rng.choice([0, 1, rng.getrandbits(16)]) << 16
        return rng.choice([0, 1, 3]) << 20, rng.getrandbits(16) << 16

    def _io(self, sq, opcode: int, slba: int, nlb: int, ptr: prp.Pointers, dtype: int = 0,
            dspec: int = 0) -> Cqe:
        cmd = Command(opcode, nsid=1, prp1=ptr.prp1, prp2=ptr.prp2, cdw10=slba & 0xFFFF_FFFF,
                      cdw11=slba >> 32, cdw12=nlb - 1 | dtype, cdw13=dspec)
        rec = {"a": "sub", "q": sq.qid, "sqe": cmd.pack(0).hex(), "tag": "verify",
               "mem": [[a, d.hex()] for a, d in ptr.mem]}
        cid = self.next_cid[sq.qid]
        self.do_sub(rec)
        self.do_sync({})
        key = (sq.qid, cid)
        return self.last_cqe[key]

    def _segments(self, ptr: prp.Pointers, nbytes: int, page: int):
        """The (address, length) pieces a well-formed PRP set names, in order."""
        first = min(nbytes, page - ptr.prp1 % page)
        pages = [ptr.prp2] if not ptr.entries else ptr.entries
        yield ptr.prp1, first
        left = nbytes - first
        for base in pages:
            if left <= 0:
                break
            yield base, min(page, left)
            left -= page

    def _poke(self, ptr: prp.Pointers, at: int, value: int, page: int) -> None:
        """Change byte `at` of the transfer ptr names."""
        pos = 0
        for addr, n in self._segments(ptr, at + 1, page):
            if at < pos + n:
                self.mem_ops.append((addr + at - pos, bytes([value])))
                return
            pos += n

    def _lay(self, ptr: prp.Pointers, data: bytes, page: int) -> None:
        pos = 0
        for addr, n in self._segments(ptr, len(data), page):
            self.mem_ops.append((addr, data[pos:pos + n]))
            pos += n

    def _gather(self, ptr: prp.Pointers, nbytes: int, page: int) -> bytes:
        return b"".join(self._read(addr, n) for addr, n in self._segments(ptr, nbytes, page))
