"""The jobs of `femu-lab bench`: what one boot runs in the guest, in order, on the only
NVMe namespace it has (/dev/nvme0n1), and the guest script that runs them.

    idle        the guest sleeps; the host samples QEMU's CPU time meanwhile
    fill        sequential 128 KiB writes at QD32 over the whole device
    randread1   4 KiB random reads at QD1 over the (filled) device
    randread32  4 KiB random reads at QD32
    randwrite   4 KiB random writes at QD32 on the full device, per-second IOPS logged

Each fio job writes its JSON report (and randwrite its 1 s IOPS log) into $FEMU_OUT,
which the guest sends home at the end. The job announces each step on the console with
a `femu-bench: step NAME` line, which the host watches to know when the guest is idle,
and brackets each fio run with `femu-bench: io begin|end NAME <block stat>` lines (the
device's /sys/block stat counters then): the host samples QEMU's threads at each, and
the counters tell how many I/Os the device completed in between (cpu_windows).
"""
from dataclasses import dataclass, field
from typing import Dict, List, Optional

DEVICE = "/dev/nvme0n1"
MARKER = "femu-bench: step"
IO_MARKER = "femu-bench: io"
IDLE_SETTLE_SECONDS = 5     # after the idle step starts, before the host samples CPU
IDLE_MARGIN_SECONDS = 5     # the guest sleeps this much longer than the host samples
IOPS_LOG_MSEC = 1000        # fio's averaging window of the randwrite IOPS log
RAMP_SECONDS = 2            # read jobs only: the write job is measured from its start


@dataclass(frozen=True)
class BenchTimes:
    """Seconds of each timed step."""
    idle: int = 20          # host CPU sample while the guest sleeps
    read: int = 15          # each randread job (after RAMP_SECONDS)
    write: int = 30         # randwrite after the fill


@dataclass(frozen=True)
class FioJob:
    name: str               # step name; its report is $FEMU_OUT/NAME.json
    rw: str
    bs: str
    iodepth: int
    runtime: Optional[int] = None    # None: the whole device once (no time limit)
    ramp: int = 0
    iops_log: bool = False
    extra: Dict[str, str] = field(default_factory=dict)

    @property
    def report(self) -> str:
        return f"{self.name}.json"

    @property
    def iops_log_file(self) -> str:
        """The file fio names after --write_iops_log=$FEMU_OUT/NAME (one job: .1)."""
        return f"{self.name}_iops.1.log"

    def command(self, device: str = DEVICE) -> str:
        options = [f"--name={self.name}", f"--filename={device}", f"--rw={self.rw}",
                   f"--bs={self.bs}", f"--iodepth={self.iodepth}", "--direct=1",
                   "--ioengine=libaio"]
        if self.rw.startswith("rand"):
            options.append("--norandommap")   # uniform with replacement, as ftl-sim
        if self.runtime is not None:
            options += ["--time_based", f"--runtime={self.runtime}"]
        if self.ramp:
            options.append(f"--ramp_time={self.ramp}")
        if self.iops_log:
            options += [f'--write_iops_log="$FEMU_OUT/{self.name}"',
                        f"--log_avg_msec={IOPS_LOG_MSEC}"]
        options += [f"--{key}={value}" for key, value in self.extra.items()]
        options += ["--output-format=json", f'--output="$FEMU_OUT/{self.report}"']
        return "fio " + " ".join(options)


def fio_jobs(times: BenchTimes) -> List[FioJob]:
    """The fio steps in the order a boot runs them (the fill must come first: femu reads
    never-written pages for free)."""
    return [
        FioJob("fill", "write", "128k", 32),
        FioJob("randread1", "randread", "4k", 1, runtime=times.read, ramp=RAMP_SECONDS),
        FioJob("randread32", "randread", "4k", 32, runtime=times.read, ramp=RAMP_SECONDS),
        FioJob("randwrite", "randwrite", "4k", 32, runtime=times.write, iops_log=True),
    ]


def step_line(name: str) -> str:
    return f"{MARKER} {name}"


def io_line(kind: str, name: str, device: str = DEVICE) -> str:
    """The guest command that prints the io marker `kind` (begin | end) of job `name`
    with the device's block-layer counters (the fields of /sys/block/DEV/stat)."""
    stat = f"/sys/block/{device.rsplit('/', 1)[1]}/stat"
    return f'echo "{IO_MARKER} {kind} {name} $(cat {stat})"'


def idle_sleep_seconds(times: BenchTimes) -> int:
    return IDLE_SETTLE_SECONDS + times.idle + IDLE_MARGIN_SECONDS


def guest_script(times: BenchTimes, device: str = DEVICE) -> str:
    """The whole job list as one guest shell script (busybox ash)."""
    lines = ["set -e",
             f'[ -b {device} ] || {{ echo "femu-bench: no {device}" >&2; exit 1; }}',
             f"echo \"femu-bench: {device} is $(cat /sys/block/{device.rsplit('/', 1)[1]}"
             "/size) sectors of 512 bytes\"",
             f'echo "{step_line("idle")}"',
             f"sleep {idle_sleep_seconds(times)}"]
    for job in fio_jobs(times):
        lines += [f'echo "{step_line(job.name)}"', io_line("begin", job.name, device),
                  job.command(device), io_line("end", job.name, device)]
    lines.append(f'echo "{step_line("done")}"')
    return "\n".join(lines) + "\n"


def job_timeout(times: BenchTimes) -> int:
    """Guest-side limit of one boot's job: every step's time plus generous room for the
    fill (768 MiB at a few MiB/s would still fit) and fio's start and end."""
    fill_allowance = 900
    per_job = 30
    timed = sum((job.runtime or 0) + job.ramp + per_job for job in fio_jobs(times))
    return idle_sleep_seconds(times) + fill_allowance + timed + 60
