"""State files of the device's other FTL configurations: a zoned namespace (zone states
and write pointers come back, appends go on where they stopped, and the order in which
max_open closes implicitly opened zones), a write buffer holding data at the save, DFTL,
and streams placement. Each: write, save at exit, restore, read back, write on, save and
restore again (every restore checks the FTL)."""
import struct

import pytest

from nvme_qtest import (CSTS_CFS, CSTS_RDY, IO_READ, IO_WRITE, Command, femu_only,  # noqa: F401
                        nvme_qemu, pattern, ready, start)

pytestmark = femu_only()

LBA = 512
ZONES = 16
ZONE = 2048                                  # LBAs per zone of the ZNS props below
ZNS = f"pgs_per_blk=64,devsz_mb=24,zoned=on,zones={ZONES}"
ZNS_NSID = 2
CSS_ALL = 6
IO_ZONE_SEND, IO_ZONE_RECV, IO_ZONE_APPEND = 0x79, 0x7A, 0x7D
ZSA_FINISH = 0x2
IMPLICITLY_OPEN, CLOSED = 0x2, 0x4


def rw(nvme, sq, opcode, nsid, slba, nlb, data=None):
    xfer = nvme.transfer(nlb * LBA)
    if data is not None:
        nvme.fill(xfer, data)
    cqe = nvme.run(sq, Command(opcode, nsid=nsid, prp1=xfer.prp1, prp2=xfer.prp2,
                               cdw10=slba & 0xFFFFFFFF, cdw11=slba >> 32, cdw12=nlb - 1))
    return cqe, nvme.contents(xfer)


def write(nvme, sq, nsid, slba, data, opcode=IO_WRITE):
    cqe, _ = rw(nvme, sq, opcode, nsid, slba, len(data) // LBA, data)
    assert cqe.ok, f"{opcode:#x} nsid {nsid} lba {slba}: {cqe}"
    return cqe


def read(nvme, sq, nsid, slba, nlb):
    cqe, data = rw(nvme, sq, IO_READ, nsid, slba, nlb)
    assert cqe.ok, f"read nsid {nsid} lba {slba}: {cqe}"
    return data


def zones(nvme, sq):
    """(state, write pointer) of every zone, from Report Zones."""
    xfer = nvme.transfer(4096, scatter=False)
    cqe = nvme.run(sq, Command(IO_ZONE_RECV, nsid=ZNS_NSID, prp1=xfer.prp1, prp2=xfer.prp2,
                               cdw12=4096 // 4 - 1))
    assert cqe.ok, str(cqe)
    data = nvme.contents(xfer)
    return [(data[off + 1] >> 4, struct.unpack_from("<Q", data, off + 24)[0])
            for off in range(64, 64 + 64 * ZONES, 64)]


def exit_saved(nvme, path):
    """Quit QEMU cleanly; the state it saved at exit must be there."""
    err = nvme.qt.terminate()
    assert path.exists(), err


def zoned_device(start, props):
    nvme = start(f"{ZNS},{props}").nvme
    csts = nvme.enable(css=CSS_ALL)
    assert csts & CSTS_RDY and not csts & CSTS_CFS, f"enable: CSTS {csts:#x}"
    return nvme, nvme.io_queue_pair(1)


def test_zoned_namespace_round_trip(start, tmp_path):
    first, second = tmp_path / "z1.state", tmp_path / "z2.state"
    nvme, sq = zoned_device(start, f"state_out={first}")
    write(nvme, sq, ZNS_NSID, 0, pattern(64 * LBA, 1))                 # zone 0 at its WP
    cqe = write(nvme, sq, ZNS_NSID, ZONE, pattern(32 * LBA, 2), IO_ZONE_APPEND)
    assert cqe.dw0 == ZONE
    assert nvme.run(sq, Command(IO_ZONE_SEND, nsid=ZNS_NSID, cdw10=2 * ZONE,
                                cdw13=ZSA_FINISH)).ok
    write(nvme, sq, 1, 100, pattern(16 * LBA, 3))                      # conventional
    before = zones(nvme, sq)
    exit_saved(nvme, first)

    nvme, sq = zoned_device(start, f"state_in={first},state_out={second}")
    assert zones(nvme, sq) == before
    assert read(nvme, sq, ZNS_NSID, 0, 64) == pattern(64 * LBA, 1)
    assert read(nvme, sq, ZNS_NSID, ZONE, 32) == pattern(32 * LBA, 2)
    assert read(nvme, sq, 1, 100, 16) == pattern(16 * LBA, 3)
    cqe = write(nvme, sq, ZNS_NSID, ZONE, pattern(8 * LBA, 4), IO_ZONE_APPEND)
    assert cqe.dw0 == ZONE + 32                    # the write pointer carried over
    nvme.qt.terminate()

    nvme, sq = zoned_device(start, f"state_in={second}")
    assert read(nvme, sq, ZNS_NSID, ZONE + 32, 8) == pattern(8 * LBA, 4)
    assert zones(nvme, sq)[1] == (before[1][0], ZONE + 40)


def test_zoned_implicit_open_order_round_trip(start, tmp_path):
    """Zones 3 then 1 opened by writes under max_open=2: after a restore, a write opening
    zone 5 closes zone 3, the one opened first (not the lower-numbered zone 1)."""
    state = tmp_path / "order.state"
    nvme, sq = zoned_device(start, f"max_open=2,state_out={state}")
    write(nvme, sq, ZNS_NSID, 3 * ZONE, pattern(8 * LBA, 1))
    write(nvme, sq, ZNS_NSID, 1 * ZONE, pattern(8 * LBA, 2))
    assert [zones(nvme, sq)[z][0] for z in (1, 3)] == [IMPLICITLY_OPEN] * 2
    exit_saved(nvme, state)

    nvme, sq = zoned_device(start, f"max_open=2,state_in={state}")
    write(nvme, sq, ZNS_NSID, 5 * ZONE, pattern(8 * LBA, 3))
    after = zones(nvme, sq)
    assert [after[z] for z in (1, 3, 5)] == [(IMPLICITLY_OPEN, ZONE + 8),
                                             (CLOSED, 3 * ZONE + 8),
                                             (IMPLICITLY_OPEN, 5 * ZONE + 8)]
    nvme.qt.terminate()


@pytest.mark.parametrize("props", ["write_buffer_sectors=1024",
                                   "mapping=dftl,cmt_entries=1024",
                                   "placement=stream"])
def test_other_ftl_configurations_round_trip(start, tmp_path, props):
    first, second = tmp_path / "a.state", tmp_path / "b.state"
    nvme = start(f"{props},state_out={first}").nvme
    sq = ready(nvme)[0]
    for i in range(24):
        write(nvme, sq, 1, 64 * i, pattern(8 * LBA, i))     # a few left in a write buffer
    exit_saved(nvme, first)

    nvme = start(f"{props},state_in={first},state_out={second}").nvme
    sq = ready(nvme)[0]
    for i in range(24):
        assert read(nvme, sq, 1, 64 * i, 8) == pattern(8 * LBA, i), i
    write(nvme, sq, 1, 5000, pattern(8 * LBA, 99))
    assert nvme.run(sq, Command(0x00, nsid=1)).ok           # Flush
    nvme.qt.terminate()

    nvme = start(f"{props},state_in={second}").nvme
    sq = ready(nvme)[0]
    assert read(nvme, sq, 1, 5000, 8) == pattern(8 * LBA, 99)
    assert read(nvme, sq, 1, 64 * 23, 8) == pattern(8 * LBA, 23)
