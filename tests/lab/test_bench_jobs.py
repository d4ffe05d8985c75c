"""femu-lab bench without a guest: the job list and its guest script, the devices' QEMU
arguments, the boot order, the console step reader, the QEMU process finder and the
command line's errors."""
import argparse
import dataclasses
import re
import shlex
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from femu_lab import cli as lab_cli
from femu_lab.bench import (devices as bench_devices, host as bench_host, jobs as bench_jobs,
                            runner as bench)
from femu_lab.bench.jobs import BenchTimes

LAB_1G_VALUES = {"secsz": "512", "secs_per_pg": "8", "pgs_per_blk": "256", "blks_per_pl": "64",
                 "pls_per_lun": "1", "luns_per_ch": "8", "nchs": "2", "devsz_mb": "768",
                 "pg_rd_lat": "40000", "pg_wr_lat": "200000", "blk_er_lat": "2000000",
                 "ch_xfer_lat": "0", "gc_thres_pcent": "75", "gc_thres_pcent_high": "95",
                 "placement": "single", "hot_threshold": "0", "nstreams": "2"}


def test_steps_in_order_fill_first():
    script = bench_jobs.guest_script(BenchTimes(idle=20, read=15, write=30))
    steps = re.findall(r'^echo "femu-bench: step (\S+)"$', script, re.MULTILINE)
    assert steps == ["idle", "fill", "randread1", "randread32", "randwrite", "done"]
    assert script.startswith("set -e\n")
    # the guest sleeps through the host's settle time, its sample and a margin
    assert f"sleep {5 + 20 + 5}\n" in script


def test_fio_jobs_options():
    jobs = {job.name: job for job in bench_jobs.fio_jobs(BenchTimes(read=15, write=30))}
    fill = jobs["fill"].command()
    assert "--rw=write --bs=128k --iodepth=32" in fill
    assert "--runtime" not in fill and "--size" not in fill   # the whole device, once
    qd1, qd32 = jobs["randread1"].command(), jobs["randread32"].command()
    assert "--rw=randread --bs=4k --iodepth=1 " in qd1 and "--iodepth=32 " in qd32
    assert "--time_based --runtime=15 --ramp_time=2" in qd1
    write = jobs["randwrite"].command()
    assert "--rw=randwrite --bs=4k --iodepth=32" in write and "--runtime=30" in write
    assert "--ramp_time" not in write      # measured from its start, as ftl-sim's
    assert '--write_iops_log="$FEMU_OUT/randwrite" --log_avg_msec=1000' in write
    for job in jobs.values():
        command = job.command()
        assert "--filename=/dev/nvme0n1 " in command and "--direct=1" in command
        assert "--ioengine=libaio" in command and "--output-format=json" in command
        assert command.endswith(f'--output="$FEMU_OUT/{job.name}.json"')
        assert ("--write_iops_log" in command) == (job.name == "randwrite")
    assert jobs["randwrite"].iops_log_file == "randwrite_iops.1.log"


def test_job_timeout_covers_every_step():
    times = BenchTimes(idle=20, read=15, write=30)
    busy = 30 + 2 * (15 + 2) + 30
    assert bench_jobs.job_timeout(times) > busy + 300
    longer = bench_jobs.job_timeout(BenchTimes(idle=20, read=15, write=300))
    assert longer - bench_jobs.job_timeout(times) == 270


def test_femu_gets_the_conf_file_and_overrides_as_properties(tmp_path):
    conf = tmp_path / "lab,1g.conf"
    found = bench_devices.devices(conf, {"placement": "hotcold"}, LAB_1G_VALUES, 768 << 20,
                                  Path("/q/qemu-system-x86_64"))
    assert [d.name for d in found] == ["femu", "stock"]
    assert found[0].arguments(tmp_path) == [
        "-device", f"femu,config={tmp_path}/lab,,1g.conf,placement=hotcold"]


def test_stock_nvme_gets_a_backing_file_of_the_logical_size(tmp_path):
    stock = bench_devices.devices(tmp_path / "c.conf", {}, LAB_1G_VALUES, 768 << 20,
                                  Path("/q/qemu"))[1]
    args = stock.arguments(tmp_path)
    image = tmp_path / bench_devices.STOCK_IMAGE
    assert image.stat().st_size == 768 << 20
    assert args[0] == "-drive" and args[1].startswith(f"file={image},")
    assert args[2:] == ["-device", "nvme,drive=nvm0,serial=femu0"]


def test_upstream_FEMU_blackbox_with_the_same_geometry(tmp_path):
    found = bench_devices.devices(tmp_path / "c.conf", {}, LAB_1G_VALUES, 768 << 20,
                                  Path("/q/qemu"), femu_upstream=Path("/femu/qemu"))
    femu_upstream = found[2]
    assert femu_upstream.name == "FEMU" and femu_upstream.qemu == Path("/femu/qemu")
    # its binary gets the firmware folders of the Debian packages; femu and stock run on
    # this repository's QEMU, which was built with them in its search path
    assert femu_upstream.firmware_dirs == (Path("/usr/share/seabios"), Path("/usr/share/qemu"))
    assert found[0].firmware_dirs == found[1].firmware_dirs == ()
    assert femu_upstream.arguments(tmp_path) == [
        "-device", "femu,devsz_mb=768,namespaces=1,femu_mode=1,secsz=512,secs_per_pg=8,"
                   "pgs_per_blk=256,blks_per_pl=64,pls_per_lun=1,luns_per_ch=8,nchs=2,"
                   "pg_rd_lat=40000,pg_wr_lat=200000,blk_er_lat=2000000,ch_xfer_lat=0,"
                   "gc_thres_pcent=75,gc_thres_pcent_high=95"]
    with pytest.raises(ValueError, match="whole number of MiB"):
        bench_devices.femu_upstream_args(LAB_1G_VALUES, (768 << 20) + 512)


def test_settings_FEMU_runs_without():
    assert bench_devices.femu_only_settings(LAB_1G_VALUES) == []
    assert bench_devices.femu_only_settings({**LAB_1G_VALUES, "placement": "hotcold"}) == \
        ["placement=hotcold"]


def test_boot_order_alternates_and_reverses_every_other_round():
    assert bench_devices.boot_order(["femu", "stock", "FEMU"], 3) == [
        ["femu", "stock", "FEMU"], ["FEMU", "stock", "femu"], ["femu", "stock", "FEMU"]]
    assert bench_devices.boot_order(["femu", "stock"], 1) == [["femu", "stock"]]


def test_console_steps_are_read_as_they_arrive(tmp_path):
    log = tmp_path / "console.log"
    steps = bench.ConsoleSteps(log)
    assert steps.new() == []                       # no console yet
    log.write_bytes(b"[    1.2] nvme nvme0: 2/0/0 queues\r\nfemu-bench: step idle\r\nfemu-be")
    assert steps.new() == ["idle"]
    with open(log, "ab") as f:
        f.write(b"nch: step fill")
    assert steps.new() == []                       # the line has not ended yet
    with open(log, "ab") as f:
        f.write(b"\nfemu-bench: /dev/nvme0n1 is 1572864 sectors\nfemu-bench: step randread1\n")
    assert steps.new() == ["fill", "randread1"]
    assert steps.new() == []


def test_find_qemu_pid_under_another_binary_name(tmp_path):
    def fake(pid, *argv):
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv))
    fake(20, "sh", "-c", "x", "/opt/femu/femu-qemu", "/runs/a/serial")
    fake(21, "/opt/femu/femu-qemu", "-chardev", "file,path=/runs/a/serial")
    assert bench_host.find_qemu_pid("/runs/a/", proc=tmp_path) is None
    assert bench_host.find_qemu_pid("/runs/a/", proc=tmp_path,
                                    program="/opt/femu/femu-qemu") == 21


@pytest.mark.parametrize("argv, message", [
    (["bench", "--rounds", "0"], "--rounds: 0 is not between 1 and 100"),
    (["bench", "--runtime", "x"], "'x' is not a whole number"),
    (["bench", "--qemu", "/nonexistent/qemu"], "/nonexistent/qemu is missing"),
    (["bench", "--femu-upstream", "/nonexistent/femu"], "--femu-upstream /nonexistent/femu"),
    (["bench", "--colour"], "unrecognized arguments: --colour"),
])
def test_bad_bench_arguments_are_one_line_and_status_2(argv, message, capsys, tmp_path):
    if "--femu-upstream" in argv:   # a --qemu that exists, so the next check is reached
        qemu = tmp_path / "qemu"
        qemu.write_text("")
        argv = argv + ["--qemu", str(qemu)]
    assert lab_cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("femu-lab: error: ")


# A stand-in for upstream FEMU's binary built the usual way: it fails as that binary does
# unless some -L folder holds the BIOS, and then says where it found it.
UPSTREAM_STANDIN = """#!/bin/sh
while [ $# -gt 0 ]; do
    if [ "$1" = -L ] && [ -f "$2/bios-256k.bin" ]; then
        echo "stand-in FEMU: BIOS from $2"
        exit 0
    fi
    shift
done
echo "qemu-system-x86_64: could not load PC BIOS 'bios-256k.bin'" >&2
exit 1
"""


def test_an_upstream_FEMU_boot_gets_the_firmware_folders(tmp_path, monkeypatch):
    seabios, qemu_data = tmp_path / "seabios", tmp_path / "qemu"
    for folder in (seabios, qemu_data):
        folder.mkdir()
    (seabios / bench_devices.BIOS).write_bytes(b"")
    monkeypatch.setattr(bench_devices, "UPSTREAM_FIRMWARE",
                        ((seabios, "seabios"), (qemu_data, "qemu-system-data")))
    binary = tmp_path / "femu-qemu"
    binary.write_text(UPSTREAM_STANDIN)
    binary.chmod(0o755)
    femu_upstream = bench_devices.devices(tmp_path / "c.conf", {}, LAB_1G_VALUES, 768 << 20,
                                          Path("/q/qemu"), femu_upstream=binary)[2]
    kernel, initramfs = tmp_path / "vmlinuz", tmp_path / "initramfs"
    kernel.write_bytes(b"")
    initramfs.write_bytes(b"")
    image = SimpleNamespace(kernel=kernel, initramfs=initramfs)
    args = argparse.Namespace(smp=1, mem=256, accel="tcg")
    times = BenchTimes(idle=1, read=1, write=1)

    def boot(device, name):
        return bench.run_boot(device, 1, tmp_path / name, times, image, args, lambda m: None)

    # the stand-in started, found the BIOS and stopped (no guest: no job status)
    assert "[console: stand-in FEMU: BIOS from " + str(seabios) + "]" in \
        boot(femu_upstream, "with").error
    # the same binary without the folders fails as upstream FEMU's boots did
    without = dataclasses.replace(femu_upstream, firmware_dirs=())
    assert "could not load PC BIOS 'bios-256k.bin'" in boot(without, "without").error


def test_firmware_folders_are_checked_before_anything_runs(tmp_path, monkeypatch, capsys):
    seabios, qemu_data = tmp_path / "seabios", tmp_path / "qemu"
    firmware = ((seabios, "seabios"), (qemu_data, "qemu-system-data"))
    assert bench_devices.firmware_problem(firmware) == (
        f"QEMU's firmware folder {seabios} is missing (FEMU's binary gets it as -L): "
        "install the Debian package seabios (scripts/install-deps.sh device)")
    seabios.mkdir()
    qemu_data.mkdir()
    assert bench_devices.firmware_problem(firmware) == (
        f"no bios-256k.bin in {seabios}, {qemu_data} (FEMU's binary gets them as -L): "
        "install the Debian package seabios (scripts/install-deps.sh device)")
    (seabios / "bios-256k.bin").write_bytes(b"")
    assert bench_devices.firmware_problem(firmware) is None

    # through the command line: one line, status 2, before ftl-sim or a guest runs
    monkeypatch.setattr(bench_devices, "UPSTREAM_FIRMWARE", ((tmp_path / "none", "seabios"),))
    for name in ("our-qemu", "femu-qemu"):
        (tmp_path / name).write_text("")
    assert lab_cli.main(["bench", "--qemu", str(tmp_path / "our-qemu"), "--femu-upstream",
                         str(tmp_path / "femu-qemu")]) == 2
    err = capsys.readouterr().err
    assert err == (f"femu-lab: error: --femu-upstream: QEMU's firmware folder {tmp_path}/none "
                   "is missing (FEMU's binary gets it as -L): install the Debian package "
                   "seabios (scripts/install-deps.sh device)\n")


# --region went into the guest job as it was: '64M; touch FILE' ran the touch, as root.
HOSTILE_REGION = '64M; touch "$MARKER" $(touch "$MARKER") `touch "$MARKER"` \'"\n#'


def test_stock_nvme_bench_job_takes_the_region_as_one_word(tmp_path):
    from femu_lab.bench.stock_nvme_bench import job_script
    stub = tmp_path / "bin"
    stub.mkdir()
    (stub / "fio").write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\0" "$a"; done '
                              '>> "$FIO_ARGS"\n')
    (stub / "fio").chmod(0o755)
    marker, fio_args = tmp_path / "pwned", tmp_path / "fio-args"
    env = {"PATH": f"{stub}:/usr/bin:/bin", "MARKER": str(marker),
           "FIO_ARGS": str(fio_args), "FEMU_OUT": str(tmp_path)}
    proc = subprocess.run(["bash", "-c", job_script(1, HOSTILE_REGION)], env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    words = fio_args.read_text().split("\0")
    assert words.count(f"--size={HOSTILE_REGION}") == 5       # the fill and four cases


def test_device_figures_job_takes_the_region_as_one_word():
    from femu_lab.bench.device_figures import latency_job
    job = latency_job(1, HOSTILE_REGION)
    assert subprocess.run(["bash", "-n"], input=job, text=True).returncode == 0
    words = shlex.split(job)          # the whole job: the quoted region spans lines
    assert words.count(f"--size={HOSTILE_REGION}") == 4 and "touch" not in words
