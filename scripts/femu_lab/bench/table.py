"""The table `femu-lab bench` prints: one row per figure, columns femu | FEMU | stock and
the ratios femu/stock and femu/FEMU ('-' where a device was not run or a figure is
missing), then the model's fill ceiling, the ftl-sim row with its flash-time bound, and
the QD1 latency checks as PASS / FAIL lines.
"""
from typing import List, Mapping, Optional, Sequence

from .cpu_check import CpuCheck
from .cpu_figures import CPU_JOBS, cpu_key
from .stats import Check, Geometry, fill_ceiling_mib_s

DEVICES = ("femu", "FEMU", "stock")

# the thread groups the table shows per job (--json has every group): key part, label
CPU_ROWS = (("poller", "poller"), ("ftl", "ftl thread"), ("outside_vcpu", "outside vCPUs"),
            ("total", "QEMU total"))
CPU_HEADING = "host CPU per completed I/O, us:"

# key, label, decimals; a key of None: a heading without figures
ROWS = (
    ("idle_cpu_pct", "idle QEMU CPU, % of one core", 2),
    ("fill_mib_s", "fill 128k QD32, MiB/s", 1),
    ("qd1_iops", "randread 4k QD1, IOPS", 0),
    ("qd1_p50_us", "randread 4k QD1, clat p50 us", 1),
    ("qd1_p99_us", "randread 4k QD1, clat p99 us", 1),
    ("qd1_mean_us", "randread 4k QD1, mean lat us", 1),
    ("qd32_read_iops", "randread 4k QD32, IOPS", 0),
    ("write_iops", "randwrite 4k QD32 after fill, IOPS", 0),
    ("write_worst_iops", "  worst second, IOPS", 0),
    ("write_cv", "  CV of per-second IOPS", 3),
    (None, CPU_HEADING, 0),
) + tuple((cpu_key(job, group), f"  {label}, {name}", 1)
          for job, label in CPU_JOBS for group, name in CPU_ROWS)
LABEL_WIDTH = max(len(label) for _, label, _ in ROWS) + 2
COLUMN_WIDTH = 11


def number(value: Optional[float], decimals: int) -> str:
    return "-" if value is None else f"{value:,.{decimals}f}".replace(",", " ")


def ratio(top: Optional[float], bottom: Optional[float]) -> str:
    if top is None or bottom is None or bottom == 0:
        return "-"
    return f"{top / bottom:.2f}"


def table(figures: Mapping[str, Optional[Mapping[str, Optional[float]]]]) -> List[str]:
    """figures: device name (DEVICES) -> its figures by key, or None / absent when that
    device was not run."""
    heads = [*DEVICES, "femu/stock", "femu/FEMU"]
    lines = ["".ljust(LABEL_WIDTH) + "".join(h.rjust(COLUMN_WIDTH) for h in heads)]
    for key, label, decimals in ROWS:
        if key is None:
            lines.append(label)
            continue
        values = {device: (figures.get(device) or {}).get(key) for device in DEVICES}
        cells = [number(values[device], decimals) for device in DEVICES]
        cells += [ratio(values["femu"], values["stock"]), ratio(values["femu"], values["FEMU"])]
        lines.append(label.ljust(LABEL_WIDTH) + "".join(c.rjust(COLUMN_WIDTH) for c in cells))
    return lines


def ceiling_line(geometry: Geometry) -> str:
    return (f"fill model ceiling: {geometry.luns} LUNs x {geometry.page_bytes} B / pg_wr_lat "
            f"{geometry.pg_wr_lat_ns / 1000:g} us = {fill_ceiling_mib_s(geometry):.1f} MiB/s")


def sim_lines(sim: Mapping[str, object], geometry: Geometry, runtime: int,
              femu_write_iops: Optional[float]) -> List[str]:
    """The ftl-sim row and its bound."""
    waf = float(sim["waf"])
    lines = [
        f"ftl-sim randwrite 4k QD32 after a sequential fill ({runtime} s simulated): "
        f"{number(sim['iops'], 0)} IOPS, WAF {waf:.2f}, p99 {number(sim['p99_us'], 0)} us, "
        f"worst second {number(sim['worst_iops'], 0)} IOPS, CV {number(sim['cv'], 3)}",
        f"flash-time bound at WAF {waf:.2f}: {geometry.luns} LUNs / ({waf:.2f} x "
        f"{geometry.pg_wr_lat_ns / 1000:g} us + {waf - 1:.2f} x "
        f"{geometry.pg_rd_lat_ns / 1000:g} us) = {number(sim['bound_iops'], 0)} IOPS; "
        f"ftl-sim reaches {float(sim['percent_of_bound']):.1f} %",
    ]
    if femu_write_iops is not None:
        lines.append(f"femu randwrite IOPS as % of that bound (at ftl-sim's WAF): "
                     f"{100.0 * femu_write_iops / float(sim['bound_iops']):.1f} %")
    return lines


def check_lines(checks: Sequence[Check]) -> List[str]:
    digits = {"%": 2}     # idle CPU: hundredths of a point; latencies: tenths of a us
    return [f"{'PASS' if check.passed else 'FAIL'}  {check.what}: femu "
            f"{check.value:.{digits.get(check.unit, 1)}f} {check.unit} <= "
            f"{check.limit:.{digits.get(check.unit, 1)}f} {check.unit} ({check.formula})"
            for check in checks]


def cpu_check_lines(checks: Sequence[CpuCheck]) -> List[str]:
    return [check.line() for check in checks]
