"""femu-lab bench's table: columns, ratios, '-' for what was not measured, the ceiling,
the ftl-sim row with its bound and the PASS / FAIL lines."""
from femu_lab.bench import table as bench_table
from femu_lab.bench.stats import Check, Geometry

LAB_1G = Geometry(luns=16, page_bytes=4096, pg_rd_lat_ns=40000, pg_wr_lat_ns=200000)


def cells(line: str):
    """The cells right of the label (labels hold blanks, numbers use a blank for
    thousands, so split on the fixed column width)."""
    body = line[bench_table.LABEL_WIDTH:]
    width = bench_table.COLUMN_WIDTH
    return [body[i:i + width].strip() for i in range(0, len(body), width)]


def row(lines, label):
    matches = [line for line in lines if line.startswith(label)]
    assert len(matches) == 1, (label, lines)
    return cells(matches[0])


def test_header_names_devices_and_ratios():
    lines = bench_table.table({})
    assert cells(lines[0]) == ["femu", "FEMU", "stock", "femu/stock", "femu/FEMU"]
    assert len(lines) == 1 + len(bench_table.ROWS)


def test_ratios_and_dashes_without_FEMU():
    figures = {"femu": {"qd1_iops": 4000.0, "idle_cpu_pct": 3.0, "write_cv": 0.05},
               "stock": {"qd1_iops": 8000.0, "idle_cpu_pct": 1.5, "write_cv": None}}
    lines = bench_table.table(figures)
    assert row(lines, "randread 4k QD1, IOPS") == ["4 000", "-", "8 000", "0.50", "-"]
    assert row(lines, "idle QEMU CPU") == ["3.00", "-", "1.50", "2.00", "-"]
    assert row(lines, "  CV of per-second") == ["0.050", "-", "-", "-", "-"]
    assert row(lines, "fill 128k QD32") == ["-", "-", "-", "-", "-"]


def test_femu_over_FEMU_ratio():
    figures = {"femu": {"fill_mib_s": 300.0}, "FEMU": {"fill_mib_s": 150.0},
               "stock": {"fill_mib_s": 0.0}}
    assert row(bench_table.table(figures), "fill 128k QD32") == \
        ["300.0", "150.0", "0.0", "-", "2.00"]


def test_every_row_is_as_wide_as_the_header():
    lines = bench_table.table({"femu": {"qd32_read_iops": 123456.0}})
    headings = [label for key, label, _ in bench_table.ROWS if key is None]
    assert len({len(line) for line in lines if line not in headings}) == 1


def test_ceiling_line_for_lab_1g():
    assert bench_table.ceiling_line(LAB_1G) == \
        "fill model ceiling: 16 LUNs x 4096 B / pg_wr_lat 200 us = 312.5 MiB/s"


def test_sim_lines_show_the_bound_and_both_percentages():
    sim = {"iops": 3250.6, "waf": 6.777, "p99_us": 195559.4, "worst_iops": 2100.0,
           "cv": 0.4, "bound_iops": 10085.0, "percent_of_bound": 32.23}
    lines = bench_table.sim_lines(sim, LAB_1G, 30, femu_write_iops=2017.0)
    assert lines[0] == ("ftl-sim randwrite 4k QD32 after a sequential fill (30 s simulated): "
                        "3 251 IOPS, WAF 6.78, p99 195 559 us, worst second 2 100 IOPS, "
                        "CV 0.400")
    assert lines[1] == ("flash-time bound at WAF 6.78: 16 LUNs / (6.78 x 200 us + 5.78 x "
                        "40 us) = 10 085 IOPS; ftl-sim reaches 32.2 %")
    assert lines[2].endswith(": 20.0 %")
    assert len(bench_table.sim_lines(sim, LAB_1G, 30, femu_write_iops=None)) == 2


def test_check_lines():
    checks = [Check("randread 4k QD1 mean latency", 150.0, 155.0, "stock 100.0 + ..."),
              Check("randread 4k QD1 p99 latency", 400.0, 340.0, "stock p99 300.0 + ...")]
    assert bench_table.check_lines(checks) == [
        "PASS  randread 4k QD1 mean latency: femu 150.0 us <= 155.0 us (stock 100.0 + ...)",
        "FAIL  randread 4k QD1 p99 latency: femu 400.0 us <= 340.0 us (stock p99 300.0 + ...)",
    ]
