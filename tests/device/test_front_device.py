"""The device's side of the PCIe link and controller model (pcie_gen, ctrl_cores) over
qtest: a command the FTL does nothing for (an admin command, a zone report) still crosses
the link and takes a core. With the model on each one reaches the engine as FTL_OP_ADMIN
with the bytes it moved: an Identify adds exactly its hand-computed wire bytes to
stats.csv's link columns, a failed command adds none, a recorded run (version 7, N records)
replays in ftl-sim to identical statistics files; with the model off nothing is recorded
for them and the recording keeps its version."""
import csv

from nvme_qtest import (ADM_IDENTIFY, SMALL_GEOMETRY, Command, femu_only, nvme_qemu,  # noqa: F401
                        start)
from test_nvme_namespaces import attach, create_ns
from test_nvme_stats import phase
from test_nvme_zns import (CSS_ALL, FINISH, ZNS, ZNS_NSID, append, enable, read, report, send,
                           write)
from test_zrwa_device import STATS_FILES

pytestmark = femu_only()

# PCIe 4.0 x4, MPS 256, two cores: an admin command takes 5 us of a core, a read 2 us.
FRONT = ("pcie_gen=4,pcie_lanes=4,pcie_mps=256,ctrl_cores=2,ctrl_read_ns=2000,"
         "ctrl_admin_ns=5000")
CNS_CTRL = 1

# An Identify's wire bytes at MPS 256 (a memory request or write: 16-byte header, a
# completion 12, each TLP 8 bytes of framing and an 8-byte Ack DLLP the other way; reads
# asked in 512-byte requests):
#   SQE fetch: a read request up, 16 + 8 = 24; its completion down, 64 + 12 + 8 = 84;
#              each answered by an Ack the other way: 8 down, 8 up
#   data up:   4096 bytes in 16 TLPs of 256: 4096 + 16 x (16 + 8) = 4480; 16 Acks down, 128
#   CQE up:    16 + 24 = 40, its Ack down 8
#   MSI-X up:  4 + 24 = 28, its Ack down 8
IDENTIFY_UP = 24 + 8 + 4480 + 40 + 28          # 4580
IDENTIFY_DOWN = 8 + 84 + 128 + 8 + 8            # 236
# A command with 4096 bytes in (Namespace Management's create, Attachment's controller
# list): the SQE fetch as above; the data read in 8 requests of 512 up, 8 x 24 = 192,
# their Acks down 64; 16 completions of 256 down, 4096 + 16 x (12 + 8) = 4416, their Acks
# up 128; the CQE and MSI-X as above.
DATA_IN_UP = 24 + 8 + 192 + 128 + 40 + 28       # 420
DATA_IN_DOWN = 8 + 84 + 64 + 4416 + 8 + 8       # 4588


def stats_rows(stats):
    with open(stats / "stats.csv", newline="") as f:
        return list(csv.DictReader(f))


def link_bytes(stats):
    """(up, down): the bytes each direction of the link carried, over every row."""
    rows = stats_rows(stats)
    return (sum(int(r["link_up_bytes"]) for r in rows),
            sum(int(r["link_down_bytes"]) for r in rows))


def records(trace):
    return [line.split() for line in trace.read_text().splitlines()
            if line and not line.startswith("#")]


def identify_ctrl(nvme, cns=CNS_CTRL):
    buf = nvme.mem.alloc(4096)
    return nvme.admin(Command(ADM_IDENTIFY, prp1=buf, cdw10=cns))


def test_an_identify_adds_its_hand_computed_wire_bytes(start, tmp_path):
    """The controller enabled without I/O queues, one Identify Controller and one with a
    CNS the controller refuses: the link carried exactly the good one's bytes (the failed
    one is answered at once, as an I/O command failed at fetch is), and the recording holds
    it as one N record: an admin command with 4096 bytes out, nsid 0 written as 1."""
    stats, trace = tmp_path / "stats", tmp_path / "front.trace"
    machine = start(f"{FRONT},stats_dir={stats},trace_out={trace}")
    nvme = machine.nvme
    assert nvme.enable() & 1
    assert identify_ctrl(nvme).ok
    assert not identify_ctrl(nvme, cns=0xEE).ok
    assert machine.qt.terminate() is not None
    assert link_bytes(stats) == (IDENTIFY_UP, IDENTIFY_DOWN)
    got = records(trace)
    assert got[0] == ["V", "7"]
    assert [r[:1] + r[2:] for r in got if r[0] == "N"] == [["N", "1", "admin", "0", "4096"]]


def test_namespace_management_adds_its_data_in(start, tmp_path):
    """A namespace created and attached (4096 bytes in each): the link carried exactly
    their bytes, down above all, and each is an N record with 4096 bytes in."""
    stats, trace = tmp_path / "stats", tmp_path / "ns.trace"
    machine = start(f"namespaces=0,{FRONT},stats_dir={stats},trace_out={trace}")
    nvme = machine.nvme
    assert nvme.enable() & 1
    cqe = create_ns(nvme, (16 << 20) // 512)
    assert cqe.ok and cqe.dw0 == 1, str(cqe)
    assert attach(nvme, 1).ok
    assert machine.qt.terminate() is not None
    assert link_bytes(stats) == (2 * DATA_IN_UP, 2 * DATA_IN_DOWN)
    assert [r[2:] for r in records(trace) if r[0] == "N"] == [["1", "admin", "4096", "0"]] * 2


def test_a_recorded_run_with_admin_commands_replays_to_identical_statistics(
        start, run_ftl_sim, tmp_path):
    """Admin commands (queue creation, Identify, a log page, features, a phase) among zone
    writes, an append, reads, reports and a Finish: recorded by the device with the model
    on, replayed by ftl-sim with the same configuration, every statistics file byte for
    byte, the link columns included."""
    stats, trace = tmp_path / "device", tmp_path / "front.trace"
    props = f"{ZNS},{FRONT}"
    machine = start(f"{props},stats_dir={stats},trace_out={trace}")
    nvme = machine.nvme
    sq = enable(nvme, CSS_ALL)                          # Create I/O CQ and SQ
    assert identify_ctrl(nvme).ok
    assert phase(nvme, b"mixed").ok
    for i in range(4):
        assert write(nvme, sq, 8 * i, 8, seed=i).ok
        assert nvme.get_log(0x02, 512)[0].ok            # SMART / Health: 512 bytes out
    assert append(nvme, sq, 2048, 16, seed=9).ok
    cqe, zones, _ = report(nvme, sq)                    # a 4096-byte buffer, 16 zones
    assert cqe.ok and zones == 16
    assert read(nvme, sq, 0, 32)[0].ok
    assert nvme.get_features(0x07).ok                   # Number of Queues: no data
    assert send(nvme, sq, FINISH, 0).ok
    assert machine.qt.terminate() is not None

    got = records(trace)
    admin = [r for r in got if r[0] == "N"]
    # 64-byte header and 16 descriptors of 64 bytes: what the report moved
    assert [r[2:] for r in admin if r[3] == "io"] == [[str(ZNS_NSID), "io", "0", "1088"]]
    assert [r[2:] for r in admin if r[5] == "512"] == [["4294967295", "admin", "0", "512"]] * 4
    # the two queue creations, Identify, the four log pages, Get Features (the phase
    # marker is the FTL thread's own work: no N)
    assert len([r for r in admin if r[3] == "admin"]) == 2 + 1 + 4 + 1
    assert sum(int(r["link_up_bytes"]) for r in stats_rows(stats)) > 0

    # the device's whole FTL configuration: start's base geometry, then the properties
    sets = [arg for kv in f"{SMALL_GEOMETRY},{props}".split(",") for arg in ("--set", kv)]
    replay = tmp_path / "replay"
    run_ftl_sim(*sets, "--trace", trace, "--stats-dir", replay)
    for name in STATS_FILES:
        assert (replay / name).read_text() == (stats / name).read_text(), name


def test_with_the_model_off_no_admin_record_is_written(start, tmp_path):
    """pcie_gen=0 and ctrl_cores=0: the same admin commands leave the recording as it was
    (version 3, the device's zone and copy commands: no N record) and stats.csv has no link
    columns."""
    stats, trace = tmp_path / "stats", tmp_path / "off.trace"
    machine = start(f"pcie_gen=0,ctrl_cores=0,stats_dir={stats},trace_out={trace}")
    nvme = machine.nvme
    assert nvme.enable() & 1
    sq = nvme.io_queue_pair(1)
    assert identify_ctrl(nvme).ok
    assert nvme.get_log(0x02, 512)[0].ok
    assert nvme.write(sq, 0, bytes(4096)).ok
    assert machine.qt.terminate() is not None
    got = records(trace)
    assert got[0] == ["V", "3"]
    assert [r[0] for r in got[1:] if r[0] != "A"] == ["W", "E"]     # A: idle seconds
    assert "link_up_bytes" not in stats_rows(stats)[0]
