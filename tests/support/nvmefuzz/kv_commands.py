"""The Key Value command set (CSI 01h) on the KV namespace of `kv_ns_mb` (variant `kv`):
Store, Retrieve, Delete, Exist and List with random keys (a small pool per seed, so they
hit each other, and now and then a fresh one), key lengths (1-16, now and then 0 or more
than 16), Store options, value and buffer sizes. Field places: hw/femu/cmd/io/kv.c's
header (the key's bytes 0-7 in CDW2-3, 8-15 in CDW14-15, KL in CDW11 bits 7:0, the Store
Option in bits 15:8, the value or buffer size in CDW10).

The keys' existence is not followed (the FTL decides it, and a refused command changes
nothing: the device tests hold it to a dict model), so only what is refused whatever the
keys are is expected: a key length of 0 or over 16 (Invalid Key Size) and a Store value
over kv_max_value (Invalid Value Size).

Also the probe of the KV namespace's extent at the start (the model keeps it out of the
capacity that creates share) and the KV namespace's NSID shielded from what deletes,
detaches or formats (like namespace 1: the model keeps it for the whole seed)."""
import struct
from dataclasses import dataclass

from nvme_qtest import Command

KV_STORE, KV_RETRIEVE, KV_LIST, KV_DELETE, KV_EXIST = 0x01, 0x02, 0x06, 0x10, 0x14
KEY_MAX = 16
MAX_VALUE = 1 << 16         # kv_max_value's default (hw/femu/ftl/config)
CSI_KV = 0x01
SECTOR = 512


@dataclass
class KvCommand(Command):
    """A Command whose CDW2 and CDW3 (the key's bytes 0-7) are packed too."""
    cdw2: int = 0
    cdw3: int = 0

    def pack(self, cid: int) -> bytes:
        raw = bytearray(super().pack(cid))
        struct.pack_into("<II", raw, 8, self.cdw2 & 0xFFFF_FFFF, self.cdw3 & 0xFFFF_FFFF)
        return bytes(raw)


def kv_command(opcode: int, nsid: int, key: bytes, kl: int, cdw10: int = 0,
               option: int = 0) -> KvCommand:
    padded = key.ljust(KEY_MAX, b"\0")[:KEY_MAX]
    c2, c3, c14, c15 = struct.unpack("<4I", padded)
    return KvCommand(opcode, nsid=nsid, cdw10=cdw10 & 0xFFFF_FFFF,
                     cdw11=(kl & 0xFF) | (option & 0xFF) << 8, cdw14=c14, cdw15=c15,
                     cdw2=c2, cdw3=c3)


def probe_kv_sectors(nvme, capacity: int, nvm_sectors: int) -> int:
    """The FTL sectors the KV namespace takes (at the end of the conventional space): the
    capacity less the NVM namespaces' and Identify Controller's UNVMCAP (bytes 311:296),
    read on a controller enabled for the probe and disabled again."""
    nvme.enable(css=6)
    xfer = nvme.transfer(4096)
    cqe = nvme.admin(Command(0x06, prp1=xfer.prp1, prp2=xfer.prp2, cdw10=0x01))
    if cqe.code:
        raise RuntimeError(f"kv probe: Identify Controller failed: {cqe}")
    unvmcap = int.from_bytes(nvme.contents(xfer)[296:312], "little")
    nvme.disable()
    return capacity - nvm_sectors - unvmcap // SECTOR


class KvCommands:
    """Commands' KV templates (mixed into commands.Commands; self.kv is the variant's)."""

    def _kv_key(self):
        """(key bytes, KL, why it must fail or '')."""
        r = self.rng
        if not hasattr(self, "_kv_pool"):
            self._kv_pool = [bytes(r.getrandbits(8) for _ in range(r.randint(1, KEY_MAX)))
                             for _ in range(12)]
        key = r.choice(self._kv_pool) if r.random() < 0.85 else \
            bytes(r.getrandbits(8) for _ in range(r.randint(1, KEY_MAX)))
        if r.random() < 0.06:
            kl = r.choice([0, KEY_MAX + 1, 0xFF, r.randint(KEY_MAX + 1, 0xFF)])
            return key, kl, f"KV key length {kl} not 1-{KEY_MAX}"
        return key, len(key), ""

    def _kv_sqe(self, cmd, why: str, tag: str, transfer: bool = False, length: int = 0):
        from .commands import Sqe
        sqe = Sqe(cmd, transfer=transfer, exp="fail" if why else None, why=why, tag=tag)
        return self._with_data(sqe, length) if length else sqe

    def kv_store(self):
        r = self.rng
        key, kl, why = self._kv_key()
        size = r.choice([1, 8, 100, 512, 4096, 4097, 8192, 65536, r.randint(1, 16384)])
        option = r.choice([0, 0, 0, 1, 2, 4, 3, r.getrandbits(8)])
        length = size
        if not why and r.random() < 0.04:
            size = r.choice([MAX_VALUE + 1, 0xFFFF_FFFF])
            length = 4096           # refused before any byte moves
            why = f"KV Store of {size} bytes, over kv_max_value"
        cmd = kv_command(KV_STORE, self.kv.nsid, key, kl, size, option)
        return self._kv_sqe(cmd, why, "kvstore", transfer=not why, length=length)

    def kv_retrieve(self):
        r = self.rng
        key, kl, why = self._kv_key()
        size = r.choice([1, 16, 512, 4096, 8192, 65536, r.randint(1, 16384)])
        cmd = kv_command(KV_RETRIEVE, self.kv.nsid, key, kl, size, r.choice([0, 0, 1]))
        return self._kv_sqe(cmd, why, "kvretrieve", length=size)

    def kv_list(self):
        r = self.rng
        key, kl, why = self._kv_key()
        size = r.choice([4, 8, 20, 64, 512, 4096, 8192, r.randint(1, 8192)])
        cmd = kv_command(KV_LIST, self.kv.nsid, key, kl, size)
        return self._kv_sqe(cmd, why, "kvlist", length=size)

    def kv_delete(self):
        key, kl, why = self._kv_key()
        return self._kv_sqe(kv_command(KV_DELETE, self.kv.nsid, key, kl), why, "kvdelete")

    def kv_exist(self):
        key, kl, why = self._kv_key()
        return self._kv_sqe(kv_command(KV_EXIST, self.kv.nsid, key, kl), why, "kvexist")
