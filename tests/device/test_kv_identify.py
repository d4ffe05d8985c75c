"""What a host needs to find the Key Value namespace (kv_ns_mb), over qtest: CAP.CSS, the
I/O Command Set vector (CNS 1Ch), the KV Identify Namespace and Controller data (CNS 05h,
06h with CSI 01h), the I/O Command Set Independent Identify Namespace (CNS 08h) for every
namespace, the namespace descriptors' CSI, log 05h for CSI 01h, Namespace Management with
CSI 01h, Format of a KV namespace, and the KV namespace inactive under CC.CSS 000b."""
import struct

from kv_qtest import (CSI_KV, CSI_NVM, KV_DELETE, KV_EXIST, KV_LIST, KV_MB, KV_NSID,
                      KV_PROPS, KV_RETRIEVE, KV_STORE, NVM_NSID, SC_INVALID_FIELD, all_keys,
                      attach, create_kv, exist, kv_device, store)
from nvme_qtest import CAP, Command, femu_only, nvme_qemu, start  # noqa: F401

pytestmark = femu_only()

ADM_IDENTIFY, ADM_GET_LOG, ADM_NS_MGMT, ADM_FORMAT = 0x06, 0x02, 0x0D, 0x80
CNS_NS, CNS_DESCRIPTORS, CNS_CS_NS, CNS_CS_CTRL, CNS_CS_ACTIVE = 0x00, 0x03, 0x05, 0x06, 0x07
CNS_CS_INDEP, CNS_IO_CMD_SETS = 0x08, 0x1C
EFF_CSUPP, EFF_LBCC = 1, 2
MAX_VALUE = 1 << 16         # kv_max_value's default
FEAT_IOCS_PROFILE = 0x19


def identify(nvme, cns, nsid=0, csi=0):
    buf = nvme.mem.alloc(4096)
    cqe = nvme.admin(Command(ADM_IDENTIFY, nsid=nsid, prp1=buf, cdw10=cns, cdw11=csi << 24))
    return cqe, nvme.qt.b64read(buf, 4096)


def effects_log(nvme, csi):
    buf = nvme.mem.alloc(4096)
    cqe = nvme.admin(Command(ADM_GET_LOG, nsid=0xFFFFFFFF, prp1=buf,
                             cdw10=0x05 | (4096 // 4 - 1) << 16, cdw14=csi << 24))
    return cqe, nvme.qt.b64read(buf, 4096)


def descriptors(data):
    """(type, value bytes) of each namespace identification descriptor."""
    out, at = [], 0
    while at + 4 <= len(data) and data[at]:
        nidt, nidl = data[at], data[at + 1]
        out.append((nidt, data[at + 4:at + 4 + nidl]))
        at += 4 + nidl
    return out


def test_capability_vector_and_kv_identify_data(start):
    nvme, sq = kv_device(start)
    assert nvme.readq(CAP) >> 37 & 0xFF == 0x41         # CSS: NVM (bit 0), I/O sets (bit 6)
    cqe, data = identify(nvme, CNS_IO_CMD_SETS)
    assert cqe.ok and struct.unpack_from("<Q", data, 0)[0] == 0b011    # NVM and KV
    assert store(nvme, sq, b"k", b"x" * 1000).ok
    cqe, data = identify(nvme, CNS_CS_NS, KV_NSID, CSI_KV)
    assert cqe.ok
    nsze, nuse = struct.unpack_from("<Q", data, 0)[0], struct.unpack_from("<Q", data, 16)[0]
    assert nsze == KV_MB << 20 and nuse == 1000          # bytes
    assert data[25] == 0                                 # NKVF: one format (0's based)
    mkl, mvl, mnk = struct.unpack_from("<H2xII", data, 72)
    assert mkl == 16 and mvl == MAX_VALUE and mnk > 0
    cqe, _ = identify(nvme, CNS_CS_NS, NVM_NSID, CSI_KV)      # not a KV namespace
    assert cqe.code == SC_INVALID_FIELD
    assert identify(nvme, CNS_CS_CTRL, 0, CSI_KV)[0].ok
    cqe, data = identify(nvme, CNS_CS_ACTIVE, 0, CSI_KV)
    assert cqe.ok and struct.unpack_from("<2I", data, 0) == (KV_NSID, 0)
    cqe, data = identify(nvme, CNS_NS, KV_NSID)                 # no NVM data for it
    assert cqe.ok and data == bytes(4096)


def test_cs_independent_namespace_and_descriptors_for_every_namespace(start):
    nvme, _ = kv_device(start)
    for nsid, csi in ((NVM_NSID, CSI_NVM), (KV_NSID, CSI_KV)):
        cqe, data = identify(nvme, CNS_CS_INDEP, nsid)
        assert cqe.ok and data[14] & 1 == 1, nsid                # NSTAT: ready
        cqe, data = identify(nvme, CNS_DESCRIPTORS, nsid)
        found = dict(descriptors(data))
        assert cqe.ok and found[0x04] == bytes([csi]) and len(found[0x03]) == 16
    cqe, data = identify(nvme, CNS_CS_INDEP, 9)                  # unallocated: zeroes
    assert cqe.ok and data == bytes(4096)


def test_effects_log_for_csi_01h_lists_the_kv_commands(start):
    nvme, _ = kv_device(start)
    cqe, data = effects_log(nvme, CSI_KV)
    assert cqe.ok
    iocs = struct.unpack_from("<256I", data, 1024)
    for opcode in (KV_STORE, KV_DELETE):
        assert iocs[opcode] & (EFF_CSUPP | EFF_LBCC) == EFF_CSUPP | EFF_LBCC
    for opcode in (0x00, KV_RETRIEVE, KV_LIST, KV_EXIST):
        assert iocs[opcode] & EFF_CSUPP and not iocs[opcode] & EFF_LBCC
    assert [op for op in range(256) if iocs[op]] == sorted(
        [0x00, KV_STORE, KV_RETRIEVE, KV_LIST, KV_DELETE, KV_EXIST])
    cqe, data = effects_log(nvme, CSI_NVM)
    assert cqe.ok and struct.unpack_from("<256I", data, 1024)[KV_LIST] == 0


def test_kv_namespace_is_inactive_under_css_nvm_only(start):
    nvme = start(KV_PROPS).nvme
    nvme.enable(css=0)
    cqe, data = identify(nvme, 0x02)                            # active list: NVM only
    assert cqe.ok and struct.unpack_from("<2I", data, 0) == (NVM_NSID, 0)
    assert identify(nvme, CNS_CS_NS, KV_NSID, CSI_KV)[0].code == SC_INVALID_FIELD


def test_namespace_management_deletes_and_creates_kv_namespaces(start):
    nvme, sq = kv_device(start)
    assert store(nvme, sq, b"old", b"v").ok
    assert nvme.admin(Command(ADM_NS_MGMT, nsid=KV_NSID, cdw10=1)).ok      # delete
    assert identify(nvme, CNS_CS_INDEP, KV_NSID)[1] == bytes(4096)
    cqe = create_kv(nvme, 1 << 20)
    assert cqe.ok and cqe.dw0 == KV_NSID                         # the first free NSID
    assert attach(nvme, KV_NSID).ok
    cqe, data = identify(nvme, CNS_CS_NS, KV_NSID, CSI_KV)
    assert cqe.ok and struct.unpack_from("<QQQ", data, 0)[::2] == (1 << 20, 0)
    assert exist(nvme, sq, b"old").code == 0x087                 # a new, empty store
    assert store(nvme, sq, b"new", b"v").ok and all_keys(nvme, sq) == [b"new"]
    assert create_kv(nvme, 0).code == SC_INVALID_FIELD
    assert create_kv(nvme, 1 << 40).code == 0x115                # Insufficient Capacity


def test_format_empties_a_kv_namespace(start):
    nvme, sq = kv_device(start)
    for key in (b"a", b"b"):
        assert store(nvme, sq, key, b"v" * 100).ok
    assert nvme.admin(Command(ADM_FORMAT, nsid=KV_NSID), timeout=30).ok
    assert all_keys(nvme, sq) == []
    assert identify(nvme, CNS_CS_NS, KV_NSID, CSI_KV)[1][16:24] == bytes(8)   # NUSE 0
    assert store(nvme, sq, b"a", b"again").ok


def test_without_kv_ns_mb_a_kv_create_is_invalid_field(start):
    nvme = start().nvme
    nvme.enable(css=0)
    assert create_kv(nvme, 1 << 20).code == SC_INVALID_FIELD
    assert nvme.readq(CAP) >> 37 & 0xFF == 0x01


def test_io_command_set_profile_feature_names_the_one_combination(start):
    nvme, _ = kv_device(start)
    assert nvme.get_features(FEAT_IOCS_PROFILE).dw0 == 0       # CNS 1Ch's vector 0
    assert nvme.set_features(FEAT_IOCS_PROFILE, 0).ok
    assert nvme.set_features(FEAT_IOCS_PROFILE, 1).code == SC_INVALID_FIELD   # none there


def test_kv_and_zoned_namespaces_side_by_side(start):
    """zoned=on too: NVM NSID 1, KV NSID 2, zoned NSID 3; CNS 1Ch lists all three sets."""
    nvme, sq = kv_device(start, "pgs_per_blk=64,devsz_mb=24,zoned=on,zones=16")
    cqe, data = identify(nvme, CNS_IO_CMD_SETS)
    assert cqe.ok and struct.unpack_from("<Q", data, 0)[0] == 0b111
    cqe, data = identify(nvme, 0x02)
    assert struct.unpack_from("<4I", data, 0) == (NVM_NSID, KV_NSID, 3, 0)
    for nsid, csi in ((NVM_NSID, CSI_NVM), (KV_NSID, CSI_KV), (3, 2)):
        assert dict(descriptors(identify(nvme, CNS_DESCRIPTORS, nsid)[1]))[0x04] == \
            bytes([csi]), nsid
    assert store(nvme, sq, b"k", b"v").ok and all_keys(nvme, sq) == [b"k"]
