"""The zns-fio workload, shortened, in Linux on the femu device with conf/zns-lab.conf:
fio's zbd mode on the zoned namespace, the zone reports, and what the device recorded
(phases, nand.csv's zone counts, zones.csv). Skipped when the femu build has no zoned
namespace yet."""
import csv
import json
import subprocess

import pytest

from femu_fixtures import driver_trouble, femu_qemu  # noqa: F401
from femu_lab import paths, workloads
from femu_lab.vm import launch as vm

pytestmark = pytest.mark.vm

ZNS_LAB = paths.REPO_ROOT / "conf" / "zns-lab.conf"
ZONES = 128


def femu_has_zones(qemu) -> bool:
    proc = subprocess.run([str(qemu), "-device", "femu,help"], capture_output=True, text=True,
                          timeout=60)
    return any(line.strip().startswith("zoned=") for line in proc.stdout.splitlines())


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_zns_fio_runs_on_the_zoned_namespace(image, femu_qemu, tmp_path):  # noqa: F811
    if not femu_has_zones(femu_qemu):
        pytest.skip("this femu build has no zoned namespace ('zoned' is not a property)")
    script = workloads.resolve("zns-fio").guest_script(8, precondition=False)
    stats = tmp_path / "stats"
    spec = vm.VmSpec(job=script + 'dmesg > "$FEMU_OUT/dmesg-all.txt"\n', qemu=str(femu_qemu),
                     kernel=image.kernel, initramfs=image.initramfs,
                     device_args=vm.femu_args(config=ZNS_LAB, stats_dir=stats),
                     job_timeout=300, timeout=420)
    result = vm.run(spec, tmp_path / "run", quiet=True)
    print(result.summary())
    assert result.ok, result.text("job.log")[-3000:]
    for name in ("fio-zns-seqwrite.json", "fio-zns-randwrite.json"):
        job = json.loads(result.files[name])["jobs"][0]
        assert job["error"] == 0 and job["write"]["io_bytes"] > 0, name
    assert result.text("zones-end-nvme.txt").startswith(f"nr_zones: {ZONES}")
    assert len(result.text("zones-end-blkzone.txt").splitlines()) == ZONES
    assert not driver_trouble(result.text("dmesg-all.txt"))

    assert [row["phase"] for row in rows(stats / "phases.csv")] == \
        ["setup", "seqwrite", "workload", "end"]
    nand = rows(stats / "nand.csv")
    total = {column: sum(int(row[column]) for row in nand)
             for column in ("zone_writes", "zone_write_pages", "zone_resets", "NAND_write")}
    print(f"device: {total}")
    assert total["zone_writes"] > 0 and total["zone_resets"] > 0
    assert total["NAND_write"] >= total["zone_write_pages"] > 0
    zones = rows(stats / "zones.csv")
    assert [int(row["zone"]) for row in zones] == list(range(ZONES))
    assert any(int(row["wp"]) > int(row["start"]) for row in zones)
