"""Zone Random Write Areas from a trixie guest (nvme-cli 2.13) on the femu zoned namespace
of conf/zns-lab.conf with two ZRWA resources: `nvme zns id-ns` shows NUMZRWA, ZRWAFG,
ZRWAS and ZRWACAP (checked in its text and in the raw structure), Open with ZRWAA, writes
and a rewrite in the window that leave the reported write pointer where it was, the
newest data read back, an explicit flush and an implicit commit moving the write pointer
by whole ZRWAFG units, the refusals (a flush off a unit boundary, a write below the write
pointer, an append), Finish, and the device's ZRWA counters in stats.csv.

Geometry: 512-byte LBAs, 4 KiB flash pages, zones of 4 MiB = 8192 LBAs; zone 1 starts at
LBA 8192 (0x2000). ZRWAFG = 8 KiB = 16 LBAs, ZRWAS = 32 KiB = 64 LBAs. Every value below
is worked out by hand from those numbers (jobs/zrwa_guest.sh names the LBAs)."""
import re
import struct
from pathlib import Path

import pytest

from femu_fixtures import (driver_trouble, femu_qemu, job_with_steps,  # noqa: F401
                           read_csv)
from femu_lab import paths
from femu_lab.vm import launch as vm

pytestmark = pytest.mark.vm

JOB = Path(__file__).resolve().parent / "jobs" / "zrwa_guest.sh"
ZNS_LAB = paths.REPO_ROOT / "conf" / "zns-lab.conf"
ZRWA = dict(zrwa_zones=2, zrwa_flush_gran="8k", zrwa_size="32k")
Z, FG, WINDOW = 8192, 16, 64          # zone 1's start, ZRWAFG and ZRWAS in LBAs
ZONE_LBAS = 8192
LBA = 512
PAGE_LBAS = 8

# Zone states as nvme-cli prints the descriptor's state byte (ZS in the upper nibble).
EXP_OPEN, FULL = 0x30, 0xE0
ZA_ZRWAV = 0x08
# NVMe statuses (SCT << 8 | SC) as nvme-cli shows them, DNR and More masked off.
SC_INVALID_FIELD, SC_INVALID_ZONE_OP, SC_ZONE_INVALID_WRITE = 0x002, 0x1B6, 0x1BC
EXPECTED_FAILURES = {"flush-odd": SC_INVALID_FIELD, "write-below": SC_ZONE_INVALID_WRITE,
                     "append": SC_INVALID_ZONE_OP}

STEP_LINE = re.compile(r"^STEP (?P<name>\S+) rc=(?P<rc>-?\d+)")
STATUS_LINE = re.compile(r"NVMe status: [^\n]*\((?P<code>0x[0-9a-fA-F]+)\)")
ZONE_LINE = re.compile(r"SLBA: (?P<slba>0x[0-9a-f]+|0)\s+WP: (?P<wp>0x[0-9a-f]+|0)\s.*"
                       r"State: (?P<state>0x[0-9a-f]+|0)\s.*Attrs: (?P<attrs>0x[0-9a-f]+|0)")


class ZrwaRun:
    def __init__(self, result, stats: Path):
        self.result, self.stats = result, stats
        self.steps = {}
        for line in self.text("steps.txt").splitlines():
            match = STEP_LINE.match(line)
            assert match, f"unparseable step line {line!r}"
            self.steps[match["name"]] = int(match["rc"])

    def text(self, name: str) -> str:
        return self.result.text(name) if name in self.result.files else ""

    def detail(self, name: str) -> str:
        return (f"[{name}] stdout: {self.text(name + '.out').strip()[-1500:] or '-'}\n"
                f"[{name}] stderr: {self.text(name + '.err').strip()[-1500:] or '-'}")

    def out(self, name: str) -> str:
        assert self.steps.get(name) == 0, f"step {name}: rc {self.steps.get(name)}\n" \
                                          f"{self.detail(name)}"
        return self.text(name + ".out")

    def status(self, name: str) -> int:
        assert self.steps.get(name, 0) != 0, f"step {name} succeeded or never ran"
        match = STATUS_LINE.search(self.text(name + ".err") + self.text(name + ".out"))
        assert match, f"step {name}: no 'NVMe status:' line\n{self.detail(name)}"
        return int(match["code"], 16) & 0x7FF

    def zone(self, name: str):
        """(WP, state, attributes) of zone 1 in a report step."""
        lines = [line for line in self.out(name).splitlines() if "SLBA:" in line]
        assert len(lines) == 1, self.detail(name)
        match = ZONE_LINE.search(lines[0])
        assert match and int(match["slba"], 16) == Z, lines[0]
        return int(match["wp"], 16), int(match["state"], 16), int(match["attrs"], 16)

    def stat(self, column: str) -> int:
        rows = read_csv(self.stats / "stats.csv")
        assert column in rows[0], f"stats.csv has no {column}"
        return sum(int(row[column]) for row in rows)


@pytest.fixture(scope="module")
def zrwa(image, femu_qemu, tmp_path_factory):  # noqa: F811
    if image.manifest["release"] != "trixie":
        pytest.skip(f"the {image.manifest['release']} guest: written for trixie's nvme-cli "
                    "2.13 (open-zone --zrwaa, zrwa-flush-zone)")
    base = tmp_path_factory.mktemp("zrwa")
    script = job_with_steps(JOB, dict(Z=Z, FG=FG, WINDOW=WINDOW))
    script += '\ndmesg > "$FEMU_OUT/dmesg.txt"\n'
    spec = vm.VmSpec(job=script, qemu=str(femu_qemu), kernel=image.kernel,
                     initramfs=image.initramfs,
                     device_args=vm.femu_args(config=ZNS_LAB, stats_dir=base / "stats",
                                              **ZRWA),
                     job_timeout=240, timeout=330)
    result = vm.run(spec, base / "run", quiet=True)
    print(result.summary())
    assert result.complete, result.summary()
    return ZrwaRun(result, base / "stats")


def test_every_step_has_the_expected_outcome(zrwa):
    assert list(zrwa.steps)[-1:] == ["end"], zrwa.text("job.log")[-2000:]
    for name, rc in zrwa.steps.items():
        if name in EXPECTED_FAILURES:
            assert zrwa.status(name) == EXPECTED_FAILURES[name], zrwa.detail(name)
        else:
            assert rc == 0, zrwa.detail(name)
    assert not driver_trouble(zrwa.text("dmesg.txt"))


def test_identify_shows_the_zrwa_fields(zrwa):
    raw = zrwa.result.files["id-ns-bin.out"]
    assert len(raw) == 4096, len(raw)
    assert struct.unpack_from("<H", raw, 2)[0] == 0b11       # OZCS: RAZB, ZRWASUP
    # NUMZRWA (0's based), ZRWAFG, ZRWAS (LBAs), ZRWACAP (explicit flush)
    assert struct.unpack_from("<IHHB", raw, 44) == (1, FG, WINDOW, 1)
    fields = dict(re.findall(r"^(\w+)\s*:\s*(\S+)", zrwa.out("id-ns"), re.MULTILINE))
    assert {key: int(fields[key], 0) for key in ("ozcs", "numzrwa", "zrwafg", "zrwasz",
                                                  "zrwacap")} == \
        dict(ozcs=3, numzrwa=1, zrwafg=FG, zrwasz=WINDOW, zrwacap=1), fields


def test_write_pointer_moves_by_whole_units(zrwa):
    # opened with a ZRWA; 32 LBAs written and rewritten in the window: nothing committed
    assert zrwa.zone("report-open") == (Z, EXP_OPEN, ZA_ZRWAV)
    assert zrwa.zone("report-written") == (Z, EXP_OPEN, ZA_ZRWAV)
    # flush up to Z + 15: one unit
    assert zrwa.zone("report-flushed") == (Z + FG, EXP_OPEN, ZA_ZRWAV)
    # Z + 68 .. Z + 87 ends 8 past wp + ZRWAS (Z + 80): the fewest whole units bringing
    # Z + 88 inside the window are one (wp Z + 32: Z + 32 + 64 >= Z + 88)
    assert zrwa.zone("report-implicit") == (Z + 2 * FG, EXP_OPEN, ZA_ZRWAV)
    # Finish: the window committed and freed, the zone full
    assert zrwa.zone("report-finished") == (Z + ZONE_LBAS, FULL, 0)


def test_reads_give_the_newest_data(zrwa):
    # A's 8 LBAs with B over the last 4, then C's 24 (read from the window)
    first = b"A" * (4 * LBA) + b"B" * (4 * LBA) + b"C" * (24 * LBA)
    assert zrwa.result.files["read-1.bin"] == first
    # after Finish: the same, LBAs 32-67 never written (zeroes), D's 20, zeroes to 128
    second = first + bytes(36 * LBA) + b"D" * (20 * LBA) + bytes(40 * LBA)
    assert zrwa.result.files["read-2.bin"] == second


def test_device_counters(zrwa):
    assert zrwa.stat("zrwa_writes") == 4             # A, B, C, D (refused ones do not count)
    assert zrwa.stat("zrwa_overwrites") == 1         # B starts below A's end
    assert zrwa.stat("zrwa_commit_pages_implicit") == FG // PAGE_LBAS
    # the flush's unit, then Finish: Z + 32 .. Z + 87, 56 LBAs = 7 pages
    assert zrwa.stat("zrwa_commit_pages_explicit") == FG // PAGE_LBAS + 56 // PAGE_LBAS
