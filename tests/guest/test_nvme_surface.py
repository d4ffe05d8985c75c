"""nvme-cli in the guest against the femu device's NVMe surface: namespaces given at
realize, Namespace Management and Attachment (the block devices follow the
namespace-changed event), capacity accounting, Format NVM to 4 KiB LBAs, Compare,
Verify, Write Uncorrectable and the logs that report it (error, SMART, LBA status), the
Number of Queues and capability queries of Get / Set Features, and the OCP SMART log's
physical media units written against the WAF the device writes in its statistics.

Two boots, each shared by the tests of its topics (module-scoped fixtures):
  surface  namespaces=NAMESPACES on the small SSD of femu_fixtures; parts a, b, c, e
  wear     one namespace over the whole device; fill + random 4 KiB writes, then logs
The guest job (jobs/nvme_surface.sh) leaves one `STEP name rc=N key=value...` line per
step in steps.txt plus the step's stdout / stderr; every step is checked here, and a
step whose exit status is not the expected one fails test_every_step_has_its_expected_exit_status.

The guest is Debian trixie's (nvme-cli 2.13 with libnvme 1.13, Linux 6.12) or bookworm's
(nvme-cli 2.3, Debian's 2.4+really2.3, libnvme 1.3, Linux 6.1), their OCP plugins included;
RELEASE_FAILURES holds where the two differ. With VS 1.4 the kernel's
NVME_QUIRK_IDENTIFY_CNS for 8086:5845 does not apply (it only limits controllers below
1.2), so it scans with the active namespace list (CNS 02h) and rescans on the
namespace-attribute notice.
"""
import hashlib
import json
import math
import re
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from femu_fixtures import (DEVSZ_MB, PAGE_BYTES, boot_femu, driver_trouble,  # noqa: F401
                           femu_qemu, job_with_steps, read_csv)

pytestmark = pytest.mark.vm

JOB = Path(__file__).resolve().parent / "jobs" / "nvme_surface.sh"

MIB = 1 << 20
CAPACITY = DEVSZ_MB * MIB
# The device property for the namespaces made at realize (the one place it is named), and
# what the device makes of it: two namespaces splitting the capacity, 512 B LBAs.
NAMESPACES = {"namespaces": "2"}
INITIAL_NS_BYTES = {1: CAPACITY // 2, 2: CAPACITY // 2}

# Namespaces created in the space the realize-time ns2 leaves: A (512 B LBAs), B (4 KiB).
A_BYTES, B_BYTES = 32 * MIB, 16 * MIB
assert A_BYTES + B_BYTES == INITIAL_NS_BYTES[2]
A_LBAS, B_LBAS = A_BYTES // 512, B_BYTES // 4096
# Part c, on ns1 (512 B LBAs, 8 to a flash page): a 64 KiB region 8 MiB in, a whole page
# made uncorrectable, and one LBA in the middle of another page.
REGION_LBA = 8 * MIB // 512
REGION_LBAS = 128
UNCOR_PAGE_LBA = REGION_LBA + 8
UNCOR_ONE_LBA = REGION_LBA + 19
SET_QUEUES_VALUE = 0x00030003     # 4 SQs and 4 CQs, asked for after the queues exist
AER_WAIT_S = 15                   # a namespace-changed notice must move the disks by then
WEAR_PASSES = 2                   # random 4 KiB writes of twice the capacity after a fill

ZERO_MIB_SHA = hashlib.sha256(bytes(MIB)).hexdigest()

# NVMe status codes (SCT << 8 | SC), as nvme-cli shows them without DNR / More.
SC_INVALID_FIELD = 0x002
SC_INVALID_NS = 0x00B
SC_CMD_SEQ_ERROR = 0x00C
SC_NS_INSUFFICIENT_CAP = 0x115
SC_NS_ALREADY_ATTACHED = 0x118
SC_NS_NOT_ATTACHED = 0x11A
SC_UNRECOVERED_READ = 0x281
SC_COMPARE_FAILURE = 0x285

# Steps that must fail, with the NVMe status nvme-cli must report (None: a non-NVMe
# failure, e.g. dd's EIO or cmp finding a difference). Every other step must succeed.
EXPECTED_FAILURES: Dict[str, Optional[int]] = {
    "detach-2-again": SC_NS_NOT_ATTACHED,
    "attach-deleted": SC_INVALID_FIELD,
    "attach-a-again": SC_NS_ALREADY_ATTACHED,
    "create-full": SC_NS_INSUFFICIENT_CAP,
    "page0-bad-differs": None,
    "compare-bad": SC_COMPARE_FAILURE,
    "read-uncor-page": SC_UNRECOVERED_READ,
    "read-uncor-one": SC_UNRECOVERED_READ,
    "dd-uncor": None,
    "verify-uncor": SC_UNRECOVERED_READ,
    "compare-uncor": SC_UNRECOVERED_READ,
    # the default device has no write buffer, so no volatile write cache: feature 06h
    # is Invalid Field (docs/device.md; with a buffer, tests/device covers it)
    "featcap-6": SC_INVALID_FIELD,
}
# Where a guest release gives another outcome (steps of EXPECTED_FAILURES' kind):
# - set-queues (Set Features Number of Queues once the I/O queues exist): the device
#   answers Command Sequence Error on bookworm; trixie's Linux 6.12 refuses the command
#   from user space (EACCES) before the device sees it (tests/device covers the device's
#   rule over qtest);
# - nvme-cli's get-lba-status: bookworm's libnvme 1.3 sends it without its buffer
#   (transfer length 0), which the device refuses as Invalid Field; trixie's works.
RELEASE_FAILURES: Dict[str, Dict[str, Optional[int]]] = {
    "bookworm": {"set-queues": SC_CMD_SEQ_ERROR,
                 **{f"lba-status-{when}-cli{form}": SC_INVALID_FIELD
                    for when in ("uncor", "clear") for form in ("", "-text")}},
    "trixie": {"set-queues": None},
}
# Steps where either outcome is within the spec (checked by their own test).
EITHER_OUTCOME = {"featcap-5-all"}

STATUS_LINE = re.compile(r"NVMe status: (?P<text>[^\n]*)\((?P<code>0x[0-9a-fA-F]+)\)")
STEP_LINE = re.compile(r"^STEP (?P<name>\S+) rc=(?P<rc>-?\d+)(?P<rest>.*)$")
SCT_SC = re.compile(r"\(sct 0x(?P<sct>[0-9a-f]+) / sc 0x(?P<sc>[0-9a-f]+)\)")
MEDIUM_ERROR = re.compile(r"(critical medium error|I/O error), dev (?P<dev>nvme\d+n\d+), "
                          r"sector (?P<sector>\d+)")


class GuestRun:
    """One boot's results: the STEP lines, and each step's files."""

    def __init__(self, result, stats: Optional[Path], release: str):
        self.result = result
        self.stats = stats
        self.release = release
        self.expected_failures = {**EXPECTED_FAILURES, **RELEASE_FAILURES[release]}
        self.steps: Dict[str, Tuple[int, Dict[str, str]]] = {}
        self.order: List[str] = []
        text = result.text("steps.txt") if "steps.txt" in result.files else ""
        for line in text.splitlines():
            match = STEP_LINE.match(line)
            assert match, f"unparseable step line {line!r}"
            name = match["name"]
            assert name not in self.steps, f"step {name} ran twice"
            fields = dict(word.split("=", 1) for word in match["rest"].split() if "=" in word)
            self.steps[name] = (int(match["rc"]), fields)
            self.order.append(name)

    def file(self, name: str) -> str:
        return self.result.text(name) if name in self.result.files else ""

    def detail(self, name: str) -> str:
        """What a step printed, for failure messages."""
        out, err = self.file(f"{name}.out").strip(), self.file(f"{name}.err").strip()
        return f"[{name}] stdout: {out[-1500:] or '-'}\n[{name}] stderr: {err[-1500:] or '-'}"

    def step(self, name: str) -> Tuple[int, Dict[str, str]]:
        assert name in self.steps, (f"step {name} never ran; steps: {' '.join(self.order)}\n"
                                    f"job.log tail:\n{self.file('job.log')[-2000:]}")
        return self.steps[name]

    def field(self, name: str, key: str) -> str:
        rc, fields = self.step(name)
        assert key in fields, f"step {name} (rc={rc}) has no {key}=: {fields}"
        return fields[key]

    def ok(self, *names: str) -> None:
        for name in names:
            rc, fields = self.step(name)
            assert rc == 0, f"step {name} failed (rc={rc} {fields}):\n{self.detail(name)}"

    def status(self, name: str) -> Tuple[int, str]:
        """The NVMe status nvme-cli reported for a failed step: (SCT << 8 | SC, text)."""
        match = STATUS_LINE.search(self.file(f"{name}.err"))
        assert match, f"step {name}: no 'NVMe status:' line:\n{self.detail(name)}"
        return int(match["code"], 16) & 0x7FF, match["text"].strip()

    def fails_with(self, name: str, code: int) -> None:
        rc, fields = self.step(name)
        assert rc != 0, (f"step {name} succeeded, expected NVMe status {code:#05x}:\n"
                         f"{self.detail(name)}")
        got, text = self.status(name)
        assert got == code, (f"step {name}: NVMe status {got:#05x} ({text}), expected "
                             f"{code:#05x}:\n{self.detail(name)}")

    def json(self, name: str) -> dict:
        text = self.file(name)
        assert text.strip(), f"{name} is empty or missing"
        try:
            return json.loads(text)
        except ValueError as error:
            raise AssertionError(f"{name} is not JSON ({error}): {text[:500]!r}")

    def out_json(self, step_name: str) -> dict:
        self.ok(step_name)
        return self.json(f"{step_name}.out")


def load_job(part: str, **variables) -> str:
    return job_with_steps(JOB, dict(PART=part, MIB=MIB, **variables))


@pytest.fixture(scope="module")
def surface(boot_femu, image):
    job = load_job("surface", A_LBAS=A_LBAS, B_LBAS=B_LBAS, REGION_LBA=REGION_LBA,
                   UNCOR_PAGE_LBA=UNCOR_PAGE_LBA, UNCOR_ONE_LBA=UNCOR_ONE_LBA,
                   FIO_512_SIZE="4m", SET_QUEUES_VALUE=SET_QUEUES_VALUE,
                   AER_WAIT_S=AER_WAIT_S)
    result, _ = boot_femu(job, "surface", stats=False, job_timeout=480, **NAMESPACES)
    assert result.complete, result.summary()
    return GuestRun(result, None, image.manifest["release"])


@pytest.fixture(scope="module")
def wear(boot_femu, image):
    result, stats = boot_femu(load_job("wear", WEAR_PASSES=WEAR_PASSES), "wear",
                              job_timeout=420)
    assert result.complete, result.summary()
    return GuestRun(result, stats, image.manifest["release"])


def as_int(value) -> int:
    return int(value)   # nvme-cli 2.3 prints 64- and 128-bit counters as JSON strings


# ---- every boot ---------------------------------------------------------------------

@pytest.mark.parametrize("run", ["surface", "wear"])
def test_job_ran_to_the_end(request, run):
    guest = request.getfixturevalue(run)
    assert guest.result.exit_status == 0, guest.result.summary()
    assert guest.order and guest.order[-1] == "end", (
        f"the job stopped early; last steps: {guest.order[-5:]}\n"
        f"{guest.file('job.log')[-2000:]}")


@pytest.mark.parametrize("run", ["surface", "wear"])
def test_every_step_has_its_expected_exit_status(request, run):
    guest = request.getfixturevalue(run)
    wrong = []
    for name in guest.order:
        rc, fields = guest.steps[name]
        if name in EITHER_OUTCOME:
            continue
        if name in guest.expected_failures:
            code = guest.expected_failures[name]
            if rc == 0:
                wrong.append(f"{name}: succeeded, expected a failure"
                             + (f" with NVMe status {code:#05x}" if code is not None else ""))
            elif code is not None:
                match = STATUS_LINE.search(guest.file(f"{name}.err"))
                got = int(match["code"], 16) & 0x7FF if match else None
                if got != code:
                    wrong.append(f"{name}: rc={rc}, NVMe status "
                                 f"{'none' if got is None else hex(got)}, expected {code:#05x}"
                                 f"\n{guest.detail(name)}")
        elif rc != 0:
            wrong.append(f"{name}: rc={rc} {fields}\n{guest.detail(name)}")
    assert not wrong, f"{len(wrong)} step(s) went wrong:\n" + "\n".join(wrong)


def expected_kernel_error(line: str) -> bool:
    """Kernel complaints the surface job provokes on purpose: the failed commands'
    statuses and the medium error of the read inside the uncorrectable range."""
    codes = {SC_UNRECOVERED_READ, SC_COMPARE_FAILURE, SC_CMD_SEQ_ERROR, SC_INVALID_FIELD,
             SC_INVALID_NS, SC_NS_INSUFFICIENT_CAP, SC_NS_ALREADY_ATTACHED,
             SC_NS_NOT_ATTACHED}
    match = SCT_SC.search(line)
    if match and (int(match["sct"], 16) << 8 | int(match["sc"], 16)) in codes:
        return True
    match = MEDIUM_ERROR.search(line)
    return bool(match and REGION_LBA <= int(match["sector"]) < REGION_LBA + REGION_LBAS)


@pytest.mark.parametrize("run", ["surface", "wear"])
def test_nvme_driver_does_not_complain(request, run):
    guest = request.getfixturevalue(run)
    dmesg = guest.file("dmesg.txt")
    assert "nvme nvme0" in dmesg, "no kernel log came home"
    unexpected = [line for line in driver_trouble(dmesg) if not expected_kernel_error(line)]
    assert unexpected == [], "the kernel complained:\n" + "\n".join(unexpected)


# ---- a) namespaces ------------------------------------------------------------------

def id_ns(guest: GuestRun, label: str, nsid: int) -> dict:
    return guest.json(f"{label}-ns{nsid}.json")


def lba_bytes(ns: dict) -> int:
    return 1 << int(ns["lbafs"][int(ns["flbas"]) & 0xF]["ds"])


def nsid_of(guest: GuestRun, step: str) -> int:
    nsid = int(guest.field(step, "nsid"))
    create = step.replace("nsid-", "create-")
    assert nsid > 0, f"create-ns reported no NSID:\n{guest.detail(create)}"
    return nsid


def test_realize_makes_the_namespaces(surface):
    surface.ok("snap-boot", "disk-boot-1", "disk-boot-2")
    ctrl = surface.json("snap-boot-id-ctrl.json")
    assert ctrl["oacs"] & 0x8, f"OACS {ctrl['oacs']:#x}: Namespace Management not reported"
    assert ctrl["oaes"] & 0x100, (f"OAES {ctrl['oaes']:#x}: no Namespace Attribute Notices; "
                                  "Linux then never enables the event")
    assert ctrl["nn"] >= len(INITIAL_NS_BYTES)
    assert surface.field("snap-boot", "all") == surface.field("snap-boot", "active") == \
        ",".join(map(str, INITIAL_NS_BYTES))
    for nsid, size in INITIAL_NS_BYTES.items():
        ns = id_ns(surface, "snap-boot", nsid)
        assert lba_bytes(ns) == 512
        assert as_int(ns["nsze"]) == as_int(ns["ncap"]) == size // 512, (nsid, ns["nsze"])
        assert as_int(ns["nvmcap"]) == size
        formats = [1 << int(f["ds"]) for f in ns["lbafs"][:int(ns["nlbaf"]) + 1]]
        assert formats[:2] == [512, 4096], f"LBA formats {formats}: 0 = 512 B, 1 = 4 KiB"
        assert surface.field(f"disk-boot-{nsid}", "bytes") == str(size)
        assert surface.field(f"disk-boot-{nsid}", "lbs") == "512"


def test_capacity_adds_up(surface):
    """TNVMCAP is the device's capacity; UNVMCAP plus every allocated namespace's NVMCAP
    (CNS 11h) is TNVMCAP at each point, and UNVMCAP is what the steps left free."""
    a, b = nsid_of(surface, "nsid-a"), nsid_of(surface, "nsid-b")
    expect = {   # snapshot: (allocated, active, unallocated bytes)
        "snap-boot": ([1, 2], [1, 2], 0),
        "snap-detached": ([1, 2], [1], 0),
        "snap-deleted": ([1], [1], INITIAL_NS_BYTES[2]),
        "snap-created-a": ([1, a], [1], B_BYTES),
        "snap-created-ab": ([1, a, b], [1, a, b], 0),
        "snap-formatted": ([1, a, b], [1, a, b], 0),
        "snap-end-ns": ([1, b], [1, b], A_BYTES),
    }
    for label, (allocated, active, free) in expect.items():
        surface.ok(label)
        assert surface.field(label, "all") == ",".join(map(str, sorted(allocated))), label
        assert surface.field(label, "active") == ",".join(map(str, sorted(active))), label
        ctrl = surface.json(f"{label}-id-ctrl.json")
        tnvmcap, unvmcap = as_int(ctrl["tnvmcap"]), as_int(ctrl["unvmcap"])
        nvmcaps = {k: as_int(id_ns(surface, label, k)["nvmcap"]) for k in allocated}
        print(f"{label}: TNVMCAP {tnvmcap}, UNVMCAP {unvmcap}, NVMCAP {nvmcaps}")
        assert tnvmcap == CAPACITY, f"{label}: TNVMCAP {tnvmcap}, capacity {CAPACITY}"
        assert unvmcap == free, f"{label}: UNVMCAP {unvmcap}, expected {free}"
        assert sum(nvmcaps.values()) + unvmcap == tnvmcap, (
            f"{label}: NVMCAP {nvmcaps} + UNVMCAP {unvmcap} != TNVMCAP {tnvmcap}")


def test_block_devices_follow_the_namespace_changed_event(surface):
    """Attach and detach alone (no rescan asked) add and remove the block devices; after
    an explicit ns-rescan they are where they should be too."""
    a, b = nsid_of(surface, "nsid-a"), nsid_of(surface, "nsid-b")
    for name in ["detach-2", "gone-2-aer", "attach-a", "appear-a-aer", "attach-b",
                 "appear-b-aer", "detach-a", "gone-a-aer", "rescan-a", "appear-a",
                 "rescan-b", "appear-b", "rescan-gone-a", "gone-a"]:
        surface.ok(name)
    for name, nsid in [("gone-2-aer", 2), ("appear-a-aer", a), ("appear-b-aer", b),
                       ("gone-a-aer", a)]:
        assert surface.field(name, "nsid") == str(nsid)
        print(f"{name}: {surface.field(name, 'waited_ms')} ms after the command")


def test_namespace_management_statuses(surface):
    surface.ok("create-a", "create-b", "delete-2", "delete-a")
    assert "created nsid:" in surface.file("create-a.out"), surface.detail("create-a")
    surface.fails_with("detach-2-again", SC_NS_NOT_ATTACHED)
    surface.fails_with("attach-deleted", SC_INVALID_FIELD)
    surface.fails_with("attach-a-again", SC_NS_ALREADY_ATTACHED)
    surface.fails_with("create-full", SC_NS_INSUFFICIENT_CAP)


def test_created_namespaces(surface):
    a, b = nsid_of(surface, "nsid-a"), nsid_of(surface, "nsid-b")
    assert len({1, a, b}) == 3, f"NSIDs 1, {a}, {b}"
    surface.ok("disk-a", "disk-b")
    assert surface.field("disk-a", "bytes") == str(A_BYTES)
    assert surface.field("disk-a", "lbs") == "512"
    assert surface.field("disk-b", "bytes") == str(B_BYTES)
    assert surface.field("disk-b", "lbs") == "4096"
    ns_a, ns_b = id_ns(surface, "snap-created-ab", a), id_ns(surface, "snap-created-ab", b)
    assert (as_int(ns_a["nsze"]), as_int(ns_a["ncap"]), lba_bytes(ns_a)) == (A_LBAS, A_LBAS, 512)
    assert (as_int(ns_b["nsze"]), as_int(ns_b["ncap"]), lba_bytes(ns_b)) == (B_LBAS, B_LBAS, 4096)
    assert as_int(ns_a["nuse"]) == 0 and as_int(ns_b["nuse"]) == 0, "new namespaces hold data"


def test_new_namespaces_read_zeroes(surface):
    """A and B reuse the deleted ns2's space, where the job wrote data first."""
    surface.ok("put-old2-head", "put-old2-tail")
    for name in ["sum-a-head-new", "sum-a-tail-new", "sum-b-head-new", "sum-b-tail-new"]:
        surface.ok(name)
        assert surface.field(name, "sha") == ZERO_MIB_SHA, f"{name}: not zeroes"


# ---- b) fio verify and Format NVM --------------------------------------------------

@pytest.mark.parametrize("name, expect_bytes", [
    ("fio-a-512", 4 * MIB), ("fio-a-4k", A_BYTES), ("fio-a-4k-after", A_BYTES),
    ("fio-a-16k-after", A_BYTES)])
def test_fio_verify_on_the_created_namespace(surface, name, expect_bytes):
    surface.ok(name)
    job = surface.json(f"{name}.json")["jobs"][0]
    assert job["error"] == 0, f"{name}: fio error {job['error']}"
    assert job["write"]["io_bytes"] == expect_bytes
    assert job["read"]["io_bytes"] == expect_bytes, f"{name}: verify pass incomplete"


def test_format_to_4k_lbas(surface):
    a = nsid_of(surface, "nsid-a")
    surface.ok("format-a", "lbs-a-formatted", "snap-formatted", "sum-a-head-formatted")
    assert f"Success formatting namespace:{a:x}" in surface.file("format-a.out"), \
        surface.detail("format-a")
    assert surface.field("lbs-a-formatted", "lbs") == "4096"
    assert surface.field("lbs-a-formatted", "bytes") == str(A_BYTES)
    ns = id_ns(surface, "snap-formatted", a)
    assert int(ns["flbas"]) & 0xF == 1, f"FLBAS {ns['flbas']} after --lbaf=1"
    assert as_int(ns["nsze"]) == as_int(ns["ncap"]) == A_BYTES // 4096
    assert as_int(ns["nvmcap"]) == A_BYTES
    assert surface.field("sum-a-head-formatted", "sha") == ZERO_MIB_SHA, \
        "--ses=1 (user data erase) left data"


def test_neighbours_survive_the_format(surface):
    """ns1 ends where A begins and B begins where A ends; formatting A touches neither."""
    pairs = [("put-ns1-head", "sum-ns1-head-after"), ("put-ns1-tail", "sum-ns1-tail-after"),
             ("put-b-head", "sum-b-head-after"), ("put-b-tail", "sum-b-tail-after")]
    for put, got in pairs:
        surface.ok(put, got)
        assert surface.field(got, "sha") == surface.field(put, "sha"), \
            f"{got}: the data {put} wrote changed"


# ---- c) Compare, Verify, Write Uncorrectable and the media logs ---------------------

def test_compare_and_verify(surface):
    surface.ok("put-region", "compare-page", "compare-region", "verify-region")
    assert "compare: Success" in surface.file("compare-page.err")
    assert "NVME Verify Success" in surface.file("verify-region.out")
    assert surface.step("page0-bad-differs")[0] == 1, "the miscompare buffer equals the data"
    surface.fails_with("compare-bad", SC_COMPARE_FAILURE)


def test_write_uncorrectable_fails_reads_of_those_lbas_only(surface):
    surface.ok("uncor-page", "uncor-one")
    assert "NVME Write Uncorrectable Success" in surface.file("uncor-page.out")
    surface.fails_with("read-uncor-page", SC_UNRECOVERED_READ)
    surface.fails_with("read-uncor-one", SC_UNRECOVERED_READ)
    assert "Unrecovered Read Error" in surface.file("read-uncor-page.err")
    # The LBA beside the single bad one, in the same flash page, reads its data.
    surface.ok("read-beside-one", "read-beside-one-data", "read-page0", "read-page0-data")
    rc, _ = surface.step("dd-uncor")
    assert rc != 0, f"a block-layer read of the bad page succeeded:\n{surface.detail('dd-uncor')}"
    # Unrecovered Read Error is a medium error to the block layer: ENODATA, not EIO.
    assert "No data available" in surface.file("dd-uncor.err"), (
        "dd's read should fail with ENODATA (BLK_STS_MEDIUM):\n" + surface.detail("dd-uncor"))
    surface.fails_with("verify-uncor", SC_UNRECOVERED_READ)
    surface.fails_with("compare-uncor", SC_UNRECOVERED_READ)


def test_error_log_has_the_failed_read(surface):
    before = surface.out_json("errlog-boot")["errors"]
    after = surface.out_json("errlog-uncor")["errors"]
    assert after, "the error log is empty after a failed read"
    newest = after[0]
    print(f"error log, newest entry: {newest}")
    status = as_int(newest["status_field"]) & 0x7FF
    assert status == SC_UNRECOVERED_READ, (
        f"newest error-log entry has status {status:#05x}, expected {SC_UNRECOVERED_READ:#05x}"
        f" (the read of LBA {UNCOR_PAGE_LBA}): {newest}")
    assert as_int(newest["nsid"]) == 1, f"newest error-log entry: {newest}"
    assert UNCOR_PAGE_LBA <= as_int(newest["lba"]) < UNCOR_PAGE_LBA + 8, \
        f"newest error-log entry's LBA is not in the failed read: {newest}"
    assert as_int(newest["error_count"]) > max((as_int(e["error_count"]) for e in before),
                                               default=0)


def lba_status_descriptors(raw: bytes) -> List[Tuple[int, int, int]]:
    """Get LBA Status data: NLSD, CMPC, then 16-byte descriptors; (DSLBA, LBAs, status),
    NLB being 0's based."""
    assert len(raw) >= 8, f"Get LBA Status returned {len(raw)} bytes"
    count = int.from_bytes(raw[0:4], "little")
    found = []
    for i in range(count):
        entry = raw[8 + 16 * i:24 + 16 * i]
        assert len(entry) == 16, f"NLSD {count} but only {len(raw)} bytes"
        found.append((int.from_bytes(entry[0:8], "little"),
                      int.from_bytes(entry[8:12], "little") + 1, entry[13]))
    return found


def lba_log_ranges(log: dict, nsid: int) -> List[Tuple[int, int]]:
    """The LBA Status Information log's ranges for nsid: (RSLBA, LBAs), RNLB 0's based."""
    return [(as_int(d["rslba"]), as_int(d["rnlb"]) + 1) for element in log["ns_elements"]
            if as_int(element["neid"]) == nsid for d in element["descs"]]


def lbas_in(ranges) -> set:
    return {lba for start, count in ranges for lba in range(start, start + count)}


UNCORRECTABLE = set(range(UNCOR_PAGE_LBA, UNCOR_PAGE_LBA + 8)) | {UNCOR_ONE_LBA}


def test_lba_status_lists_the_uncorrectable_lbas_until_rewritten(surface):
    surface.ok("lba-status-uncor", "lba-log-uncor", "lba-status-clear", "lba-log-clear")
    tracked = lba_status_descriptors(surface.result.files["lba-status-uncor.out"])
    print(f"Get LBA Status (DSLBA, LBAs, status) while uncorrectable: {tracked}")
    listed = lbas_in((start, n) for start, n, _ in tracked)
    assert listed == UNCORRECTABLE, (
        f"Get LBA Status (tracked, LBAs {REGION_LBA}-{REGION_LBA + 255}) lists {tracked}: "
        f"LBAs {sorted(listed)}; expected {UNCOR_PAGE_LBA}-{UNCOR_PAGE_LBA + 7} and "
        f"{UNCOR_ONE_LBA}")
    log = surface.json("lba-log-uncor.out")
    print(f"LBA status log while uncorrectable: {log}")
    logged = lba_log_ranges(log, 1)
    assert lbas_in(logged) == UNCORRECTABLE, \
        f"LBA Status Information log lists {logged} (RSLBA, LBAs) for namespace 1"
    surface.ok("rewrite", "read-rewritten", "read-rewritten-data", "verify-rewritten")
    cleared = lba_status_descriptors(surface.result.files["lba-status-clear.out"])
    assert cleared == [], f"after the rewrite Get LBA Status still lists {cleared}"
    relogged = lba_log_ranges(surface.json("lba-log-clear.out"), 1)
    assert relogged == [], \
        f"after the rewrite the LBA Status Information log still lists {relogged}"


# How nvme-cli 2.13 prints a descriptor: { DSLBA: 0x00000000002008, NLB: 0x000007, Status: 0x1 }
LBA_STATUS_TEXT = re.compile(r"\{ DSLBA: 0x(?P<slba>[0-9a-fA-F]+), "
                             r"NLB: (?:0x)?(?P<nlb>[0-9a-fA-F]+), "
                             r"Status: 0x(?P<status>[0-9a-fA-F]+) \}")


def test_get_lba_status_through_nvme_cli(surface):
    """nvme-cli's own get-lba-status: on trixie it returns what the same command sent with
    admin-passthru returns, in binary and as text; bookworm's sends no buffer and the device
    refuses it (RELEASE_FAILURES)."""
    for when in ("uncor", "clear"):
        step = f"lba-status-{when}"
        surface.ok(step)
        if surface.expected_failures.get(f"{step}-cli") is not None:
            for form in ("-cli", "-cli-text"):
                surface.fails_with(step + form, surface.expected_failures[step + form])
            continue
        surface.ok(f"{step}-cli", f"{step}-cli-text")
        passthru = lba_status_descriptors(surface.result.files[f"{step}.out"])
        cli = lba_status_descriptors(surface.result.files[f"{step}-cli.out"])
        assert cli == passthru, f"{step}: nvme get-lba-status {cli}, admin-passthru {passthru}"
        text = surface.file(f"{step}-cli-text.out")
        printed = [(int(m["slba"], 16), int(m["nlb"], 16) + 1, int(m["status"], 16))
                   for m in LBA_STATUS_TEXT.finditer(text)]
        assert printed == passthru, f"{step}: nvme get-lba-status printed:\n{text}"
        assert f"Number of LBA Status Descriptors(NLSD): {len(passthru)}" in text, text
        print(f"{step}: nvme get-lba-status lists {cli}")


def test_smart_counts_media_errors_and_reports_wear(surface):
    before = surface.out_json("smart-before-uncor")
    after = surface.out_json("smart-after-uncor")
    for log in (before, after, surface.out_json("smart-end")):
        print({k: log[k] for k in ("critical_warning", "avail_spare", "spare_thresh",
                                   "percent_used", "media_errors", "num_err_log_entries")})
        assert 0 <= log["avail_spare"] <= 100 and 0 <= log["spare_thresh"] <= 100, log
        assert log["avail_spare"] >= log["spare_thresh"], "spare below its threshold"
        assert 0 <= log["percent_used"] <= 255
    assert as_int(after["media_errors"]) > as_int(before["media_errors"]), (
        f"media_errors {before['media_errors']} -> {after['media_errors']} across the "
        "unrecovered reads")
    assert as_int(after["num_err_log_entries"]) > as_int(before["num_err_log_entries"])


# ---- e) features ----------------------------------------------------------------------

FEATURE_VALUE = re.compile(r"value:(?:0x)?(?P<value>[0-9a-fA-F]+)")


def feature_value(guest: GuestRun, name: str) -> int:
    guest.ok(name)
    match = FEATURE_VALUE.search(guest.file(f"{name}.out"))
    assert match, f"no value in get-feature output:\n{guest.detail(name)}"
    return int(match["value"], 16)


def test_number_of_queues_is_fixed_once_io_queues_exist(surface):
    before = feature_value(surface, "feat-queues")
    if surface.expected_failures["set-queues"] is None:
        # Linux 6.12 refuses the command from user space: it never reaches the device.
        rc, _ = surface.step("set-queues")
        assert rc != 0 and "Permission denied" in surface.file("set-queues.err"), \
            surface.detail("set-queues")
        assert not STATUS_LINE.search(surface.file("set-queues.err"))
    else:
        surface.fails_with("set-queues", SC_CMD_SEQ_ERROR)
        assert "Command Sequence Error" in surface.file("set-queues.err")
    assert feature_value(surface, "feat-queues-after") == before


@pytest.mark.parametrize("fid", [4, 7])
def test_controller_feature_capabilities(surface, fid):
    """SEL 3: bit 0 saveable, bit 1 namespace specific, bit 2 changeable."""
    value = feature_value(surface, f"featcap-{fid}")
    print(f"FID {fid:#04x} capabilities {value:#x}")
    assert value & 0x4, f"FID {fid:#04x}: capabilities {value:#x} lack 'changeable'"
    assert not value & 0x2, f"FID {fid:#04x}: capabilities {value:#x} say namespace specific"


def test_no_volatile_write_cache_without_a_buffer(surface):
    """The default device has no write buffer: Identify's VWC says no cache and feature
    06h (Volatile Write Cache) is Invalid Field, capabilities included."""
    assert surface.json("snap-boot-id-ctrl.json")["vwc"] == 0x6   # no cache; Flush FFFFFFFFh
    surface.fails_with("featcap-6", SC_INVALID_FIELD)


def test_error_recovery_is_namespace_specific(surface):
    value = feature_value(surface, "featcap-5-ns1")
    assert value & 0x6 == 0x6, (f"Error Recovery (FID 05h) capabilities {value:#x}: expected "
                                "changeable and namespace specific (bits 2, 1)")
    # Without -n nvme-cli sends NSID FFFFFFFFh: a capability answer or a refusal of the
    # broadcast NSID are both within the spec, anything else is not.
    rc, _ = surface.step("featcap-5-all")
    if rc == 0:
        assert feature_value(surface, "featcap-5-all") & 0x4
    else:
        code, text = surface.status("featcap-5-all")
        assert code in (SC_INVALID_NS, SC_INVALID_FIELD), f"{code:#05x} {text}"


# ---- d) OCP SMART log against the device's WAF --------------------------------------

def pmu_written(log: dict) -> int:
    units = log["Physical media units written"]
    return as_int(units["hi"]) << 64 | as_int(units["lo"])


def test_wear_workload_ran(wear):
    wear.ok("wear-fill", "wear-rand")
    for name in ("wear-fill", "wear-rand"):
        job = wear.json(f"{name}.json")["jobs"][0]
        assert job["error"] == 0, f"{name}: fio error {job['error']}"
    assert wear.json("wear-rand.json")["jobs"][0]["write"]["io_bytes"] == WEAR_PASSES * CAPACITY


def test_logs_settle_once_idle(wear):
    """Read twice, 2 s apart, after the writes: the same counters both times."""
    assert pmu_written(wear.out_json("wear-ocp-1")) == pmu_written(wear.out_json("wear-ocp-2"))
    assert wear.out_json("wear-smart-1")["data_units_written"] == \
        wear.out_json("wear-smart-2")["data_units_written"]


def test_smart_counts_host_writes(wear):
    written = sum(wear.json(f"{name}.json")["jobs"][0]["write"]["io_bytes"]
                  for name in ("wear-fill", "wear-rand"))
    duw = as_int(wear.out_json("wear-smart-1")["data_units_written"]) - \
        as_int(wear.out_json("wear-smart-0")["data_units_written"])
    assert duw == math.ceil(written / 512000), (
        f"data units written {duw}; fio wrote {written} bytes = {written / 512000:.2f} units")


def test_ocp_physical_media_units_match_the_device_waf(wear):
    ocp_log = wear.out_json("wear-ocp-1")
    print(wear.file("wear-ocp-1-text.out"))
    pmuw = pmu_written(ocp_log)
    duw = as_int(wear.out_json("wear-smart-1")["data_units_written"])
    rows = read_csv(wear.stats / "stats.csv")
    user = sum(int(r["nand_user_programs"]) for r in rows)
    gc = sum(int(r["nand_gc_programs"]) for r in rows)
    host_bytes = sum(int(r["host_write_bytes"]) for r in rows)
    gc_writes = sum(int(r["GCWrite"]) for r in read_csv(wear.stats / "WAFData.csv"))
    assert gc_writes == gc, f"WAFData.csv GCWrite {gc_writes} vs stats.csv GC programs {gc}"
    assert gc > 0, "no GC page was moved: the workload did not make GC work"
    csv_waf = (user + gc) / user
    ocp_waf = pmuw / (duw * 512000)
    # DUW is host bytes / 512000 rounded up, so the OCP figure may be low by that much.
    tolerance = csv_waf * 512000 / host_bytes + 1e-9
    print(f"WAF from stats.csv: {csv_waf:.5f} ({user} host + {gc} GC page programs)")
    print(f"WAF from the logs:  {ocp_waf:.5f} (physical media units written {pmuw} / "
          f"(data units written {duw} x 512000)); rounding allows {tolerance:.5f}")
    print(f"  physical bytes the CSV implies: {(user + gc) * PAGE_BYTES}; host bytes "
          f"{host_bytes} = {host_bytes / 512000:.2f} units")
    assert abs(ocp_waf - csv_waf) <= tolerance, (
        f"OCP/SMART WAF {ocp_waf:.5f} vs stats.csv WAF {csv_waf:.5f} (allowed +-{tolerance:.5f});"
        f" PMUW {pmuw} B, CSV physical {(user + gc) * PAGE_BYTES} B, DUW {duw}, host "
        f"{host_bytes} B")


def test_ocp_log_reports_wear(wear):
    fresh, worn = wear.out_json("wear-ocp-0"), wear.out_json("wear-ocp-1")
    keys = ("Max User data erase counts", "Min User data erase counts", "Percent free blocks",
            "Bad user nand blocks - Raw", "Physical media units read",
            "NUSE - Namespace utilization", "Log page version", "Log page GUID")
    print({k: worn.get(k) for k in keys})
    assert pmu_written(fresh) < pmu_written(worn)
    assert as_int(worn["Max User data erase counts"]) >= \
        as_int(worn["Min User data erase counts"])
    assert as_int(worn["Max User data erase counts"]) > 0, "GC erased blocks; no erase counted"
    smart = wear.out_json("wear-smart-1")
    print({k: smart[k] for k in ("avail_spare", "spare_thresh", "percent_used")})
