"""Boot the guest on QEMU's stock NVMe device and run jobs in it."""
import json

FIO_JOB = """
fio --name=smoke --filename=/dev/nvme0n1 --rw=randrw --bs=4k --size=32M --direct=1 \
    --ioengine=libaio --iodepth=8 --runtime=3 --time_based \
    --output-format=json --output="$FEMU_OUT/fio.json"
"""

SYSBENCH_JOB = """
set -e
mkfs.ext4 -q -F /dev/nvme0n1
mount -t ext4 /dev/nvme0n1 /mnt/nvme0n1
cd /mnt/nvme0n1
sysbench fileio --threads=2 --file-num=4 --file-total-size=32M prepare
sysbench fileio --threads=2 --file-num=4 --file-total-size=32M --file-test-mode=rndrw \
    --file-extra-flags=direct --time=5 run > "$FEMU_OUT/sysbench.txt"
sysbench fileio --file-num=4 --file-total-size=32M cleanup
cd /
umount /mnt/nvme0n1
"""

NVME_JOB = """
nvme id-ctrl /dev/nvme0 > "$FEMU_OUT/id-ctrl.txt"
nvme list > "$FEMU_OUT/list.txt"
mkdir -p "$FEMU_OUT/sub"
printf 'line1\\nline2\\r\\nno-newline-at-end' > "$FEMU_OUT/sub/raw.bin"
head -c 3000 /dev/urandom > "$FEMU_OUT/random.bin"
echo "hello from the job"
"""


def test_fio_json_comes_home(boot):
    result = boot(FIO_JOB)
    assert result.ok, result.summary()
    report = json.loads(result.files["fio.json"])
    job = report["jobs"][0]
    assert job["error"] == 0
    assert job["read"]["io_bytes"] > 0 and job["write"]["io_bytes"] > 0
    print(f"fio smoke (randrw 4k qd8): read {job['read']['iops']:.0f} IOPS, "
          f"write {job['write']['iops']:.0f} IOPS; boot-to-job {result.boot_to_job_seconds:.1f}s")
    assert (result.out_dir / "files" / "fio.json").read_bytes() == result.files["fio.json"]


def test_sysbench_fileio_on_ext4(boot):
    result = boot(SYSBENCH_JOB)
    assert result.ok, result.text("job.log")
    text = result.text("sysbench.txt")
    assert "File operations:" in text and "reads/s:" in text
    print(text[text.index("File operations:"):][:400])


def test_nvme_id_ctrl_and_several_files(boot):
    result = boot(NVME_JOB)
    assert result.ok, result.summary()
    id_ctrl = result.text("id-ctrl.txt")
    assert "QEMU NVMe Ctrl" in id_ctrl and "femu0" in id_ctrl
    assert "/dev/nvme0n1" in result.text("list.txt")
    # Raw serial port: bytes arrive unchanged (no "\n" -> "\r\n"), binary included.
    assert result.files["sub/raw.bin"] == b"line1\nline2\r\nno-newline-at-end"
    assert len(result.files["random.bin"]) == 3000
    assert not result.damaged
    assert "hello from the job" in result.text("job.log")
    assert float(result.status["uptime_at_job_start"]) > 0


def test_failing_job_is_reported(boot):
    result = boot("echo going to fail >&2\nexit 3\n")
    assert result.complete and not result.timed_out and not result.host_timed_out
    assert result.exit_status == 3
    assert not result.ok
    assert "going to fail" in result.text("job.log")


def test_hanging_job_times_out_in_the_guest(boot):
    result = boot("echo started\nsleep 600 &\nsleep 600\n", job_timeout=4)
    assert result.timed_out and result.complete and not result.host_timed_out
    assert result.status["note"] == "timed out"
    assert "started" in result.text("job.log")


def test_host_deadline_kills_a_guest_that_never_ends(boot):
    # No guest-side timeout: only the host deadline can end this run.
    result = boot("sleep 600\n", job_timeout=0, timeout=20)
    assert result.host_timed_out and not result.complete
    assert result.exit_status is None
    assert "job start" in result.console_log.read_text()


def test_background_leftovers_do_not_hold_the_job_open(boot):
    # The job ends while a child it started still runs: the run ends with the job.
    result = boot("sleep 600 &\necho bye\n", job_timeout=60)
    assert result.ok and not result.timed_out and not result.host_timed_out
    assert "bye" in result.text("job.log")
