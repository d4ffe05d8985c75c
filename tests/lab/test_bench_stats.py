"""femu-lab bench's figures from synthetic fio output: JSON reports, the per-second IOPS
log, worst second and CV, medians over rounds, the model's bounds and the QD1 checks."""
import json

import pytest

from femu_lab.bench import stats, table
from femu_lab.bench.stats import FioReportError, Geometry

LAB_1G = Geometry(luns=16, page_bytes=4096, pg_rd_lat_ns=40000, pg_wr_lat_ns=200000)


def fio_report(direction="read", iops=1000.0, bw_bytes=4096000, p50_ns=100000,
               p99_ns=250000, clat_mean_ns=110000.0, lat_mean_ns=112000.0) -> dict:
    side = {"iops": iops, "bw_bytes": bw_bytes, "bw": bw_bytes // 1024,
            "clat_ns": {"mean": clat_mean_ns, "percentile": {
                "1.000000": 1000, "50.000000": p50_ns, "99.000000": p99_ns,
                "99.900000": p99_ns * 2}},
            "lat_ns": {"mean": lat_mean_ns}}
    other = {"iops": 0.0, "bw_bytes": 0, "clat_ns": {"mean": 0.0}, "lat_ns": {"mean": 0.0}}
    job = {"jobname": "x", "read": other, "write": other, direction: side}
    return {"fio version": "fio-3.33", "jobs": [job]}


def encoded(report: dict, prefix: bytes = b"") -> bytes:
    return prefix + json.dumps(report).encode()


def test_report_skips_what_fio_printed_before_the_json():
    data = encoded(fio_report(), b"fio: note: both iodepth >= 1 and synchronous engine\n")
    assert stats.load_report(data)["jobs"][0]["read"]["iops"] == 1000.0


@pytest.mark.parametrize("data, message", [
    (b"", "no JSON object"),
    (b"{\"jobs\": [", "not valid JSON"),
])
def test_unreadable_reports_are_one_line_errors(data, message):
    with pytest.raises(FioReportError, match=message) as caught:
        stats.load_report(data, "fill.json")
    assert str(caught.value).startswith("fill.json: ") and "\n" not in str(caught.value)


def test_side_figures_in_microseconds_and_mib():
    report = fio_report("write", iops=2560.0, bw_bytes=10 << 20, p50_ns=98000, p99_ns=1250000,
                        clat_mean_ns=105000.0, lat_mean_ns=107500.0)
    assert stats.side_figures(report, "write") == {
        "iops": 2560.0, "mib_s": 10.0, "clat_p50_us": 98.0, "clat_p99_us": 1250.0,
        "clat_mean_us": 105.0, "lat_mean_us": 107.5}


def test_a_side_without_latencies_is_named():
    report = fio_report("write")
    with pytest.raises(FioReportError, match="randwrite.json: read side lacks"):
        stats.side_figures({"jobs": [{"read": {"iops": 1}}]}, "read", "randwrite.json")
    with pytest.raises(FioReportError, match="no jobs\\[0\\].read"):
        stats.side_figures({"jobs": []}, "read")
    assert stats.side_figures(report, "write")["iops"] == 1000.0


def test_iops_log_one_value_per_second_last_partial_window_dropped():
    log = ("1001, 7239, 1, 0, 0\n1001, 5, 0, 0, 0\n"   # a read entry: another direction
           "2000, 7963, 1, 0, 0\n3000, 8784, 1, 0, 0\n"
           "4001, 7363, 1, 0, 0\n4420, 9000, 1, 0, 0\n")   # 419 ms: fio's last, partial
    assert stats.parse_iops_log(log) == [7239, 7963, 8784, 7363]
    assert stats.parse_iops_log(log, direction=0) == [5]


def test_iops_log_gap_counts_as_seconds_without_completions():
    log = "1000, 500, 1, 4096, 0, 0\n4000, 900, 1, 4096, 0, 0\n5000, 800, 1, 4096, 0, 0\n"
    assert stats.parse_iops_log(log) == [500, 0, 0, 900, 800]


def test_iops_log_bad_line_is_named():
    with pytest.raises(FioReportError, match="IOPS log line 2"):
        stats.parse_iops_log("1000, 5, 1, 0, 0\nbroken\n")


def test_worst_second_and_coefficient_of_variation():
    seconds = [900.0, 1100.0, 1000.0, 1000.0]
    assert stats.worst(seconds) == 900.0
    # population standard deviation sqrt((100^2 + 100^2) / 4) = 70.71 over mean 1000
    assert stats.coefficient_of_variation(seconds) == pytest.approx(0.0707107, rel=1e-5)
    assert stats.coefficient_of_variation([5.0, 5.0]) == 0.0
    assert stats.worst([]) is None and stats.coefficient_of_variation([]) is None
    assert stats.coefficient_of_variation([0.0, 0.0]) is None


def boot_files(write_log: str = "1000, 800, 1, 0, 0\n2000, 1200, 1, 0, 0\n") -> dict:
    return {
        "fill.json": encoded(fio_report("write", iops=2000, bw_bytes=250 << 20)),
        "randread1.json": encoded(fio_report("read", iops=5000, p50_ns=150000, p99_ns=400000,
                                             lat_mean_ns=190000.0)),
        "randread32.json": encoded(fio_report("read", iops=40000)),
        "randwrite.json": encoded(fio_report("write", iops=1000)),
        "randwrite_iops.1.log": write_log.encode(),
    }


def test_boot_figures_from_the_files_a_boot_sends_home():
    figures = stats.boot_figures(boot_files(), idle_cpu_pct=3.5)
    assert figures == {
        "idle_cpu_pct": 3.5, "fill_mib_s": 250.0, "qd1_iops": 5000.0, "qd1_p50_us": 150.0,
        "qd1_p99_us": 400.0, "qd1_mean_us": 190.0, "qd32_read_iops": 40000.0,
        "write_iops": 1000.0, "write_worst_iops": 800.0, "write_cv": pytest.approx(0.2),
        "write_seconds": [800.0, 1200.0]}
    assert set(stats.FIO_KEYS) <= set(figures)


@pytest.mark.parametrize("missing", ["fill.json", "randwrite_iops.1.log"])
def test_boot_figures_name_a_missing_file(missing):
    files = boot_files()
    del files[missing]
    with pytest.raises(FioReportError, match=f"{missing}: the guest did not send it"):
        stats.boot_figures(files, None)


def test_medians_over_rounds_skip_missing_figures():
    rounds = [{"qd1_iops": 100.0, "idle_cpu_pct": None, "write_cv": 0.1},
              {"qd1_iops": 300.0, "idle_cpu_pct": 2.0, "write_cv": 0.3},
              {"qd1_iops": 200.0, "idle_cpu_pct": 4.0}]
    merged = stats.median_figures(rounds)
    assert merged["qd1_iops"] == 200.0
    assert merged["idle_cpu_pct"] == 3.0
    assert merged["write_cv"] == pytest.approx(0.2)
    assert merged["fill_mib_s"] is None
    assert set(merged) == set(stats.FIGURE_KEYS)


def test_geometry_from_a_configuration():
    values = {"nchs": "2", "luns_per_ch": "8", "secsz": "512", "secs_per_pg": "8",
              "pg_rd_lat": "40000", "pg_wr_lat": "200000", "placement": "single"}
    assert Geometry.from_config(values) == LAB_1G


def test_fill_ceiling_of_lab_1g_is_312_5_mib_s():
    # 16 LUNs x 4096 B every 200 us = 327.68 MB/s = 312.5 MiB/s
    assert stats.fill_ceiling_mib_s(LAB_1G) == pytest.approx(312.5)


def test_flash_time_bound():
    # WAF 1: every LUN programs one page per 200 us, no GC reads: 16 / 200 us = 80k IOPS
    assert stats.flash_time_bound_iops(LAB_1G, 1.0) == pytest.approx(80000)
    # WAF 8: 16 / (8 x 200 us + 7 x 40 us) = 16 / 1880 us
    assert stats.flash_time_bound_iops(LAB_1G, 8.0) == pytest.approx(16 / 1880e-6)
    # other latencies enter as the formula says
    slow = Geometry(luns=4, page_bytes=16384, pg_rd_lat_ns=100000, pg_wr_lat_ns=1000000)
    assert stats.flash_time_bound_iops(slow, 3.0) == pytest.approx(4 / (3e-3 + 2e-4))


def test_latency_checks_pass_and_fail_at_the_limits():
    stock = {"qd1_mean_us": 100.0, "qd1_p99_us": 300.0}
    # limits: mean 100 + 40 + 15 = 155 us, p99 300 + 40 = 340 us; equal passes
    at_limits = stats.latency_checks({"qd1_mean_us": 155.0, "qd1_p99_us": 340.0}, stock, LAB_1G)
    assert [(c.limit, c.passed) for c in at_limits] == [(155.0, True), (340.0, True)]
    over = stats.latency_checks({"qd1_mean_us": 155.1, "qd1_p99_us": 340.5}, stock, LAB_1G)
    assert [c.passed for c in over] == [False, False]
    assert "pg_rd_lat 40" in over[0].formula and "+ 15 us" in over[0].formula
    assert stats.latency_checks({"qd1_mean_us": None, "qd1_p99_us": 1.0}, stock,
                                LAB_1G)[0].what.endswith("p99 latency")


def test_device_checks_idle_cpu_within_a_point_and_qd1_p50_at_femus():
    stock = {"idle_cpu_pct": 0.45, "qd1_p50_us": 122.0}
    upstream = {"idle_cpu_pct": 198.8, "qd1_p50_us": 127.0}
    # limits: idle 0.45 + 1 = 1.45 %, p50 FEMU's 127 us; equal passes
    at = stats.device_checks({"idle_cpu_pct": 1.45, "qd1_p50_us": 127.0}, stock, upstream)
    assert [(c.what, c.limit, c.unit, c.passed) for c in at] == [
        ("idle QEMU CPU", 1.45, "%", True), ("randread 4k QD1 clat p50", 127.0, "us", True)]
    over = stats.device_checks({"idle_cpu_pct": 1.46, "qd1_p50_us": 127.1}, stock, upstream)
    assert [c.passed for c in over] == [False, False]
    # without FEMU beside it, no p50 check (not a silent pass)
    alone = stats.device_checks({"idle_cpu_pct": 0.5, "qd1_p50_us": 1.0}, stock, None)
    assert [c.what for c in alone] == ["idle QEMU CPU"]
    # the write job's worst second against half its IOPS: 3000 of 6000 passes, 2999 not
    writes = [stats.device_checks({"write_iops": 6000.0, "write_worst_iops": worst}, {}, None)
              for worst in (3000.0, 2999.0)]
    assert [c.passed for c, in writes] == [True, False]
    assert "femu 3000.0 IOPS <= 3000.0 IOPS (worst second 3000 IOPS)" in \
        table.check_lines(writes[0])[0]
    assert "femu 0.50 % <= 1.45 %" in table.check_lines(alone)[0]
