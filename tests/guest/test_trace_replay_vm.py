"""Record a VM run, replay it in ftl-sim: fio runs in the Linux guest on a device with
trace_out=FILE; ftl-sim replays the recorded trace open-loop with the same configuration
and writes byte for byte the statistics the device wrote (every request the kernel and fio
sent, at the times the device fetched them, through the same FTL engine)."""
import pytest

from femu_fixtures import SMALL_SSD, boot_femu, femu_qemu, phase_command  # noqa: F401

pytestmark = pytest.mark.vm

STATS_FILES = ("stats.csv", "IOPSData.csv", "throughputData.csv", "GCData.csv",
               "WAFData.csv", "statistics.csv", "phases.csv", "lpn_access_count.csv")

# A mix of 4 KiB reads, 16 KiB writes and discards over a third of the device, four jobs
# in flight each; then one full-device discard.
JOB = f"""
{phase_command("fio")}
fio --name=mix --filename=/dev/nvme0n1 --rw=randrw --rwmixread=30 --bsrange=4k-16k \\
    --direct=1 --ioengine=libaio --iodepth=8 --size=32m --time_based --runtime=8 \\
    --norandommap --randrepeat=0 --output="$FEMU_OUT/fio.txt"
echo $? > "$FEMU_OUT/fio.rc"
fio --name=trim --filename=/dev/nvme0n1 --rw=randtrim --bs=64k --size=8m \\
    --ioengine=libaio --iodepth=4 --output="$FEMU_OUT/trim.txt"
echo $? > "$FEMU_OUT/trim.rc"
blkdiscard /dev/nvme0n1
echo $? > "$FEMU_OUT/discard.rc"
"""


def test_a_recorded_vm_run_replays_to_identical_statistics(boot_femu, run_ftl_sim,
                                                           tmp_path):
    trace = tmp_path / "vm.trace"
    result, stats = boot_femu(JOB, "trace", job_timeout=240, trace_out=trace)
    assert result.complete, result.summary()
    for step in ("fio", "trim", "discard"):
        assert result.text(f"{step}.rc").strip() == "0", result.text("job.log")[-2000:]
    kinds = [line.split()[0] for line in trace.read_text().splitlines()
             if line and not line.startswith("#")]
    counts = {k: kinds.count(k) for k in "WRDFPAE"}
    print(f"\nrecorded: {counts}")
    assert kinds[0] == "V" and kinds[-1] == "E"
    assert counts["W"] > 100 and counts["R"] > 100 and counts["D"] > 0

    sets = [arg for key, value in SMALL_SSD.items() for arg in ("--set", f"{key}={value}")]
    replay = tmp_path / "replay"
    run_ftl_sim(*sets, "--trace", trace, "--stats-dir", replay)
    for name in STATS_FILES:
        assert (replay / name).read_text() == (stats / name).read_text(), name
