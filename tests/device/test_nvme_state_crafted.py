"""Hostile state files whose checksums are right: a state file rewritten section by
section (CRCs and the end record recomputed), so the CRC check passes and the device's
own checks must catch what is wrong. Each one fails realize with one line naming the
problem; none crashes, aborts or hangs QEMU."""
import signal
import struct
import subprocess

import pytest

from femu_device import LAUNCH_TIMEOUT, MACHINE
from state_file_codec import as_ftl_sim, build, parse
from nvme_qtest import (IO_WRITE, SMALL_GEOMETRY, Machine, femu_only, nvme_qemu,  # noqa: F401
                        pattern, ready)

pytestmark = femu_only()

LBA = 512
NS_TABLE_HEAD = 8 + 40                    # NSIDs, ns_created, the controller's SMART
NS_RECORD = 8 + 3 * 8 + 16 + 40           # flags, extent, bytes, UUID, SMART


@pytest.fixture(scope="module")
def saved(nvme_qemu, tmp_path_factory):
    """A state of the small device (one namespace, 64 written LBAs) as sections."""
    folder = tmp_path_factory.mktemp("crafted")
    state = folder / "good.state"
    machine = Machine(nvme_qemu, folder, f"state_out={state}")
    try:
        sq = ready(machine.nvme)[0]
        xfer = machine.nvme.transfer(64 * LBA)
        machine.nvme.fill(xfer, pattern(64 * LBA, 4))
        assert machine.nvme.run(sq, machine.nvme.rw(sq, IO_WRITE, 0, 64, xfer)).ok
        machine.qt.terminate()
    finally:
        machine.qt.close()
    return parse(state.read_bytes())


def rewrite(saved, tmp_path, name, change):
    """A copy of the saved file with change(tag, payload) -> payload applied to every
    section (None drops the section)."""
    header, sections = saved
    changed = []
    for section_tag, payload in sections:
        payload = change(section_tag, payload)
        if payload is not None:
            changed.append((section_tag, payload))
    path = tmp_path / name
    path.write_bytes(build(header, changed))
    return path


def realize_line(nvme_qemu, path):
    proc = subprocess.run([str(nvme_qemu), *MACHINE, "-S", "-monitor", "stdio", "-device",
                           f"femu,{SMALL_GEOMETRY},state_in={path}"], input="quit\n",
                          capture_output=True, text=True, timeout=LAUNCH_TIMEOUT)
    assert proc.returncode == 1, f"exit {proc.returncode}: {proc.stderr}"
    assert proc.returncode != -signal.SIGABRT
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert f"state_in: {path}" in lines[0], lines[0]
    return lines[0]


def ns_field(payload, nsid, offset, fmt, value):
    """The namespace table with one field of one NSID's record replaced."""
    data = bytearray(payload)
    struct.pack_into(fmt, data, NS_TABLE_HEAD + (nsid - 1) * NS_RECORD + offset, value)
    return bytes(data)


def on(name, edit):
    tag = name.encode()
    return lambda section_tag, payload: edit(payload) if section_tag == tag else payload


def test_the_rewrite_itself_restores(nvme_qemu, saved, tmp_path):
    """The unchanged rewrite is a good file: the test's container code is right."""
    path = rewrite(saved, tmp_path, "same.state", lambda t, p: p)
    machine = Machine(nvme_qemu, tmp_path, f"state_in={path}")
    try:
        nvme = machine.nvme
        sq = ready(nvme)[0]
        xfer = nvme.transfer(64 * LBA)
        assert nvme.run(sq, nvme.rw(sq, 0x02, 0, 64, xfer)).ok
        assert nvme.contents(xfer) == pattern(64 * LBA, 4)
    finally:
        machine.qt.close()


CASES = [
    ("ns-beyond-capacity", on("DNST", lambda p: ns_field(p, 1, 16, "<Q", 1 << 40)),
     "do not fit"),
    ("ns-bad-format", on("DNST", lambda p: ns_field(p, 1, 3, "<B", 9)), "LBA format"),
    ("ns-bad-flag", on("DNST", lambda p: ns_field(p, 1, 1, "<B", 7)),
     "section DNST: namespace 1: attached 7 (0 or 1)"),
    ("ns-allocated-2", on("DNST", lambda p: ns_field(p, 1, 0, "<B", 2)),
     "section DNST: namespace 1: allocated 2 (0 or 1)"),
    ("ns-free-attached", on("DNST", lambda p: ns_field(p, 2, 1, "<B", 1)),
     "section DNST: namespace 2: attached 1, zoned 0 but not allocated"),
    ("ns-reserved", on("DNST", lambda p: ns_field(p, 1, 5, "<B", 3)),
     "section DNST: namespace 1: reserved byte 5 is 3 (0)"),
    ("ns-nsids", on("DNST", lambda p: struct.pack("<I", 31) + p[4:]),
     "section DNST: namespace table of 31 NSIDs, this device has 32"),
    ("ns-overlap", on("DNST", lambda p: ns_field(ns_field(ns_field(ns_field(
        p, 2, 0, "<B", 1), 2, 8, "<Q", 0), 2, 16, "<Q", 8), 2, 24, "<Q", 4096)),
     "overlap"),
    ("ns-zoned", on("DNST", lambda p: ns_field(p, 1, 2, "<B", 1)), "zoned"),
    ("ns-table-short", on("DNST", lambda p: p[:-8]), "namespace table"),
    ("no-ns-table", lambda t, p: None if t == b"DNST" else p, "namespace table"),
    ("written-outside", on("DNST", lambda p: ns_field(ns_field(ns_field(
        p, 1, 8, "<Q", 1024), 1, 16, "<Q", 4096), 1, 24, "<Q", 4096 * LBA)),
     "outside every namespace"),
    ("no-data", lambda t, p: None if t == b"DATA" else p, "DATA"),
    ("data-size", on("DATA", lambda p: struct.pack("<Q", 12345) + p[8:]), "DATA"),
    ("meta-data-word", on("META", lambda p: p.replace(b"data=present", b"data=perhaps")),
     "data="),
    ("no-conf", lambda t, p: None if t == b"CONF" else p, "CONF"),
    # the FTL's own sections: ftl_state_load checks them (and ftl_check afterwards)
    ("no-l2p", lambda t, p: None if t == b"FL2P" else p, "FL2P"),
    ("l2p-garbage", on("FL2P", lambda p: p[:-64] + bytes(b ^ 0x5A for b in p[-64:])), ""),
    ("p2l-garbage", on("FP2L", lambda p: p[:-64] + bytes(b ^ 0xA5 for b in p[-64:])), ""),
    ("lines-short", on("FLIN", lambda p: p[:len(p) // 2]), ""),
]


@pytest.mark.parametrize("name,change,words", CASES, ids=[c[0] for c in CASES])
def test_crafted_state_is_refused(nvme_qemu, saved, tmp_path, name, change, words):
    line = realize_line(nvme_qemu, rewrite(saved, tmp_path, name + ".state", change))
    assert words in line, line


def test_state_without_data_reads_zeroes(nvme_qemu, saved, tmp_path):
    """What ftl-sim writes (META data=absent, the FTL's sections only), made here from a
    device's file: the device starts from the FTL, warns once, counts the mapped LBAs as
    written (NUSE) and reads them as zeroes; namespaces= still applies."""
    path = rewrite(saved, tmp_path, "nodata.state", as_ftl_sim)
    machine = Machine(nvme_qemu, tmp_path, f"namespaces=2,state_in={path}")
    try:
        nvme = machine.nvme
        sq = ready(nvme)[0]
        for nsid, used in ((1, 64), (2, 0)):
            cqe, data = nvme.identify(0, nsid=nsid)
            assert cqe.ok and struct.unpack_from("<Q", data, 16)[0] == used, nsid
        xfer = nvme.transfer(64 * LBA)
        assert nvme.run(sq, nvme.rw(sq, 0x02, 0, 64, xfer)).ok
        assert nvme.contents(xfer) == bytes(64 * LBA)
        machine.nvme.fill(xfer, pattern(64 * LBA, 8))
        assert nvme.run(sq, nvme.rw(sq, IO_WRITE, 0, 64, xfer)).ok
        err = machine.qt.terminate()
    finally:
        machine.qt.close()
    warnings = [line for line in err.splitlines() if "holds no data" in line]
    assert len(warnings) == 1 and str(path) in warnings[0], err
    assert "written LBAs read as zeroes" in warnings[0]
