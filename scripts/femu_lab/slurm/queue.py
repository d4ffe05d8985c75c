"""What Slurm says about a sweep's array tasks: squeue (every state while the controller
still remembers the job, MinJobAge) and sacct (when accounting works), and the record of
the jobs a sweep submitted (SWEEP/slurm/jobs.json).
"""
import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

from femu_common import command
from femu_common.errors import RunFailure

from .request import slurm_dir

JOBS_FILE = "jobs.json"
# Task states in which the task may still write its point folder.
ACTIVE = {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED",
          "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED",
          "RESV_DEL_HOLD"}
FAILED_STATES = {"FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
                 "BOOT_FAIL", "DEADLINE"}

TaskKey = Tuple[str, int]    # (array job id, array index)


class QueueError(RunFailure):
    """squeue or sacct could not answer; the message is one line."""


@dataclass
class TaskState:
    state: str               # Slurm's name, e.g. RUNNING, COMPLETED, FAILED
    node: str = ""
    elapsed: str = ""
    reason: str = ""

    @property
    def active(self) -> bool:
        return self.state in ACTIVE


def read_jobs(folder: Path) -> List[Dict[str, object]]:
    """The jobs submitted for this sweep, oldest first: {"job", "indices", "submitted"}."""
    path = slurm_dir(folder) / JOBS_FILE
    if not path.exists():
        return []
    try:
        record = json.loads(path.read_text())
        return [dict(job=str(entry["job"]), indices=[int(i) for i in entry["indices"]],
                     submitted=entry.get("submitted", "")) for entry in record["jobs"]]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise QueueError(f"{path}: unreadable ({error})") from None


def add_job(folder: Path, job: str, indices: List[int]) -> None:
    jobs = read_jobs(folder)
    jobs.append({"job": job, "indices": list(indices),
                 "submitted": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    path = slurm_dir(folder) / JOBS_FILE
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps({"jobs": jobs}, indent=2) + "\n")
    temporary.rename(path)


def latest_jobs(jobs: List[Dict[str, object]]) -> Dict[int, str]:
    """index -> the job that last took it."""
    latest: Dict[int, str] = {}
    for entry in jobs:
        for index in entry["indices"]:
            latest[index] = entry["job"]
    return latest


def squeue_states(job_ids: Iterable[str]) -> Dict[TaskKey, TaskState]:
    """One state per array task of the given jobs; jobs the controller has forgotten are
    simply absent."""
    ids = sorted(set(job_ids))
    if not ids:
        return {}
    try:
        proc = command.run(["squeue", "-h", "-r", "-t", "all", "-j", ",".join(ids),
                            "-o", "%F|%K|%T|%N|%M|%r"], check=False)
    except command.CommandError as error:
        raise QueueError(str(error)) from None
    if proc.returncode != 0:
        if "Invalid job id" in proc.stderr:
            return {}
        raise QueueError(f"squeue failed: {_last_line(proc)}")
    states = {}
    for line in proc.stdout.splitlines():
        parts = line.split("|")
        if len(parts) != 6 or not parts[1].isdigit():
            continue
        job, index, state, node, elapsed, reason = parts
        states[(job, int(index))] = TaskState(state.split()[0], node, elapsed, reason)
    return states


def sacct_states(job_ids: Iterable[str]) -> Optional[Dict[TaskKey, TaskState]]:
    """Array task states from accounting; None when sacct cannot answer (no slurmdbd)."""
    ids = sorted(set(job_ids))
    if not ids:
        return {}
    try:
        proc = subprocess.run(["sacct", "-n", "-P", "-X", "-j", ",".join(ids),
                               "-o", "JobID,State,NodeList,Elapsed"],
                              capture_output=True, text=True)
    except OSError:
        return None
    if proc.returncode != 0:
        return None
    states = {}
    for line in proc.stdout.splitlines():
        parts = line.split("|")
        if len(parts) != 4 or "_" not in parts[0]:
            continue
        job, _, index = parts[0].partition("_")
        if index.isdigit():
            states[(job, int(index))] = TaskState(parts[1].split()[0], parts[2], parts[3])
    return states


def log_path(folder: Path, job: str, index: int) -> Path:
    return slurm_dir(folder) / f"{job}_{index}.log"


def log_tail(path: Path, lines: int = 5) -> List[str]:
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - 8192))
            text = f.read().decode(errors="replace")
    except OSError:
        return []
    return [line.rstrip("\r") for line in text.splitlines() if line.strip()][-lines:]


def _last_line(proc: subprocess.CompletedProcess) -> str:
    return command.last_line(proc.stderr, proc.stdout) or f"exit status {proc.returncode}"
