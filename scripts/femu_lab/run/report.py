"""The analysis step of a lab run: femu_analysis's plots and summary for the folder, and
the headline figures (device IOPS and WAF over the benchmark window beside fio's IOPS, and
a zoned run's zone commands per second, which the device's IOPS do not count).
Imported only after a run succeeded: it needs pandas and matplotlib from the venv.
"""
import json
import re
from pathlib import Path
from typing import Dict, Optional

from femu_analysis import kv_plots, plots, series, sweep, waf
from femu_analysis.summary import summarize, write_summaries
from femu_analysis.errors import AnalysisError
from femu_analysis.fio import fio_result
from femu_analysis.loader import load_run
from femu_analysis.window import Window, find_window
from femu_common.errors import RunFailure

from ..workloads import Workload
from . import steady


class ReportError(RunFailure):
    pass


# result.json's WAF and its parts (femu_analysis.waf.waf_parts), as in summary.json
WAF_FIGURES = ("waf", *(f"waf_{part}" for part in waf.PARTS))


def _erased_blocks(figure) -> Dict[str, object]:
    """Blocks erased over the window: all, by GC and by folding (waf.erased_parts' names)."""
    total = figure.get("total")
    return {"erased_blocks": total, "gc_erased_blocks": figure.get("gc", total),
            "fold_erased_blocks": figure.get("fold", 0.0 if total is not None else None)}


def analyse(folder: Path, workload: Workload,
            steady_rule: Optional[steady.SteadyRule] = None) -> Dict[str, object]:
    """Write folder/plots and return the figures; ReportError (one line) on bad data.
    With steady_rule, the window is the intervals where WAF settled (run/steady.py), or
    the workload phase when it never did; figures["steady"] says which."""
    out = folder / "plots"
    settled = None
    try:
        run = load_run(folder)
        window = find_window(run, None)
        if steady_rule is not None:
            settled = steady.settle_run(steady_rule, run, window)
            if settled.reached:
                found = find_window(run, Window(settled.start_s, settled.end_s, "steady"))
                window = Window(found.start_s, found.end_s, f"steady state ({steady_rule.spec})")
        plots.plot_run(run, window, out)
        summary = summarize(run, window)
        write_summaries([summary], out)
        # A run that wrote only to the zoned namespace has no per-LPN counts (they are
        # the conventional FTL's): no CDF then.
        if run.lpn_access is not None and len(run.lpn_access):
            plots.plot_cdf(run, out)
        if workload.sweep_param:
            sweep.plot_sweep([folder], workload.sweep_param, out)
        if kv_plots.is_kv_run(folder):
            kv_plots.plot_kv_run(run, out)
        fio_iops = _fio_iops(run.metadata.fio)
        fio_writes = _fio_total(run.metadata.fio, "write")
    except AnalysisError as error:
        raise ReportError(f"analysis of {folder.name}: {error}") from None
    iops = summary.get("iops") or {}
    figures: Dict[str, object] = {
        "title": summary.get("title"),
        "window_s": [window.start_s, window.end_s],
        "window_source": window.source,
        "device_iops_mean": iops.get("mean"),
        "device_read_iops_mean": iops.get("read_mean"),
        "device_write_iops_mean": iops.get("write_mean"),
        **{key: summary.get(key) for key in WAF_FIGURES},
        **_erased_blocks(summary.get("erased_blocks") or {}),
        "gc_moved_pages": (summary.get("moved_pages") or {}).get("total"),
        "fio_iops": fio_iops,
    }
    figures.update(zoned_commands(summary.get("nand") or {}))
    if fio_iops and iops.get("mean"):
        figures["device_vs_fio_iops"] = iops["mean"] / fio_iops
    if fio_writes is not None and run.stats is not None:
        # Counts, not rates: the window's edges cut seconds, a count over the run does not.
        figures["fio_write_ios"] = fio_writes
        figures["device_write_commands"] = int(run.stats["host_write_cmds"].sum())
    if run.stats is not None:
        rows = series.within(run.stats, window)
        # GC runs: every collection, the stream fallback's victims too
        figures.update(waf.collections(waf.sums(rows, waf.COLLECTION_COLUMNS)))
        # beside the WAF, what the write buffer kept from flash (nothing without one)
        figures.update(waf.buffer_figures(run.stats, rows))
        end = waf.buffer_figures(run.stats)
        if end:
            figures["buf_pending_pages_end_of_run"] = end[waf.BUFFER_GAUGE_COLUMN]
    figures.update(sysbench_rates(folder / "sysbench.txt"))
    if settled is not None:
        figures["steady"] = settled.record()
    return figures


def zoned_commands(nand: Dict[str, object]) -> Dict[str, object]:
    """The window's zoned reads, writes, appends and copies (summary's nand counts), which
    the device's IOPS leave out, and their rate over the seconds those counts cover; {}
    for a run without any."""
    counts = [nand.get(column) for column in series.ZONED_COMMANDS]
    span = nand.get("span_s")
    if any(count is None for count in counts) or not sum(counts) or not span:
        return {}
    seconds = span[1] - span[0]
    return {"device_zoned_cmds": sum(counts),
            "device_zoned_cmds_per_s": sum(counts) / seconds if seconds > 0 else None}


def name_summaries(work: Path, dest: Path) -> None:
    """A run is built in work (NAME.incomplete) and becomes dest (NAME, or NAME.failed):
    the summaries in work name dest instead, before the rename. femu-plot's
    plots/summary.json and summary.md (the run's name and path) and ftl-sim's summary.json
    (its config file's path); either may be absent."""
    def retarget(value):
        if isinstance(value, dict):
            return {key: retarget(item) for key, item in value.items()}
        if isinstance(value, list):
            return [retarget(item) for item in value]
        if isinstance(value, str) and (value == str(work) or value.startswith(f"{work}/")):
            return str(dest) + value[len(str(work)):]
        return value

    plots = work / "plots" / "summary.json"
    if plots.exists():
        document = json.loads(plots.read_text())
        summaries = document if isinstance(document, list) else [document]
        for summary in summaries:
            if summary.get("run") == work.name:
                summary["run"] = dest.name
        write_summaries([retarget(summary) for summary in summaries], plots.parent)
    simulator = work / "summary.json"
    if simulator.exists():
        document = retarget(json.loads(simulator.read_text()))
        simulator.write_text(json.dumps(document, indent=2) + "\n")


_SYSBENCH_RATE = re.compile(r"^\s*(reads|writes|fsyncs)/s:\s*([0-9.]+)\s*$", re.MULTILINE)


def sysbench_rates(path: Path) -> Dict[str, float]:
    """sysbench fileio's 'reads/s:', 'writes/s:', 'fsyncs/s:' lines, when the run has them."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return {}
    return {f"sysbench_{kind}_per_s": float(value) for kind, value in _SYSBENCH_RATE.findall(text)}


def _fio_iops(results) -> Optional[float]:
    """fio's IOPS when the run has exactly one fio result (studies have many)."""
    if len(results) != 1:
        return None
    path, document = results[0]
    return fio_result(document, path)["iops"]


def _fio_total(results, direction: str) -> Optional[int]:
    """I/Os fio completed in one direction over all its results and jobs."""
    if not results:
        return None
    return sum(int((job.get(direction) or {}).get("total_ios", 0))
               for _, document in results for job in document.get("jobs") or [])


def headline(figures: Dict[str, object]) -> str:
    parts = []
    zoned = figures.get("device_zoned_cmds_per_s")
    if figures.get("device_iops_mean") is not None:
        parts.append(f"device {figures['device_iops_mean']:.0f} IOPS" +
                     (" (conventional namespace)" if zoned is not None else ""))
    if zoned is not None:
        parts.append(f"zoned {zoned:.{1 if zoned < 100 else 0}f} cmds/s "
                     f"({figures['device_zoned_cmds']:.0f} zone "
                     "reads, writes, appends and copies)")
    if figures.get("fio_iops"):
        parts.append(f"fio {figures['fio_iops']:.0f} IOPS")
    if figures.get("waf") is not None:
        parts.append(f"WAF {waf.describe(figures)}")
    buffer = waf.describe_buffer(figures)
    if buffer:
        parts.append(buffer)
    if figures.get("gc_erased_blocks") is not None:
        parts.append(f"GC erased {figures['gc_erased_blocks']:.0f} blocks")
    if figures.get("fold_erased_blocks"):
        parts.append(f"folding erased {figures['fold_erased_blocks']:.0f}")
    window = figures.get("window_s")
    if window:
        parts.append(f"window {window[0]:.0f}-{window[1]:.0f} s")
    return ", ".join(parts)
