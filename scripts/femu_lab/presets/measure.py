"""One figure of a drive preset measured in ftl-sim: its command lines, its runs and its
value (spec.METRICS), from the run's --summary and, for the cliff metrics, stats.csv.

Units: ftl-sim's MiB/s are turned into the data sheets' MB/s (10^6 bytes); a size the
scaled-down drive gives (cliff_GB) is multiplied by the capacity scale, the preset's
logical capacity over the run's.
"""
import csv
import json
import random
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

from ..ftl_sim import CommandError, SimError, ftl_sim_reason, run_ftl_sim
from .spec import STATS_METRICS, Figure, Preset, zone_reads

MB_PER_MIB = 1.048576
SECTOR = 512                    # trace records count 512-byte sectors
TIMEOUT_S = 3600


@dataclass
class Measured:
    value: float
    commands: List[List[str]]    # ftl-sim's argument lists as run (for the table)


def _zone_read_trace(spec: str, path: Path, seed: int = 1) -> None:
    """A version-1 trace of zone reads in zone 0 (zoned LBA 0 on): COUNT reads of BS
    within its first SPAN bytes, at random (seeded) or in order, wrapping at SPAN."""
    bs, span, count, order = zone_reads(spec)
    slots = span // bs
    rng = random.Random(seed)
    with path.open("w") as out:
        out.write(f"S {seed}\n")
        for n in range(count):
            slot = rng.randrange(slots) if order == "rand" else n % slots
            out.write(f"ZR {slot * bs // SECTOR} {bs // SECTOR}\n")


def _expand(words: List[str], folder: Path, tag: str) -> List[str]:
    """words with --zone-reads SPEC replaced by --trace FILE (the trace made in folder)."""
    if "--zone-reads" not in words:
        return list(words)
    at = words.index("--zone-reads")
    trace = folder / f"{tag}.trace"
    _zone_read_trace(words[at + 1], trace)
    return [*words[:at], "--trace", str(trace), *words[at + 2:]]


def commands(ftl_sim: Path, preset: Preset, figure: Figure, folder: Path) -> List[List[str]]:
    """The ftl-sim command lines of the figure: [measure] or [fill, measure]."""
    base = [str(ftl_sim), "--config", str(preset.path), *preset.run_args]
    runs = figure.runs()
    state = folder / f"{figure.name}.state"
    out = []
    for index, words in enumerate(runs):
        words = _expand(words, folder, f"{figure.name}-{index}")
        last = index == len(runs) - 1
        if len(runs) > 1:
            words += ["--state-in", str(state)] if last else ["--state-out", str(state)]
        if last:
            words += ["--summary", str(folder / f"{figure.name}.json")]
            if figure.metric in STATS_METRICS:
                words += ["--stats-dir", str(folder / f"{figure.name}-stats")]
        out.append([*base, *words])
    return out


STATS_COLUMNS = ("interval_s", "host_write_bytes", "host_write_pages", "slc_host_pages",
                 "slc_direct_pages")


def _stats_rows(folder: Path) -> List[Dict[str, float]]:
    with (folder / "stats.csv").open(newline="") as f:
        reader = csv.DictReader(f)
        missing = [key for key in STATS_COLUMNS if key not in (reader.fieldnames or [])]
        if missing:
            raise SimError(f"stats.csv has no {missing[0]} column (the cliff metrics need "
                           "slc_cache=on)")
        return [{key: float(row[key]) for key in STATS_COLUMNS} for row in reader]


def cliff_bytes(rows: List[Dict[str, float]]) -> Optional[float]:
    """Bytes written before the first page the cache refused: every second before the
    first one with a direct page, and that second's cached pages (written before its
    direct ones, as the cache takes pages until it is full). None: no cliff."""
    done = 0.0
    for row in rows:
        if row["slc_direct_pages"] > 0 and row["host_write_pages"] > 0:
            page = row["host_write_bytes"] / row["host_write_pages"]
            return done + row["slc_host_pages"] * page
        done += row["host_write_bytes"]
    return None


def after_cliff_mb_s(rows: List[Dict[str, float]]) -> Optional[float]:
    """Median MB/s of the whole seconds after the first one with a direct page (the run's
    last, partial, second left out); None without two such seconds."""
    firsts = [n for n, row in enumerate(rows) if row["slc_direct_pages"] > 0]
    if not firsts:
        return None
    after = [row for row in rows[firsts[0] + 1:] if abs(row["interval_s"] - 1.0) < 1e-9]
    if len(after) < 2:
        return None
    return statistics.median(row["host_write_bytes"] / 1e6 for row in after)


def value_of(figure: Figure, summary: Dict, stats_dir: Optional[Path], scale: float) -> float:
    """The figure's metric from a run's summary (and statistics)."""
    metric = figure.metric
    if metric == "read_MBps":
        return summary["read_mib_s"] * MB_PER_MIB
    if metric == "write_MBps":
        return summary["write_mib_s"] * MB_PER_MIB
    if metric == "read_IOPS":
        return summary["read_iops"]
    if metric == "write_IOPS":
        return summary["write_iops"]
    if metric == "lat_us":
        return summary["mean_latency_us"]
    try:
        rows = _stats_rows(stats_dir)
    except SimError as error:
        raise SimError(f"{figure.name}: {error}") from None
    if metric == "cliff_GB":
        found = cliff_bytes(rows)
        if found is None:
            raise SimError(f"{figure.name}: the run never went past the SLC cache (write "
                           "more: --io-size)")
        return found * scale / 1e9
    found = after_cliff_mb_s(rows)
    if found is None:
        raise SimError(f"{figure.name}: fewer than two whole seconds past the SLC cache "
                       "(write more: --io-size)")
    return found


def measure(ftl_sim: Path, preset: Preset, figure: Figure, folder: Path,
            full_mib: float) -> Measured:
    """Run the figure's commands in folder; its value. SimError (one line) if a run
    fails or leaves no summary."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = commands(ftl_sim, preset, figure, folder)
    for words in lines:
        try:
            run_ftl_sim(words, timeout=TIMEOUT_S)
        except CommandError as error:
            raise SimError(f"{preset.path}: {figure.name}: ftl-sim failed: "
                           f"{ftl_sim_reason(error)}") from None
    summary_path = folder / f"{figure.name}.json"
    try:
        summary = json.loads(summary_path.read_text())
        scale = full_mib / summary["config"]["devsz_mb"]
        return Measured(value_of(figure, summary, folder / f"{figure.name}-stats", scale),
                        lines)
    except SimError as error:
        raise SimError(f"{preset.path}: {error}") from None
    except (OSError, ValueError, KeyError, ZeroDivisionError) as error:
        raise SimError(f"{preset.path}: {figure.name}: ftl-sim's output: {error}") from None
