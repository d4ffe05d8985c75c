"""femu-lab sweep --status DIR: one line per point of a sweep (from its point folders, and
for points handed to Slurm from squeue, and sacct when accounting works), then a summary.
Reads only; exit status 0 whatever the points' states.
"""
import json
from collections import Counter
from pathlib import Path
from typing import Callable, Dict, List, Optional

from ..run.report import headline
from ..sweep import folder as sweep_folder
from ..sweep.folder import DONE, FAILED, INCOMPLETE, FolderError
from . import queue as slurm_queue
from .queue import QueueError, TaskState


def status(folder: Path, out: Callable[[str], None], say: Callable[[str], None]) -> int:
    folder = folder.resolve()
    names = _point_names(folder)
    shown = _point_labels(folder, names)
    latest = slurm_queue.latest_jobs(slurm_queue.read_jobs(folder))
    queued: Dict = {}
    if latest:
        try:
            queued = slurm_queue.squeue_states(latest.values())
        except QueueError as error:
            say(f"{error}; states from the point folders only")
        except OSError:
            say("squeue not found; states from the point folders only")
    accounted: Optional[Dict] = slurm_queue.sacct_states(latest.values()) if latest else {}
    if accounted is None:
        say("sacct unavailable (no accounting storage); finished tasks judged by their "
            "point folders")
        accounted = {}
    width = max(len(label) for label in shown)
    counts: Counter = Counter()
    for index, name in enumerate(names):
        job = latest.get(index)
        task = None
        if job is not None:
            task = queued.get((job, index)) or accounted.get((job, index))
        kind, text = describe(folder, name, index, job, task)
        counts[kind] += 1
        out(f"[{index + 1}/{len(names)}] {shown[index]:<{width}}  {text}")
    order = ("done", "running", "pending", "failed", "not run")
    summary = ", ".join(f"{counts[kind]} {kind}" for kind in order if counts[kind])
    jobs = sorted(set(latest.values()), key=int)
    out(f"{len(names)} points: {summary}" + (f" (job {', '.join(jobs)})" if jobs else ""))
    return 0


def describe(folder: Path, name: str, index: int, job: Optional[str],
             task: Optional[TaskState]) -> tuple:
    """(summary kind, the point's line)."""
    state = sweep_folder.state(folder / name)
    where = f"task {job}_{index}" if job else ""
    if task is not None and task.active:
        if task.state == "PENDING":
            return "pending", f"pending ({where}, {task.reason or 'waiting'})"
        return "running", f"{task.state.lower()} on {task.node or '?'} for {task.elapsed} ({where})"
    if state == DONE:
        figures = sweep_folder.read_figures(folder / name) or {}
        return "done", f"done, {headline(figures)}"
    log = f"; log {slurm_queue.log_path(folder, job, index)}" if job else ""
    ended = f"{where} {task.state}" if task is not None else where
    if state == FAILED:
        return "failed", f"failed ({ended}){log}" if ended else "failed"
    if state == INCOMPLETE:
        return "failed", f"stopped before finishing ({ended}){log}" if ended else "incomplete"
    if task is not None:
        return "failed", f"not run ({ended}){log}"
    return "not run", "not run" + (f" ({where} ended){log}" if job else "")


def _point_labels(folder: Path, names: List[str]) -> List[str]:
    """Each point's label from sweep.json's point_folders (the folder name where an older
    sweep has none)."""
    try:
        entries = json.loads((folder / sweep_folder.SWEEP_FILE).read_text())["point_folders"]
        labels = {str(entry["folder"]): str(entry["label"]) for entry in entries}
    except (OSError, ValueError, KeyError, TypeError):
        labels = {}
    return [labels.get(name, name) for name in names]


def _point_names(folder: Path) -> List[str]:
    record = folder / sweep_folder.SWEEP_FILE
    try:
        names = json.loads(record.read_text())["points"]
    except FileNotFoundError:
        raise FolderError(f"--status {folder}: no {sweep_folder.SWEEP_FILE} there (not a "
                          "sweep folder)") from None
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise FolderError(f"{record}: unreadable ({error})") from None
    if not isinstance(names, list) or not names:
        raise FolderError(f"{record}: no points")
    return [str(name) for name in names]
