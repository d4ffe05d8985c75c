"""Namespaces: the ones given at realize, Namespace Management (create/delete), Namespace
Attachment (attach/detach), the Identify lists, capacity accounting, the namespace-changed
event with its log, and Format NVM (LBA formats, secure erase settings, busy queues)."""
import struct

import pytest

from nvme_qtest import (ADM_GET_LOG, IO_READ, IO_WRITE, PAGE, SC_DATA_TRANSFER_ERROR,  # noqa: F401
                        Command, femu_only, nvme_qemu, pattern, ready, start)

pytestmark = femu_only()

CAPACITY = 64 << 20                     # SMALL_GEOMETRY's logical capacity
ADM_NS_MGMT, ADM_NS_ATTACH, ADM_FORMAT, ADM_AER = 0x0D, 0x15, 0x80, 0x0C
CNS_NS, CNS_ACTIVE_LIST, CNS_ALLOCATED_LIST, CNS_ALLOCATED_NS = 0x00, 0x02, 0x10, 0x11
CNS_NS_CTRL_LIST, CNS_CTRL_LIST, CNS_DESCRIPTORS = 0x12, 0x13, 0x03
BROADCAST = 0xFFFFFFFF
SC_INVALID_FIELD, SC_INVALID_NS, SC_LBA_RANGE = 0x002, 0x00B, 0x080
SC_INVALID_FORMAT, SC_INSUFFICIENT_CAPACITY, SC_NSID_UNAVAILABLE = 0x10A, 0x115, 0x116
SC_ALREADY_ATTACHED, SC_NOT_ATTACHED, SC_THIN_PROVISIONING = 0x118, 0x11A, 0x11B
SC_CTRL_LIST_INVALID = 0x11C
LOG_CHANGED_NS = 0x04


def u32(data: bytes, off: int) -> int:
    return struct.unpack_from("<I", data, off)[0]


def u64(data: bytes, off: int) -> int:
    return struct.unpack_from("<Q", data, off)[0]


def nsid_list(data: bytes):
    ids = struct.unpack("<1024I", data)
    return list(ids[:ids.index(0)] if 0 in ids else ids)


def create_ns(nvme, nsze: int, flbas: int = 0, ncap=None, csi: int = 0, sel: int = 0):
    ident = bytearray(PAGE)
    struct.pack_into("<QQ", ident, 0, nsze, nsze if ncap is None else ncap)
    ident[26] = flbas
    return nvme.admin(Command(ADM_NS_MGMT, prp1=nvme.buffer(bytes(ident)), cdw10=sel,
                              cdw11=csi << 24))


def delete_ns(nvme, nsid: int):
    return nvme.admin(Command(ADM_NS_MGMT, nsid=nsid, cdw10=1))


def attach(nvme, nsid: int, detach: bool = False, controllers=(0,)):
    table = struct.pack(f"<H{len(controllers)}H", len(controllers), *controllers)
    return nvme.admin(Command(ADM_NS_ATTACH, nsid=nsid, cdw10=int(detach),
                              prp1=nvme.buffer(table.ljust(PAGE, b"\0"))))


def format_nvm(nvme, nsid: int, lbaf: int = 0, ses: int = 0, pi: int = 0):
    return nvme.admin(Command(ADM_FORMAT, nsid=nsid, cdw10=lbaf | pi << 5 | ses << 9),
                      timeout=30)


def identify_ns(nvme, nsid: int, cns: int = CNS_NS) -> bytes:
    cqe, data = nvme.identify(cns, nsid=nsid)
    assert cqe.ok, str(cqe)
    return data


def unvmcap(nvme) -> int:
    _, data = nvme.identify(1)
    return u64(data, 296)


def io(nvme, sq, opcode, nsid, slba, data=None, nlb=1, lba=512):
    """One Write (data) or Read (nlb LBAs of size lba) on nsid; (cqe, bytes read)."""
    size = len(data) if data is not None else nlb * lba
    xfer = nvme.transfer(size)
    if data is not None:
        nvme.fill(xfer, data)
    cmd = nvme.rw(sq, opcode, slba, size // lba, xfer, nsid=nsid)
    cqe = nvme.run(sq, cmd)
    return cqe, (nvme.contents(xfer) if data is None else b"")


def test_default_is_one_namespace_of_the_whole_capacity(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    _, active = nvme.identify(CNS_ACTIVE_LIST)
    assert nsid_list(active) == [1]
    data = identify_ns(nvme, 1)
    assert u64(data, 0) == CAPACITY // 512
    assert u64(data, 48) == CAPACITY                       # NVMCAP
    _, ctrl = nvme.identify(1)
    assert u64(ctrl, 280) == CAPACITY and unvmcap(nvme) == 0     # TNVMCAP, UNVMCAP


def test_namespaces_at_realize_by_count_and_by_size(start):
    nvme = start("namespaces=2").nvme
    ready(nvme, io_queues=0)
    _, active = nvme.identify(CNS_ACTIVE_LIST)
    assert nsid_list(active) == [1, 2]
    assert [u64(identify_ns(nvme, i), 0) for i in (1, 2)] == [CAPACITY // 1024] * 2
    nvme = start("namespaces=16:8").nvme
    ready(nvme, io_queues=0)
    assert [u64(identify_ns(nvme, i), 0) for i in (1, 2)] == [16 << 11, 8 << 11]
    assert unvmcap(nvme) == CAPACITY - (24 << 20)
    nvme = start("namespaces=0").nvme
    ready(nvme, io_queues=0)
    _, allocated = nvme.identify(CNS_ALLOCATED_LIST)
    assert nsid_list(allocated) == [] and unvmcap(nvme) == CAPACITY


@pytest.mark.parametrize("value, message", [
    ("33", "out of range"), ("40:40", "more than the capacity"), ("8:x", "not a size"),
    ("lots", "neither a count"), ("0:8", "not a size"),
])
def test_bad_namespaces_property_fails_realize_with_one_line(launch, value, message):
    from nvme_qtest import SMALL_GEOMETRY
    proc = launch(f"femu,{SMALL_GEOMETRY},namespaces={value}")
    assert proc.returncode != 0
    errors = [line for line in proc.stderr.splitlines() if "namespaces" in line]
    assert len(errors) == 1 and message in errors[0], proc.stderr


def test_create_attach_io_detach_delete(start):
    nvme = start("namespaces=0").nvme
    sq = ready(nvme)[0]
    cqe = create_ns(nvme, (16 << 20) // 512)
    assert cqe.ok and cqe.dw0 == 1, str(cqe)
    assert unvmcap(nvme) == CAPACITY - (16 << 20)
    # allocated, not active: CNS 00h gives zeroes, CNS 11h the namespace
    assert identify_ns(nvme, 1) == bytes(PAGE)
    assert u64(identify_ns(nvme, 1, CNS_ALLOCATED_NS), 0) == (16 << 20) // 512
    _, listed = nvme.identify(CNS_ALLOCATED_LIST)
    assert nsid_list(listed) == [1]
    _, listed = nvme.identify(CNS_ACTIVE_LIST)
    assert nsid_list(listed) == []
    cqe, _ = io(nvme, sq, IO_READ, 1, 0)
    assert cqe.code == SC_INVALID_FIELD and cqe.dnr          # an inactive NSID
    assert attach(nvme, 1).ok
    _, listed = nvme.identify(CNS_NS_CTRL_LIST, nsid=1)
    assert struct.unpack_from("<HH", listed) == (1, 0)
    data = pattern(4096, 5)
    assert io(nvme, sq, IO_WRITE, 1, 100, data)[0].ok
    cqe, got = io(nvme, sq, IO_READ, 1, 100, nlb=8)
    assert cqe.ok and got == data
    assert u64(identify_ns(nvme, 1), 16) == 8                 # NUSE
    assert attach(nvme, 1, detach=True).ok
    _, listed = nvme.identify(CNS_NS_CTRL_LIST, nsid=1)
    assert struct.unpack_from("<H", listed)[0] == 0
    assert delete_ns(nvme, 1).ok
    _, listed = nvme.identify(CNS_ALLOCATED_LIST)
    assert nsid_list(listed) == [] and unvmcap(nvme) == CAPACITY
    # a namespace created in the same space starts empty
    assert create_ns(nvme, (16 << 20) // 512).dw0 == 1 and attach(nvme, 1).ok
    cqe, got = io(nvme, sq, IO_READ, 1, 100, nlb=8)
    assert cqe.ok and got == bytes(4096)
    assert u64(identify_ns(nvme, 1), 16) == 0


def test_create_checks(start):
    nvme = start("namespaces=0").nvme
    ready(nvme, io_queues=0)
    assert create_ns(nvme, 1024, flbas=2).code == SC_INVALID_FORMAT
    assert create_ns(nvme, 1024, flbas=1 << 5).code == SC_INVALID_FORMAT    # format 16
    assert create_ns(nvme, 1024, flbas=1 << 4).code == SC_INVALID_FIELD     # metadata
    assert create_ns(nvme, 0).code == SC_INVALID_FIELD
    assert create_ns(nvme, 1024, ncap=0).code == SC_INVALID_FIELD
    assert create_ns(nvme, 1024, ncap=2048).code == SC_INVALID_FIELD
    assert create_ns(nvme, 2048, ncap=1024).code == SC_THIN_PROVISIONING
    assert create_ns(nvme, CAPACITY // 512 + 1).code == SC_INSUFFICIENT_CAPACITY
    assert create_ns(nvme, 1 << 62).code == SC_INSUFFICIENT_CAPACITY
    assert create_ns(nvme, 1024, csi=2).code == SC_INVALID_FIELD
    assert create_ns(nvme, 1024, sel=2).code == SC_INVALID_FIELD
    cqe = create_ns(nvme, CAPACITY // 4096, flbas=1)          # 4 KiB LBAs: all of it
    assert cqe.ok and cqe.dw0 == 1
    assert create_ns(nvme, 8).code == SC_INSUFFICIENT_CAPACITY
    assert delete_ns(nvme, 1).ok
    for nsid in range(1, 33):                                  # NN namespaces, one page each
        cqe = create_ns(nvme, 8)
        assert cqe.ok and cqe.dw0 == nsid, str(cqe)
    assert create_ns(nvme, 8).code == SC_NSID_UNAVAILABLE
    assert delete_ns(nvme, BROADCAST).ok
    _, listed = nvme.identify(CNS_ALLOCATED_LIST)
    assert nsid_list(listed) == []


def test_fragmented_capacity_uses_first_fit(start):
    nvme = start("namespaces=16:16:16:16").nvme
    ready(nvme, io_queues=0)
    assert delete_ns(nvme, 2).ok and delete_ns(nvme, 4).ok
    assert unvmcap(nvme) == 32 << 20
    # 32 MiB are free, but in two pieces: no single extent holds 24 MiB
    assert create_ns(nvme, (24 << 20) // 512).code == SC_INSUFFICIENT_CAPACITY
    assert create_ns(nvme, (16 << 20) // 512).dw0 == 2
    assert create_ns(nvme, (16 << 20) // 512).dw0 == 4 and unvmcap(nvme) == 0


def test_attach_and_delete_checks(start):
    nvme = start("namespaces=2").nvme
    ready(nvme, io_queues=0)
    assert attach(nvme, 1).code == SC_ALREADY_ATTACHED
    assert attach(nvme, 1, detach=True).ok
    assert attach(nvme, 1, detach=True).code == SC_NOT_ATTACHED
    assert attach(nvme, 1, controllers=(5,)).code == SC_CTRL_LIST_INVALID
    assert attach(nvme, 1, controllers=()).code == SC_CTRL_LIST_INVALID
    assert attach(nvme, 1, controllers=(0, 0)).code == SC_CTRL_LIST_INVALID
    for nsid in (0, BROADCAST, 33):
        assert attach(nvme, nsid).code == SC_INVALID_NS
    assert attach(nvme, 3).code == SC_INVALID_FIELD           # not allocated
    cqe = nvme.admin(Command(ADM_NS_ATTACH, nsid=1, cdw10=2, prp1=nvme.buffer(bytes(PAGE))))
    assert cqe.code == SC_INVALID_FIELD
    assert delete_ns(nvme, 3).code == SC_INVALID_FIELD
    assert delete_ns(nvme, 0).code == SC_INVALID_NS
    assert delete_ns(nvme, 2).ok                                # attached: detached first
    _, listed = nvme.identify(CNS_ACTIVE_LIST)
    assert nsid_list(listed) == []


def test_identify_nsid_rules(start):
    nvme = start("namespaces=2").nvme
    ready(nvme, io_queues=0)
    for cns in (CNS_NS, CNS_ALLOCATED_NS):
        assert nvme.identify(cns, nsid=0)[0].code == SC_INVALID_NS
        assert nvme.identify(cns, nsid=33)[0].code == SC_INVALID_NS
        assert identify_ns(nvme, 3, cns) == bytes(PAGE)      # valid, unallocated
    common = identify_ns(nvme, BROADCAST)                      # formats shared by all
    assert common[25] == 1 and common[130] == 9 and common[134] == 12
    assert nvme.identify(CNS_DESCRIPTORS, nsid=3)[0].code == SC_INVALID_NS
    _, d1 = nvme.identify(CNS_DESCRIPTORS, nsid=1)
    _, d2 = nvme.identify(CNS_DESCRIPTORS, nsid=2)
    assert d1[:4] == b"\x03\x10\x00\x00" and d1[4:20] != d2[4:20]   # distinct UUIDs
    _, listed = nvme.identify(CNS_ACTIVE_LIST, nsid=1)
    assert nsid_list(listed) == [2]                            # NSIDs above the one given
    _, ctrls = nvme.identify(CNS_CTRL_LIST)
    assert struct.unpack_from("<HH", ctrls) == (1, 0)
    _, ctrls = nvme.identify(CNS_CTRL_LIST, cntid=1)
    assert struct.unpack_from("<H", ctrls)[0] == 0


def test_namespace_changed_event_and_log(start):
    nvme = start("namespaces=2").nvme
    ready(nvme, io_queues=0)
    assert nvme.set_features(0x0B, 1 << 8).ok                   # namespace attribute notices
    cid = nvme.submit(nvme.asq, Command(ADM_AER))
    nvme.assert_no_completion(nvme.asq, cid, 0.2)
    assert attach(nvme, 2, detach=True).ok
    cqe = nvme.wait(nvme.asq, cid)
    assert cqe.ok and cqe.dw0 == 0x02 | 0x00 << 8 | LOG_CHANGED_NS << 16
    # masked until the log is read: the next change raises nothing yet
    cid = nvme.submit(nvme.asq, Command(ADM_AER))
    assert attach(nvme, 2).ok
    nvme.assert_no_completion(nvme.asq, cid, 0.2)
    cqe, log = nvme.get_log(LOG_CHANGED_NS, PAGE, lsp=0)
    assert cqe.ok and nsid_list(log) == [2]
    cqe, log = nvme.get_log(LOG_CHANGED_NS, PAGE)
    assert cqe.ok and nsid_list(log) == []                      # read clears it
    assert attach(nvme, 1, detach=True).ok
    cqe = nvme.wait(nvme.asq, cid)
    assert cqe.ok and cqe.dw0 >> 16 == LOG_CHANGED_NS
    cqe, log = nvme.get_log(LOG_CHANGED_NS, PAGE)
    assert nsid_list(log) == [1]


def test_no_event_when_notices_are_off(start):
    nvme = start("namespaces=2").nvme
    ready(nvme, io_queues=0)
    cid = nvme.submit(nvme.asq, Command(ADM_AER))
    assert attach(nvme, 2, detach=True).ok
    nvme.assert_no_completion(nvme.asq, cid, 0.2)
    _, log = nvme.get_log(LOG_CHANGED_NS, PAGE)
    assert nsid_list(log) == [2]                                # the list still knows


def test_a_changed_list_the_host_never_got_is_kept(start):
    """Get Log Page 04h (no RAE) into the device's own registers fails with Data Transfer
    Error; the list is not consumed by it (issue 29, fault 5: it was cleared before the
    copy, and the host never learned which namespace changed)."""
    nvme = start("namespaces=2").nvme
    ready(nvme, io_queues=0)
    assert attach(nvme, 2, detach=True).ok
    numd = PAGE // 4 - 1
    cqe = nvme.admin(Command(ADM_GET_LOG, nsid=0xFFFFFFFF, prp1=nvme.bar0 + 0x1000,
                             cdw10=LOG_CHANGED_NS | numd << 16))
    assert cqe.code == SC_DATA_TRANSFER_ERROR
    cqe, log = nvme.get_log(LOG_CHANGED_NS, PAGE)
    assert cqe.ok and nsid_list(log) == [2]
    _, log = nvme.get_log(LOG_CHANGED_NS, PAGE)
    assert nsid_list(log) == []                                 # that read consumed it


def test_format_changes_lba_size_and_keeps_the_neighbour(start):
    nvme = start("namespaces=2").nvme
    sq = ready(nvme)[0]
    one, two = pattern(8192, 1), pattern(8192, 2)
    assert io(nvme, sq, IO_WRITE, 1, 64, one)[0].ok
    assert io(nvme, sq, IO_WRITE, 2, 64, two)[0].ok
    assert format_nvm(nvme, 1, lbaf=1, ses=1).ok
    data = identify_ns(nvme, 1)
    assert data[26] == 1 and u64(data, 0) == CAPACITY // 2 // 4096     # FLBAS, NSZE
    assert u64(data, 16) == 0                                            # NUSE
    cqe, got = io(nvme, sq, IO_READ, 1, 8, nlb=2, lba=4096)
    assert cqe.ok and got == bytes(8192)                                  # erased
    cqe, got = io(nvme, sq, IO_READ, 2, 64, nlb=16)
    assert cqe.ok and got == two                                          # untouched
    # 4 KiB LBAs: a write of one LBA moves 4096 bytes; the last LBA is NSZE - 1
    last = CAPACITY // 2 // 4096 - 1
    assert io(nvme, sq, IO_WRITE, 1, last, pattern(4096, 9), lba=4096)[0].ok
    cqe, _ = io(nvme, sq, IO_WRITE, 1, last + 1, pattern(4096, 9), lba=4096)
    assert cqe.code == SC_LBA_RANGE
    assert u64(identify_ns(nvme, 1), 16) == 1
    # and back to 512 B without an erase
    assert format_nvm(nvme, 1, lbaf=0, ses=0).ok
    assert identify_ns(nvme, 1)[26] == 0


def test_format_checks(start):
    nvme = start("namespaces=2").nvme
    ready(nvme, io_queues=0)
    assert format_nvm(nvme, 1, lbaf=2).code == SC_INVALID_FORMAT
    assert format_nvm(nvme, 1, pi=1).code == SC_INVALID_FORMAT
    assert format_nvm(nvme, 1, ses=2).code == SC_INVALID_FIELD     # no cryptographic erase
    assert format_nvm(nvme, 1, ses=7).code == SC_INVALID_FIELD
    assert format_nvm(nvme, 0).code == SC_INVALID_NS
    assert format_nvm(nvme, 33).code == SC_INVALID_NS
    assert attach(nvme, 2, detach=True).ok
    assert format_nvm(nvme, 2).code == SC_INVALID_FIELD            # not active
    assert format_nvm(nvme, BROADCAST, lbaf=1).ok                  # every active one
    assert identify_ns(nvme, 1)[26] == 1
    assert identify_ns(nvme, 2, CNS_ALLOCATED_NS)[26] == 0         # detached: untouched


def test_format_that_would_leave_no_lba_is_invalid_format(start):
    """A 7-LBA namespace (3.5 KiB) formatted to 4 KiB LBAs would have NSZE 0 (issue 29,
    fault 4: it succeeded, and every state file saved afterwards was refused). Invalid
    Format, nothing changed; a broadcast Format that would do it to one namespace changes
    none."""
    nvme = start("namespaces=0").nvme
    ready(nvme, io_queues=0)
    assert create_ns(nvme, 64).dw0 == 1 and attach(nvme, 1).ok     # 32 KiB
    cqe = create_ns(nvme, 7)
    assert cqe.ok and cqe.dw0 == 2
    assert attach(nvme, 2).ok
    assert format_nvm(nvme, 2, lbaf=1).code == SC_INVALID_FORMAT
    assert format_nvm(nvme, BROADCAST, lbaf=1).code == SC_INVALID_FORMAT
    for nsid in (1, 2):
        assert identify_ns(nvme, nsid)[26] == 0                    # FLBAS unchanged
    assert u64(identify_ns(nvme, 2), 0) == 7                       # NSZE
    assert format_nvm(nvme, 2, lbaf=0).ok                          # its own format: fine
    assert format_nvm(nvme, 1, lbaf=1).ok                          # 8 LBAs of 4 KiB
    assert u64(identify_ns(nvme, 1), 0) == 8


def test_format_while_io_queues_are_busy(start):
    """Writes in flight when a Format arrives all complete; afterwards NUSE matches what
    reads back, and every block holds either zeroes or exactly what was written."""
    nvme = start("namespaces=2").nvme
    sq = ready(nvme, size=256)[0]
    writes = {}
    for i in range(96):
        slba = i * 16
        data = pattern(8192, 100 + i)
        xfer = nvme.transfer(len(data))
        nvme.fill(xfer, data)
        writes[nvme.submit(sq, nvme.rw(sq, IO_WRITE, slba, 16, xfer, nsid=1))] = (slba, data)
    assert format_nvm(nvme, 1, ses=1).ok
    for cqe in nvme.wait_all(sq, list(writes), timeout=60):
        assert cqe.ok, str(cqe)
    kept = 0
    for slba, data in writes.values():
        cqe, got = io(nvme, sq, IO_READ, 1, slba, nlb=16)
        assert cqe.ok and got in (data, bytes(8192))
        kept += got == data
    assert u64(identify_ns(nvme, 1), 16) == kept * 16                # NUSE


def test_a_reused_nsid_starts_with_default_features(start):
    nvme = start("namespaces=2").nvme
    ready(nvme, io_queues=0)
    assert nvme.set_features(0x05, 0x1234, nsid=2).ok           # Error Recovery: per NSID
    assert nvme.get_features(0x05, nsid=2).dw0 == 0x1234
    assert delete_ns(nvme, 2).ok
    cqe = create_ns(nvme, 1024)
    assert cqe.ok and cqe.dw0 == 2 and attach(nvme, 2).ok
    assert nvme.get_features(0x05, nsid=2).dw0 == 0


def test_an_event_before_any_aer_is_reported_by_the_next_one(start):
    nvme = start("namespaces=2").nvme
    ready(nvme, io_queues=0)
    assert nvme.set_features(0x0B, 1 << 8).ok
    assert attach(nvme, 2, detach=True).ok                     # no AER outstanding yet
    cqe = nvme.admin(Command(ADM_AER))
    assert cqe.ok and not cqe.dnr and cqe.dw0 == 0x040002, str(cqe)
    # the event was taken: the next AER waits
    cid = nvme.submit(nvme.asq, Command(ADM_AER))
    nvme.assert_no_completion(nvme.asq, cid, 0.2)
