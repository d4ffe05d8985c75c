"""femu-lab bench's host CPU per completed I/O without a guest: /proc stat lines, thread
groups, the windows between the guest's io marks, the per-I/O arithmetic on a hand-made
sample, the check against a baseline (or stock) and the table's rows."""
import json
import subprocess

import pytest

from femu_common.cli_args import UsageError
from femu_lab.bench import (cpu_check, cpu_figures, cpu_windows, jobs as bench_jobs,
                            runner as bench, stats, table as bench_table, threads)
from femu_lab.bench.cpu_figures import cpu_key
from femu_lab.bench.cpu_windows import CpuWindows, IoMark, Window
from femu_lab.bench.jobs import BenchTimes
from femu_lab.bench.threads import Sample

PID = 4000


def stat_line(tid: int, comm: str, utime: int, stime: int) -> str:
    """A /proc/PID/task/TID/stat line as Linux writes it (52 fields)."""
    after = ["S", "1", str(tid), str(tid), "0", "-1", "4194624", "10", "0", "0", "0",
             str(utime), str(stime), "0", "0", "20", "0", "9", "0", "123"] + ["0"] * 29
    return f"{tid} ({comm}) " + " ".join(after) + "\n"


@pytest.mark.parametrize("comm", ["CPU 0/TCG", "femu-poller", "a) (b", "(", "x )y"])
def test_stat_line_name_and_ticks(comm):
    assert threads.parse_stat(stat_line(12, comm, 70, 30)) == (comm, 100)


@pytest.mark.parametrize("text", ["", "12 noname S 1", "12 (x) S 1 2 3"])
def test_unreadable_stat_line_is_a_value_error(text):
    with pytest.raises(ValueError, match="not a /proc stat line"):
        threads.parse_stat(text)


@pytest.mark.parametrize("comm, tid, group", [
    ("qemu-system-x86", PID, "main"),
    ("femu-poller", 1, "poller"),
    ("femu-ftl", 2, "ftl"),
    ("FEMU-FTL-Thread", 3, "ftl"),          # upstream FEMU's name
    ("CPU 0/TCG", 4, "vcpu"),
    ("CPU 1/KVM", 5, "vcpu"),
    ("femu-save", 6, "other"),
    ("worker", 7, "other"),
    ("qemu-system-x86", 8, "other"),        # no debug-threads: unnamed threads
])
def test_thread_groups(comm, tid, group):
    assert threads.group_of(comm, tid, PID) == group


def test_qemu_is_started_with_thread_names():
    assert threads.name_arguments("femu") == ["-name", "femu,debug-threads=on"]


def fake_proc(root, process_ticks, tasks):
    """tasks: tid -> (comm, ticks), or None for a thread whose stat vanished."""
    (root / str(PID) / "task").mkdir(parents=True)
    (root / str(PID) / "stat").write_text(stat_line(PID, "qemu-system-x86", process_ticks, 0))
    for tid, task in tasks.items():
        folder = root / str(PID) / "task" / str(tid)
        folder.mkdir()
        if task is not None:
            folder.joinpath("stat").write_text(stat_line(tid, task[0], task[1], 0))


def test_sample_reads_every_live_thread(tmp_path):
    fake_proc(tmp_path, 500, {PID: ("qemu-system-x86", 100), 4001: ("CPU 0/TCG", 300),
                              4002: None})
    assert threads.sample(PID, proc=tmp_path) == Sample(
        500, {PID: ("qemu-system-x86", 100), 4001: ("CPU 0/TCG", 300)})


def test_window_ticks_per_group():
    before = Sample(1000, {PID: ("qemu", 100), 1: ("femu-poller", 50), 2: ("femu-ftl", 10),
                           3: ("CPU 0/TCG", 600), 4: ("worker", 40)})
    # thread 4 ended in the window (its time stays in the process's); 5 was born in it
    after = Sample(1500, {PID: ("qemu", 120), 1: ("femu-poller", 150), 2: ("femu-ftl", 40),
                          3: ("CPU 0/TCG", 900), 5: ("worker", 7)})
    assert threads.window_ticks(before, after, PID) == {
        "main": 20, "poller": 100, "ftl": 30, "vcpu": 300, "other": 50, "total": 500}


def test_window_ticks_of_a_device_without_poller_or_ftl_thread():
    before = Sample(10, {PID: ("qemu", 5), 3: ("CPU 0/TCG", 5)})
    after = Sample(30, {PID: ("qemu", 14), 3: ("CPU 0/TCG", 16)})
    assert threads.window_ticks(before, after, PID) == {
        "main": 9, "vcpu": 11, "other": 0, "total": 20}


def test_io_mark_from_a_console_line():
    counters = "120 3 960 50 7 0 56 9 0 100 150 0 0 0 0 2 1"
    assert cpu_windows.parse_io_mark(f"[ 12.5] femu-bench: io begin randread1 {counters}") == \
        IoMark("begin", "randread1", 127)
    assert cpu_windows.parse_io_mark("femu-bench: step randread1") is None
    with pytest.raises(ValueError, match="unreadable io mark"):
        cpu_windows.parse_io_mark("femu-bench: io end randread1 12 x 3 4 5")
    with pytest.raises(ValueError, match="unreadable io mark"):
        cpu_windows.parse_io_mark("femu-bench: io end randread1")


def test_guest_script_brackets_every_fio_job_with_io_marks(tmp_path):
    script = bench_jobs.guest_script(BenchTimes(idle=1, read=1, write=1))
    lines = script.splitlines()
    for job in bench_jobs.fio_jobs(BenchTimes(idle=1, read=1, write=1)):
        at = lines.index(job.command())
        assert lines[at - 2] == f'echo "femu-bench: step {job.name}"'
        assert lines[at - 1] == bench_jobs.io_line("begin", job.name)
        assert lines[at + 1] == bench_jobs.io_line("end", job.name)
    # what the guest prints is what the host reads (a file stands in for sysfs)
    stat = tmp_path / "stat"
    stat.write_text("     300        0     2400      90    20        0      160       8"
                    "        0      100      150        0        0        0        0\n")
    line = bench_jobs.io_line("end", "randwrite").replace("/sys/block/nvme0n1/stat",
                                                           str(stat))
    printed = subprocess.run(["sh", "-c", line], capture_output=True, text=True).stdout
    assert cpu_windows.parse_io_mark(printed) == IoMark("end", "randwrite", 320)


def mark(kind, job, ios, counters_tail="0 0 0 0 0 0 0"):
    return f"femu-bench: io {kind} {job} {ios} 0 0 0 0 {counters_tail}"


class FakeProcess:
    """Samples and a clock the test advances."""

    def __init__(self):
        self.now, self.process, self.poller = 0.0, 0, 0

    def sample(self, pid):
        return Sample(self.process, {pid: ("qemu", 0), 1: ("femu-poller", self.poller)})

    def run(self, seconds, process, poller):
        self.now += seconds
        self.process += process
        self.poller += poller


def test_a_window_between_begin_and_end():
    proc = FakeProcess()
    windows = CpuWindows(lambda: PID, proc.sample, lambda: proc.now)
    windows.line("femu-bench: step randread1")       # not an io mark: ignored
    windows.line(mark("begin", "randread1", 1000))
    proc.run(5.0, process=400, poller=150)
    windows.line(mark("end", "randread1", 21000))
    assert windows.windows == {"randread1": Window(
        "randread1", 5.0, 20000,
        {"main": 0, "poller": 150, "other": 250, "total": 400})}
    assert windows.notes == []


def test_late_or_unreadable_marks_give_no_window_and_a_note():
    proc = FakeProcess()
    windows = CpuWindows(lambda: PID, proc.sample, lambda: proc.now)
    windows.line(mark("begin", "fill", 0), late=True)
    windows.line(mark("end", "fill", 500))
    windows.line("femu-bench: io begin randread1 garbage")
    windows.line(mark("end", "randread1", 900))
    assert windows.windows == {}
    assert windows.notes[0] == "CPU of fill: its begin mark was seen late; not counted"
    assert windows.notes[1].startswith("CPU windows: unreadable io mark")
    lost = CpuWindows(lambda: None, proc.sample)
    lost.line(mark("begin", "randread1", 0))
    assert lost.notes == ["CPU of randread1: QEMU process not found"]


def test_console_lines_reach_the_windows_with_their_lateness(tmp_path):
    log = tmp_path / "console.log"
    seen = []
    steps = bench.ConsoleSteps(log, lambda line, late: seen.append((line, late)))
    log.write_text("femu-bench: step fill\n" + mark("begin", "fill", 0) + "\n")
    assert steps.new() == ["fill"]
    with open(log, "a") as f:
        f.write(mark("end", "fill", 9) + "\n")
    assert steps.new(late=True) == []
    assert seen == [("femu-bench: step fill", False), (mark("begin", "fill", 0), False),
                    (mark("end", "fill", 9), True)]


def window(job="randread1", ios=10000, **ticks):
    return Window(job, 5.0, ios, ticks)


def test_per_io_arithmetic_on_a_hand_made_window():
    # 250 ticks at 100 per second = 2.5 s of CPU over 10 000 I/Os = 250 us each
    figures = cpu_figures.us_per_io(window(poller=50, vcpu=150, main=20, other=30,
                                           total=250), ticks_per_second=100)
    assert figures == pytest.approx({"poller": 50.0, "vcpu": 150.0, "main": 20.0,
                                     "other": 30.0, "outside_vcpu": 100.0, "total": 250.0,
                                     "tick": 1.0})
    with pytest.raises(ValueError, match="completed 0 I/Os"):
        cpu_figures.us_per_io(window(ios=0, total=5), 100)


def test_boot_figures_drop_windows_fio_contradicts():
    windows = {"randread1": window("randread1", 10000, poller=50, total=250),
               "randread32": window("randread32", 900, total=90),
               "fill": window("fill", 6000, total=600)}
    flat, detail, notes = cpu_figures.boot_cpu_figures(
        windows, {"randread1": 8000, "randread32": 1000, "randwrite": None}, 100)
    assert flat == pytest.approx({cpu_key("randread1", "poller"): 50.0,
                                  cpu_key("randread1", "total"): 250.0,
                                  cpu_key("randread1", "tick"): 1.0})
    assert notes == ["CPU of randread32: the device completed 900 I/Os in the window, "
                     "fewer than fio's 1000: not counted", "CPU of randwrite: no window"]
    assert detail["fill"] == {"seconds": 5.0, "ios": 6000, "fio_ios": None,
                              "ticks": {"total": 600}}
    assert detail["randread1"]["us_per_io"]["total"] == 250.0


def test_fio_total_ios_by_job():
    def report(direction, ios):
        return json.dumps({"jobs": [{direction: {"total_ios": ios}}]}).encode()
    files = {"randread1.json": report("read", 5000), "randwrite.json": report("write", 7)}
    assert stats.fio_total_ios(files) == {"randread1": 5000, "randread32": None,
                                          "randwrite": 7}


def femu_figures(scale=1.0, tick=0.01):
    figures = {}
    for job, _ in cpu_figures.CPU_JOBS:
        figures.update({cpu_key(job, "poller"): 10.0 * scale, cpu_key(job, "ftl"): 5.0 * scale,
                        cpu_key(job, "outside_vcpu"): 30.0 * scale,
                        cpu_key(job, "total"): 100.0 * scale, cpu_key(job, "tick"): tick})
    return figures


@pytest.mark.parametrize("scale, status", [(1.19, "PASS"), (1.21, "FAIL")])
def test_baseline_check_allows_20_percent(scale, status):
    checks = cpu_check.baseline_checks(femu_figures(scale), femu_figures())
    assert len(checks) == 3 * 3
    assert {check.status for check in checks} == {status}


def test_baseline_check_line():
    baseline = femu_figures()
    check = cpu_check.baseline_checks(femu_figures(1.3, tick=0.5), baseline)[0]
    assert check.line() == ("FAIL  femu poller CPU per I/O at randread 4k QD1: 13.00 us <= "
                            "1.2 x baseline 10.00 us + 0.50 us (one tick) = 12.50 us")


def test_one_tick_over_a_baseline_of_zero_passes_two_fail():
    baseline = {**femu_figures(), cpu_key("randread1", "ftl"): 0.0}
    now = femu_figures(tick=0.5)
    for ticks, status in ((1, "PASS"), (2, "FAIL")):
        now[cpu_key("randread1", "ftl")] = ticks * 0.5
        ftl = cpu_check.baseline_checks(now, baseline)[1]
        assert ftl.what == "femu ftl thread CPU per I/O at randread 4k QD1"
        assert ftl.status == status


def test_a_missing_figure_is_reported_not_passed():
    baseline = femu_figures()
    del baseline[cpu_key("randwrite", "poller")]
    now = femu_figures()
    now[cpu_key("randread32", "outside_vcpu")] = None
    checks = {check.what: check for check in cpu_check.baseline_checks(now, baseline)}
    missing = checks["femu poller CPU per I/O at randwrite 4k QD32"]
    assert missing.status == "MISSING"
    assert missing.line() == ("MISSING  femu poller CPU per I/O at randwrite 4k QD32: "
                              "10.00 us, baseline - (no figure in baseline)")
    assert checks["femu QEMU outside vCPUs CPU per I/O at randread 4k QD32"].line().endswith(
        "(no figure in this run)")
    assert sum(check.status == "MISSING" for check in checks.values()) == 2


def test_without_a_baseline_femu_outside_vcpus_against_stock():
    stock = {cpu_key(job, "outside_vcpu"): 25.0 for job, _ in cpu_figures.CPU_JOBS}
    femu = femu_figures(1.0)                    # 30 us outside the vCPUs: +20 %
    femu[cpu_key("randwrite", "outside_vcpu")] = 31.0
    checks = cpu_check.stock_checks(femu, stock)
    assert [check.status for check in checks] == ["PASS", "PASS", "FAIL"]
    assert checks[2].line() == ("FAIL  femu QEMU outside vCPUs CPU per I/O at randwrite 4k "
                                "QD32: 31.00 us <= 1.2 x stock 25.00 us + 0.01 us (one tick) "
                                "= 30.01 us")
    medians = {"femu": femu, "stock": stock}
    assert [c.what for c in bench.cpu_checks_of(medians, None)] == [c.what for c in checks]
    assert bench.cpu_checks_of({"stock": stock}, None) == []


def test_baseline_file(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"medians": {"femu": femu_figures(), "stock": {}}}))
    assert cpu_check.load_baseline(good) == femu_figures()
    assert len(bench.cpu_checks_of({"femu": femu_figures()}, good)) == 9
    for name, text in (("bad.json", "{"), ("other.json", '{"medians": {"stock": {}}}'),
                       ("list.json", "[]")):
        (tmp_path / name).write_text(text)
        with pytest.raises(UsageError, match=f"--cpu-baseline {tmp_path / name}: "):
            cpu_check.load_baseline(tmp_path / name)
    with pytest.raises(UsageError, match="No such file"):
        cpu_check.load_baseline(tmp_path / "absent.json")


def test_medians_over_rounds_include_cpu_figures():
    merged = stats.median_figures([{cpu_key("randread1", "poller"): v} for v in (3.0, 9.0, 4.0)])
    assert merged[cpu_key("randread1", "poller")] == 4.0
    assert merged[cpu_key("randwrite", "ftl")] is None


def test_table_rows_of_cpu_per_io():
    figures = {"femu": femu_figures(), "stock": {cpu_key("randread1", "total"): 80.0}}
    lines = bench_table.table(figures)
    assert bench_table.CPU_HEADING in lines
    body = lines[lines.index(bench_table.CPU_HEADING) + 1:]
    assert len(body) == 3 * 4
    poller, ftl, outside, total = body[:4]
    assert poller.startswith("  randread 4k QD1, poller") and \
        poller.split()[-5:] == ["10.0", "-", "-", "-", "-"]
    assert ftl.startswith("  randread 4k QD1, ftl thread")
    assert outside.startswith("  randread 4k QD1, outside vCPUs")
    assert total.split()[-5:] == ["100.0", "-", "80.0", "1.25", "-"]
    # the new rows leave the label column as wide as it was
    assert bench_table.LABEL_WIDTH == len("randwrite 4k QD32 after fill, IOPS") + 2
    assert body[-1].startswith("  randwrite 4k QD32, QEMU total")


def test_report_prints_and_saves_the_cpu_checks(tmp_path):
    from types import SimpleNamespace
    stock = {cpu_key(job, "outside_vcpu"): 25.0 for job, _ in cpu_figures.CPU_JOBS}
    boots = [bench.Boot("femu", 1, tmp_path, figures=femu_figures()),
             bench.Boot("stock", 1, tmp_path, figures=stock)]
    values = {"nchs": "2", "luns_per_ch": "8", "secsz": "512", "secs_per_pg": "8",
              "pg_rd_lat": "40000", "pg_wr_lat": "200000"}
    config = SimpleNamespace(source=tmp_path / "lab-1g.conf", overrides={}, values=values,
                             logical_bytes=768 << 20)
    sim = {"iops": 1.0, "waf": 2.0, "p99_us": 1.0, "worst_iops": 1.0, "cv": 0.1,
           "bound_iops": 10.0, "percent_of_bound": 10.0}
    geometry = stats.Geometry.from_config(values)
    for baseline, reference, count in (
            (None, "CPU per I/O against stock's (--cpu-baseline stock):", 3),
            (tmp_path / "base.json", "CPU per I/O against femu's medians in --cpu-baseline "
                                     f"{tmp_path / 'base.json'}:", 9)):
        if baseline:
            baseline.write_text(json.dumps({"medians": {"femu": femu_figures(1.3)}}))
        args = SimpleNamespace(qemu=tmp_path / "qemu", femu_upstream=None, rounds=1, smp=2,
                               cpu_baseline=baseline)
        report = json.loads(json.dumps(bench.build_report(
            args, config, geometry, BenchTimes(), sim, boots, [])))   # as --json saves it
        assert len(report["cpu_checks"]) == count
        lines = bench.report_lines(report, geometry, args)
        checks = lines[lines.index(reference) + 1:][:count]
        assert len(checks) == count and all(line.startswith("PASS  femu ") for line in checks)


def test_the_default_reference_is_the_committed_baseline_and_stock_is_a_choice():
    from femu_common.cli_args import OneLineParser
    parser = OneLineParser(prog="femu-lab bench")
    bench.add_arguments(parser)
    assert parser.parse_args([]).cpu_baseline == bench.DEFAULT_CPU_BASELINE
    assert parser.parse_args(["--cpu-baseline", "stock"]).cpu_baseline is None
    # the committed file holds every figure the check reads: no MISSING line by default
    femu = cpu_check.load_baseline(bench.DEFAULT_CPU_BASELINE)
    checks = cpu_check.baseline_checks(femu, femu)
    assert len(checks) == 9 and all(check.status == "PASS" for check in checks)
