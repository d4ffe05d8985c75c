"""Fixtures for booting the guest on the femu device (imported by name by
test_femu_device.py; conftest.py's `image` fixture supplies the guest image).

The device is small (96 MiB logical on 160 MiB of flash) with short program and
erase latencies, so a whole-namespace pass under TCG takes seconds and a couple of
passes start GC. Each boot has a guest job timeout and a host deadline (vm.run).
"""
import csv
import re
from pathlib import Path
from typing import Dict, List

import pytest

from femu_lab.vm import launch as vm
from femu_lab.paths import QEMU as FEMU_QEMU

DEVSZ_MB = 96
# 2 ch x 4 LUN x 80 blocks x 64 pages x 4 KiB = 160 MiB raw: 80 lines of 2 MiB.
SMALL_SSD = dict(nchs=2, luns_per_ch=4, pgs_per_blk=64, blks_per_pl=80, pls_per_lun=1,
                 secsz=512, secs_per_pg=8, devsz_mb=DEVSZ_MB,
                 pg_wr_lat=50000, blk_er_lat=500000)
PAGE_BYTES = SMALL_SSD["secsz"] * SMALL_SSD["secs_per_pg"]


GUEST_JOBS = Path(__file__).resolve().parents[1] / "guest" / "jobs"


def job_with_steps(job: Path, variables: Dict[str, object]) -> str:
    """A guest job's text: its variables, the steps' preamble (jobs/steps.sh: say, run,
    ns_disk), then the job."""
    return ("".join(f"{key}={value}\n" for key, value in variables.items())
            + (GUEST_JOBS / "steps.sh").read_text() + job.read_text())


def read_csv(path: Path) -> List[Dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


DRIVER_TROUBLE = re.compile(r"nvme.*(timeout|timed out|reset|abort|error|fail)|I/O error",
                            re.IGNORECASE)


def driver_trouble(dmesg: str) -> List[str]:
    """Kernel log lines where the nvme driver or the block layer complain."""
    return [line for line in dmesg.splitlines() if DRIVER_TROUBLE.search(line)]


def phase_cdws(name: str) -> List[int]:
    """CDW12..CDW15 of the vendor phase-marker command (C1h): the name as 16 bytes of
    ASCII, NUL padded, little-endian dwords."""
    raw = name.encode("ascii").ljust(16, b"\0")
    assert len(raw) == 16
    return [int.from_bytes(raw[i:i + 4], "little") for i in range(0, 16, 4)]


def phase_command(name: str) -> str:
    """Guest shell line that appends `name` to the device's phases.csv."""
    cdws = phase_cdws(name)
    return ("nvme admin-passthru /dev/nvme0 --opcode=0xc1 "
            + " ".join(f"--cdw{12 + i}={value}" for i, value in enumerate(cdws)))


@pytest.fixture(scope="session")
def femu_qemu() -> Path:
    if not FEMU_QEMU.exists():
        pytest.fail(f"{FEMU_QEMU} is missing: build it with build-femu/femu-compile.sh")
    return FEMU_QEMU


@pytest.fixture(scope="module")
def boot_femu(image, femu_qemu, tmp_path_factory):
    """boot_femu(script, name, stats=True, job_timeout=..., **device properties)
    -> (RunResult, stats_dir). The job powers the guest off when it ends; QEMU then
    exits and the device writes its end-of-run statistics."""
    def run_job(script: str, name: str, stats: bool = True, job_timeout: int = 240,
                **properties) -> tuple:
        base = tmp_path_factory.mktemp(name)
        stats_dir = base / "stats" if stats else None
        device = vm.femu_args(stats_dir=stats_dir, **{**SMALL_SSD, **properties})
        script += '\ndmesg > "$FEMU_OUT/dmesg.txt"\n'   # driver warnings miss the quiet console
        spec = vm.VmSpec(job=script, qemu=str(femu_qemu), kernel=image.kernel,
                         initramfs=image.initramfs, device_args=device,
                         job_timeout=job_timeout, timeout=job_timeout + 90)
        result = vm.run(spec, base / "run", quiet=True)
        print(result.summary())
        assert result.qemu_returncode is not None, "QEMU was not reaped"
        return result, stats_dir
    return run_job
