"""Every malformed command the contract names completes with its status and DNR set, and
leaves the controller working."""
import struct
from dataclasses import dataclass

import pytest

from nvme_qtest import (ADM_DBBUF, ADM_DELETE_CQ, ADM_DELETE_SQ, ADM_IDENTIFY,
                        ADM_VENDOR_LPN_COUNTS, ADM_VENDOR_PHASE, CSTS, CSTS_CFS, IO_FLUSH, IO_READ,
                        IO_WRITE, IO_WRITE_ZEROES, PAGE, SC_CQ_INVALID, SC_DATA_TRANSFER_ERROR,
                        SC_FEATURE_NOT_SAVEABLE, SC_INVALID_FIELD, SC_INVALID_IV,
                        SC_INVALID_LOG_PAGE, SC_INVALID_NS, SC_INVALID_OPCODE, SC_INVALID_QID,
                        SC_INVALID_QSIZE, SC_INVALID_QUEUE_DELETION, SC_LBA_OUT_OF_RANGE,
                        SC_PRP_OFFSET_INVALID, Command, femu_only, nvme_qemu, pattern, ready,
                        shared, start)  # noqa: F401

pytestmark = femu_only()

NSZE = (64 << 20) // 512
NOT_MEMORY = 0x8000_0000          # in the PCI hole, nothing mapped there
SCRATCH = 0x80_0000               # guest RAM below the harness's allocator: never a queue
FEATURE_NOQ, FEATURE_PM, FEATURE_VWC, FEATURE_IVC, FEATURE_WAN = 0x07, 0x02, 0x06, 0x09, 0x0A
SC_COMMAND_SEQUENCE_ERROR = 0x00C


@dataclass
class Ctx:
    nvme: object
    sq: object
    queues: int          # I/O queue pairs the controller offers
    mdts: int            # bytes


@pytest.fixture(scope="module")
def ctx(shared):
    nvme = shared.nvme
    cqe = nvme.get_features(FEATURE_NOQ)
    assert cqe.ok
    _, ident = nvme.identify(1)
    return Ctx(nvme, shared.sq, (cqe.dw0 & 0xFFFF) + 1, PAGE << ident[77])


# ---- admin commands

def identify(cns, nsid):
    return lambda c: c.nvme.identify(cns, nsid=nsid)[0]


def raw_admin(opcode, **fields):
    return lambda c: c.nvme.admin(Command(opcode, **fields))


def create_cq(qid=None, size=16, iv=0, **kw):
    """Create I/O CQ with one field wrong; a wrongly accepted queue is deleted again."""
    def run(c):
        q = qid(c) if callable(qid) else (2 if qid is None else qid)
        cqe, _ = c.nvme.create_cq(q, size, iv=iv(c) if callable(iv) else iv, **kw)
        if cqe.ok:
            c.nvme.delete_cq(q)
        return cqe
    return run


def create_sq(qid=None, size=16, cqid=1, **kw):
    def run(c):
        q = qid(c) if callable(qid) else (2 if qid is None else qid)
        cqe, _ = c.nvme.create_sq(q, size, cqid, **kw)
        if cqe.ok:
            c.nvme.delete_sq(q)
        return cqe
    return run


def get_log(lid, length=512, offset=0, nsid=0xFFFFFFFF):
    return lambda c: c.nvme.get_log(lid, length, offset=offset, nsid=nsid)[0]


def set_feature(fid, cdw11, save=False):
    return lambda c: c.nvme.set_features(fid, cdw11(c) if callable(cdw11) else cdw11, save)


def get_feature(fid, cdw11=0):
    return lambda c: c.nvme.get_features(fid, cdw11=cdw11)


# ---- I/O commands

def io(opcode, nsid=1, **fields):
    return lambda c: c.nvme.run(c.sq, Command(opcode, nsid=nsid, **fields))


def rw(opcode, slba, nlb, nsid=1, prp=None):
    """Read/Write of nlb sectors; prp(c, nbytes) -> (prp1, prp2), default a valid buffer."""
    def run(c):
        if prp is None:
            xfer = c.nvme.transfer(nlb * 512, scatter=False)
            prp1, prp2 = xfer.prp1, xfer.prp2
        else:
            prp1, prp2 = prp(c, nlb * 512)
        return c.nvme.run(c.sq, Command(opcode, nsid=nsid, prp1=prp1, prp2=prp2,
                                        cdw10=slba & 0xFFFFFFFF, cdw11=slba >> 32,
                                        cdw12=(nlb - 1) & 0xFFFF))
    return run


def pages(c, n):
    block = c.nvme.mem.alloc(n * PAGE)
    return [block + i * PAGE for i in range(n)]


def prp_list(c, entries):
    ptr, _ = c.nvme.prp_list(entries)
    return ptr


PRP_CASES = {
    "prp1_not_dword_aligned": (lambda c, n: (pages(c, 1)[0] + 2, 0), 1, SC_PRP_OFFSET_INVALID),
    "prp2_page_with_offset": (lambda c, n: (pages(c, 1)[0], pages(c, 1)[0] + 512), 16,
                              SC_PRP_OFFSET_INVALID),
    "prp_list_pointer_not_qword_aligned":
        (lambda c, n: (pages(c, 1)[0], prp_list(c, pages(c, 3)) + 4), 32,
         SC_PRP_OFFSET_INVALID),
    "prp_list_entry_with_offset":
        (lambda c, n: (pages(c, 1)[0], prp_list(c, [pages(c, 1)[0], pages(c, 1)[0] + 0x200,
                                                    pages(c, 1)[0]])), 32,
         SC_PRP_OFFSET_INVALID),
    "prp_chain_pointer_with_offset": (lambda c, n: chain(c, 0x100), 32, SC_PRP_OFFSET_INVALID),
    "prp1_zero": (lambda c, n: (0, 0), 1, SC_INVALID_FIELD),
    "prp2_zero": (lambda c, n: (pages(c, 1)[0], 0), 16, SC_INVALID_FIELD),
    "prp_list_entry_zero":
        (lambda c, n: (pages(c, 1)[0], prp_list(c, [pages(c, 1)[0], 0, pages(c, 1)[0]])), 32,
         SC_INVALID_FIELD),
    "prp_chain_pointer_zero": (lambda c, n: chain(c, None), 32, SC_INVALID_FIELD),
    "prp1_not_memory": (lambda c, n: (NOT_MEMORY, 0), 8, SC_DATA_TRANSFER_ERROR),
    "prp2_not_memory": (lambda c, n: (pages(c, 1)[0], NOT_MEMORY), 16, SC_DATA_TRANSFER_ERROR),
    "prp_list_not_memory": (lambda c, n: (pages(c, 1)[0], NOT_MEMORY), 32,
                            SC_DATA_TRANSFER_ERROR),
    "prp_list_entry_not_memory":
        (lambda c, n: (pages(c, 1)[0], prp_list(c, [pages(c, 1)[0], NOT_MEMORY,
                                                    pages(c, 1)[0]])), 32,
         SC_DATA_TRANSFER_ERROR),
}


def chain(c, pointer_offset):
    """A 4-page transfer whose PRP list starts 16 bytes before its page end: one entry,
    then a chain pointer (0 when pointer_offset is None, else off by pointer_offset)."""
    data = pages(c, 4)
    first, second = c.nvme.mem.alloc(PAGE), c.nvme.mem.alloc(PAGE)
    c.nvme.qt.memwrite(second, struct.pack("<QQ", data[2], data[3]))
    target = 0 if pointer_offset is None else second + pointer_offset
    c.nvme.qt.memwrite(first + PAGE - 16, struct.pack("<QQ", data[1], target))
    return data[0], first + PAGE - 16


def dsm(ranges, nsid=1):
    def run(c):
        r = ranges(c) if callable(ranges) else ranges
        return c.nvme.dsm_deallocate(c.sq, r, nsid=nsid)
    return run


def mdts_plus_one(opcode):
    def run(c):
        nbytes = c.mdts + 512
        xfer = c.nvme.transfer(nbytes, scatter=False)
        return c.nvme.run(c.sq, Command(opcode, nsid=1, prp1=xfer.prp1, prp2=xfer.prp2,
                                        cdw12=nbytes // 512 - 1))
    return run


CASES = {
    # generic
    "admin_opcode_03": (raw_admin(0x03), SC_INVALID_OPCODE),
    "admin_opcode_10_firmware_commit": (raw_admin(0x10), SC_INVALID_OPCODE),
    "admin_opcode_81_security_send": (raw_admin(0x81, nsid=1), SC_INVALID_OPCODE),
    "admin_opcode_ff": (raw_admin(0xFF), SC_INVALID_OPCODE),
    "admin_fuse": (raw_admin(ADM_IDENTIFY, fuse=1, cdw10=1, prp1=SCRATCH), SC_INVALID_FIELD),
    "admin_psdt": (raw_admin(ADM_IDENTIFY, psdt=1, cdw10=1, prp1=SCRATCH), SC_INVALID_FIELD),
    "io_fuse": (io(IO_FLUSH, fuse=1), SC_INVALID_FIELD),
    "io_psdt": (io(IO_FLUSH, psdt=2), SC_INVALID_FIELD),
    "io_psdt_read": (io(IO_READ, psdt=1, prp1=SCRATCH), SC_INVALID_FIELD),
    # identify
    "identify_ns_nsid_0": (identify(0, 0), SC_INVALID_NS),
    "identify_ns_nsid_above_nn": (identify(0, 33), SC_INVALID_NS),
    "identify_ns_nsid_fffffffe": (identify(0, 0xFFFFFFFE), SC_INVALID_NS),
    "identify_allocated_ns_nsid_0": (identify(0x11, 0), SC_INVALID_NS),
    "identify_ns_ctrl_list_nsid_0": (identify(0x12, 0), SC_INVALID_NS),
    "identify_active_list_fffffffe": (identify(2, 0xFFFFFFFE), SC_INVALID_NS),
    "identify_active_list_ffffffff": (identify(2, 0xFFFFFFFF), SC_INVALID_NS),
    "identify_descriptors_nsid_2": (identify(3, 2), SC_INVALID_NS),
    "identify_descriptors_nsid_0": (identify(3, 0), SC_INVALID_NS),
    "identify_cns_04": (identify(4, 1), SC_INVALID_FIELD),
    "identify_cns_14": (identify(0x14, 0), SC_INVALID_FIELD),
    "identify_cns_ff": (identify(0xFF, 0), SC_INVALID_FIELD),
    # create I/O CQ
    "create_cq_qid_0": (create_cq(qid=0), SC_INVALID_QID),
    "create_cq_qid_above_queues": (create_cq(qid=lambda c: c.queues + 1), SC_INVALID_QID),
    "create_cq_qid_ffff": (create_cq(qid=0xFFFF), SC_INVALID_QID),
    "create_cq_existing": (create_cq(qid=1), SC_INVALID_QID),
    "create_cq_qsize_0": (create_cq(size=1), SC_INVALID_QSIZE),
    "create_cq_qsize_2048": (create_cq(size=2049), SC_INVALID_QSIZE),
    "create_cq_not_contiguous": (create_cq(pc=False), SC_INVALID_FIELD),
    "create_cq_prp1_zero": (create_cq(addr=0), SC_INVALID_FIELD),
    "create_cq_prp1_unaligned": (create_cq(addr=SCRATCH + 0x200), SC_PRP_OFFSET_INVALID),
    "create_cq_iv_above_queues": (create_cq(ien=True, iv=lambda c: c.queues + 1), SC_INVALID_IV),
    # create I/O SQ
    "create_sq_qid_0": (create_sq(qid=0), SC_INVALID_QID),
    "create_sq_qid_above_queues": (create_sq(qid=lambda c: c.queues + 1), SC_INVALID_QID),
    "create_sq_existing": (create_sq(qid=1), SC_INVALID_QID),
    "create_sq_qsize_0": (create_sq(size=1), SC_INVALID_QSIZE),
    "create_sq_qsize_2048": (create_sq(size=2049), SC_INVALID_QSIZE),
    "create_sq_cqid_0": (create_sq(cqid=0), SC_CQ_INVALID),
    "create_sq_cqid_missing": (create_sq(cqid=5), SC_CQ_INVALID),
    "create_sq_not_contiguous": (create_sq(pc=False), SC_INVALID_FIELD),
    "create_sq_prp1_zero": (create_sq(addr=0), SC_INVALID_FIELD),
    "create_sq_prp1_unaligned": (create_sq(addr=SCRATCH + 0x40), SC_PRP_OFFSET_INVALID),
    # delete I/O queues
    "delete_sq_qid_0": (raw_admin(ADM_DELETE_SQ, cdw10=0), SC_INVALID_QID),
    "delete_sq_missing": (raw_admin(ADM_DELETE_SQ, cdw10=5), SC_INVALID_QID),
    "delete_cq_qid_0": (raw_admin(ADM_DELETE_CQ, cdw10=0), SC_INVALID_QID),
    "delete_cq_missing": (raw_admin(ADM_DELETE_CQ, cdw10=5), SC_INVALID_QID),
    "delete_cq_with_sq_attached": (raw_admin(ADM_DELETE_CQ, cdw10=1), SC_INVALID_QUEUE_DELETION),
    # get log page
    "log_lid_00": (get_log(0x00), SC_INVALID_LOG_PAGE),
    "log_lid_7f": (get_log(0x7F), SC_INVALID_LOG_PAGE),
    "log_lid_c1": (get_log(0xC1), SC_INVALID_LOG_PAGE),         # C0h is the OCP page
    "log_offset_not_dword": (get_log(0x02, length=64, offset=2), SC_INVALID_FIELD),
    "log_offset_beyond_smart": (get_log(0x02, length=64, offset=4096), SC_INVALID_FIELD),
    "log_offset_beyond_error": (get_log(0x01, length=64, offset=4096), SC_INVALID_FIELD),
    "log_offset_beyond_firmware": (get_log(0x03, length=64, offset=4096), SC_INVALID_FIELD),
    # features
    "get_feature_unknown_00": (get_feature(0x00), SC_INVALID_FIELD),
    "get_feature_unknown_7f": (get_feature(0x7F), SC_INVALID_FIELD),
    "set_feature_unknown_7f": (set_feature(0x7F, 0), SC_INVALID_FIELD),
    "set_feature_saved": (set_feature(FEATURE_WAN, 1, save=True), SC_FEATURE_NOT_SAVEABLE),
    # no write buffer, so no volatile write cache: 06h is not there (test_nvme_write_cache.py)
    "get_feature_vwc_without_cache": (get_feature(FEATURE_VWC), SC_INVALID_FIELD),
    "set_feature_vwc_without_cache": (set_feature(FEATURE_VWC, 0), SC_INVALID_FIELD),
    "set_power_state_1": (set_feature(FEATURE_PM, 1), SC_INVALID_FIELD),
    # I/O queues exist: Number of Queues is refused whatever it asks (the values before
    # any queue: test_nvme_features_rules.py)
    "set_queues_nsqr_ffff": (set_feature(FEATURE_NOQ, 0x0000FFFF), SC_COMMAND_SEQUENCE_ERROR),
    "set_queues_ncqr_ffff": (set_feature(FEATURE_NOQ, 0xFFFF0000), SC_COMMAND_SEQUENCE_ERROR),
    "set_iv_config_above_queues": (set_feature(FEATURE_IVC, lambda c: c.queues + 1),
                                   SC_INVALID_FIELD),
    # vendor commands without stats_dir
    "lpn_counts_without_stats_dir": (raw_admin(ADM_VENDOR_LPN_COUNTS), SC_INVALID_FIELD),
    "phase_without_stats_dir": (raw_admin(ADM_VENDOR_PHASE, cdw12=0x6B726F77), SC_INVALID_FIELD),
    # I/O: opcodes and namespaces
    "io_opcode_0d": (io(0x0D), SC_INVALID_OPCODE),
    "io_copy_format_1": (io(0x19, cdw12=1 << 8), SC_INVALID_FIELD),    # format 0 only
    "io_opcode_7f": (io(0x7F), SC_INVALID_OPCODE),
    "read_nsid_0": (rw(IO_READ, 0, 1, nsid=0), SC_INVALID_NS),
    "write_nsid_2_inactive": (rw(IO_WRITE, 0, 1, nsid=2), SC_INVALID_FIELD),
    "write_nsid_above_nn": (rw(IO_WRITE, 0, 1, nsid=33), SC_INVALID_NS),
    "read_nsid_all": (rw(IO_READ, 0, 1, nsid=0xFFFFFFFF), SC_INVALID_NS),
    "flush_nsid_0": (io(IO_FLUSH, nsid=0), SC_INVALID_NS),
    "flush_nsid_2_inactive": (io(IO_FLUSH, nsid=2), SC_INVALID_FIELD),
    "flush_nsid_above_nn": (io(IO_FLUSH, nsid=33), SC_INVALID_NS),
    "write_zeroes_nsid_2_inactive": (io(IO_WRITE_ZEROES, nsid=2), SC_INVALID_FIELD),
    "write_zeroes_nsid_above_nn": (io(IO_WRITE_ZEROES, nsid=33), SC_INVALID_NS),
    "dsm_nsid_0": (dsm([(0, 8)], nsid=0), SC_INVALID_NS),
    # I/O: LBA range
    "read_past_end": (rw(IO_READ, NSZE - 1, 2), SC_LBA_OUT_OF_RANGE),
    "write_at_end": (rw(IO_WRITE, NSZE, 1), SC_LBA_OUT_OF_RANGE),
    "write_slba_huge": (rw(IO_WRITE, 1 << 63, 1), SC_LBA_OUT_OF_RANGE),
    "read_slba_wraps": (rw(IO_READ, (1 << 64) - 1, 2), SC_LBA_OUT_OF_RANGE),
    "write_zeroes_past_end": (io(IO_WRITE_ZEROES, cdw10=NSZE - 4, cdw12=7), SC_LBA_OUT_OF_RANGE),
    "dsm_range_past_end": (dsm([(0, 8), (NSZE - 4, 8)]), SC_LBA_OUT_OF_RANGE),
    "dsm_range_slba_huge": (dsm([(1 << 62, 1)]), SC_LBA_OUT_OF_RANGE),
    # I/O: transfer size
    "read_above_mdts": (mdts_plus_one(IO_READ), SC_INVALID_FIELD),
    "write_above_mdts": (mdts_plus_one(IO_WRITE), SC_INVALID_FIELD),
}
for _name, (_prp, _nlb, _code) in PRP_CASES.items():
    CASES[f"write_{_name}"] = (rw(IO_WRITE, 100, _nlb, prp=_prp), _code)
    CASES[f"read_{_name}"] = (rw(IO_READ, 100, _nlb, prp=_prp), _code)


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_malformed_command(ctx, case):
    send, code = case
    cqe = send(ctx)
    assert (cqe.code, cqe.dnr) == (code, True), str(cqe)


def test_controller_still_works_after_the_malformed_commands(ctx):
    nvme, sq = ctx.nvme, ctx.sq
    assert not nvme.readl(CSTS) & CSTS_CFS
    data = pattern(8192, 3)
    assert nvme.write(sq, 100, data).ok
    cqe, got = nvme.read(sq, 100, 16)
    assert cqe.ok and got == data


@pytest.mark.parametrize("prp1,prp2", [(0, SCRATCH), (SCRATCH, 0),
                                       (SCRATCH + 0x800, SCRATCH + 0x1000),
                                       (SCRATCH, SCRATCH + 0x1008)],
                         ids=["shadow_zero", "eventidx_zero", "shadow_unaligned",
                              "eventidx_unaligned"])
def test_doorbell_buffer_config_needs_two_aligned_pages(start, prp1, prp2):
    nvme = start().nvme
    sq = ready(nvme)[0]
    cqe = nvme.admin(Command(ADM_DBBUF, prp1=prp1, prp2=prp2))
    assert (cqe.code, cqe.dnr) == (SC_INVALID_FIELD, True), str(cqe)
    assert nvme.run(sq, Command(IO_FLUSH, nsid=1)).ok         # MMIO doorbells as before


@pytest.mark.parametrize("name", [b"", b"a b", b"x/y", b"ok\x00x", b"caf\xc3\xa9", b"\x00abc"],
                         ids=["empty", "space", "slash", "nul_inside", "non_ascii", "leading_nul"])
def test_phase_marker_bad_names(start, tmp_path, name):
    nvme = start(f"stats_dir={tmp_path / 'stats'}").nvme
    ready(nvme, io_queues=0)
    words = struct.unpack("<4I", name.ljust(16, b"\x00"))
    cqe = nvme.admin(Command(ADM_VENDOR_PHASE, cdw12=words[0], cdw13=words[1], cdw14=words[2],
                             cdw15=words[3]))
    assert (cqe.code, cqe.dnr) == (SC_INVALID_FIELD, True), str(cqe)
