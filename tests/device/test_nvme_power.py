"""NVMe power states on the device (cmd/admin/power_desc.c, power_features.c): Identify
Controller's NPSS, APSTA and power state descriptors from the configured table, byte by
byte; Power Management (02h) and Autonomous Power State Transition (0Ch) through the
FTL's power-state model; a read in a non-operational state pays the exit (the QOM property
power-counters: counts, and the model's own wait, never a wall-clock time).

Every expected byte is worked out by hand from the table below."""
import json
import struct
import time

import pytest

from femu_lab.vm.qmp import Qmp, qmp_args
from nvme_qtest import (BAR_BASE, SC_DATA_TRANSFER_ERROR, SC_FEATURE_NOT_SAVEABLE,
                        SC_INVALID_FIELD, SC_PRP_OFFSET_INVALID, ADM_GET_FEATURES,
                        ADM_SET_FEATURES, Command, femu_only, nvme_qemu, pattern,  # noqa: F401
                        ready, start, wait_for)

pytestmark = femu_only()

DEV = "/machine/peripheral/femu0"
FID_PM, FID_APST = 0x02, 0x0C
SC_FEATURE_NOT_NS_SPECIFIC = 0x10F
CAP_CHANGEABLE = 1 << 2

# Three states: PS0 and PS1 operational (PS1 at half speed), PS2 non-operational.
#   PS0 max 25001 mW: not a whole centiwatt and over 6553 mW -> MP 2501 (0.01 W, rounded
#       up), MXPS 0; idle 3000 mW -> IDLP 300, IPS 10b; active 7000 mW -> ACTP 700, APS 10b
#   PS1 max 3505 mW: not a whole centiwatt, fits in 0.0001 W -> MP 35050, MXPS 1; idle
#       1234 mW -> IDLP 12340, IPS 01b; active 0 -> ACTP 0, APS 00b (not reported)
#   PS2 max 70 mW -> MP 7, MXPS 0, NOPS; idle 5 mW -> IDLP 50, IPS 01b; active 0
THREE = [
    dict(max_mw=25001, idle_mw=3000, active_mw=7000, enlat_us=5, exlat_us=5, perf_pcent=100),
    dict(max_mw=3505, idle_mw=1234, active_mw=0, enlat_us=50, exlat_us=100, perf_pcent=50),
    dict(max_mw=70, idle_mw=5, active_mw=0, enlat_us=1000, exlat_us=2000, nonop=1),
]
# descriptor N: (MP, flags, ENLAT, EXLAT, RRT, RRL, RWT, RWL, IDLP, IPS, ACTP, APWS)
THREE_PSD = [
    (2501, 0b00, 5, 5, 0, 0, 0, 0, 300, 2 << 6, 700, 2 << 6),
    (35050, 0b01, 50, 100, 1, 1, 1, 1, 12340, 1 << 6, 0, 0),
    (7, 0b10, 1000, 2000, 2, 2, 2, 2, 50, 1 << 6, 0, 0),
]
PSD = struct.Struct("<HxBIIBBBBHBxHB9x")


def conf_text(states):
    """A configuration file with the power-state table `states` (keys: femu_ftl's)."""
    lines = [f"ps_count={len(states)}"]
    for i, state in enumerate(states):
        lines += [f"ps{i}_{key}={value}" for key, value in state.items()]
    return "\n".join(lines) + "\n"


def assert_status(cqe, code):
    assert (cqe.code, cqe.dnr) == (code, True), str(cqe)


def apst_entry(itps, itpt_ms):
    return itps << 3 | itpt_ms << 8


class Device:
    """A controller with the table `states`, QMP and one I/O queue pair."""

    def __init__(self, start, tmp_path, states=THREE, props=""):
        conf = tmp_path / "power.conf"
        conf.write_text(conf_text(states))
        socket = tmp_path / "qmp.sock"
        self.nvme = start(f"id=femu0,config={conf}{props}", extra=qmp_args(socket)).nvme
        self.sq = ready(self.nvme)[0]
        self.qmp = Qmp(socket, connect_timeout=30).__enter__()

    def counters(self):
        text = self.qmp.execute("qom-get", path=DEV, property="power-counters")
        return {key: int(value) for key, value in (word.split("=") for word in text.split())}

    def state(self):
        got = self.nvme.get_features(FID_PM)
        assert got.ok, str(got)
        return got.dw0 & 0x1F

    def set_apst(self, entries, enable=True, **kw):
        table = b"".join(struct.pack("<Q", e) for e in entries).ljust(256, b"\0")
        return self.nvme.admin(Command(ADM_SET_FEATURES, cdw10=FID_APST, cdw11=int(enable),
                                       prp1=self.nvme.buffer(table), **kw))

    def get_apst(self, sel=0):
        buf = self.nvme.mem.alloc(4096)
        cqe = self.nvme.admin(Command(ADM_GET_FEATURES, cdw10=FID_APST | sel << 8, prp1=buf))
        data = self.nvme.qt.b64read(buf, 256)
        return cqe, list(struct.unpack("<32Q", data))


@pytest.fixture
def device(start, tmp_path):
    made = []

    def make(states=THREE, props=""):
        made.append(Device(start, tmp_path, states, props))
        return made[-1]
    yield make
    for dev in made:
        dev.qmp.__exit__(None, None, None)


# ---- Identify


def test_identify_reports_the_table_byte_for_byte(device):
    nvme = device().nvme
    cqe, data = nvme.identify(0x01)
    assert cqe.ok
    assert data[263] == 2                       # NPSS: three states
    assert data[265] == 1                       # APSTA: PS2 is non-operational
    for i, want in enumerate(THREE_PSD):
        raw = data[2048 + 32 * i:2048 + 32 * (i + 1)]
        assert PSD.unpack(raw) == want, f"PS{i}"
        assert raw[2] == 0 and raw[19] == 0 and raw[23:] == bytes(9), f"PS{i} reserved"
    assert data[2048 + 32 * 3:3072] == bytes(1024 - 96)      # no descriptor past NPSS


def test_ranks_are_shared_by_equal_states(device):
    """Four states, two operational at full speed, two non-operational: throughput ranks
    0, 0, 1, 1 (no throughput in either sleep state); latency ranks 0, 0, then by exit
    latency 1 and 2."""
    states = [dict(max_mw=9000, perf_pcent=100), dict(max_mw=8000, perf_pcent=100),
              dict(max_mw=100, nonop=1, enlat_us=10, exlat_us=300),
              dict(max_mw=50, nonop=1, enlat_us=10, exlat_us=200)]
    _, data = device(states).nvme.identify(0x01)
    assert data[263] == 3
    ranks = [tuple(data[2048 + 32 * i + 12:2048 + 32 * i + 16]) for i in range(4)]
    assert ranks == [(0, 0, 0, 0), (0, 0, 0, 0), (1, 2, 1, 2), (1, 1, 1, 1)]


def test_one_operational_state_by_default(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    _, data = nvme.identify(0x01)
    assert data[263] == 0 and data[265] == 0                # NPSS 0, no APST
    assert data[2048 + 3] & 0b10 == 0                       # PS0 operational
    assert data[2048 + 32:3072] == bytes(1024 - 32)
    # no non-operational state: 0Ch is not offered (an unknown FID)
    assert_status(nvme.get_features(FID_APST), SC_INVALID_FIELD)
    got = nvme.get_features(FID_PM)
    assert got.ok and got.dw0 == 0
    assert_status(nvme.set_features(FID_PM, 1), SC_INVALID_FIELD)     # PS1 > NPSS


# ---- Power Management (02h)


def test_power_management_set_then_get(device):
    dev = device()
    nvme = dev.nvme
    assert dev.state() == 0
    assert nvme.set_features(FID_PM, 1 | 2 << 5).ok         # PS1, workload hint 2
    got = nvme.get_features(FID_PM)
    assert got.ok and got.dw0 == 1 | 2 << 5
    for sel in (1, 2):                                       # default; saved = default
        got = nvme.get_features(FID_PM, sel=sel)
        assert got.ok and got.dw0 == 0, f"SEL {sel}: {got}"
    got = nvme.get_features(FID_PM, sel=3)
    assert got.ok and got.dw0 == CAP_CHANGEABLE             # not saveable, not per namespace
    assert_status(nvme.set_features(FID_PM, 3), SC_INVALID_FIELD)        # PS3 > NPSS 2
    assert_status(nvme.set_features(FID_PM, 31), SC_INVALID_FIELD)
    assert_status(nvme.set_features(FID_PM, 0, save=True), SC_FEATURE_NOT_SAVEABLE)
    assert_status(nvme.set_features(FID_PM, 0, nsid=1), SC_FEATURE_NOT_NS_SPECIFIC)
    assert nvme.get_features(FID_PM).dw0 == 1 | 2 << 5      # none of them changed it
    assert nvme.set_features(FID_PM, 0).ok
    assert dev.state() == 0


def test_a_read_in_a_non_operational_state_pays_the_exit(device):
    dev = device()
    nvme, sq = dev.nvme, dev.sq
    assert nvme.write(sq, 0, pattern(4096, 7)).ok
    before = dev.counters()
    assert nvme.set_features(FID_PM, 2).ok                  # PS2: non-operational
    assert dev.state() == 2                                 # an admin command wakes nothing
    cqe, data = nvme.read(sq, 0, 8)
    assert cqe.ok and data == pattern(4096, 7)
    assert dev.state() == 0                                 # back to the last operational one
    after = dev.counters()
    assert after["ps_exits"] - before["ps_exits"] == 1
    # the model's wait: the exit latency, plus what was left of the entry (1 ms) at most
    wait = after["ps_exit_wait_ns"] - before["ps_exit_wait_ns"]
    assert 2000_000 <= wait <= 3000_000, wait
    assert after["ps_transitions"] - before["ps_transitions"] == 2     # 0 -> 2 -> 0
    # the OCP SMART log's Power State Change Count (bytes 200..207) is the same count
    cqe, log = nvme.get_log(0xC0, 512)
    assert cqe.ok and int.from_bytes(log[200:208], "little") == after["ps_transitions"]


# ---- Autonomous Power State Transition (0Ch)


def test_apst_set_then_get(device):
    dev = device()
    nvme = dev.nvme
    got, table = dev.get_apst()
    assert got.ok and got.dw0 == 0 and table == [0] * 32    # off, empty, at power-on
    entries = [apst_entry(2, 100), apst_entry(2, 250), apst_entry(0, 0)]
    # reserved bits (2:0, 63:32) are dropped; an entry past NPSS is ignored
    given = [entries[0] | 0b101 | 7 << 40, entries[1], 0] + [0] * 5 + [apst_entry(2, 9)]
    assert dev.set_apst(given).ok
    got, table = dev.get_apst()
    assert got.ok and got.dw0 == 1 and table == entries + [0] * 29
    for sel in (1, 2):
        got, table = dev.get_apst(sel)
        assert got.ok and got.dw0 == 0 and table == [0] * 32, f"SEL {sel}"
    got = nvme.get_features(FID_APST, sel=3)
    assert got.ok and got.dw0 == CAP_CHANGEABLE
    assert dev.set_apst(entries, enable=False).ok           # a table kept, APST off
    got, table = dev.get_apst()
    assert got.ok and got.dw0 == 0 and table == entries + [0] * 29


@pytest.mark.parametrize("bad", [
    [apst_entry(1, 100)],                   # PS1 is operational
    [apst_entry(0, 100)],                   # so is PS0
    [0, 0, apst_entry(3, 100)],             # PS3 does not exist
    [apst_entry(2, 100), apst_entry(31, 1)],
], ids=["operational", "ps0", "no-ps3", "ps31"])
def test_apst_refuses_a_transition_it_cannot_make(device, bad):
    dev = device()
    good = [apst_entry(2, 100)]
    assert dev.set_apst(good).ok
    assert_status(dev.set_apst(bad), SC_INVALID_FIELD)
    got, table = dev.get_apst()
    assert got.dw0 == 1 and table == good + [0] * 31        # nothing changed
    # ITPT 0: no transition, whatever ITPS says
    assert dev.set_apst([apst_entry(1, 0), apst_entry(31, 0)]).ok


def test_apst_data_transfer_statuses(device):
    dev = device()
    nvme = dev.nvme
    cmd = dict(cdw10=FID_APST, cdw11=1)
    cases = [(dict(prp1=0), SC_INVALID_FIELD),                          # no PRP1
             (dict(prp1=BAR_BASE), SC_DATA_TRANSFER_ERROR),             # not RAM
             (dict(prp1=nvme.mem.alloc(4096) + 2), SC_PRP_OFFSET_INVALID),
             (dict(prp1=nvme.mem.alloc(8192) + 4000), SC_INVALID_FIELD)]   # no PRP2
    for prps, code in cases:
        assert_status(nvme.admin(Command(ADM_SET_FEATURES, **cmd, **prps)), code)
        assert_status(nvme.admin(Command(ADM_GET_FEATURES, cdw10=FID_APST, **prps)), code)
    assert dev.get_apst()[0].dw0 == 0                        # nothing was set


def test_apst_moves_the_idle_drive_and_a_read_wakes_it(device):
    dev = device()
    nvme, sq = dev.nvme, dev.sq
    assert nvme.write(sq, 8, pattern(4096, 3)).ok
    before = dev.counters()
    assert dev.set_apst([apst_entry(2, 1), apst_entry(2, 1)]).ok    # PS0, PS1 -> PS2 in 1 ms
    wait_for(lambda: dev.state() == 2, what="APST to reach PS2")
    cqe, data = nvme.read(sq, 8, 8)
    assert cqe.ok and data == pattern(4096, 3)
    after = dev.counters()
    assert after["ps_exits"] - before["ps_exits"] == 1
    assert after["ps_exit_wait_ns"] - before["ps_exit_wait_ns"] >= 2000_000


def test_a_controller_reset_brings_the_defaults_back(device):
    dev = device()
    nvme = dev.nvme
    assert dev.set_apst([apst_entry(2, 1), apst_entry(2, 1)]).ok
    assert nvme.set_features(FID_PM, 1 | 3 << 5).ok
    nvme.disable()
    ready(nvme, io_queues=0)
    got, table = dev.get_apst()
    assert got.dw0 == 0 and table == [0] * 32
    assert nvme.get_features(FID_PM).dw0 == 0               # PS0 and no hint, in the FTL too
    # APST is off in the FTL too: 0.2 s of reads, 200 times its 1 ms, find PS0 each time
    for _ in range(20):
        time.sleep(0.01)
        assert dev.state() == 0


# ---- Recordings


def trace_records(trace):
    return [line.split() for line in trace.read_text().splitlines()
            if line and not line.startswith("#")]


def test_a_recording_holds_the_power_commands_and_replays_them(start, tmp_path,
                                                               run_ftl_sim):
    """With a table the device records version 8: the host's move to PS2 is a PS record,
    the Get a PG record, and ftl-sim's replay of the recording with the same table makes
    the same exit."""
    conf, trace = tmp_path / "power.conf", tmp_path / "power.trace"
    conf.write_text(conf_text(THREE))
    machine = start(f"config={conf},trace_out={trace}")
    nvme = machine.nvme
    sq = ready(nvme)[0]
    assert nvme.write(sq, 0, pattern(4096, 1)).ok
    assert nvme.set_features(FID_PM, 2).ok
    assert nvme.get_features(FID_PM).ok
    assert nvme.read(sq, 0, 8)[0].ok
    assert machine.qt.terminate() is not None
    got = trace_records(trace)
    assert got[0] == ["V", "8"]
    assert [r[0] for r in got if r[0] in ("W", "PS", "PG", "R")] == ["W", "PS", "PG", "R"]
    assert [r[2] for r in got if r[0] == "PS"] == ["2"]
    summary = tmp_path / "replay.json"
    run_ftl_sim("--config", conf, "--trace", trace, "--summary", summary)
    assert json.loads(summary.read_text())["ps_exits"] == 1


def test_one_state_answers_power_management_itself(start, tmp_path):
    """The default single state: Get and Set Features 02h (PS0) are answered by the
    device, the recording stays version 3 and goes on recording after them."""
    trace = tmp_path / "one.trace"
    machine = start(f"trace_out={trace}")
    nvme = machine.nvme
    sq = ready(nvme)[0]
    got = nvme.get_features(FID_PM)
    assert got.ok and got.dw0 == 0
    assert nvme.set_features(FID_PM, 0 | 2 << 5).ok            # PS0, workload hint 2
    assert nvme.get_features(FID_PM).dw0 == 2 << 5
    assert nvme.write(sq, 0, pattern(4096, 2)).ok
    assert machine.qt.terminate() is not None
    got = trace_records(trace)
    assert got[0] == ["V", "3"]
    assert [r[0] for r in got if r[0] in ("W", "PS", "PG")] == ["W"]


def test_no_thermal_management(start):
    """No temperature model: HCTMA (Identify Controller bytes 323:322) 0, and Host
    Controlled Thermal Management (Feature 10h) an unknown feature."""
    nvme = start().nvme
    ready(nvme, io_queues=0)
    _, data = nvme.identify(0x01)
    assert data[322:324] == b"\0\0"
    assert_status(nvme.get_features(0x10), SC_INVALID_FIELD)
    assert_status(nvme.set_features(0x10, 300 << 16 | 320), SC_INVALID_FIELD)


def test_a_property_shortens_the_config_files_table(start, repo_root):
    """lab-1g's five states with the property ps_count=3: PS0-PS2, all operational, so no
    APST (APSTA 0, 0Ch an unknown feature); a state set past it is refused at realize."""
    conf = repo_root / "conf" / "lab-1g.conf"
    nvme = start(f"config={conf},ps_count=3").nvme
    ready(nvme, io_queues=0)
    _, data = nvme.identify(0x01)
    assert data[263] == 2 and data[265] == 0                # NPSS 2, no APST
    assert data[2048 + 2 * 32:2048 + 2 * 32 + 2] == (300).to_bytes(2, "little")  # PS2 3 W
    assert data[2048 + 3 * 32:3072] == bytes(1024 - 3 * 32)
    assert_status(nvme.get_features(FID_APST), SC_INVALID_FIELD)
