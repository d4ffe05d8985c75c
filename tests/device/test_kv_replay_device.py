"""A device run with Key Value namespaces, recorded (trace_out) and replayed in ftl-sim to
the same statistics files, byte for byte.

The run holds every change of which stores exist: the kv_ns_mb store made at realize (the
recording's first KC record), a store made by Namespace Management (CSI 01h, a KC record
at its creation), its Format (an X record over exactly its range, which empties the
replay's store in both layers), its delete (KX, after every command fetched before it)
and a new store at the same NSID. KV commands the rules refuse (a missing key, Store with
No Overwrite on a key that exists) are answered at fetch and never reach the FTL, so the
recording holds none of them."""
import csv
import json

from kv_qtest import (CSS_ALL, KV_NSID, KV_PROPS, SO_NO_OVERWRITE, SC_KEY_EXISTS,
                      SC_KEY_NOT_EXIST, all_keys, attach, create_kv, delete, exist, retrieve,
                      store)
from nvme_qtest import CSTS_RDY, Command, femu_only, nvme_qemu, start  # noqa: F401
from test_nvme_stats import phase

pytestmark = femu_only()

ADM_NS_MGMT, ADM_FORMAT = 0x0D, 0x80
# 1 channel x 2 LUNs x 128 blocks of 32 pages: 32 MiB raw, 24 MiB logical: the 4 MiB
# kv_ns_mb store, and the NVM namespace beside it, deleted to make room for a 1 MiB one.
GEOMETRY = {"nchs": 1, "luns_per_ch": 2, "blks_per_pl": 128, "pgs_per_blk": 32,
            "devsz_mb": 24, "kv_index_cache_pages": 4, "kv_max_value": 16384}
STATS_FILES = ("stats.csv", "IOPSData.csv", "throughputData.csv", "GCData.csv",
               "WAFData.csv", "statistics.csv", "phases.csv", "lpn_access_count.csv")


def value(i):
    return bytes([i % 251]) * (500 + 700 * (i % 13))


def drive(nvme, sq):
    """The commands of the recording; the KV refusals it holds, counted."""
    refused = 0
    assert phase(nvme, b"keys").ok             # phases of its own: replayed as recorded
    for i in range(60):
        assert store(nvme, sq, b"key%03d" % i, value(i)).ok
    for i in range(0, 60, 3):
        cqe, got = retrieve(nvme, sq, b"key%03d" % i, 16384)
        assert cqe.ok and got[:cqe.dw0] == value(i)
    for i in range(0, 60, 4):
        assert delete(nvme, sq, b"key%03d" % i).ok
    for i in range(0, 60, 8):                   # deleted above: refused
        assert exist(nvme, sq, b"key%03d" % i).code == SC_KEY_NOT_EXIST
        refused += 1
    assert store(nvme, sq, b"key001", b"x", SO_NO_OVERWRITE).code == SC_KEY_EXISTS
    refused += 1
    assert len(all_keys(nvme, sq)) == 45

    assert phase(nvme, b"namespaces").ok
    assert nvme.admin(Command(ADM_NS_MGMT, nsid=1, cdw10=1)).ok    # the NVM one: room
    cqe = create_kv(nvme, 1 << 20)              # a second store
    assert cqe.ok
    made = cqe.dw0
    assert made != KV_NSID and attach(nvme, made).ok
    for i in range(20):
        assert store(nvme, sq, b"m%02d" % i, value(i), nsid=made).ok
    assert nvme.admin(Command(ADM_FORMAT, nsid=made), timeout=30).ok
    assert all_keys(nvme, sq, made) == []
    assert store(nvme, sq, b"m00", b"after format", SO_NO_OVERWRITE, nsid=made).ok
    assert nvme.admin(Command(ADM_NS_MGMT, nsid=made, cdw10=1)).ok      # delete
    again = create_kv(nvme, 1 << 19)            # the same NSID, a new, empty store
    assert again.ok and again.dw0 == made and attach(nvme, made).ok
    assert exist(nvme, sq, b"m00", nsid=made).code == SC_KEY_NOT_EXIST
    refused += 1
    assert store(nvme, sq, b"n", value(3), nsid=made).ok
    return made, refused


def column_sum(stats_dir, column):
    with open(stats_dir / "stats.csv", newline="") as f:
        return sum(int(row[column] or 0) for row in csv.DictReader(f))


def test_a_recorded_kv_device_run_replays_to_identical_statistics(start, run_ftl_sim,
                                                                  tmp_path):
    props = ",".join(f"{k}={v}" for k, v in GEOMETRY.items())
    stats, trace = tmp_path / "device", tmp_path / "kv.trace"
    machine = start(f"{KV_PROPS},{props},stats_dir={stats},trace_out={trace}")
    nvme = machine.nvme
    assert nvme.enable(css=CSS_ALL) & CSTS_RDY
    sq = nvme.io_queue_pair(1)
    made, refused = drive(nvme, sq)
    machine.qt.terminate()                      # exit closes the statistics and the trace

    lines = [line.split() for line in trace.read_text().splitlines()
             if line and not line.startswith("#")]
    assert lines[0] == ["V", "6"] and lines[-1][0] == "E"
    creates = [f for f in lines if f[0] == "KC"]
    assert [int(f[2]) for f in creates] == [KV_NSID, made, made]
    assert lines[1][0] == "KC" and int(lines[1][1]) == 0       # realize's, at the origin
    assert [int(f[5]) for f in creates] == [4 << 20, 1 << 20, 1 << 19]
    assert [int(f[2]) for f in lines if f[0] == "KX"] == [made]
    second = creates[1]
    formats = [f for f in lines if f[0] == "X"]
    assert any(f[3:5] == second[3:5] for f in formats), (formats, second)   # its Format

    sets = [arg for k, v in GEOMETRY.items() for arg in ("--set", f"{k}={v}")]
    replay = tmp_path / "replay"
    result = run_ftl_sim(*sets, "--trace", trace, "--stats-dir", replay,
                         "--summary", tmp_path / "summary.json")
    summary = json.loads((tmp_path / "summary.json").read_text())
    # The device answers a refused command at fetch and gives the FTL nothing: the
    # recording holds none, so the replay refuses none.
    assert refused > 0 and summary["kv_refused"] == 0, result.stdout
    assert column_sum(stats, "kv_stores") == 60 + 20 + 1 + 1
    for name in STATS_FILES:
        assert (replay / name).read_text() == (stats / name).read_text(), name
