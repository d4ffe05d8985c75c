"""Get/Set Features rules: Number of Queues only before any I/O queue, supported
capabilities (SEL 11b) per feature, and the NSID rules of namespace-specific features
(Error Recovery, a value per namespace) and of the others."""
import struct

import pytest

from nvme_qtest import (SC_INVALID_FIELD, SC_INVALID_NS, Command, femu_only, nvme_qemu,
                        ready, start)  # noqa: F401

pytestmark = femu_only()

SC_COMMAND_SEQUENCE_ERROR = 0x00C
SC_FEATURE_NOT_NS_SPECIFIC = 0x10F
ADM_NS_ATTACHMENT = 0x15
FID_ERROR_RECOVERY, FID_NUMBER_OF_QUEUES, FID_WRITE_ATOMICITY = 0x05, 0x07, 0x0A
CAP_SAVEABLE, CAP_NS_SPECIFIC, CAP_CHANGEABLE = 1 << 0, 1 << 1, 1 << 2
BROADCAST = 0xFFFFFFFF

CAPABILITIES = {
    0x01: CAP_CHANGEABLE,                       # arbitration
    0x02: CAP_CHANGEABLE,                       # power management
    0x04: CAP_CHANGEABLE,                       # temperature threshold
    0x05: CAP_CHANGEABLE | CAP_NS_SPECIFIC,     # error recovery
    0x07: CAP_CHANGEABLE,                       # number of queues
    0x08: CAP_CHANGEABLE,                       # interrupt coalescing
    0x09: CAP_CHANGEABLE,                       # interrupt vector configuration
    0x0A: CAP_CHANGEABLE,                       # write atomicity normal
    0x0B: CAP_CHANGEABLE,                       # asynchronous event configuration
}


def queues_cdw11(nsqr, ncqr):
    return (nsqr - 1) | (ncqr - 1) << 16


def assert_status(cqe, code):
    assert (cqe.code, cqe.dnr) == (code, True), str(cqe)


# ---- Number of Queues


def test_number_of_queues_before_any_io_queue(start):
    nvme = start("queues=4").nvme
    ready(nvme, io_queues=0)
    got = nvme.set_features(FID_NUMBER_OF_QUEUES, queues_cdw11(2, 2))
    assert got.ok and got.dw0 == 3 | 3 << 16, str(got)          # allocated: all four
    assert nvme.set_features(FID_NUMBER_OF_QUEUES, queues_cdw11(4, 4)).ok   # again: fine
    assert_status(nvme.set_features(FID_NUMBER_OF_QUEUES, 0xFFFF), SC_INVALID_FIELD)


def test_number_of_queues_after_a_queue_is_created(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    assert nvme.create_cq(1, 16)[0].ok                          # one CQ is enough
    assert_status(nvme.set_features(FID_NUMBER_OF_QUEUES, queues_cdw11(2, 2)),
                  SC_COMMAND_SEQUENCE_ERROR)
    assert nvme.delete_cq(1).ok                                 # still: until a reset
    assert_status(nvme.set_features(FID_NUMBER_OF_QUEUES, queues_cdw11(2, 2)),
                  SC_COMMAND_SEQUENCE_ERROR)
    got = nvme.get_features(FID_NUMBER_OF_QUEUES)               # Get is always fine
    assert got.ok, str(got)
    nvme.disable()
    ready(nvme, io_queues=0)
    assert nvme.set_features(FID_NUMBER_OF_QUEUES, queues_cdw11(2, 2)).ok


def test_number_of_queues_after_an_sq_pair(start):
    nvme = start().nvme
    ready(nvme, io_queues=1)
    assert_status(nvme.set_features(FID_NUMBER_OF_QUEUES, queues_cdw11(1, 1)),
                  SC_COMMAND_SEQUENCE_ERROR)


# ---- Supported capabilities


@pytest.mark.parametrize("fid", CAPABILITIES, ids=[f"fid_{f:02x}" for f in CAPABILITIES])
def test_supported_capabilities_per_feature(start, fid):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    nsid = 1 if CAPABILITIES[fid] & CAP_NS_SPECIFIC else 0
    got = nvme.get_features(fid, sel=3, nsid=nsid)
    assert got.ok and got.dw0 == CAPABILITIES[fid], str(got)
    assert not got.dw0 & CAP_SAVEABLE


# ---- Namespace-specific: Error Recovery


def detach(nvme, nsid, cntlid=0):
    data = nvme.buffer(struct.pack("<HH", 1, cntlid).ljust(4096, b"\0"))
    return nvme.admin(Command(ADM_NS_ATTACHMENT, nsid=nsid, prp1=data, cdw10=1))


def error_recovery(nvme, nsid, sel=0):
    got = nvme.get_features(FID_ERROR_RECOVERY, sel=sel, nsid=nsid)
    assert got.ok, f"NSID {nsid:#x}: {got}"
    return got.dw0


def test_error_recovery_is_kept_per_namespace(start):
    nvme = start("namespaces=3").nvme
    ready(nvme, io_queues=0)
    assert [error_recovery(nvme, nsid) for nsid in (1, 2, 3)] == [0, 0, 0]
    assert nvme.set_features(FID_ERROR_RECOVERY, 10, nsid=1).ok
    assert nvme.set_features(FID_ERROR_RECOVERY, 20, nsid=2).ok
    assert [error_recovery(nvme, nsid) for nsid in (1, 2, 3)] == [10, 20, 0]
    assert error_recovery(nvme, 2, sel=1) == 0                  # the default stays 0
    assert nvme.set_features(FID_ERROR_RECOVERY, 30, nsid=BROADCAST).ok   # every namespace
    assert [error_recovery(nvme, nsid) for nsid in (1, 2, 3)] == [30, 30, 30]
    nvme.disable()                                              # a reset: defaults again
    ready(nvme, io_queues=0)
    assert [error_recovery(nvme, nsid) for nsid in (1, 2, 3)] == [0, 0, 0]


@pytest.mark.parametrize("nsid,code", [
    (0, SC_INVALID_NS),             # not a valid NSID
    (BROADCAST, SC_INVALID_NS),     # Get of a namespace-specific feature: no single value
    (0x21, SC_INVALID_NS),          # above NN (32)
    (3, SC_INVALID_FIELD),          # valid, unallocated: inactive
    (2, SC_INVALID_FIELD),          # allocated, detached: inactive
], ids=["nsid_0", "nsid_all", "nsid_above_nn", "unallocated", "detached"])
def test_error_recovery_nsid_rules(start, nsid, code):
    nvme = start("namespaces=2").nvme
    ready(nvme, io_queues=0)
    assert detach(nvme, 2).ok
    assert_status(nvme.get_features(FID_ERROR_RECOVERY, nsid=nsid), code)
    assert_status(nvme.get_features(FID_ERROR_RECOVERY, sel=3, nsid=nsid), code)
    if nsid != BROADCAST:
        assert_status(nvme.set_features(FID_ERROR_RECOVERY, 5, nsid=nsid), code)
    assert error_recovery(nvme, 1) == 0                         # nothing was set


def test_error_recovery_refuses_dulbe(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    assert_status(nvme.set_features(FID_ERROR_RECOVERY, 1 << 16, nsid=1), SC_INVALID_FIELD)


# ---- Features that are not namespace specific


def test_other_features_and_the_nsid(start):
    nvme = start("namespaces=2").nvme
    ready(nvme, io_queues=0)
    for nsid in (0, BROADCAST):
        assert nvme.set_features(FID_WRITE_ATOMICITY, 0, nsid=nsid).ok, f"NSID {nsid:#x}"
    assert_status(nvme.set_features(FID_WRITE_ATOMICITY, 1, nsid=1), SC_FEATURE_NOT_NS_SPECIFIC)
    assert_status(nvme.set_features(FID_WRITE_ATOMICITY, 1, nsid=3), SC_FEATURE_NOT_NS_SPECIFIC)
    assert_status(nvme.set_features(FID_WRITE_ATOMICITY, 1, nsid=0x21), SC_INVALID_NS)
    for nsid in (0, 1, 3, 0x21, BROADCAST):                     # Get ignores the NSID
        got = nvme.get_features(FID_WRITE_ATOMICITY, nsid=nsid)
        assert got.ok and got.dw0 == 0, f"NSID {nsid:#x}: {got}"


def test_lba_status_information_attributes_report_at_once(start):
    """FID 15h: femu's report and poll intervals are 0; Set answers with that, the closest
    value it supports, whatever it was asked."""
    nvme = start().nvme
    ready(nvme, io_queues=0)
    got = nvme.get_features(0x15)
    assert got.ok and got.dw0 == 0
    got = nvme.set_features(0x15, 0x0010_0020)
    assert got.ok and got.dw0 == 0
    assert nvme.get_features(0x15).dw0 == 0
    assert nvme.get_features(0x15, sel=3).dw0 == 1 << 2            # changeable
