"""The guest's zoned-namespace tools on QEMU's own zoned NVMe namespace (no femu needed):
init gives the zoned disk mq-deadline, blkzone and nvme-cli's zns commands report and
append, and F2FS formats and mounts with its metadata on the conventional namespace."""
import re

import pytest

from femu_lab.vm import launch as vm

ZONE_MIB = 4
ZONES = 64
CONVENTIONAL_MIB = 64

JOB = r"""
set -eu
out=$FEMU_OUT
# Each namespace's disk: Linux 6.x names them in the order its parallel scan finished.
for disk in /sys/block/nvme0n*; do
    case "$(cat "$disk/nsid")" in 1) conv=/dev/${disk##*/} ;; 2) zdev=/dev/${disk##*/} ;; esac
done
echo "$conv" >"$out/conventional.txt"
cat "/sys/block/${zdev#/dev/}/queue/zoned" >"$out/zoned.txt"
cat "/sys/block/${zdev#/dev/}/queue/scheduler" >"$out/scheduler.txt"
blkzone report --count 3 "$zdev" >"$out/blkzone.txt"
head -c 4096 /dev/urandom >/tmp/block
# Two appends of 4 KiB into zone 1 (512-byte LBAs: it starts at LBA 8192).
nvme zns zone-append "$zdev" --zslba=8192 --data-size=4096 --data=/tmp/block >"$out/append.txt"
nvme zns zone-append "$zdev" --zslba=8192 --data-size=4096 --data=/tmp/block >>"$out/append.txt"
nvme zns report-zones "$zdev" --descs=3 >"$out/report-zones.txt"
blkzone reset --offset 8192 --count 1 "$zdev"
nvme zns report-zones "$zdev" --descs=3 >"$out/after-reset.txt"
modprobe f2fs
mkfs.f2fs -f -m -c "$zdev" "$conv" >"$out/mkfs.txt"
mount -t f2fs "$conv" /mnt/nvme0n1
head -c $((48 << 20)) /dev/urandom >/tmp/data
cp /tmp/data /mnt/nvme0n1/data
sync
echo 3 >/proc/sys/vm/drop_caches
cmp /tmp/data /mnt/nvme0n1/data && echo same >"$out/cmp.txt"
grep f2fs /proc/mounts >"$out/mounts.txt"
umount /mnt/nvme0n1
"""


@pytest.fixture
def zoned_stock_nvme(tmp_path):
    conventional = vm.make_backing_file(tmp_path / "conv.img", CONVENTIONAL_MIB << 20)
    zoned = vm.make_backing_file(tmp_path / "zoned.img", (ZONES * ZONE_MIB) << 20)
    return ["-drive", f"file={conventional},if=none,id=conv,format=raw",
            "-drive", f"file={zoned},if=none,id=zoned,format=raw",
            "-device", "nvme,id=nvme0,serial=zns0",
            "-device", "nvme-ns,drive=conv,nsid=1",
            "-device", f"nvme-ns,drive=zoned,nsid=2,zoned=true,zoned.zone_size={ZONE_MIB}M,"
                       "zoned.max_open=8,zoned.max_active=12"]


def test_zoned_tools_and_f2fs_on_qemus_zoned_namespace(boot, zoned_stock_nvme):
    result = boot(JOB, device_args=zoned_stock_nvme, memory_mb=1024)
    assert result.ok, result.text("job.log")
    assert result.text("zoned.txt").strip() == "host-managed"
    assert "[mq-deadline]" in result.text("scheduler.txt")
    assert len(re.findall(r"SEQ_WRITE_REQUIRED", result.text("blkzone.txt"))) == 3
    # nvme-cli prints the assigned LBA in hex: the first append lands at the zone start.
    assert result.text("append.txt").splitlines() == ["Success appended data to LBA 2000",
                                                      "Success appended data to LBA 2008"]
    # Zone 1 after two 8-LBA appends: write pointer 8192 + 16, implicitly open (nvme-cli
    # shows the descriptor's state byte: ZS 2h in its upper nibble).
    zone1 = result.text("report-zones.txt").splitlines()[2]
    assert re.search(r"SLBA: 0x2000\s+WP: 0x2010\s", zone1), zone1
    assert "State: 0x20" in zone1, zone1
    reset = result.text("after-reset.txt").splitlines()[2]
    assert re.search(r"SLBA: 0x2000\s+WP: 0x2000\s", reset) and "State: 0x10" in reset, reset
    assert "Host-managed zoned block device" in result.text("mkfs.txt")
    assert result.text("cmp.txt").strip() == "same"
    conventional = result.text("conventional.txt").strip()
    assert conventional in ("/dev/nvme0n1", "/dev/nvme0n2")
    assert result.text("mounts.txt").startswith(f"{conventional} /mnt/nvme0n1 f2fs")
