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
    assert result.ok, result.summary()
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
    # No guest-side timeout: only the host deadline can end this run. The deadline
    # leaves a slow TCG boot ample time to reach the job (it usually takes seconds).
    result = boot("sleep 600\n", job_timeout=0, timeout=90)
    assert result.host_timed_out and not result.complete
    assert result.exit_status is None
    assert "job start" in result.console_log.read_text()


def test_background_leftovers_do_not_hold_the_job_open(boot):
    # The job ends while a child it started still runs: the run ends with the job.
    result = boot("sleep 600 &\necho bye\n", job_timeout=60)
    assert result.ok and not result.timed_out and not result.host_timed_out
    assert "bye" in result.text("job.log")


def test_job_left_in_its_own_session_does_not_hold_the_run(boot):
    # setsid: the leftover escapes the kill of the job's process group and keeps the
    # output FIFO open. No guest timeout, so only init's bounded wait on tee ends the
    # run, and the job's own exit status comes home. The job ends only once the
    # leftover is in its new session (else the group kill could still reach it).
    job = ("setsid sh -c 'touch /tmp/escaped; exec sleep 600' &\n"
           "while [ ! -e /tmp/escaped ]; do usleep 10000; done\n"
           "echo bye\nexit 7\n")
    result = boot(job, job_timeout=0, timeout=120)
    assert result.complete and not result.timed_out and not result.host_timed_out
    assert result.exit_status == 7
    assert "bye" in result.text("job.log")


def test_blank_and_reserved_result_names_are_refused(boot):
    job = ('echo from-the-job\n'
           'echo a > "$FEMU_OUT/kept.txt"\n'
           'echo b > "$FEMU_OUT/with space.txt"\n'
           'mkdir -p "$FEMU_OUT/tab\tdir"; echo c > "$FEMU_OUT/tab\tdir/f"\n'
           'echo d > "$FEMU_OUT/new\nline"\n'
           'echo mine > "$FEMU_OUT/job.log"\n'
           'echo mine > "$FEMU_OUT/femu-status"\n'
           'mkdir -p "$FEMU_OUT/sub"; echo e > "$FEMU_OUT/sub/job.log"\n')
    result = boot(job)
    assert result.complete and result.exit_status == 0 and not result.damaged
    assert sorted(result.refused) == ["femu-status", "job.log", "new?line", "tab?dir/f",
                                      "with?space.txt"]
    assert not result.ok and "refused" in result.summary()
    # Only reserved at the top level; the harness's job.log and status are not replaced.
    assert set(result.files) == {"kept.txt", "sub/job.log", "job.log", "femu-status"}
    assert "from-the-job" in result.text("job.log")
    assert result.status["exit_status"] == "0"
    assert "not sent" in result.console_log.read_text()
