"""Device state files with Key Value namespaces (DNST's kv flag, section DKVV beside the
FTL's KVST): keys and values saved at exit and by QMP save-state come back byte for byte
(List, Retrieve, Exist, Delete, Store options, NUSE, the FTL's kv_keys and kv_live_bytes);
a KV namespace Namespace Management made comes back too; files whose KV parts disagree are
refused at realize with one line naming the file and the section; files written before
DKVV still load."""
import csv
import struct
import subprocess
from pathlib import Path

import pytest

from femu_device import LAUNCH_TIMEOUT, MACHINE
from femu_lab.vm.qmp import Qmp, qmp_args
from kv_qtest import (CSI_KV, CSS_ALL, KV_MB, KV_NSID, KV_PROPS, NVM_NSID, SC_KEY_EXISTS,
                      SC_KEY_NOT_EXIST, SO_NO_OVERWRITE, SO_OVERWRITE_ONLY, all_keys, delete,
                      exist, retrieve, store)
from nvme_qtest import (CSTS_CFS, CSTS_RDY, SMALL_GEOMETRY, Command, Machine, femu_only,
                        nvme_qemu, pattern, ready, wait_for)  # noqa: F401
from state_file_codec import as_ftl_sim, build, parse

pytestmark = femu_only()

ADM_IDENTIFY, ADM_NS_MGMT, ADM_NS_ATTACH = 0x06, 0x0D, 0x15
CNS_CS_NS = 0x05
NS_TABLE_HEAD = 8 + 40                    # NSIDs, ns_created, the controller's SMART
NS_RECORD = 8 + 3 * 8 + 16 + 40           # flags, extent, bytes, UUID, SMART
KV_FLAG = 4                               # the record's byte: allocated, attached, zoned,
                                          # FLBAS, kv
DKVV_FIRST_KEY = 8 + 12                   # version, namespaces; NSID, keys

# The keys a test stores (in List's order: bytewise, a prefix first), then deletes some of
VALUES = {
    b"0123456789abcdef": pattern(777, 1),  # a 16-byte key
    b"big": pattern(10000, 2),            # past 4 KiB: PRP list pages
    b"empty": b"",                        # a 0-byte value
    b"gone": b"x" * 50,
    b"k": b"small",
    b"kk": pattern(4096, 3),
    b"replaced": pattern(300, 4),
}
DELETED = {b"gone"}
REPLACED = (b"replaced", pattern(20, 5))


@pytest.fixture
def machines(nvme_qemu, tmp_path):
    """machines(props, qmp=None) -> a Machine (not enabled), killed at the end."""
    made = []

    def run(props: str, qmp: Path = None) -> Machine:
        extra = qmp_args(qmp) if qmp else ()
        made.append(Machine(nvme_qemu, tmp_path, props, extra=extra))
        return made[-1]
    yield run
    for machine in made:
        machine.qt.close()


def enabled(machine):
    """The machine's controller with every command set (CC.CSS 110b); (nvme, sq)."""
    nvme = machine.nvme
    csts = nvme.enable(css=CSS_ALL)
    assert csts & CSTS_RDY and not csts & CSTS_CFS, f"enable: CSTS {csts:#x}"
    return nvme, nvme.io_queue_pair(1)


def fill(nvme, sq, nsid=KV_NSID):
    """VALUES stored, DELETED deleted, REPLACED's key stored again: what should remain."""
    for key, value in VALUES.items():
        assert store(nvme, sq, key, value, nsid=nsid).ok, key
    for key in DELETED:
        assert delete(nvme, sq, key, nsid=nsid).ok
    assert store(nvme, sq, REPLACED[0], REPLACED[1], nsid=nsid).ok
    kept = {k: v for k, v in VALUES.items() if k not in DELETED}
    kept[REPLACED[0]] = REPLACED[1]
    return kept


def identify_kv(nvme, nsid):
    """(NSZE, NUSE) of a KV namespace, in bytes."""
    buf = nvme.mem.alloc(4096)
    cqe = nvme.admin(Command(ADM_IDENTIFY, nsid=nsid, prp1=buf, cdw10=CNS_CS_NS,
                             cdw11=CSI_KV << 24))
    assert cqe.ok, str(cqe)
    nsze, _, nuse = struct.unpack_from("<QQQ", nvme.qt.b64read(buf, 24), 0)
    return nsze, nuse


def assert_holds(nvme, sq, kept, nsid=KV_NSID):
    """The namespace holds exactly kept: its List, every value, Exist, the options."""
    assert all_keys(nvme, sq, nsid) == sorted(kept)
    for key, value in kept.items():
        cqe, got = retrieve(nvme, sq, key, max(len(value), 1) + 8, nsid=nsid)
        assert cqe.ok and cqe.dw0 == len(value), f"{key}: {cqe}"
        assert got[:len(value)] == value, key
        assert exist(nvme, sq, key, nsid=nsid).ok
    for key in DELETED:
        assert exist(nvme, sq, key, nsid=nsid).code == SC_KEY_NOT_EXIST
        assert store(nvme, sq, key, b"v", SO_OVERWRITE_ONLY, nsid=nsid).code == \
            SC_KEY_NOT_EXIST
    some = sorted(kept)[0]
    assert store(nvme, sq, some, b"new", SO_NO_OVERWRITE, nsid=nsid).code == SC_KEY_EXISTS
    assert identify_kv(nvme, nsid)[1] == sum(len(v) for v in kept.values())


def stats_gauges(stats: Path):
    """kv_keys and kv_live_bytes of the first row stats.csv has."""
    def first_row():
        try:
            with open(stats / "stats.csv", newline="") as f:
                rows = list(csv.DictReader(f))
        except FileNotFoundError:
            return None
        return rows[0] if rows else None
    row = wait_for(first_row, what="a row in stats.csv", timeout=60)
    return int(row["kv_keys"]), int(row["kv_live_bytes"])


def device_sections(path):
    return dict(parse(Path(path).read_bytes())[1])


# ---------------------------------------------------------------- round trips

def test_kv_namespace_survives_state_out_and_state_in(machines, tmp_path):
    first, again = tmp_path / "first.state", tmp_path / "again.state"
    machine = machines(f"{KV_PROPS},state_out={first}")
    nvme, sq = enabled(machine)
    kept = fill(nvme, sq)
    assert machine.qt.terminate() is not None and machine.qt.returncode == 0
    sections = device_sections(first)
    assert b"DKVV" in sections and b"KVST" in sections

    stats = tmp_path / "stats"
    machine = machines(f"{KV_PROPS},state_in={first},stats_dir={stats}")
    assert stats_gauges(stats) == (len(kept), sum(len(v) for v in kept.values()))
    nvme, sq = enabled(machine)
    assert identify_kv(nvme, KV_NSID)[0] == KV_MB << 20
    assert_holds(nvme, sq, kept)
    assert delete(nvme, sq, b"k").ok and exist(nvme, sq, b"k").code == SC_KEY_NOT_EXIST
    assert store(nvme, sq, b"after", b"restore").ok
    assert retrieve(nvme, sq, b"after", 16)[1][:7] == b"restore"
    machine.qt.close()

    # restored and saved at once, nothing done between: the same KV sections
    machine = machines(f"{KV_PROPS},state_in={first},state_out={again}")
    assert machine.qt.terminate() is not None and machine.qt.returncode == 0
    before, after = device_sections(first), device_sections(again)
    for tag in (b"DNST", b"KVST", b"DKVV"):
        assert after[tag] == before[tag], tag


def test_qmp_save_state_holds_the_kv_namespace(machines, tmp_path):
    socket_path, state = tmp_path / "qmp.sock", tmp_path / "qmp.state"
    machine = machines(f"{KV_PROPS},id=femu0", qmp=socket_path)
    nvme, sq = enabled(machine)
    kept = fill(nvme, sq)
    with Qmp(socket_path, connect_timeout=30) as qmp:
        qmp.execute("qom-set", path="/machine/peripheral/femu0", property="save-state",
                    value=str(state))

        def ended():
            status = qmp.execute("qom-get", path="/machine/peripheral/femu0",
                                 property="save-state-status")
            return None if status == f"saving {state}" else status
        assert wait_for(ended, what="the QMP save", timeout=60) == f"saved {state}"
    assert store(nvme, sq, b"later", b"not saved").ok          # after the save
    machine.qt.close()

    nvme, sq = enabled(machines(f"{KV_PROPS},state_in={state}"))
    assert_holds(nvme, sq, kept)
    assert exist(nvme, sq, b"later").code == SC_KEY_NOT_EXIST


def create_kv(nvme, capacity):
    ident = bytearray(4096)
    struct.pack_into("<Q", ident, 0, capacity)
    cqe = nvme.admin(Command(ADM_NS_MGMT, prp1=nvme.buffer(bytes(ident)), cdw10=0,
                             cdw11=CSI_KV << 24))
    assert cqe.ok, str(cqe)
    table = struct.pack("<HH", 1, 0).ljust(4096, b"\0")
    assert nvme.admin(Command(ADM_NS_ATTACH, nsid=cqe.dw0, cdw10=0,
                              prp1=nvme.buffer(table))).ok
    return cqe.dw0


def test_a_namespace_management_kv_namespace_round_trips(machines, tmp_path):
    """kv_ns_mb's namespace deleted, a 1 MiB KV namespace created in its place: the file's
    namespace comes back (its capacity, not kv_ns_mb's), with its keys."""
    state = tmp_path / "created.state"
    machine = machines(f"{KV_PROPS},state_out={state}")
    nvme, sq = enabled(machine)
    assert nvme.admin(Command(ADM_NS_MGMT, nsid=KV_NSID, cdw10=1)).ok      # delete
    nsid = create_kv(nvme, 1 << 20)
    kept = fill(nvme, sq, nsid)
    assert machine.qt.terminate() is not None and machine.qt.returncode == 0

    nvme, sq = enabled(machines(f"{KV_PROPS},state_in={state}"))
    assert identify_kv(nvme, nsid)[0] == 1 << 20
    assert_holds(nvme, sq, kept, nsid)
    assert exist(nvme, sq, b"k", nsid=NVM_NSID).code != 0   # NSID 1 is no KV namespace


def test_a_file_without_kv_namespaces_loads_into_a_kv_device(machines, tmp_path):
    """A file with no KV namespace and no DKVV (as every file before DKVV: the kv byte 0)
    into a kv_ns_mb device: its table wins, which has no KV namespace; its data reads
    back. (kept_states' own files load in test_nvme_state_kept.py.)"""
    state = tmp_path / "plain.state"
    machine = machines(f"namespaces=2,state_out={state}")
    nvme, sq = machine.nvme, ready(machine.nvme)[0]
    assert nvme.write(sq, 0, pattern(4096, 7)).ok
    assert machine.qt.terminate() is not None and machine.qt.returncode == 0
    assert b"DKVV" not in device_sections(state)
    table = device_sections(state)[b"DNST"]
    assert all(table[NS_TABLE_HEAD + i * NS_RECORD + KV_FLAG] == 0 for i in range(32))

    nvme, sq = enabled(machines(f"{KV_PROPS},state_in={state}"))
    cqe, data = nvme.read(sq, 0, 8)
    assert cqe.ok and data == pattern(4096, 7)
    assert exist(nvme, sq, b"k", nsid=KV_NSID).code != 0      # an NVM namespace now


# ---------------------------------------------------------------- hostile files

@pytest.fixture(scope="module")
def saved(nvme_qemu, tmp_path_factory):
    """A KV device's state, one key b"k1" -> b"hello" (DKVV's first value at byte 27)."""
    folder = tmp_path_factory.mktemp("kvcrafted")
    state = folder / "good.state"
    machine = Machine(nvme_qemu, folder, f"{KV_PROPS},state_out={state}")
    try:
        nvme, sq = enabled(machine)
        assert store(nvme, sq, b"k1", b"hello").ok
        assert machine.qt.terminate() is not None and machine.qt.returncode == 0
    finally:
        machine.qt.close()
    return parse(state.read_bytes())


def rewrite(saved, tmp_path, name, tag, edit):
    """The saved file with section tag's payload edited (None: the section dropped)."""
    header, sections = saved
    changed = []
    for section_tag, payload in sections:
        if section_tag == tag:
            payload = edit(payload)
        if payload is not None:
            changed.append((section_tag, payload))
    path = tmp_path / name
    path.write_bytes(build(header, changed))
    return path


def realize_line(nvme_qemu, path, props=KV_PROPS):
    proc = subprocess.run([str(nvme_qemu), *MACHINE, "-S", "-monitor", "stdio", "-device",
                           f"femu,{SMALL_GEOMETRY},{props},state_in={path}"], input="quit\n",
                          capture_output=True, text=True, timeout=LAUNCH_TIMEOUT)
    assert proc.returncode == 1, f"exit {proc.returncode}: {proc.stderr}"
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert f"state_in: {path}" in lines[0], lines[0]
    return lines[0]


def poke(payload, offset, fmt, value):
    data = bytearray(payload)
    struct.pack_into(fmt, data, offset, value)
    return bytes(data)


def kv_flag(nsid, value):
    return lambda p: poke(p, NS_TABLE_HEAD + (nsid - 1) * NS_RECORD + KV_FLAG, "<B", value)


BAD = [
    ("flag-off", b"DNST", kv_flag(KV_NSID, 0),
     "section KVST: a store of NSID 2, which section DNST does not make a Key Value "
     "namespace"),
    ("flag-on-nvm", b"DNST", kv_flag(NVM_NSID, 1),
     "section DNST: namespace 1 is a Key Value namespace, section KVST has no store of "
     "NSID 1"),
    ("flag-2", b"DNST", kv_flag(KV_NSID, 2), "section DNST: namespace 2: kv 2 (0 or 1)"),
    ("flag-on-free", b"DNST", kv_flag(5, 1), "section DNST: namespace 5: kv 1 but not "
     "allocated"),
    ("no-dkvv", b"DKVV", lambda p: None,
     "namespace 2 is a Key Value namespace and the file has no section DKVV"),
    ("cut", b"DKVV", lambda p: p[:-9], "section DKVV: namespace 2: 1 keys, more than"),
    ("cut-value", b"DKVV", lambda p: p[:-1],
     "section DKVV: namespace 2: key 0: a value of 5 bytes"),
    ("tag", b"DKVV", lambda p: poke(p, DKVV_FIRST_KEY + 7, "<B", ord("j")),
     "section DKVV: namespace 2: key 6b31 (a value of 5 bytes) has bytes whose tag"),
    ("key-len-0", b"DKVV", lambda p: poke(p, DKVV_FIRST_KEY, "<B", 0),
     "section DKVV: namespace 2: key 0: length 0 (1 to 16)"),
    ("key-len-17", b"DKVV", lambda p: poke(p, DKVV_FIRST_KEY, "<B", 17),
     "section DKVV: namespace 2: key 0: length 17 (1 to 16)"),
    ("other-key", b"DKVV", lambda p: poke(p, DKVV_FIRST_KEY + 2, "<B", ord("2")),
     "section DKVV: namespace 2: key 6b32 (a value of 5 bytes) is not in the FTL's store"),
    ("no-namespace", b"DKVV", lambda p: poke(p, 8, "<I", 3),
     "section DKVV: namespace 3 is not a Key Value namespace of section DNST"),
    ("size", b"DKVV", lambda p: poke(p[:-1], DKVV_FIRST_KEY + 3, "<I", 4),
     "section DKVV: namespace 2: key 6b31 (a value of 4 bytes) has another size"),
]


def test_the_rewrite_itself_restores(nvme_qemu, saved, tmp_path):
    path = rewrite(saved, tmp_path, "same.state", b"DKVV", lambda p: p)
    machine = Machine(nvme_qemu, tmp_path, f"{KV_PROPS},state_in={path}")
    try:
        nvme, sq = enabled(machine)
        assert retrieve(nvme, sq, b"k1", 8)[1][:5] == b"hello"
    finally:
        machine.qt.close()


@pytest.mark.parametrize("name,tag,edit,expect", BAD, ids=[b[0] for b in BAD])
def test_a_bad_kv_state_is_refused_in_one_line(nvme_qemu, saved, tmp_path, name, tag, edit,
                                               expect):
    path = rewrite(saved, tmp_path, f"{name}.state", tag, edit)
    line = realize_line(nvme_qemu, path)
    assert expect in line, line


def test_a_kv_state_into_a_device_without_kv_ns_mb_is_refused(nvme_qemu, saved, tmp_path):
    path = rewrite(saved, tmp_path, "nokv.state", b"DKVV", lambda p: None)
    line = realize_line(nvme_qemu, path, props="namespaces=1")
    assert "section DNST: namespace 2: kv 1, and this device offers no Key Value" in line, line


def ftl_sim_file(saved, tmp_path, name):
    """The saved KV device's file as ftl-sim writes one: no device sections (DKVV
    neither), data=absent; the FTL's KV store kept."""
    header, sections = saved
    kept = [(t, as_ftl_sim(t, p)) for t, p in sections if t != b"DKVV"]
    path = tmp_path / name
    path.write_bytes(build(header, [(t, p) for t, p in kept if p is not None]))
    return path


def test_a_state_without_values_is_refused_by_a_kv_device(nvme_qemu, saved, tmp_path):
    line = realize_line(nvme_qemu, ftl_sim_file(saved, tmp_path, "sim.state"))
    assert "namespace 2 (kv_ns_mb) is a Key Value namespace and a state without the " \
        "device's sections (data=absent) holds no values" in line, line


def test_an_ftl_sim_kv_store_is_refused_by_a_device_without_kv(nvme_qemu, saved, tmp_path):
    line = realize_line(nvme_qemu, ftl_sim_file(saved, tmp_path, "sim.state"),
                        props="namespaces=1")
    assert "section KVST holds 1 key-value stores, whose values a state without the " \
        "device's sections (data=absent) does not hold" in line, line


def test_a_store_over_other_sectors_is_refused(nvme_qemu, saved, tmp_path):
    """KVST's store one page lower than its namespace in DNST (the FTL's own checks
    allow the range): the line names both."""
    def lower(payload):
        base = struct.unpack_from("<Q", payload, 12)[0]
        return poke(payload, 12, "<Q", base - 8)
    line = realize_line(nvme_qemu, rewrite(saved, tmp_path, "moved.state", b"KVST", lower))
    assert "section KVST: the store of NSID 2 covers sectors" in line, line
