"""The FDP figures of one lab run: the device's WAF read two ways over the measured part,
and where its media writes went.

- From the FDP Statistics log (22h), which the workload saved before and after its writes
  (fdp-start-stats.json, fdp-end-stats.json: nvme-cli's JSON of HBMW, MBMW, MBE): the
  media bytes written over the host bytes written between the two reads.
- From the device's stats.csv over the run's window (phases.csv, `workload` to `end`):
  every handle's host and GC pages (wpN_host_pages, wpN_gc_pages), their media bytes and
  WAF, and the WAF over all of them (femu_analysis.fdp_plots, what `femu-plot fdp` draws).

The two cover nearly the same span (the log reads sit right inside the phase markers; the
window drops the seconds it cuts), so their WAFs agree to about the third digit. record()
writes them into fdp.json in the run folder and returns them for result.json.
"""
import json
from pathlib import Path
from typing import Dict, List, Optional

from femu_common.errors import FemuError

from . import figures_file

FDP_FILE = "fdp.json"
LOG_FILES = ("fdp-start-stats.json", "fdp-end-stats.json")
LOG_FIELDS = ("hbmw", "mbmw", "mbe")


class FdpReportError(FemuError, ValueError):
    """A run whose FDP files cannot be read (one line)."""


def _log(path: Path) -> Dict[str, int]:
    try:
        document = json.loads(path.read_text())
        return {field: int(document[field]) for field in LOG_FIELDS}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise FdpReportError(f"{path}: not nvme-cli's FDP statistics JSON ({error})") \
            from None


def log_figures(folder: Path) -> Optional[Dict[str, object]]:
    """Host, media written and media erased bytes between the two log reads, and the WAF
    (media / host; None without host writes); None when the run saved no log."""
    start_path, end_path = (folder / name for name in LOG_FILES)
    if not start_path.is_file() and not end_path.is_file():
        return None
    start, end = _log(start_path), _log(end_path)
    delta = {f"{field}_bytes": end[field] - start[field] for field in LOG_FIELDS}
    if any(value < 0 for value in delta.values()):
        raise FdpReportError(f"{folder}: the FDP statistics went down between "
                             f"{LOG_FILES[0]} and {LOG_FILES[1]}: {delta}")
    host, media = delta["hbmw_bytes"], delta["mbmw_bytes"]
    return {**delta, "waf": media / host if host else None}


def page_bytes(folder: Path) -> int:
    """secs_per_pg x secsz from the run's config.conf (FEMU's 8 x 512 without one)."""
    values = {"secs_per_pg": 8, "secsz": 512}
    path = folder / "config.conf"
    if path.is_file():
        for line in path.read_text().splitlines():
            key, sep, value = line.split("#", 1)[0].partition("=")
            if sep and key.strip() in values:
                values[key.strip()] = int(value.strip())
    return values["secs_per_pg"] * values["secsz"]


def handle_figures(folder: Path, run=None, window=None) -> Dict[str, object]:
    """stats.csv over the window: {"waf", "host_pages", "gc_pages", "handles": [...]} with
    each write pointer's host, GC and media pages, media bytes and WAF."""
    from femu_analysis import fdp_plots
    from femu_analysis.loader import load_run
    from femu_analysis.window import find_window

    run = run if run is not None else load_run(folder)
    window = window if window is not None else find_window(run)
    pages = fdp_plots.handle_pages(run, window)
    size = page_bytes(folder)
    handles: List[Dict[str, object]] = []
    for row in pages.itertuples():
        handles.append({"handle": int(row.handle), "host_pages": int(row.host_pages),
                        "gc_pages": int(row.gc_pages), "media_pages": int(row.media_pages),
                        "media_bytes": int(row.media_pages) * size,
                        "waf": None if row.waf is None or row.waf != row.waf else
                        float(row.waf)})
    return {"window_s": [window.start_s, window.end_s],
            "waf": fdp_plots.window_waf(pages),
            "host_pages": int(pages["host_pages"].sum()),
            "gc_pages": int(pages["gc_pages"].sum()), "handles": handles}


def figures(folder: Path, run=None, window=None) -> Optional[Dict[str, object]]:
    """{"log": log_figures, "csv": handle_figures} of a run that saved the FDP log, else
    None."""
    log = log_figures(folder)
    if log is None:
        return None
    return {"log": log, "csv": handle_figures(folder, run, window)}


def record(folder: Path, run=None, window=None) -> Optional[Dict[str, object]]:
    """figures(), also written to folder/fdp.json; FdpReportError (one line) when the
    statistics cannot give them."""
    from femu_analysis.errors import AnalysisError
    try:
        result = figures(folder, run, window)
    except AnalysisError as error:
        raise FdpReportError(f"FDP figures of {folder.name}: {error}") from None
    return figures_file.save(folder, FDP_FILE, result)


def _fmt(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def format_figures(result: Dict[str, object]) -> str:
    """The lines a run prints: both WAFs, then media writes per handle that took any."""
    log, csv = result["log"], result["csv"]
    lines = [f"FDP: WAF {_fmt(log['waf'])} from the FDP statistics log (MBMW "
             f"{log['mbmw_bytes'] / (1 << 20):.1f} MiB / HBMW {log['hbmw_bytes'] / (1 << 20):.1f}"
             f" MiB), {_fmt(csv['waf'])} from stats.csv over the window"]
    for handle in csv["handles"]:
        if handle["media_pages"]:
            lines.append(f"  handle {handle['handle']}: media {handle['media_bytes'] / (1 << 20):.1f}"
                         f" MiB ({handle['host_pages']} host + {handle['gc_pages']} GC pages),"
                         f" WAF {_fmt(handle['waf'])}")
    return "\n".join(lines)


def report_text(folder: Path) -> Optional[str]:
    """What fdp.json holds, as text; None for a run without one."""
    return figures_file.text(folder, FDP_FILE, format_figures)
