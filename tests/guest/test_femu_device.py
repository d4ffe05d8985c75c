"""Linux on the femu device: the namespace, data integrity (also while GC runs), the
admin commands nvme-cli uses, deallocation, and the statistics the device writes.

Four boots, each shared by the tests of one topic (module-scoped fixtures): every
step of a job leaves its exit status in STEP.rc, so one failing step fails only the
tests that depend on it.
"""
import json

import pytest

from femu_fixtures import (DEVSZ_MB, PAGE_BYTES, boot_femu, driver_trouble,  # noqa: F401
                           femu_qemu, phase_command, read_csv)

# Every test boots the guest; test_nvme_driver_does_not_complain reaches its boot through
# request.getfixturevalue, which tests/conftest.py cannot see.
pytestmark = pytest.mark.vm

MIB = 1 << 20
SECTORS_PER_MIB = MIB // 512

STEP = 'step() { name=$1; shift; "$@"; echo $? > "$FEMU_OUT/$name.rc"; }\n'
VERIFY = ('verify() {  # verify NAME BS: random writes over the whole namespace, then read back\n'
          '    fio --name=$1 --filename=/dev/nvme0n1 --rw=randwrite --bs=$2 --direct=1 \\\n'
          '        --ioengine=libaio --iodepth=16 --verify=crc32c --do_verify=1 \\\n'
          '        --verify_fatal=1 --output-format=json --output="$FEMU_OUT/$1.json"\n'
          '}\n')

BASIC_JOB = STEP + VERIFY + f"""
dev=/dev/nvme0n1
MIB={MIB}
blockdev --getsize64 $dev > "$FEMU_OUT/size.txt"
nvme id-ctrl /dev/nvme0 -o json > "$FEMU_OUT/id-ctrl.json"
nvme smart-log /dev/nvme0 -o json > "$FEMU_OUT/smart-before.json"
step verify-4k verify verify-4k 4k
step verify-128k verify verify-128k 128k
nvme smart-log /dev/nvme0 -o json > "$FEMU_OUT/smart-after.json"

# Deallocation: the verify runs left data everywhere; record a checksum per region.
digest() {{ sha256sum | cut -d' ' -f1; }}
sum() {{  # sum LABEL FIRST_MIB MIBS: checksum of a region, read around the page cache
    echo "$1 $(dd if=$dev bs=1M skip=$2 count=$3 iflag=direct 2>/dev/null | digest)" \
        >> "$FEMU_OUT/regions.txt"
}}
zeros() {{ echo "zero-$1 $(head -c $(($1 * MIB)) /dev/zero | digest)" >> "$FEMU_OUT/regions.txt"; }}
zeros 8; zeros {DEVSZ_MB}
sum before-0-4 0 4; sum before-12-16 12 4; sum before-24-32 24 8; sum before-40-48 40 8
sum before-4-12 4 8
step discard blkdiscard -o $((4 * MIB)) -l $((8 * MIB)) $dev
sum discard-4-12 4 8; sum after-0-4 0 4; sum after-12-16 12 4
# The image's blkdiscard is busybox's (no -z): Write Zeroes is sent with nvme-cli.
step write-zeroes nvme write-zeroes $dev -s {16 * SECTORS_PER_MIB} \
    -c {8 * SECTORS_PER_MIB - 1}
sum zeroes-16-24 16 8; sum after-24-32 24 8
step write-zeroes-deac nvme write-zeroes $dev --deac -s {32 * SECTORS_PER_MIB} \
    -c {8 * SECTORS_PER_MIB - 1}
sum zeroes-deac-32-40 32 8; sum after-40-48 40 8
# Sub-page ranges (a page is 8 sectors): only the sectors named become zero.
base=$((48 * MIB)); lba=$((base / 512))
dd if=/dev/urandom of=/tmp/pat bs=4096 count=4 2>/dev/null
dd if=/tmp/pat of=$dev bs=4096 seek=$((base / 4096)) count=4 oflag=direct 2>/dev/null
blkdiscard -o $((base + 9 * 512)) -l 1024 $dev
nvme write-zeroes $dev -s $((lba + 17)) -c 1
nvme write-zeroes $dev --deac -s $((lba + 26)) -c 1
cp /tmp/pat /tmp/expected
for s in 9 10 17 18 26 27; do
    dd if=/dev/zero of=/tmp/expected bs=512 seek=$s count=1 conv=notrunc 2>/dev/null
done
dd if=$dev bs=4096 skip=$((base / 4096)) count=4 iflag=direct 2>/dev/null > /tmp/got
step subpage cmp /tmp/got /tmp/expected
step discard-all blkdiscard $dev
sum discard-all 0 {DEVSZ_MB}
"""

GC_JOB = STEP + VERIFY + f"""
dev=/dev/nvme0n1
step fill fio --name=fill --filename=$dev --rw=write --bs=1M --direct=1 --ioengine=libaio \\
    --iodepth=4 --loops=2 --output-format=json --output="$FEMU_OUT/fill.json"
{phase_command("gc-verify")}
echo $? > "$FEMU_OUT/phase.rc"
step verify-4k verify verify-4k 4k
step verify-128k verify verify-128k 128k
"""

# One I/O queue pair and 16 KiB transfers: the driver splits I/O; then a file system.
SMALL_LIMITS_JOB = STEP + VERIFY + """
cat /sys/block/nvme0n1/queue/max_hw_sectors_kb > "$FEMU_OUT/max_hw_sectors_kb.txt"
step verify-128k verify verify-128k 128k
step mkfs mkfs.ext4 -q -F /dev/nvme0n1
mount -t ext4 /dev/nvme0n1 /mnt/nvme0n1
dd if=/dev/urandom of=/mnt/nvme0n1/file bs=1M count=24 2>/dev/null
sha256sum /mnt/nvme0n1/file | cut -d' ' -f1 > "$FEMU_OUT/written.sha"
umount /mnt/nvme0n1
echo 3 > /proc/sys/vm/drop_caches
step fsck e2fsck -f -n /dev/nvme0n1
mount -t ext4 -o ro /dev/nvme0n1 /mnt/nvme0n1
sha256sum /mnt/nvme0n1/file | cut -d' ' -f1 > "$FEMU_OUT/read.sha"
umount /mnt/nvme0n1
"""

IOPS_RUNTIME = 15
IOPS_JOB = f"""
{phase_command("fio-start")}
echo $? > "$FEMU_OUT/phase-start.rc"
fio --name=iops --filename=/dev/nvme0n1 --rw=randwrite --bs=4k --direct=1 --ioengine=libaio \\
    --iodepth=8 --time_based --runtime={IOPS_RUNTIME} --norandommap --randrepeat=0 \\
    --output-format=json --output="$FEMU_OUT/iops.json"
echo $? > "$FEMU_OUT/fio.rc"
{phase_command("fio-end")}
echo $? > "$FEMU_OUT/phase-end.rc"
# Clean shutdown of the controller (CC.SHN) by removing the PCI function.
echo 1 > /sys/class/nvme/nvme0/device/remove
[ ! -e /dev/nvme0n1 ] && echo removed > "$FEMU_OUT/removed.txt"
"""


def step_ok(result, name: str) -> None:
    rc = result.files.get(f"{name}.rc")
    assert rc is not None, f"step {name} never ran:\n{result.text('job.log')[-3000:]}"
    assert rc.decode().strip() == "0", f"step {name} failed:\n{result.text('job.log')[-3000:]}"


def fio_job(result, name: str) -> dict:
    return json.loads(result.files[f"{name}.json"])["jobs"][0]


def counts_sum(path) -> int:
    return sum(int(row["Access_Count"]) for row in read_csv(path))


@pytest.fixture(scope="module")
def basic(boot_femu):
    result, stats = boot_femu(BASIC_JOB, "basic", job_timeout=420)
    assert result.complete, result.summary()
    return result, stats


@pytest.fixture(scope="module")
def gc_run(boot_femu):
    result, stats = boot_femu(GC_JOB, "gc", job_timeout=480)
    assert result.complete, result.summary()
    return result, stats


@pytest.fixture(scope="module")
def iops_run(boot_femu):
    result, stats = boot_femu(IOPS_JOB, "iops", job_timeout=180)
    assert result.complete, result.summary()
    return result, stats


@pytest.fixture(scope="module")
def small_limits(boot_femu):
    result, stats = boot_femu(SMALL_LIMITS_JOB, "limits", stats=False, queues=1, mdts=2)
    assert result.complete, result.summary()
    return result, stats


@pytest.mark.parametrize("run", ["basic", "gc_run", "iops_run", "small_limits"])
def test_nvme_driver_does_not_complain(request, run):
    result, _ = request.getfixturevalue(run)
    assert "nvme nvme0" in result.text("dmesg.txt")
    assert driver_trouble(result.text("dmesg.txt")) == []


def test_namespace_has_the_configured_size(basic):
    result, _ = basic
    assert int(result.text("size.txt")) == DEVSZ_MB * MIB


@pytest.mark.parametrize("name", ["verify-4k", "verify-128k"])
def test_fio_verify_over_the_whole_namespace(basic, name):
    result, _ = basic
    step_ok(result, name)
    job = fio_job(result, name)
    assert job["error"] == 0
    assert job["write"]["io_bytes"] == DEVSZ_MB * MIB   # every block written once
    assert job["read"]["io_bytes"] == DEVSZ_MB * MIB    # and read back by the verify pass


def test_id_ctrl_and_smart_log(basic):
    result, _ = basic
    ident = json.loads(result.files["id-ctrl.json"])
    assert ident["mn"].strip() == "femu SSD"
    assert ident["vid"] == 0x8086
    assert ident["sn"].strip().startswith("FEMU")
    assert ident["fr"].strip() == "1.0"
    assert ident["nn"] == 32                   # NSIDs the controller supports (NN)
    before = json.loads(result.files["smart-before.json"])
    after = json.loads(result.files["smart-after.json"])
    written = 2 * DEVSZ_MB * MIB   # the two verify runs
    grown = int(after["data_units_written"]) - int(before["data_units_written"])
    # Units of 1000 x 512 bytes, rounded up: the growth is within one unit of the bytes.
    assert abs(grown - written / 512000) <= 1
    assert int(after["host_write_commands"]) > int(before["host_write_commands"])
    assert int(after["data_units_read"]) > int(before["data_units_read"])


def test_deallocated_and_zeroed_ranges_read_zeroes(basic):
    result, _ = basic
    for name in ["discard", "write-zeroes", "write-zeroes-deac", "subpage", "discard-all"]:
        step_ok(result, name)
    regions = dict(line.split() for line in result.text("regions.txt").splitlines())
    zero8, zero_all = regions["zero-8"], regions[f"zero-{DEVSZ_MB}"]
    assert regions["before-4-12"] != zero8, "the verify runs should have left data there"
    assert regions["discard-4-12"] == zero8
    assert regions["zeroes-16-24"] == zero8
    assert regions["zeroes-deac-32-40"] == zero8
    assert regions["discard-all"] == zero_all
    # Neighbouring data is untouched.
    for span in ["0-4", "12-16", "24-32", "40-48"]:
        assert regions[f"after-{span}"] == regions[f"before-{span}"], span


def test_data_survives_gc_and_gc_is_counted(gc_run):
    result, stats = gc_run
    for name in ["fill", "verify-4k", "verify-128k"]:
        step_ok(result, name)
    for name in ["verify-4k", "verify-128k"]:
        assert fio_job(result, name)["error"] == 0
    assert result.files["phase.rc"].decode().strip() == "0"
    start = float(next(row["time_s"] for row in read_csv(stats / "phases.csv")
                       if row["phase"] == "gc-verify"))
    rows = read_csv(stats / "stats.csv")
    erased_during_verify = sum(int(r["gc_erased_blocks"]) for r in rows
                               if float(r["time_s"]) > start + 1)
    moved_during_verify = sum(int(r["gc_moved_pages"]) for r in rows
                              if float(r["time_s"]) > start + 1)
    assert erased_during_verify > 0 and moved_during_verify > 0
    assert sum(int(r["reclaimedBlocks"]) for r in read_csv(stats / "GCData.csv")) > 0
    # Host writes: two sequential passes, then the two verify runs (one pass each).
    written = 4 * DEVSZ_MB * MIB
    assert sum(int(r["host_write_bytes"]) for r in rows) == written
    assert counts_sum(stats / "lpn_access_count.csv") == written // PAGE_BYTES


def test_iops_log_has_a_row_per_second(iops_run):
    _, stats = iops_run
    times = [row["time"] for row in read_csv(stats / "IOPSData.csv")]
    assert len(times) > IOPS_RUNTIME
    # Every row but possibly the last (a partial interval at exit) ends a whole second.
    assert times[:-1] == [f"{i}.000" for i in range(1, len(times))]
    assert 0 <= float(times[-1]) - (len(times) - 1) <= 1


def test_device_counts_every_write_fio_made(iops_run):
    """Counts, never rates: fio is the only writer, so the write commands the device counted
    are exactly fio's write I/Os (4 KiB each, one command apiece), and the per-second rows
    of both logs add up to that total. (A mean of per-second rows against fio's own rate
    compares two different windows and drifts on a loaded host.)"""
    result, stats = iops_run
    for name in ["phase-start", "fio", "phase-end"]:
        assert result.files[f"{name}.rc"].decode().strip() == "0", name
    job = fio_job(result, "iops")
    assert job["error"] == 0
    fio_ios = job["write"]["total_ios"]
    assert fio_ios > 0 and job["write"]["io_bytes"] == fio_ios * 4096
    rows = read_csv(stats / "IOPSData.csv")
    assert sum(int(r["write"]) for r in rows) == fio_ios
    assert sum(int(r["host_write_cmds"]) for r in read_csv(stats / "stats.csv")) == fio_ios
    # Nothing wrote before the fio-start marker, and nothing read while fio ran (the
    # kernel reads only at boot, before the job): rows wholly before / inside the window.
    phases = {r["phase"]: float(r["time_s"]) for r in read_csv(stats / "phases.csv")}
    start, end = phases["fio-start"], phases["fio-end"]
    assert start < end
    assert all(int(r["write"]) == 0 for r in rows if float(r["time"]) <= start)
    inside = [r for r in rows if start <= float(r["time"]) - 1 and float(r["time"]) <= end]
    assert all(r["read"] == "0" for r in inside)


def test_lpn_access_counts_written_at_exit(iops_run):
    result, stats = iops_run
    assert result.text("removed.txt").strip() == "removed"   # shut down without complaint
    assert result.qemu_returncode == 0   # the guest powered off; QEMU exited by itself
    counts = read_csv(stats / "lpn_access_count.csv")
    assert [int(r["LPN"]) for r in counts] == list(range(len(counts)))
    assert len(counts) <= DEVSZ_MB * MIB // PAGE_BYTES
    written = fio_job(result, "iops")["write"]["io_bytes"]
    assert counts_sum(stats / "lpn_access_count.csv") == written // PAGE_BYTES


def test_one_queue_and_small_transfers_then_ext4(small_limits):
    result, _ = small_limits
    assert int(result.text("max_hw_sectors_kb.txt")) == 16   # mdts=2: 4 KiB << 2
    assert "1/0/0 default/read/poll queues" in result.text("dmesg.txt")
    step_ok(result, "verify-128k")
    assert fio_job(result, "verify-128k")["error"] == 0
    for name in ["mkfs", "fsck"]:
        step_ok(result, name)
    assert result.text("read.sha") == result.text("written.sha")
