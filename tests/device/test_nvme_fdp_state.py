"""Flexible Data Placement in state files (section DFDP, cmd/fdp/fdp_state.c): what a save keeps
(FDP on or off and its saved value, each namespace's placement handle list, the saved
event enables, the FDP statistics and events) and what the restore makes of it (a
power-on: the saved features take effect, 1Dh only where no namespace pins the current
value); a state without the section (older files) restores as before; a section that is
wrong in any field fails realize with one line naming the file and the field."""
import struct

import pytest

from nvme_qtest import (IO_WRITE, SMALL_GEOMETRY, Machine, femu_only, nvme_qemu,  # noqa: F401
                        pattern, ready, start)  # noqa: F401
from state_file_codec import as_ftl_sim, build, parse
from test_nvme_fdp import (EVT_INVALID_PID, EVT_NOT_FULLY_WRITTEN, EVT_TIME_LIMIT, FDP,
                           LID_USAGE, SC_FDP_DISABLED, SC_INVALID_FIELD, attach, create_ns,
                           delete_all, enable_events, events, get_events, get_fdp, get_log,
                           handles, reset, ruh_update, set_fdp, stats, usage, write)

pytestmark = femu_only()

RUHS = 4                                   # FDP's fdp_ruhs
HEAD = 48                                  # DFDP: version .. statistics' origin
MASKS = HEAD                               # saved 1Eh enables, a u32 per RUH
LISTS = MASKS + 4 * RUHS                   # per NSID: NPHNDLS, chosen, RUHS bytes
LIST_BYTES = 2 + RUHS
NUMFDPE = LISTS + 32 * LIST_BYTES
EVENTS = NUMFDPE + 4


def restart(start, state):
    """A device restoring state, enabled with one I/O queue pair."""
    machine = start(f"{FDP},state_in={state}")
    return machine, ready(machine.nvme)[0]


def save(machine):
    """A clean exit: QEMU writes state_out."""
    assert machine.qt.terminate() is not None and machine.qt.returncode == 0


def enables(nvme, phndl, nsid, sel=0):
    cqe, got = get_events(nvme, phndl=phndl, nsid=nsid, sel=sel)
    assert cqe.ok, str(cqe)
    return {t for t, on in got.items() if on}


def ruhids(nvme, sq, nsid):
    return {pid: ruhid for pid, (ruhid, _, _) in handles(nvme, sq, nsid=nsid).items()}


def allocated(nvme):
    cqe, data = nvme.identify(0x10)
    assert cqe.ok
    return [i for i in struct.unpack("<1024I", data) if i]


# ---------------------------------------------------------------- round trips

def test_handle_lists_enables_events_and_statistics_survive(start, tmp_path):
    state = tmp_path / "fdp.state"
    machine = start(f"{FDP},state_out={state}")
    nvme = machine.nvme
    sq = ready(nvme)[0]
    delete_all(nvme)
    first = create_ns(nvme, 4096, handles_list=[1, 3])
    second = create_ns(nvme, 4096)                             # the controller's: RUH 0
    third = create_ns(nvme, 1024, handles_list=[2])            # never attached
    assert first.ok and second.ok and third.ok
    a, b, c = first.dw0, second.dw0, third.dw0
    assert attach(nvme, a).ok and attach(nvme, b).ok
    enable_events(nvme, [EVT_NOT_FULLY_WRITTEN], phndl=0, nsid=a, save=True)     # RUH 1
    enable_events(nvme, [EVT_INVALID_PID], phndl=1, nsid=a)                      # RUH 3
    enable_events(nvme, [EVT_INVALID_PID, EVT_TIME_LIMIT], phndl=0, nsid=b, save=True)
    assert write(nvme, sq, 0, pattern(8 * 4096, 1), pid=0, nsid=a).ok
    assert write(nvme, sq, 64, pattern(4096, 2), pid=7, nsid=b).ok              # an event
    assert ruh_update(nvme, sq, [0], nsid=a).ok                                 # another
    before = dict(usage=usage(nvme), events=events(nvme), stats=stats(nvme),
                  a=ruhids(nvme, sq, a), b=ruhids(nvme, sq, b))
    assert len(before["events"]) == 2 and before["usage"] == [2, 1, 1, 1]
    saved = {(0, a): {EVT_NOT_FULLY_WRITTEN}, (1, a): set(),
             (0, b): {EVT_INVALID_PID, EVT_TIME_LIMIT}}
    assert {key: enables(nvme, *key, sel=2) for key in saved} == saved
    save(machine)

    machine, sq = restart(start, state)
    nvme = machine.nvme
    assert allocated(nvme) == [a, b, c]
    after = dict(usage=usage(nvme), events=events(nvme), stats=stats(nvme),
                 a=ruhids(nvme, sq, a), b=ruhids(nvme, sq, b))
    assert after == before
    assert before["a"] == {0: 1, 1: 3} and before["b"] == {0: 0}
    # a power-on: the saved enables are the current ones, those never saved are gone
    assert {key: enables(nvme, *key, sel=2) for key in saved} == saved
    assert {key: enables(nvme, *key) for key in saved} == saved
    assert [get_fdp(nvme, sel=sel).dw0 for sel in (0, 2)] == [1, 1]
    assert attach(nvme, c).ok and ruhids(nvme, sq, c) == {0: 2}
    cqe = create_ns(nvme, 1024)                                # the controller's again
    assert cqe.ok and attach(nvme, cqe.dw0).ok and ruhids(nvme, sq, cqe.dw0) == {0: 0}
    assert write(nvme, sq, 0, pattern(4096, 3), pid=9, nsid=b).ok    # the list goes on
    got = events(nvme)
    assert got[:2] == before["events"] and (got[2]["type"], got[2]["pid"]) == \
        (EVT_INVALID_PID, 9)


def test_fdp_off_survives_with_its_saved_value(start, tmp_path):
    state = tmp_path / "off.state"
    machine = start(f"{FDP},state_out={state}")
    nvme = machine.nvme
    ready(nvme, io_queues=0)
    delete_all(nvme)
    assert set_fdp(nvme, False, save=True).ok
    cqe = create_ns(nvme, 2048)
    assert cqe.ok and attach(nvme, cqe.dw0).ok
    nsid = cqe.dw0
    save(machine)

    machine, sq = restart(start, state)
    nvme = machine.nvme
    assert [get_fdp(nvme, sel=sel).dw0 for sel in (0, 1, 2)] == [0, 1, 0]
    assert get_log(nvme, LID_USAGE, 64)[0].code == SC_FDP_DISABLED
    assert write(nvme, sq, 0, pattern(4096, 1), pid=0, nsid=nsid).code == SC_INVALID_FIELD
    assert write(nvme, sq, 0, pattern(4096, 1), nsid=nsid).ok     # no DTYPE: written


def test_a_restore_keeps_the_configuration_its_namespaces_pin(start, tmp_path):
    """Saved off, on for now, a namespace made under it: the restored device is on (the
    namespace pins it), still saved off; with the namespace gone a reset turns FDP off."""
    state = tmp_path / "pinned.state"
    machine = start(f"{FDP},state_out={state}")
    nvme = machine.nvme
    ready(nvme, io_queues=0)
    delete_all(nvme)
    assert set_fdp(nvme, False, save=True).ok and set_fdp(nvme, True).ok
    cqe = create_ns(nvme, 2048, handles_list=[3])
    assert cqe.ok and attach(nvme, cqe.dw0).ok
    save(machine)

    machine, sq = restart(start, state)
    nvme = machine.nvme
    assert [get_fdp(nvme, sel=sel).dw0 for sel in (0, 2)] == [1, 0]
    assert ruhids(nvme, sq, cqe.dw0) == {0: 3}
    delete_all(nvme)
    reset(nvme)
    assert [get_fdp(nvme, sel=sel).dw0 for sel in (0, 2)] == [0, 0]


def test_a_restore_with_the_group_empty_takes_the_saved_value(start, tmp_path):
    state = tmp_path / "empty.state"
    machine = start(f"{FDP},state_out={state}")
    nvme = machine.nvme
    ready(nvme, io_queues=0)
    delete_all(nvme)
    assert set_fdp(nvme, False, save=True).ok and set_fdp(nvme, True).ok
    save(machine)

    machine, _ = restart(start, state)
    assert [get_fdp(machine.nvme, sel=sel).dw0 for sel in (0, 2)] == [0, 0]


# ---------------------------------------------------------------- hostile sections

@pytest.fixture(scope="module")
def saved(nvme_qemu, tmp_path_factory):
    """A state of an FDP device (namespace 1 with every handle, one saved enable, one
    event) as sections."""
    folder = tmp_path_factory.mktemp("fdp-crafted")
    state = folder / "good.state"
    machine = Machine(nvme_qemu, folder, f"{FDP},state_out={state}")
    try:
        nvme = machine.nvme
        sq = ready(nvme)[0]
        enable_events(nvme, [EVT_INVALID_PID], phndl=2, save=True)
        assert write(nvme, sq, 0, pattern(4096, 4), pid=2).ok
        enable_events(nvme, [EVT_INVALID_PID], phndl=0)
        assert write(nvme, sq, 8, pattern(4096, 5), pid=6).ok          # one event
        save(machine)
    finally:
        machine.qt.close()
    header, sections = parse(state.read_bytes())
    dfdp = dict(sections)[b"DFDP"]
    assert len(dfdp) == EVENTS + 64 and struct.unpack_from("<I", dfdp, NUMFDPE)[0] == 1
    return header, sections


def rewrite(saved, path, change):
    header, sections = saved
    out = []
    for tag, payload in sections:
        payload = change(tag, payload)
        if payload is not None:
            out.append((tag, payload))
    path.write_bytes(build(header, out))
    return path


def dfdp(edit):
    """A change of the DFDP section only: edit(bytearray) changes it in place (or returns
    the new payload)."""
    def change(tag, payload):
        if tag != b"DFDP":
            return payload
        data = bytearray(payload)
        return bytes(edit(data) or data)
    return change


def put(fmt, offset, value):
    return lambda data: struct.pack_into(fmt, data, offset, value)


def realize_line(launch, path):
    proc = launch(f"femu,{SMALL_GEOMETRY},{FDP},state_in={path}")
    assert proc.returncode == 1, f"exit {proc.returncode}: {proc.stderr}"
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert f"state_in: {path}" in lines[0], lines[0]
    return lines[0]


def test_the_rewrite_itself_restores(start, saved, tmp_path):
    path = rewrite(saved, tmp_path / "same.state", lambda tag, payload: payload)
    machine, sq = restart(start, path)
    nvme = machine.nvme
    assert enables(nvme, 2, 1) == {EVT_INVALID_PID} and enables(nvme, 0, 1) == set()
    got = events(nvme)
    assert [(e["type"], e["pid"], e["ruhid"]) for e in got] == [(EVT_INVALID_PID, 6, 0)]


def test_a_state_without_dfdp_restores_as_before(start, saved, tmp_path):
    """An older file (no DFDP): FDP on, every namespace every handle, nothing saved."""
    path = rewrite(saved, tmp_path / "old.state",
                   lambda tag, payload: None if tag == b"DFDP" else payload)
    machine, sq = restart(start, path)
    nvme = machine.nvme
    assert ruhids(nvme, sq, 1) == {p: p for p in range(RUHS)} and usage(nvme) == [1] * RUHS
    assert enables(nvme, 2, 1, sel=2) == set() and events(nvme) == []
    assert [get_fdp(nvme, sel=sel).dw0 for sel in (0, 2)] == [1, 1]


EVENT0 = EVENTS                            # the one event's record


@pytest.mark.parametrize("name,edit,field", [
    ("version", put("<I", 0, 2), "not version 1"),
    ("head-short", lambda d: d[:HEAD - 8], "shorter than its header"),
    ("nruh", put("<I", 4, 8), "NRUH 8"),
    ("nsids", put("<I", 8, 31), "31 NSIDs"),
    ("fdpe", put("<B", 12, 2), "FDPE 2"),
    ("fdpcidx", put("<B", 13, 1), "FDPCIDX 1"),
    ("saved-fdpe", put("<B", 14, 7), "saved FDPE 7"),
    ("base", put("<Q", 16, 1 << 40), "host bytes"),
    ("erases", put("<Q", 40, 1 << 40), "erased blocks"),
    ("saved-enables", put("<I", MASKS + 4, 0x10), "saved event enables 0x10 of RUH 1"),
    ("ruh-past-nruh", put("<B", LISTS + 2 + 1, 4), "placement handle 1 names RUH 4"),
    ("ruh-twice", put("<B", LISTS + 2 + 1, 0), "placement handle 1 names RUH 0"),
    ("past-the-list", lambda d: d.__setitem__(slice(LISTS, LISTS + 2), b"\x02\x00"),
     "placement handle 2 names RUH 2"),
    ("too-many", put("<B", LISTS, 5), "5 placement handles"),
    ("none", lambda d: d.__setitem__(slice(LISTS, LISTS + LIST_BYTES), bytes(LIST_BYTES)),
     "namespace 1: 0 placement handles"),
    ("unallocated", put("<B", LISTS + 29 * LIST_BYTES, 1), "namespace 30: 1 placement"),
    ("chosen-of-four", put("<B", LISTS + 1, 1), "chosen 1 with 4 placement handles"),
    ("numfdpe", put("<I", NUMFDPE, 2), "NUMFDPE 2"),
    ("short", lambda d: d[:-1], "bytes with NUMFDPE 1"),
    ("event-type", put("<B", EVENT0, 9), "event 0: an event type"),
    ("event-flags", put("<B", EVENT0 + 1, 0x07 | 0x08), "event 0: its flags"),
    ("event-nsid", put("<I", EVENT0 + 12, 40), "event 0: its PID or NSID"),
    ("event-ruhid", put("<B", EVENT0 + 34, RUHS), "event 0: its reclaim group"),
    ("event-reserved", put("<B", EVENT0 + 20, 1), "event 0: type specific or reserved"),
    ("event-vendor", put("<I", EVENT0 + 48, 5), "event 0: its vendor specific"),
    ("events-with-fdp-off",
     lambda d: (d.__setitem__(12, 0),
                d.__setitem__(slice(LISTS, NUMFDPE), bytes(NUMFDPE - LISTS))) and None,
     "1 events with FDP off"),
])
def test_a_bad_dfdp_field_fails_realize_with_one_line(launch, saved, tmp_path, name, edit,
                                                       field):
    path = rewrite(saved, tmp_path / f"{name}.state", dfdp(edit))
    line = realize_line(launch, path)
    assert "section DFDP" in line and field in line, line


def test_an_oversized_dfdp_is_refused_unread(launch, saved, tmp_path):
    """The reader's limit: at most 63 events of this configuration's size."""
    path = rewrite(saved, tmp_path / "big.state",
                   dfdp(lambda data: bytes(data) + bytes(64 * 64)))
    line = realize_line(launch, path)
    assert "DFDP" in line and "at most" in line, line


def test_dfdp_in_a_state_without_the_device_sections(launch, saved, tmp_path):
    def change(tag, payload):
        return payload if tag == b"DFDP" else as_ftl_sim(tag, payload)
    line = realize_line(launch, rewrite(saved, tmp_path / "sim.state", change))
    assert "section DFDP" in line and "data=absent" in line, line


def test_a_device_without_fdp_refuses_dfdp(launch, saved, tmp_path):
    """Without placement=fdp DFDP is no section of the device's state: refused unread."""
    path = rewrite(saved, tmp_path / "nofdp.state", lambda tag, payload: payload)
    proc = launch(f"femu,{SMALL_GEOMETRY},state_in={path}")
    assert proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "section DFDP: not a section" in lines[0], proc.stderr
