"""Device state files of every layout the device has written still load: each file in
kept_states/ was written by the code of its version (kept_states/README.md says which
commit and how) and holds the same device (kept_states/make_kept_state.py). The device's
own sections' layouts:
  1  DNST, DWRT, DUNC, DATA (from the first device state files to d609bb0)
  2  the same and DFDP version 1 (aaa64d9 on)
A file of today's layout restored and saved again at once is byte-identical in the
device's sections: the state file's codecs write what the code that wrote it did."""
import shutil
import struct
from pathlib import Path

import pytest

from nvme_qtest import IO_READ, Machine, femu_only, nvme_qemu, pattern, ready  # noqa: F401
from state_file_codec import DEVICE_TAGS, parse
from test_nvme_fdp import EVT_INVALID_PID, FDP, events, get_events, handles
from kept_states.make_kept_state import LBAS

pytestmark = femu_only()

KEPT = Path(__file__).resolve().parent / "kept_states"
LBA = 512
EVERY_RUH = {0: 0, 1: 1, 2: 2, 3: 3}        # a namespace of a file of before DFDP
# file, device layout, each namespace's placement handles, the host events kept
FILES = [
    ("layout1-before-dfdp.state", 1, {1: EVERY_RUH, 2: EVERY_RUH}, []),
    ("layout2-dfdp1.state", 2, {1: {0: 1, 1: 3}, 2: {0: 0}}, [(EVT_INVALID_PID, 7, 2)]),
]


def read(nvme, sq, nsid, nlb):
    xfer = nvme.transfer(nlb * LBA)
    cqe = nvme.run(sq, nvme.rw(sq, IO_READ, 0, nlb, xfer, nsid=nsid))
    assert cqe.ok, f"read nsid {nsid}: {cqe}"
    return nvme.contents(xfer)


def nuse(nvme, nsid):
    cqe, data = nvme.identify(0, nsid=nsid)
    assert cqe.ok, str(cqe)
    return struct.unpack_from("<Q", data, 16)[0]


@pytest.mark.parametrize("name,layout,lists,kept_events", FILES, ids=[f[0] for f in FILES])
def test_a_kept_state_file_loads_with_what_it_holds(nvme_qemu, tmp_path, name, layout,
                                                    lists, kept_events):
    path = tmp_path / name
    shutil.copyfile(KEPT / name, path)
    assert (b"DFDP" in dict(parse(path.read_bytes())[1])) == (layout >= 2)
    machine = Machine(nvme_qemu, tmp_path, f"{FDP},state_in={path}")
    try:
        nvme = machine.nvme
        sq = ready(nvme)[0]
        for nsid, seed in ((1, 1), (2, 2)):
            assert nuse(nvme, nsid) == LBAS
            assert read(nvme, sq, nsid, LBAS) == pattern(LBAS * LBA, seed)
            assert {pid: ruh for pid, (ruh, _, _) in handles(nvme, sq, nsid).items()} == \
                lists[nsid]
        assert [(e["type"], e["pid"], e["nsid"]) for e in events(nvme)] == kept_events
        cqe, saved = get_events(nvme, phndl=0, nsid=2, sel=2)
        assert cqe.ok and saved[EVT_INVALID_PID] == (layout >= 2)
    finally:
        machine.qt.close()


def test_todays_layout_saves_again_byte_identical(nvme_qemu, tmp_path):
    """Restored and saved at once, with nothing done between: the device's sections come
    out as the kept file holds them, in the same order. (The FTL's sections are written in
    today's FTL layout, which may have gained sections since: test_state_versions.c.)"""
    kept = KEPT / FILES[-1][0]
    out = tmp_path / "again.state"
    machine = Machine(nvme_qemu, tmp_path, f"{FDP},state_in={kept},state_out={out}")
    try:
        assert machine.qt.terminate() is not None and machine.qt.returncode == 0
    finally:
        machine.qt.close()
    before, after = parse(kept.read_bytes())[1], parse(out.read_bytes())[1]
    assert [tag for tag, _ in after if tag in DEVICE_TAGS] == \
        [tag for tag, _ in before if tag in DEVICE_TAGS]
    device = [(tag, payload) for tag, payload in before if tag in DEVICE_TAGS]
    assert [(tag, payload) for tag, payload in after if tag in DEVICE_TAGS] == device
    assert len(device) == len(DEVICE_TAGS)
