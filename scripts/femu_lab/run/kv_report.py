"""The figures of a key-value lab run (kv-ycsb-a .. kv-ycsb-f): what the guest's load
generator measured (kv-load.json: ops/s, p50/p99 per kind, every status other than
success) beside what the device counted over the whole run (stats.csv's kv_* columns
summed: the load phase's stores too). record() writes them into kv.json and returns them
for result.json; report_text() is what a run prints. The plots are femu_analysis.kv_plots'
(report.analyse draws them).
"""
import csv
import json
from pathlib import Path
from typing import Dict, Optional

from femu_common.errors import FemuError

from . import figures_file

KV_FILE = "kv.json"
GUEST_SUMMARY = "kv-load.json"
# the device's KV counters (hw/femu/ftl/STATS.md), summed over stats.csv's rows
DEVICE_COUNTERS = ("kv_stores", "kv_retrieves", "kv_deletes", "kv_exists", "kv_lists",
                   "kv_store_bytes", "kv_retrieve_bytes", "kv_index_hits",
                   "kv_index_misses", "kv_index_page_reads", "kv_index_page_writes",
                   "kv_compactions", "kv_compaction_pages")


class KvReportError(FemuError, ValueError):
    """A KV run whose files cannot be read (one line)."""


def device_totals(stats_csv: Path) -> Dict[str, int]:
    """Each KV counter summed over stats.csv's rows; KvReportError when the file lacks
    them (a device without the KV FTL's statistics)."""
    try:
        with open(stats_csv, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as error:
        raise KvReportError(f"{stats_csv}: {error.strerror}") from None
    if not rows:
        return {name: 0 for name in DEVICE_COUNTERS}
    missing = [name for name in DEVICE_COUNTERS if name not in rows[0]]
    if missing:
        raise KvReportError(f"{stats_csv}: no {missing[0]} column (a device without the KV "
                            "FTL's statistics)")
    return {name: sum(int(float(row[name] or 0)) for row in rows) for name in DEVICE_COUNTERS}


def figures(folder: Path) -> Optional[Dict[str, object]]:
    """{"guest": the generator's summary, "device": the counters' totals}, or None for a
    run without a KV load."""
    path = folder / GUEST_SUMMARY
    if not path.is_file():
        return None
    try:
        guest = json.loads(path.read_text())
    except ValueError as error:
        raise KvReportError(f"{path}: not JSON ({error})") from None
    return {"guest": guest, "device": device_totals(folder / "stats.csv")}


def record(folder: Path) -> Optional[Dict[str, object]]:
    """figures(), also written to folder/kv.json."""
    return figures_file.save(folder, KV_FILE, figures(folder))


def format_figures(result: Dict[str, object]) -> str:
    guest, device = result["guest"], result["device"]
    lines = [f"KV: {guest['ops_per_s']:.1f} ops/s over {guest['seconds']:.1f} s (YCSB "
             f"{guest['mix']}, {guest['dist']}, QD {guest['qd']}), errors {guest['errors']}"]
    for kind, figure in guest["kinds"].items():
        lines.append(f"  {kind}: {figure['ops']} ops, p50 {figure['p50_us']:.0f} us, "
                     f"p99 {figure['p99_us']:.0f} us")
    hits, misses = device["kv_index_hits"], device["kv_index_misses"]
    rate = f"{hits / (hits + misses):.3f}" if hits + misses else "-"
    lines.append(f"  device: {device['kv_stores']} stores, {device['kv_retrieves']} "
                 f"retrieves, {device['kv_lists']} lists, index hit rate {rate}, "
                 f"{device['kv_compactions']} compactions")
    return "\n".join(lines)


def report_text(folder: Path) -> Optional[str]:
    """What kv.json holds, as text; None for a run without one."""
    return figures_file.text(folder, KV_FILE, format_figures)
