"""Flexible Data Placement from the guest: nvme-cli's `nvme fdp` commands (configs, usage,
stats, events, status, update, set-events, feature) and fio's FDP writes (io_uring_cmd on
the namespace's generic character device /dev/ng0nX, fdp=1 with plids) against a femu
device with placement=fdp, checked against what femu must answer and against the
device's own statistics (stats.csv's per-handle host pages, the FDP counters).

One boot (module-scoped) on the small SSD of femu_fixtures: 2 MiB reclaim units (a line
of 8 blocks x 64 pages x 4 KiB), four reclaim unit handles, initially isolated, with a
time limit so that EARUTR and ERUTL have a value to decode. The guest job
(jobs/fdp_guest.sh) leaves one `STEP name rc=N` line per step in steps.txt plus the
step's stdout / stderr.

The trixie guest has nvme-cli 2.13 (every `nvme fdp` subcommand above) and fio 3.39
(`plids` / `plid_select`, with the older `fdp_pli` / `fdp_pli_select` as aliases); the
test is skipped on another release's image. nvme-cli's `fdp feature -d` / `-c` always set
Set Features' Save bit, which femu takes (1Dh is saveable): while a namespace exists both
it and a plain Set Features 1Dh are Command Sequence Error, which the job checks.
"""
import json
import re
from pathlib import Path
from typing import Dict, List

import pytest

from femu_fixtures import (PAGE_BYTES, boot_femu, driver_trouble, femu_qemu,  # noqa: F401
                           job_with_steps, read_csv)

pytestmark = pytest.mark.vm

JOB = Path(__file__).resolve().parent / "jobs" / "fdp_guest.sh"

MIB = 1 << 20
LBA_BYTES = 512
RUHS = 4
RU_TIME_LIMIT_S = 3600
# femu_fixtures' SMALL_SSD: a reclaim unit is a line, 2 ch x 4 LUN blocks of 64 pages.
RU_PAGES = 2 * 4 * 64
RU_BYTES = RU_PAGES * PAGE_BYTES
RU_LBAS = RU_BYTES // LBA_BYTES
DEVICE = dict(placement="fdp", fdp_ruhs=RUHS, fdp_ruh_type="initial",
              fdp_ru_time_limit_s=RU_TIME_LIMIT_S)

# The writes: fio-one fills one unit and half of the next on placement handle ONE_PLID;
# fio-two alternates its writes over TWO_PLIDS; fio-none sends no placement (handle 0);
# one nvme-cli write names BAD_PID, which the namespace lacks (it goes to handle 0).
ONE_PLID, ONE_BYTES = 1, 3 * MIB  # a whole unit and half the next
TWO_PLIDS, TWO_BYTES = (2, 3), 1 * MIB
NONE_BYTES = MIB // 2
BAD_PID, BAD_LBA = 9, 20 * MIB // LBA_BYTES
UPDATE_PLID = 2          # closed by the update with fio-one's handle; its events are off
RESET_PLID = 3           # Controller Level Reset Modified RUHs enabled on it only
VARIABLES = dict(ONE_PLID=ONE_PLID, ONE_OFFSET=0, ONE_SIZE=ONE_BYTES,
                 TWO_PLIDS=",".join(map(str, TWO_PLIDS)), TWO_OFFSET=8 * MIB,
                 TWO_SIZE=TWO_BYTES, NONE_OFFSET=16 * MIB, NONE_SIZE=NONE_BYTES,
                 BAD_LBA=BAD_LBA, BAD_PID=BAD_PID, UPDATE_PLID=UPDATE_PLID,
                 RESET_PLID=RESET_PLID)

# Host pages each handle takes.
PAGES = {0: NONE_BYTES // PAGE_BYTES + 1, ONE_PLID: ONE_BYTES // PAGE_BYTES,
         **{plid: TWO_BYTES // PAGE_BYTES // len(TWO_PLIDS) for plid in TWO_PLIDS}}
HOST_BYTES = sum(PAGES.values()) * PAGE_BYTES

# FDP event types (log 23h) and the flags of a host event (FDPEF: PIV, NSIDV, LV).
RU_NOT_FULLY_WRITTEN, CTRL_RESET_MODIFIED, INVALID_PID = 0, 2, 3
PIV, NSIDV, LV = 1, 2, 4

# NVMe statuses (SCT << 8 | SC) as nvme-cli shows them, DNR and More masked off.
SC_CMD_SEQ_ERROR = 0x00C
# Steps that must fail and their status; every other step must succeed.
EXPECTED_FAILURES = {"disable-set-feature": SC_CMD_SEQ_ERROR,
                     "disable": SC_CMD_SEQ_ERROR}

STEP_LINE = re.compile(r"^STEP (?P<name>\S+) rc=(?P<rc>-?\d+)(?P<rest>.*)$")
STATUS_LINE = re.compile(r"NVMe status: (?P<text>[^\n]*)\((?P<code>0x[0-9a-fA-F]+)\)")


def job_text() -> str:
    return job_with_steps(JOB, VARIABLES)


class FdpRun:
    def __init__(self, result, stats: Path):
        self.result = result
        self.stats = stats
        self.steps: Dict[str, int] = {}
        self.order: List[str] = []
        text = result.text("steps.txt") if "steps.txt" in result.files else ""
        for line in text.splitlines():
            match = STEP_LINE.match(line)
            assert match, f"unparseable step line {line!r}"
            self.steps[match["name"]] = int(match["rc"])
            self.order.append(match["name"])

    def file(self, name: str) -> str:
        return self.result.text(name) if name in self.result.files else ""

    def detail(self, name: str) -> str:
        return (f"[{name}] stdout: {self.file(f'{name}.out').strip()[-1500:] or '-'}\n"
                f"[{name}] stderr: {self.file(f'{name}.err').strip()[-1500:] or '-'}")

    def out(self, name: str) -> str:
        assert name in self.steps, f"step {name} never ran; steps: {' '.join(self.order)}"
        assert self.steps[name] == 0, f"step {name} failed:\n{self.detail(name)}"
        return self.file(f"{name}.out")

    def json(self, name: str) -> dict:
        text = self.out(name)
        try:
            return json.loads(text)
        except ValueError as error:
            raise AssertionError(f"{name}: not JSON ({error}):\n{self.detail(name)}")

    def status(self, name: str) -> int:
        match = STATUS_LINE.search(self.file(f"{name}.err"))
        assert match, f"step {name}: no 'NVMe status:' line:\n{self.detail(name)}"
        return int(match["code"], 16) & 0x7FF

    def handle_status(self, name: str) -> Dict[int, dict]:
        document = self.json(name)
        assert document["nruhsd"] == RUHS, document
        return {entry["pid"]: entry for entry in document["ruhss"]}

    def column_sum(self, column: str) -> int:
        rows = read_csv(self.stats / "stats.csv")
        assert column in rows[0], f"stats.csv has no {column}: {sorted(rows[0])}"
        return sum(int(row[column]) for row in rows)


@pytest.fixture(scope="module")
def fdp(boot_femu, image):
    if image.manifest["release"] != "trixie":
        pytest.skip(f"the {image.manifest['release']} guest: this test is written for "
                    "trixie's nvme-cli 2.13 and fio 3.39 (plids)")
    result, stats = boot_femu(job_text(), "fdp", job_timeout=240, **DEVICE)
    assert result.complete, result.summary()
    return FdpRun(result, stats)


def test_job_ran_every_step_with_the_expected_status(fdp):
    assert fdp.result.exit_status == 0, fdp.result.summary()
    assert fdp.order and fdp.order[-1] == "end", (
        f"the job stopped early; last steps: {fdp.order[-5:]}\n{fdp.file('job.log')[-2000:]}")
    wrong = []
    for name in fdp.order:
        rc = fdp.steps[name]
        if name in EXPECTED_FAILURES:
            code = EXPECTED_FAILURES[name]
            if rc == 0:
                wrong.append(f"{name}: succeeded, expected NVMe status {code:#05x}")
            elif fdp.status(name) != code:
                wrong.append(f"{name}: NVMe status {fdp.status(name):#05x}, expected "
                             f"{code:#05x}\n{fdp.detail(name)}")
        elif rc != 0:
            wrong.append(f"{name}: rc={rc}\n{fdp.detail(name)}")
    assert not wrong, f"{len(wrong)} step(s) went wrong:\n" + "\n".join(wrong)


def test_nvme_driver_does_not_complain(fdp):
    dmesg = fdp.file("dmesg.txt")
    assert "nvme nvme0" in dmesg, "no kernel log came home"
    # The job's `nvme reset` and the failed Set Features are on purpose.
    unexpected = [line for line in driver_trouble(dmesg)
                  if "resetting controller" not in line and "0x1d" not in line.lower()]
    assert unexpected == [], "the kernel complained:\n" + "\n".join(unexpected)


def test_feature_shows_fdp_enabled_in_configuration_0(fdp):
    for step in ("feature", "feature-after"):
        text = fdp.out(step)
        assert re.search(r"Endurance Group\s*:\s*1$", text, re.M), text
        assert re.search(r"\(FDPE\)\s*:\s*Yes$", text, re.M), text
        assert re.search(r"Configuration Index\s*:\s*0$", text, re.M), text


def test_configs_decode_the_configuration(fdp):
    config, = fdp.json("configs-json")["configs"]
    assert config["fdpa"] & 0x80, f"FDPA {config['fdpa']:#x}: the configuration is not valid"
    assert config["nrg"] == 1
    assert config["nruh"] == RUHS
    assert config["runs"] == RU_BYTES
    assert config["erutl"] == RU_TIME_LIMIT_S
    text = fdp.out("configs")
    assert f"Number of Reclaim Unit Handles: {RUHS}" in text, text
    assert f"Reclaim Unit Nominal Size: {RU_BYTES}" in text, text
    handles = re.findall(r"^\s*\[(\d+)\]: (.*)$", text, re.M)
    assert handles == [(str(i), "Initially Isolated") for i in range(RUHS)], text


def test_usage_lists_every_handle_as_host_specified(fdp):
    for step in ("usage", "usage-2"):
        usage = fdp.json(step)
        assert usage["nruh"] == RUHS
        assert [entry["ruha"] for entry in usage["ruhus"]] == [1] * RUHS, usage


def test_status_before_any_write_offers_whole_units(fdp):
    status = fdp.handle_status("status-0")
    for pid in range(RUHS):
        assert status[pid]["ruhid"] == pid
        assert status[pid]["ruamw"] == RU_LBAS, status[pid]
        assert status[pid]["earutr"] == RU_TIME_LIMIT_S, status[pid]


def test_fio_wrote_what_it_was_asked(fdp):
    for name, size in (("fio-one", ONE_BYTES), ("fio-two", TWO_BYTES),
                       ("fio-none", NONE_BYTES)):
        job, = json.loads(fdp.file(f"{name}.json"))["jobs"]
        assert job["error"] == 0, f"{name}: fio error {job['error']}"
        assert job["write"]["io_bytes"] == size, (name, job["write"]["io_bytes"])


def test_status_after_the_writes_shows_each_handles_room(fdp):
    """RUAMW: what is left of each handle's open unit, in LBAs."""
    status = fdp.handle_status("status-1")
    for pid in range(RUHS):
        pages = PAGES[pid] - (1 if pid == 0 else 0)     # the bad-PID write comes later
        assert status[pid]["ruamw"] == (RU_PAGES - pages % RU_PAGES) * PAGE_BYTES // \
            LBA_BYTES, (pid, status[pid])
        # The time limit counts down from when the unit opened (seconds, rounded up).
        assert RU_TIME_LIMIT_S - 120 <= status[pid]["earutr"] <= RU_TIME_LIMIT_S, status[pid]


def test_update_closes_the_named_units(fdp):
    status = fdp.handle_status("status-2")
    for pid in (ONE_PLID, UPDATE_PLID):
        assert status[pid]["ruamw"] == RU_LBAS, (pid, status[pid])
        assert status[pid]["earutr"] == RU_TIME_LIMIT_S, (pid, status[pid])
    assert status[0]["ruamw"] == (RU_PAGES - PAGES[0]) * PAGE_BYTES // LBA_BYTES, status[0]
    assert status[RESET_PLID]["ruamw"] < RU_LBAS


def test_a_controller_reset_closes_every_open_unit(fdp):
    status = fdp.handle_status("status-3")
    assert [status[pid]["ruamw"] for pid in range(RUHS)] == [RU_LBAS] * RUHS, status


def test_statistics_count_host_and_media_bytes(fdp):
    assert fdp.json("stats-0") == {"hbmw": 0, "mbmw": 0, "mbe": 0}
    before_bad_write = HOST_BYTES - PAGE_BYTES
    # No GC on a device this empty: every media byte is a host byte (WAF 1).
    assert fdp.json("stats-1") == {"hbmw": before_bad_write, "mbmw": before_bad_write,
                                   "mbe": 0}
    assert fdp.json("stats-2") == {"hbmw": HOST_BYTES, "mbmw": HOST_BYTES, "mbe": 0}


def test_host_events_in_order(fdp):
    """Invalid Placement Identifier (enabled on handle 0, where the write went), Reclaim
    Unit Not Fully Written for fio-one's handle (not for UPDATE_PLID's: its events are
    off), Controller Level Reset Modified RUHs for RESET_PLID's open unit only."""
    assert fdp.json("events-0") == {"n": 0, "events": []}
    document = fdp.json("events-host")
    events = document["events"]
    assert document["n"] == len(events) == 3, document
    bad, not_full, reset = events
    assert (bad["type"], bad["fdpef"], bad["pid"], bad["nsid"]) == \
        (INVALID_PID, PIV | NSIDV | LV, BAD_PID, 1), bad
    assert (not_full["type"], not_full["fdpef"], not_full["pid"], not_full["nsid"]) == \
        (RU_NOT_FULLY_WRITTEN, PIV | NSIDV | LV, ONE_PLID, 1), not_full
    assert (reset["type"], reset["fdpef"]) == (CTRL_RESET_MODIFIED, LV), reset
    # PID and NSID are reserved in it (nvme-cli prints them anyway: 0).
    assert (reset.get("pid", 0), reset.get("nsid", 0)) == (0, 0), reset
    assert bad["timestamp"] <= not_full["timestamp"], events
    # The text output names the reclaim unit handle each event happened on.
    text = fdp.out("events-text")
    types = re.findall(r"Event Type: (0x[0-9a-f]+|\d+) \(([^)]*)\)", text)
    assert [name for _, name in types] == ["Invalid Placement Identifier",
                                           "Reclaim Unit Not Fully Written",
                                           "Controller Level Reset Modified Reclaim Unit "
                                           "Handles"], text
    assert re.findall(r"Reclaim Unit Handle Identifier (\d+)", text) == \
        ["0", str(ONE_PLID), str(RESET_PLID)], text


def test_no_controller_events(fdp):
    assert fdp.json("events-ctrl") == {"n": 0, "events": []}


def test_device_statistics_put_each_write_on_its_handle(fdp):
    for pid in range(RUHS):
        assert fdp.column_sum(f"wp{pid}_host_pages") == PAGES[pid], pid
        assert fdp.column_sum(f"wp{pid}_gc_pages") == 0, pid
    # fdp_ruh_type=initial: the GC write pointer the handles share took nothing.
    assert fdp.column_sum(f"wp{RUHS}_host_pages") == 0
    assert fdp.column_sum("host_write_bytes") == HOST_BYTES


def test_device_counts_the_units_closed_early(fdp):
    """The update closed fio-one's and UPDATE_PLID's open units, the reset handle 0's and
    RESET_PLID's: four units closed before they were full, and the pages they left."""
    closed = (ONE_PLID, UPDATE_PLID, 0, RESET_PLID)
    assert fdp.column_sum("fdp_ru_updates") == len(closed)
    assert fdp.column_sum("fdp_unwritten_pages") == \
        sum(RU_PAGES - PAGES[pid] % RU_PAGES for pid in closed)
    assert fdp.column_sum("fdp_ru_time_limits") == 0
