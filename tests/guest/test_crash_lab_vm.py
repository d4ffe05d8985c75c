"""The crash-consistency lab in a guest (femu_lab.crash): a machine that reboots after the
device's power is cut mid-workload. With barriers no durable write may be lost and fsck
finds the file system clean; without barriers and without power-loss protection the
cache's durable-looking writes are lost; with plp=on nothing acknowledged is lost, even
without barriers. One cut each, counts compared, never times."""
import csv

import pytest

from femu_fixtures import femu_qemu  # noqa: F401
from femu_lab.crash.runner import CRASH_SSD, CrashConfig, run_config

pytestmark = pytest.mark.vm


@pytest.mark.parametrize("config", [CrashConfig("ext4", True, False),
                                    CrashConfig("ext4", False, False),
                                    CrashConfig("f2fs", False, True)],
                         ids=lambda c: c.name)
def test_a_cut_and_reboot(image, femu_qemu, tmp_path, config):  # noqa: F811
    result = run_config(config, femu_qemu, tmp_path / config.name, cuts=1, seed=3,
                        device=CRASH_SSD, kernel=image.kernel, initramfs=image.initramfs)
    [verdict] = result.verdicts
    with open(tmp_path / config.name / "stats" / "power_cuts.csv", newline="") as f:
        [row] = list(csv.DictReader(f))
    print(f"\n{config.name}: {verdict.durable_checked} durable writes checked, "
          f"{verdict.lost} lost, fsck {verdict.fsck}; device: {row['buffered_sectors']} "
          f"buffered sectors lost, {row['plp_pages']} pages saved by plp; "
          f"{result.cycle_seconds[0]:.1f} s from the cut to the check")
    assert verdict.durable_checked > 0
    if config.loss_expected:
        assert verdict.lost > 0 and int(row["buffered_sectors"]) > 0
    else:
        assert verdict.lost == 0, (verdict.lost_log, verdict.lost_db)
        assert verdict.fsck == "clean"
    if config.plp:
        assert int(row["buffered_sectors"]) == 0 and int(row["plp_pages"]) > 0
