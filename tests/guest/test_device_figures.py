"""Units of femu_lab.bench.device_figures that need no guest."""
import json

from femu_lab.bench import device_figures as figures
from femu_lab.vm.launch import femu_args


def test_cpu_ticks_counts_fields_after_the_command_name():
    # A command name with a blank and a ')' must not shift the fields.
    stat = "4242 (qemu (x) y) S 1 2 3 4 5 6 7 8 9 10 150 25 0 0 20 0 4 0\n"
    assert figures.cpu_ticks(stat) == 175


def test_cpu_percent_of_one_core():
    assert figures.cpu_percent(100, 400, 30.0, ticks_per_second=100) == 10.0


def test_find_qemu_pid_matches_argv0_and_marker(tmp_path):
    def fake(pid, *argv):
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
    fake(10, "sh", "-c", "x", "/usr/bin/qemu-system-x86_64", "/runs/a/results")
    fake(11, "/usr/bin/qemu-system-x86_64", "-serial", "file:/runs/b/results")
    fake(12, "/bin/qemu-system-x86_64", "-serial", "file:/runs/a/results")
    (tmp_path / "self").mkdir()
    assert figures.find_qemu_pid("/runs/a/", proc=tmp_path) == 12
    assert figures.find_qemu_pid("/runs/c/", proc=tmp_path) is None


def test_read_latency_in_microseconds():
    report = {"jobs": [{"read": {"iops": 9000.5, "clat_ns": {
        "mean": 105000.0, "percentile": {"50.000000": 98000, "99.000000": 250000}}}}]}
    got = figures.read_latency(json.dumps(report).encode())
    assert got == {"iops": 9000.5, "mean": 105.0, "p50": 98.0, "p99": 250.0}


def test_latency_job_reads_both_devices_at_qd1():
    job = figures.latency_job(20, "64M")
    assert job.count("--iodepth=1 ") == 2
    assert "femu SSD" in job and "QEMU NVMe Ctrl" in job
    assert '"$FEMU_OUT/qd1-femu.json"' in job and '"$FEMU_OUT/qd1-stock.json"' in job


def test_femu_args_escapes_commas_and_keeps_property_order(tmp_path):
    args = femu_args(config=tmp_path / "a,b.conf", stats_dir=tmp_path / "s",
                     devsz_mb=96, pg_rd_lat=40000)
    assert args == ["-device", f"femu,config={tmp_path}/a,,b.conf,stats_dir={tmp_path}/s,"
                               "devsz_mb=96,pg_rd_lat=40000"]


def test_the_latency_figure_boots_through_vm_launch_not_the_command(tmp_path, monkeypatch):
    """The command's entry point is run(args); the boot is vm.launch.run(spec, folder).
    When one name held both, the latency figure called the command with a VmSpec and
    failed with a TypeError before any boot."""
    from types import SimpleNamespace
    booted = []

    class Failed:
        ok, files = False, {}

        def summary(self):
            return "no boot (test)"

    monkeypatch.setattr(figures.guest_image, "ensure_image",
                        lambda quiet: SimpleNamespace(kernel="k", initramfs="i"))
    monkeypatch.setattr(figures.vm_launch, "run",
                        lambda spec, folder: booted.append((spec, folder)) or Failed())
    args = SimpleNamespace(config=None, runtime=5, region="1g", qemu="qemu", cpus=2)
    assert figures.latency(args, tmp_path, lambda message: None) == 1
    assert len(booted) == 1 and isinstance(booted[0][0], figures.VmSpec)
