"""Reading a soak boot's console log (femu_lab.soak.guest's `soak:` lines, the kernel log
the job dumps, QEMU's own messages) into counts."""
import re
from dataclasses import dataclass, field
from typing import List

JOB_START = "femu-guest: job start"
_FIO = re.compile(r"^soak: fio name=(\S+) rc=(\d+) verify_errors=(\d+)")
_CHECK = re.compile(r"^soak: check name=(\S+) chunks=(\d+) differ=(\d+)")
_EVENT = re.compile(r"^soak: event kind=(\S+) n=(\d+)(.*)$")
_STUCK = re.compile(r"^soak: stuck what=(\S+)")
# Linux's nvme driver: "nvme nvme0: I/O 12 QID 1 timeout, aborting" (and ", reset
# controller", ", disable controller", ", completion polled").
NVME_TIMEOUT = re.compile(r"nvme\d+: I/O \d+ .*QID \d+ timeout")
KERNEL_TROUBLE = re.compile(r"Kernel panic|BUG:|Oops|WARNING:|Call Trace|hung_task|"
                            r"blocked for more than")
QEMU_MESSAGE = re.compile(r"^qemu-system-\S+: ")
# A QEMU built with sanitizers (femu-compile.sh --sanitize) reports on its stderr, which
# the harness merges into the console log.
SANITIZER = re.compile(r"runtime error:|ERROR: \w*Sanitizer|SUMMARY: \w*Sanitizer")
# Other complaints of the nvme driver, kept for the report (not counted as failures).
NVME_COMPLAINT = re.compile(r"nvme\S*:? .*(fail|error|abort|not ready|Removing|disable|"
                            r"reset)", re.IGNORECASE)


@dataclass
class ConsoleFacts:
    guest_boots: int = 0               # job starts seen (a reboot starts the job again)
    fio_runs: int = 0
    fio_failures: List[str] = field(default_factory=list)    # names of fio runs with rc != 0
    verify_errors: int = 0             # blocks fio's verify found wrong
    differing_chunks: int = 0          # MiB whose checksum changed across an event
    checks: int = 0
    events: List[str] = field(default_factory=list)          # "kind n" per event done
    stuck: List[str] = field(default_factory=list)           # in-guest waits that ran out
    timeouts: List[str] = field(default_factory=list)        # the driver's timeout lines
    kernel_trouble: List[str] = field(default_factory=list)
    nvme_complaints: List[str] = field(default_factory=list)
    qemu_messages: List[str] = field(default_factory=list)
    sanitizer: List[str] = field(default_factory=list)        # ASan / UBSan reports
    done: bool = False
    unplug_requests: List[int] = field(default_factory=list)  # device-del-add: n per request
    details: List[str] = field(default_factory=list)   # read problems, MiB that differed

    @property
    def mismatches(self) -> int:
        return self.verify_errors + self.differing_chunks

    @property
    def panicked(self) -> bool:
        return any("Kernel panic" in line for line in self.kernel_trouble)


def _clean(line: str) -> str:
    return line.replace("\r", "").strip()


def parse(text: str) -> ConsoleFacts:
    facts = ConsoleFacts()
    in_dmesg = False
    for raw in text.splitlines():
        line = _clean(raw)
        if JOB_START in line:
            facts.guest_boots += 1
            in_dmesg = False      # a boot cut short may have left a dump unfinished
        if line == "soak: dmesg-begin":
            in_dmesg = True
            continue
        if line == "soak: dmesg-end":
            in_dmesg = False
            continue
        if NVME_TIMEOUT.search(line):
            facts.timeouts.append(line)
        if KERNEL_TROUBLE.search(line):
            facts.kernel_trouble.append(line)
        elif in_dmesg and NVME_COMPLAINT.search(line) and not NVME_TIMEOUT.search(line):
            facts.nvme_complaints.append(line)
        if in_dmesg:
            continue
        if SANITIZER.search(line):
            facts.sanitizer.append(line)
        if QEMU_MESSAGE.match(line):
            facts.qemu_messages.append(line)
        _soak_line(facts, line)
    # A line repeated by the dmesg dump of a later boot (reboot pattern) counts once.
    facts.timeouts = list(dict.fromkeys(facts.timeouts))
    facts.kernel_trouble = list(dict.fromkeys(facts.kernel_trouble))
    facts.nvme_complaints = list(dict.fromkeys(facts.nvme_complaints))
    return facts


def _soak_line(facts: ConsoleFacts, line: str) -> None:
    match = _FIO.match(line)
    if match:
        facts.fio_runs += 1
        facts.verify_errors += int(match.group(3))
        if match.group(2) != "0":
            facts.fio_failures.append(match.group(1))
        return
    match = _CHECK.match(line)
    if match:
        facts.checks += 1
        facts.differing_chunks += int(match.group(3))
        return
    match = _EVENT.match(line)
    if match:
        facts.events.append(f"{match.group(1)} {match.group(2)}")
        return
    match = _STUCK.match(line)
    if match:
        facts.stuck.append(match.group(1))
        return
    if line.startswith(("soak: read-problem", "soak: differ-detail", "soak-od: ")):
        facts.details.append(line)
    elif line.startswith("soak: ready-for-unplug n="):
        facts.unplug_requests.append(int(line.split("=", 1)[1]))
    elif line == "soak: done":
        facts.done = True
