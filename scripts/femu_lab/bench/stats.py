"""Figures of `femu-lab bench` from fio's output: its JSON reports, the per-second IOPS
log, the statistics over seconds (worst second, coefficient of variation), the model's
bounds and the latency checks. Pure functions of their inputs: no guest, no clock.
"""
import json
import statistics
from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping, Optional, Sequence

from femu_common.errors import FemuError

from .cpu_figures import CPU_JOBS, CPU_KEYS

MIB = 1 << 20
NS_PER_US = 1000.0

# The figures of one boot, by key (bench_table names and orders them): those of its
# fio reports and idle sample (boot_figures), then CPU per I/O (bench_cpu_figures).
FIO_KEYS = ("idle_cpu_pct", "fill_mib_s", "qd1_iops", "qd1_p50_us", "qd1_p99_us",
            "qd1_mean_us", "qd32_read_iops", "write_iops", "write_worst_iops", "write_cv")
FIGURE_KEYS = FIO_KEYS + CPU_KEYS


class FioReportError(FemuError, ValueError):
    """A fio report or log that cannot be read; the message is one line."""


def load_report(data: bytes, name: str = "fio report") -> dict:
    """fio's JSON report. Anything fio printed before the JSON object (a warning line)
    is skipped."""
    text = data.decode(errors="replace")
    start = text.find("{")
    if start < 0:
        raise FioReportError(f"{name}: no JSON object in it")
    try:
        return json.loads(text[start:])
    except json.JSONDecodeError as error:
        raise FioReportError(f"{name}: not valid JSON ({error})") from None


def _side(report: dict, direction: str, name: str) -> dict:
    try:
        return report["jobs"][0][direction]
    except (KeyError, IndexError, TypeError):
        raise FioReportError(f"{name}: no jobs[0].{direction} in it") from None


def _percentile_ns(clat: dict, pct: float) -> float:
    table = clat.get("percentile", {})
    for key, value in table.items():
        if abs(float(key) - pct) < 1e-6:
            return float(value)
    raise KeyError(pct)


def side_figures(report: dict, direction: str, name: str = "fio report") -> Dict[str, float]:
    """IOPS, MiB/s, completion latency p50 / p99 and mean total latency (us) of one
    direction ('read' or 'write') of the first job."""
    side = _side(report, direction, name)
    try:
        clat, lat = side["clat_ns"], side["lat_ns"]
        return {"iops": float(side["iops"]),
                "mib_s": float(side["bw_bytes"]) / MIB,
                "clat_p50_us": _percentile_ns(clat, 50.0) / NS_PER_US,
                "clat_p99_us": _percentile_ns(clat, 99.0) / NS_PER_US,
                "clat_mean_us": float(clat["mean"]) / NS_PER_US,
                "lat_mean_us": float(lat["mean"]) / NS_PER_US}
    except (KeyError, TypeError, ValueError) as error:
        raise FioReportError(f"{name}: {direction} side lacks {error}") from None


def parse_iops_log(text: str, direction: int = 1, window_ms: int = 1000) -> List[float]:
    """Per-window IOPS from fio's averaged IOPS log (--write_iops_log with
    --log_avg_msec=window_ms): lines `time_ms, iops, ddir, bs, offset[, prio]`, ddir 0
    read, 1 write. A last window shorter than 0.9 of window_ms (fio's end of run) is
    dropped; a gap of k windows without an entry counts as k - 1 windows of 0 IOPS."""
    samples: List[float] = []
    previous = 0
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = [part.strip() for part in line.split(",")]
        try:
            when, value, ddir = int(fields[0]), float(fields[1]), int(fields[2])
        except (IndexError, ValueError):
            raise FioReportError(f"IOPS log line {number}: expected 'time, iops, ddir, ...', "
                                 f"got {line.strip()[:60]!r}") from None
        if ddir != direction:
            continue
        gap = when - previous
        if gap < 0.9 * window_ms:
            previous = when
            continue   # a partial window (fio's last entry)
        windows = int(round(gap / window_ms))
        samples.extend([0.0] * (windows - 1))
        samples.append(value)
        previous = when
    return samples


def worst(values: Sequence[float]) -> Optional[float]:
    return min(values) if values else None


def coefficient_of_variation(values: Sequence[float]) -> Optional[float]:
    """Population standard deviation over the mean; None for no values or a zero mean."""
    if not values:
        return None
    mean = statistics.fmean(values)
    if mean == 0:
        return None
    return statistics.pstdev(values) / mean


def boot_figures(files: Mapping[str, bytes], idle_cpu_pct: Optional[float],
                 iops_log_name: str = "randwrite_iops.1.log") -> Dict[str, Optional[float]]:
    """The figures of one boot from the files it sent home (bench_jobs' names)."""
    def report(name: str) -> dict:
        if name not in files:
            raise FioReportError(f"{name}: the guest did not send it")
        return load_report(files[name], name)

    fill = side_figures(report("fill.json"), "write", "fill.json")
    qd1 = side_figures(report("randread1.json"), "read", "randread1.json")
    qd32 = side_figures(report("randread32.json"), "read", "randread32.json")
    write = side_figures(report("randwrite.json"), "write", "randwrite.json")
    if iops_log_name not in files:
        raise FioReportError(f"{iops_log_name}: the guest did not send it")
    seconds = parse_iops_log(files[iops_log_name].decode(errors="replace"))
    return {"idle_cpu_pct": idle_cpu_pct,
            "fill_mib_s": fill["mib_s"],
            "qd1_iops": qd1["iops"], "qd1_p50_us": qd1["clat_p50_us"],
            "qd1_p99_us": qd1["clat_p99_us"], "qd1_mean_us": qd1["lat_mean_us"],
            "qd32_read_iops": qd32["iops"],
            "write_iops": write["iops"], "write_worst_iops": worst(seconds),
            "write_cv": coefficient_of_variation(seconds),
            "write_seconds": seconds}


def fio_total_ios(files: Mapping[str, bytes]) -> Dict[str, Optional[int]]:
    """The I/Os fio reported for each job of CPU_JOBS (after its ramp), None where its
    report or the figure is missing."""
    found: Dict[str, Optional[int]] = {}
    for job, _ in CPU_JOBS:
        direction = "write" if "write" in job else "read"
        try:
            side = _side(load_report(files[f"{job}.json"]), direction, job)
            found[job] = int(side["total_ios"])
        except (KeyError, TypeError, ValueError, FioReportError):
            found[job] = None
    return found


def median_figures(boots: Iterable[Mapping[str, Optional[float]]]) -> Dict[str, Optional[float]]:
    """Per key, the median over the boots that have the figure (None if none has)."""
    boots = list(boots)
    merged: Dict[str, Optional[float]] = {}
    for key in FIGURE_KEYS:
        values = [boot[key] for boot in boots if boot.get(key) is not None]
        merged[key] = statistics.median(values) if values else None
    return merged


# ---- the model's bounds -----------------------------------------------------------

@dataclass(frozen=True)
class Geometry:
    luns: int               # nchs x luns_per_ch
    page_bytes: int         # secsz x secs_per_pg
    pg_rd_lat_ns: int
    pg_wr_lat_ns: int

    @classmethod
    def from_config(cls, values: Mapping[str, str]) -> "Geometry":
        return cls(luns=int(values["nchs"]) * int(values["luns_per_ch"]),
                   page_bytes=int(values["secsz"]) * int(values["secs_per_pg"]),
                   pg_rd_lat_ns=int(values["pg_rd_lat"]), pg_wr_lat_ns=int(values["pg_wr_lat"]))


def fill_ceiling_mib_s(geometry: Geometry) -> float:
    """Sequential-write ceiling of the model: every LUN programs one page per pg_wr_lat."""
    return geometry.luns * geometry.page_bytes / (geometry.pg_wr_lat_ns * 1e-9) / MIB


def flash_time_bound_iops(geometry: Geometry, waf: float) -> float:
    """4 KiB random-write IOPS bound from flash time alone: each host page costs WAF
    programs and WAF - 1 reads (GC moves), spread over every LUN:
    LUNs / (WAF x t_prog + (WAF - 1) x t_read)."""
    per_page = waf * geometry.pg_wr_lat_ns * 1e-9 + (waf - 1) * geometry.pg_rd_lat_ns * 1e-9
    return geometry.luns / per_page


@dataclass(frozen=True)
class Check:
    what: str
    value: float
    limit: float
    formula: str
    unit: str = "us"

    @property
    def passed(self) -> bool:
        return self.value <= self.limit


MEAN_SLACK_US = 15.0


def latency_checks(femu: Mapping[str, Optional[float]], stock: Mapping[str, Optional[float]],
                   geometry: Geometry) -> List[Check]:
    """The QD1 read targets: mean total latency <= stock's + pg_rd_lat + 15 us, and
    completion p99 <= stock's p99 + pg_rd_lat. Checks whose figures are missing are left
    out."""
    rd_us = geometry.pg_rd_lat_ns / NS_PER_US
    checks = []
    if femu.get("qd1_mean_us") is not None and stock.get("qd1_mean_us") is not None:
        checks.append(Check(
            "randread 4k QD1 mean latency", femu["qd1_mean_us"],
            stock["qd1_mean_us"] + rd_us + MEAN_SLACK_US,
            f"stock {stock['qd1_mean_us']:.1f} + pg_rd_lat {rd_us:g} + {MEAN_SLACK_US:g} us"))
    if femu.get("qd1_p99_us") is not None and stock.get("qd1_p99_us") is not None:
        checks.append(Check(
            "randread 4k QD1 p99 latency", femu["qd1_p99_us"], stock["qd1_p99_us"] + rd_us,
            f"stock p99 {stock['qd1_p99_us']:.1f} + pg_rd_lat {rd_us:g} us"))
    return checks


IDLE_SLACK_POINTS = 1.0
WORST_SHARE = 0.5       # every whole second of the write job at or above half its IOPS


def device_checks(femu: Mapping[str, Optional[float]], stock: Mapping[str, Optional[float]],
                  upstream: Optional[Mapping[str, Optional[float]]]) -> List[Check]:
    """Issue 43's targets: idle QEMU CPU within 1 point of stock's (an idle controller
    costs nothing, its poll windows included), the write job's worst second at or above
    half its IOPS (GC smooth from the first second after the fill), and, when FEMU ran
    beside it, the QD1 randread clat p50 at or below FEMU's. Checks whose figures are
    missing are left out."""
    checks = []
    if femu.get("idle_cpu_pct") is not None and stock.get("idle_cpu_pct") is not None:
        checks.append(Check(
            "idle QEMU CPU", femu["idle_cpu_pct"], stock["idle_cpu_pct"] + IDLE_SLACK_POINTS,
            f"stock {stock['idle_cpu_pct']:.2f} + {IDLE_SLACK_POINTS:g} point", unit="%"))
    if femu.get("write_worst_iops") is not None and femu.get("write_iops") is not None:
        checks.append(Check(
            "randwrite 4k QD32 after fill, half its IOPS <= its worst second",
            WORST_SHARE * femu["write_iops"],
            femu["write_worst_iops"], f"worst second {femu['write_worst_iops']:.0f} IOPS",
            unit="IOPS"))
    if (upstream is not None and femu.get("qd1_p50_us") is not None
            and upstream.get("qd1_p50_us") is not None):
        checks.append(Check("randread 4k QD1 clat p50", femu["qd1_p50_us"],
                            upstream["qd1_p50_us"],
                            f"FEMU's p50 {upstream['qd1_p50_us']:.1f} us"))
    return checks
