"""What a submitted entry can do to the host's trust, and what its status must be, from
the entry alone (so a replayed record is judged the same way whatever came before it).
Queue create/delete rules depend on the queues that exist: executor.py judges those.

A pointer at MMIO or at nothing costs no trust: the contract says such a transfer fails
with Data Transfer Error and touches nothing, so the oracle holds the device to that (an
MMIO write that resets the controller shows up as a missed completion or a wrong CSTS).
A pointer into RAM the host uses (its queues, or wherever an unknown PRP list points)
does cost trust when the command writes guest memory: the host's rings may be scrambled.
"""
from typing import Optional, Tuple

# Get Log Page, Identify, Doorbell Buffer Config, Get LBA Status
ADMIN_HOST_WRITES = {0x02, 0x06, 0x7C, 0x86}
IO_HOST_WRITES = {0x02, 0x7A}             # Read, Zone Management Receive
# With FDP also Get Features (1Eh returns its descriptors in the data buffer) and I/O
# Management Receive (the RUH Status)
FDP_ADMIN_HOST_WRITES, FDP_IO_HOST_WRITES = {0x0A}, {0x12}
# With a KV namespace also List (06h; Retrieve is Read's 02h)
KV_IO_HOST_WRITES = {0x06}
NOT_MEMORY = ("mmio", "unassigned")
UNKNOWN_LIST = ("ram", "queue", "edge", "zero", "rom")   # a list whose entries nobody chose


def transfers(admin: bool, opcode: int, cdw11: int, cdw10: int = 0) -> bool:
    """Whether success means the device moved data through PRP1 (so PRP1 was memory):
    Get Log Page, Identify, Get LBA Status, Namespace Attachment (its controller list)
    and a Namespace Management create (the host's structure); Write, Read, Compare, a
    deallocating Dataset Management, Copy (its source ranges), Zone Management Receive
    (the report) and Zone Append."""
    if admin:
        return opcode in (0x02, 0x06, 0x15, 0x86) or (opcode == 0x0D and cdw10 & 0xF == 0)
    return opcode in (0x01, 0x02, 0x05, 0x19, 0x7A, 0x7D) or \
        (opcode == 0x09 and bool(cdw11 & 4))


def writes_host(admin: bool, opcode: int, fdp: bool = False, kv: bool = False) -> bool:
    """Whether the command writes guest memory through its data pointers (fdp: with
    placement=fdp; kv: with a KV namespace)."""
    if fdp and opcode in (FDP_ADMIN_HOST_WRITES if admin else FDP_IO_HOST_WRITES):
        return True
    if kv and not admin and opcode in KV_IO_HOST_WRITES:
        return True
    return opcode in (ADMIN_HOST_WRITES if admin else IO_HOST_WRITES)


def judge(rec: dict, admin: bool, opcode: int, flags: int, cdw11: int, cdw10: int = 0,
          fdp: bool = False, kv: bool = False) -> Tuple[Optional[str], Optional[str], str]:
    """(hazard, expectation, why) for a 'sub' record; hazard is 'chaos' when the device
    may write guest RAM the host relies on."""
    classes = set(rec.get("cls", ()))
    writes = writes_host(admin, opcode, fdp, kv)
    hazard = None
    if writes and not flags and (classes & {"ram", "queue"} or
                                 rec.get("lcls") in UNKNOWN_LIST):
        hazard = "chaos"
    exp, why = rec.get("exp"), rec.get("why", "")
    if flags:   # FUSE or PSDT set: Invalid Field whatever else the entry says
        return hazard, "fail", "FUSE/PSDT set"
    if transfers(admin, opcode, cdw11, cdw10) and rec.get("p1cls") in NOT_MEMORY:
        exp, why = "fail", "mmio-dma: data pointer PRP1 is not guest memory"
    if admin and opcode == 0x7C and {rec.get("p1cls"), rec.get("p2cls")} & {*NOT_MEMORY, "rom"}:
        exp, why = "fail", "mmio-dbbuf: doorbell buffer that is not guest RAM"
    return hazard, exp, why
