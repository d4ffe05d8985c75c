"""Host helpers for the Key Value command set over qtest (tests/device/test_kv_*.py): the
KV commands with their key in CDW2-3 and CDW14-15, a KV device enabled with CC.CSS 110b,
and the List buffer's decoding. Field positions: KV Command Set 1.0 (cmd/io/kv.c)."""
import struct

from nvme_qtest import CSTS_CFS, CSTS_RDY, Command
from nvmefuzz.kv_commands import KvCommand     # CDW2-3 packed too: the one definition

KV_STORE, KV_RETRIEVE, KV_LIST, KV_DELETE, KV_EXIST = 0x01, 0x02, 0x06, 0x10, 0x14
SO_OVERWRITE_ONLY, SO_NO_OVERWRITE, SO_NO_COMPRESSION = 1 << 8, 1 << 9, 1 << 10
SC_INVALID_OPCODE, SC_INVALID_FIELD = 0x001, 0x002
SC_CAPACITY_EXCEEDED, SC_INVALID_VALUE_SIZE, SC_INVALID_KEY_SIZE = 0x081, 0x085, 0x086
SC_KEY_NOT_EXIST, SC_KEY_EXISTS = 0x087, 0x089
FEAT_KV_CONFIG = 0x20
CSS_ALL, CSI_NVM, CSI_KV = 6, 0, 1
KV_MB = 4
KV_PROPS = f"kv_ns_mb={KV_MB}"
NVM_NSID, KV_NSID = 1, 2


def key_dwords(key: bytes):
    """CDW2, CDW3, CDW14, CDW15 of a key: byte 0 in CDW2 bits 7:0, byte 8 in CDW14's."""
    padded = key.ljust(16, b"\0")
    return struct.unpack("<4I", padded)


def kv_cmd(opcode, key: bytes, nsid=KV_NSID, kl=None, cdw10=0, cdw11_high=0, prp1=0,
           prp2=0):
    c2, c3, c14, c15 = key_dwords(key)
    kl = len(key) if kl is None else kl
    return KvCommand(opcode, nsid=nsid, prp1=prp1, prp2=prp2, cdw10=cdw10,
                     cdw11=(kl & 0xFF) | cdw11_high, cdw14=c14, cdw15=c15, cdw2=c2, cdw3=c3)


def kv_device(start, props=""):
    """A device with the KV namespace (NSID 2) beside the NVM one, CC.CSS 110b; (nvme, sq)."""
    nvme = start(KV_PROPS + ("," + props if props else "")).nvme
    csts = nvme.enable(css=CSS_ALL)
    assert csts & CSTS_RDY and not csts & CSTS_CFS, f"enable: CSTS {csts:#x}"
    return nvme, nvme.io_queue_pair(1)


def store(nvme, sq, key, value: bytes, options=0, nsid=KV_NSID, size=None, kl=None):
    """Store value; with size, a value of size bytes (value's bytes first, zeroes after:
    large values without writing them through qtest)."""
    size = len(value) if size is None else size
    xfer = nvme.transfer(max(size, 1))
    if value:
        nvme.fill(xfer, value.ljust(size, b"\0")[:size])
    return nvme.run(sq, kv_cmd(KV_STORE, key, nsid, kl, size, options, xfer.prp1, xfer.prp2))


def retrieve(nvme, sq, key, buf_len, nsid=KV_NSID, kl=None, fill=0xEE):
    """(cqe, the whole buffer afterwards: bytes the device did not write keep `fill`)."""
    xfer = nvme.transfer(max(buf_len, 1))
    nvme.fill(xfer, bytes([fill]) * max(buf_len, 1))
    cqe = nvme.run(sq, kv_cmd(KV_RETRIEVE, key, nsid, kl, buf_len, 0, xfer.prp1, xfer.prp2))
    return cqe, nvme.contents(xfer)[:buf_len]


def exist(nvme, sq, key, nsid=KV_NSID, kl=None):
    return nvme.run(sq, kv_cmd(KV_EXIST, key, nsid, kl))


def delete(nvme, sq, key, nsid=KV_NSID, kl=None):
    return nvme.run(sq, kv_cmd(KV_DELETE, key, nsid, kl))


def list_raw(nvme, sq, start_key, buf_len=4096, nsid=KV_NSID, kl=None):
    xfer = nvme.transfer(max(buf_len, 1))
    nvme.fill(xfer, b"\xEE" * max(buf_len, 1))
    cqe = nvme.run(sq, kv_cmd(KV_LIST, start_key, nsid, kl, buf_len, 0, xfer.prp1, xfer.prp2))
    return cqe, nvme.contents(xfer)[:buf_len]


def parse_list(buf: bytes):
    """The keys of a List buffer: a 4-byte count, then per key a 2-byte length, the key and
    zero padding to a 4-byte boundary (the padding is checked to be zero)."""
    count = struct.unpack_from("<I", buf, 0)[0]
    keys, at = [], 4
    for _ in range(count):
        kl = struct.unpack_from("<H", buf, at)[0]
        keys.append(bytes(buf[at + 2:at + 2 + kl]))
        end = at + ((2 + kl + 3) // 4) * 4
        assert buf[at + 2 + kl:end] == b"\0" * (end - at - 2 - kl), "padding not zero"
        at = end
    return keys


def all_keys(nvme, sq, nsid=KV_NSID):
    """Every key, in the device's order (List from the smallest key, 0x00)."""
    cqe, buf = list_raw(nvme, sq, b"\0", 65536, nsid)
    assert cqe.ok, str(cqe)
    return parse_list(buf)


ADM_NS_MGMT, ADM_NS_ATTACH = 0x0D, 0x15


def create_kv(nvme, capacity):
    """Namespace Management create with CSI 01h: the KV Identify Namespace data's NSZE
    (bytes 7:0) is the capacity in value bytes."""
    ident = bytearray(4096)
    struct.pack_into("<Q", ident, 0, capacity)
    return nvme.admin(Command(ADM_NS_MGMT, prp1=nvme.buffer(bytes(ident)),
                              cdw10=0, cdw11=CSI_KV << 24))


def attach(nvme, nsid):
    """Attach nsid to this controller (controller list: one entry, ID 0)."""
    table = struct.pack("<HH", 1, 0).ljust(4096, b"\0")
    return nvme.admin(Command(ADM_NS_ATTACH, nsid=nsid, cdw10=0, prp1=nvme.buffer(table)))
