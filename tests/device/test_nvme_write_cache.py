"""The volatile write cache is the FTL's write buffer (write_buffer_sectors): Identify's
VWC bit 0 says whether there is one, Volatile Write Cache (feature 06h) switches it
through the FTL (WCE 0 drains it, then writes complete when programmed), a controller
reset turns it back on, and FUA writes are programmed before they complete. Without a
buffer there is no cache: 06h is Invalid Field, as NVMe has the host not ask for it.

When a page reaches flash is read from the OCP log's physical media units written (C0h
bytes 0-15: every flash program in bytes, from the FTL's counters as the last request
served left them), so each completion can be checked as it comes, not a second later."""
import csv
import struct

import pytest

from nvme_qtest import (IO_FLUSH, IO_WRITE, IO_WRITE_ZEROES, SC_FEATURE_NOT_SAVEABLE,
                        SC_INVALID_FIELD, Command, femu_only, nvme_qemu, pattern,  # noqa: F401
                        ready, start, wait_for)

pytestmark = femu_only()

FID_VWC = 0x06
LID_OCP = 0xC0
PAGE = 4096                 # the default geometry's flash page: 8 sectors of 512 B
SECTORS = PAGE // 512
BUFFER = "write_buffer_sectors=1024"
FUA = 1 << 30               # CDW12 of Write and Write Zeroes
SC_FEATURE_NOT_NS_SPECIFIC = 0x10F
CAP_CHANGEABLE = 1 << 2


def programmed_pages(nvme):
    cqe, data = nvme.get_log(LID_OCP, 512)
    assert cqe.ok, str(cqe)
    lo, hi = struct.unpack_from("<QQ", data, 0)
    assert (lo | hi << 64) % PAGE == 0
    return (lo | hi << 64) // PAGE


def assert_status(cqe, code):
    assert (cqe.code, cqe.dnr) == (code, True), str(cqe)


def write_page(nvme, sq, lpn, seed, fua=False):
    xfer = nvme.transfer(PAGE)
    nvme.fill(xfer, pattern(PAGE, seed))
    cmd = nvme.rw(sq, IO_WRITE, lpn * SECTORS, SECTORS, xfer)
    cmd.cdw12 |= FUA if fua else 0
    return nvme.run(sq, cmd)


def write_zeroes_page(nvme, sq, lpn, fua=False):
    return nvme.run(sq, Command(IO_WRITE_ZEROES, nsid=1, cdw10=lpn * SECTORS,
                                cdw12=(SECTORS - 1) | (FUA if fua else 0)))


def stats_sum(path, column):
    if not path.exists():
        return 0
    with open(path, newline="") as f:
        return sum(int(row[column] or 0) for row in csv.DictReader(f)
                   if None not in row.values())


# ---- Identify


@pytest.mark.parametrize("props,vwc", [("", 0x06), (BUFFER, 0x07)], ids=["none", "buffer"])
def test_vwc_present_only_with_a_write_buffer(start, props, vwc):
    """Bit 0 (VWCP) with a buffer; bits 2:1 (FB) 11b either way: Flush takes NSID
    FFFFFFFFh, and without a cache it has no effect and succeeds."""
    nvme = start(props).nvme
    sq = ready(nvme)[0]
    cqe, data = nvme.identify(0x01)
    assert cqe.ok and data[525] == vwc
    assert nvme.run(sq, Command(IO_FLUSH, nsid=0xFFFFFFFF)).ok


# ---- without a write buffer


def test_without_a_cache_the_feature_is_not_there(start):
    nvme = start().nvme
    sq = ready(nvme)[0]
    for sel in range(4):
        assert_status(nvme.get_features(FID_VWC, sel=sel), SC_INVALID_FIELD)
    for wce in (0, 1):
        assert_status(nvme.set_features(FID_VWC, wce), SC_INVALID_FIELD)
    # every write is programmed when it completes, FUA or not
    assert write_page(nvme, sq, 0, 1).ok and programmed_pages(nvme) == 1
    assert write_page(nvme, sq, 1, 2, fua=True).ok and programmed_pages(nvme) == 2
    assert nvme.run(sq, Command(IO_FLUSH, nsid=1)).ok and programmed_pages(nvme) == 2


# ---- with a write buffer: Volatile Write Cache


def test_write_cache_is_on_by_default_and_not_saveable(start):
    nvme = start(BUFFER).nvme
    ready(nvme, io_queues=0)
    for sel in (0, 1, 2):                           # current, default, saved (= default)
        got = nvme.get_features(FID_VWC, sel=sel)
        assert got.ok and got.dw0 == 1, f"SEL {sel}: {got}"
    got = nvme.get_features(FID_VWC, sel=3)
    assert got.ok and got.dw0 == CAP_CHANGEABLE     # not saveable, not per namespace
    assert_status(nvme.set_features(FID_VWC, 0, save=True), SC_FEATURE_NOT_SAVEABLE)
    assert_status(nvme.set_features(FID_VWC, 0, nsid=1), SC_FEATURE_NOT_NS_SPECIFIC)
    assert nvme.get_features(FID_VWC).dw0 == 1      # neither changed it


def test_write_cache_off_drains_then_writes_are_programmed_at_completion(start, tmp_path):
    stats = tmp_path / "stats"
    nvme = start(f"{BUFFER},stats_dir={stats}").nvme
    sq = ready(nvme)[0]
    for lpn in range(4):
        assert write_page(nvme, sq, lpn, lpn).ok
    assert programmed_pages(nvme) == 0                  # buffered
    assert nvme.set_features(FID_VWC, 0).ok             # completes after the drain
    assert programmed_pages(nvme) == 4
    assert nvme.get_features(FID_VWC).dw0 == 0
    for i, lpn in enumerate((10, 11, 10)):
        assert write_page(nvme, sq, lpn, 20 + i).ok
        assert programmed_pages(nvme) == 5 + i          # each one on flash when done
    assert nvme.set_features(FID_VWC, 0).ok             # off again: nothing to drain
    assert programmed_pages(nvme) == 7
    assert nvme.set_features(FID_VWC, 1).ok
    assert nvme.get_features(FID_VWC).dw0 == 1
    for lpn in (20, 21):
        assert write_page(nvme, sq, lpn, lpn).ok
    assert programmed_pages(nvme) == 7                  # buffered again
    cqe, data = nvme.read(sq, 10 * SECTORS, SECTORS)
    assert cqe.ok and data == pattern(PAGE, 22)
    # the statistics see the same: the drain's 4 pages went through the buffer
    wait_for(lambda: stats_sum(stats / "stats.csv", "nand_user_programs") == 7,
             what="7 user programs in stats.csv")
    assert stats_sum(stats / "stats.csv", "buf_flushed_pages") == 4
    assert nvme.run(sq, Command(IO_FLUSH, nsid=1)).ok   # Flush still drains
    assert programmed_pages(nvme) == 9


def test_a_controller_reset_turns_the_cache_back_on(start):
    nvme = start(BUFFER).nvme
    ready(nvme)
    assert nvme.set_features(FID_VWC, 0).ok
    nvme.disable()                                      # CC.EN 0: a controller reset
    sq = ready(nvme)[0]
    assert nvme.get_features(FID_VWC).dw0 == 1
    assert write_page(nvme, sq, 0, 1).ok
    assert programmed_pages(nvme) == 0                  # buffered: the FTL's cache is on


# ---- FUA


def test_fua_writes_are_programmed_at_completion(start):
    nvme = start(BUFFER).nvme
    sq = ready(nvme)[0]
    assert write_page(nvme, sq, 0, 1).ok and programmed_pages(nvme) == 0
    assert write_page(nvme, sq, 1, 2, fua=True).ok and programmed_pages(nvme) == 1
    assert write_zeroes_page(nvme, sq, 2).ok and programmed_pages(nvme) == 1
    assert write_zeroes_page(nvme, sq, 3, fua=True).ok and programmed_pages(nvme) == 2
    # A FUA write of one sector of a page whose other sector is buffered takes it along:
    # one program holds both, and the buffer keeps nothing of that page.
    one = pattern(512, 7)
    assert nvme.write(sq, 5 * SECTORS, one).ok and programmed_pages(nvme) == 2
    xfer = nvme.transfer(512)
    nvme.fill(xfer, pattern(512, 8))
    cmd = nvme.rw(sq, IO_WRITE, 5 * SECTORS + 1, 1, xfer)
    cmd.cdw12 |= FUA
    assert nvme.run(sq, cmd).ok and programmed_pages(nvme) == 3
    assert nvme.run(sq, Command(IO_FLUSH, nsid=1)).ok
    assert programmed_pages(nvme) == 5                  # pages 0 and 2; not page 5 again
    cqe, data = nvme.read(sq, 5 * SECTORS, 2)
    assert cqe.ok and data == one + pattern(512, 8)
