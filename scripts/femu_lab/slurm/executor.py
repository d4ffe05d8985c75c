"""femu-lab sweep --executor slurm: the points that are not finished go to Slurm as one
array job (one task per point, `python -m femu_lab.slurm.task SWEEP INDEX`), then the
command waits, polling squeue, and writes the sweep's report as the local executor does.

Resume: finished points are kept; points whose task from an earlier submission is still
queued or running (SWEEP/slurm/jobs.json) are waited for, never submitted twice; the
rest are submitted again. Task logs: SWEEP/slurm/JOB_INDEX.log.
"""
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List

from femu_common import command
from femu_common.errors import RunFailure

from .. import paths, setup_steps
from ..run.report import headline
from ..sweep import folder as sweep_folder, runner as lab_sweep
from ..sweep.folder import DONE
from ..sweep.report import PointOutcome
from . import queue as slurm_queue, request as slurm_request
from .checks import SlurmOptions
from .queue import FAILED_STATES, QueueError

POLL_SECONDS = 5.0           # between squeue polls; FEMU_SLURM_POLL overrides (tests: 1)
SQUEUE_RETRIES = 60          # consecutive squeue failures tolerated while waiting
TASK_SCRIPT = "task.sh"


class SubmitError(RunFailure):
    """sbatch refused the job; the message is one line."""


def run(sweep, options: SlurmOptions, say: Callable[[str], None]) -> int:
    sweep_folder.claim(sweep.folder, sweep.definition, [item.point for item in sweep.points])
    with sweep_folder.Lock(sweep.folder):
        if sweep.request.engine == "vm":   # built once, on the shared checkout, not per task
            setup_steps.ensure_qemu(sweep.request.qemu)
            setup_steps.ensure_guest(release=sweep.request.guest_release)
        waiting = _submit_what_is_left(sweep, options, say)
        if not options.wait and waiting:   # with nothing left to wait for: the report
            jobs = sorted(set(waiting.values()), key=int)
            say(f"submitted: job {', '.join(jobs)}; progress: femu-lab sweep --status "
                f"{sweep.folder}")
            print(sweep.folder, flush=True)
            return 0
        outcomes = _wait(sweep, waiting, say)
        return lab_sweep.finish(sweep, outcomes, say)


def _submit_what_is_left(sweep, options: SlurmOptions, say) -> Dict[int, str]:
    """index -> job id of every point still to finish (submitted now or earlier)."""
    total = len(sweep.points)
    latest = slurm_queue.latest_jobs(slurm_queue.read_jobs(sweep.folder))
    states = slurm_queue.squeue_states(latest.values())
    waiting: Dict[int, str] = {}
    todo: List[int] = []
    for index, item in enumerate(sweep.points):
        place = f"[{index + 1}/{total}] {item.point.label}"
        job = latest.get(index)
        task = states.get((job, index)) if job else None
        if task is not None and task.active:
            say(f"{place}: {task.state.lower()} in job {job} (submitted earlier), waiting")
            waiting[index] = job
        elif sweep_folder.state(sweep.folder / item.point.name) == DONE:
            say(f"{place}: finished earlier, kept")
        else:
            todo.append(index)
    if todo:
        job = submit(sweep, options, todo)
        for index in todo:
            waiting[index] = job
        say(f"submitted job {job}: {len(todo)} task(s), array {array_spec(todo)}")
    return waiting


def submit(sweep, options: SlurmOptions, indices: List[int]) -> str:
    slurm_request.write(sweep, sweep.folder)
    directory = slurm_request.slurm_dir(sweep.folder)
    script = directory / TASK_SCRIPT
    script.write_text("#!/bin/sh\n# One point of this sweep per Slurm array task.\n"
                      f"exec {shlex.quote(str(slurm_request.task_python()))} -m "
                      f"femu_lab.slurm.task {shlex.quote(str(sweep.folder))} "
                      "\"$SLURM_ARRAY_TASK_ID\"\n")
    script.chmod(0o755)
    args = sbatch_args(sweep.folder, options, indices) + [str(script)]
    try:
        proc = command.run(args, "sbatch", check=False)
    except command.CommandError as error:
        raise SubmitError(str(error)) from None
    job = proc.stdout.strip().split(";")[0]
    if proc.returncode != 0 or not job.isdigit():
        raise SubmitError(f"sbatch failed: "
                          f"{command.last_line(proc.stderr, proc.stdout) or proc.returncode}")
    slurm_queue.add_job(sweep.folder, job, indices)
    return job


def sbatch_args(folder: Path, options: SlurmOptions, indices: List[int]) -> List[str]:
    # sbatch reads % in --output as a pattern: the folder's own % must be %% to stay one
    log = str(slurm_request.slurm_dir(folder)).replace("%", "%%") + "/%A_%a.log"
    args = ["sbatch", "--parsable", f"--array={array_spec(indices)}",
            f"--job-name=femu-sweep-{folder.name}", f"--output={log}", f"--error={log}",
            f"--chdir={paths.REPO_ROOT}"]
    return args + options.sbatch_flags()


def array_spec(indices: List[int]) -> str:
    """0,1,2,5 -> 0-2,5"""
    ranges, ordered = [], sorted(indices)
    start = previous = ordered[0]
    for index in ordered[1:] + [None]:
        if index is not None and index == previous + 1:
            previous = index
            continue
        ranges.append(str(start) if start == previous else f"{start}-{previous}")
        if index is not None:
            start = previous = index
    return ",".join(ranges)


def _wait(sweep, waiting: Dict[int, str], say) -> List[PointOutcome]:
    """Poll until every waited-for task has left the queue; an outcome per point."""
    total = len(sweep.points)
    outcomes: Dict[int, PointOutcome] = {}
    for index, item in enumerate(sweep.points):
        if index not in waiting:
            folder = sweep.folder / item.point.name
            outcomes[index] = PointOutcome(item.point, folder, "done",
                                           sweep_folder.read_figures(folder))
    seen: Dict[int, str] = {}
    failures = 0
    try:
        while waiting:
            try:
                states = slurm_queue.squeue_states(waiting.values())
                failures = 0
            except QueueError as error:
                failures += 1
                if failures > SQUEUE_RETRIES:
                    raise
                if failures == 1:
                    say(f"{error}; trying again")
                time.sleep(_poll_seconds())
                continue
            for index, job in sorted(waiting.items()):
                item = sweep.points[index]
                place = f"[{index + 1}/{total}] {item.point.label}"
                task = states.get((job, index))
                if task is not None and task.active:
                    if task.state == "RUNNING" and seen.get(index) != "RUNNING":
                        say(f"{place}: running on {task.node} (task {job}_{index})")
                    seen[index] = task.state
                    continue
                outcomes[index] = _outcome(sweep, index, job, task, place, say)
                del waiting[index]
            if waiting:
                time.sleep(_poll_seconds())
    except KeyboardInterrupt:
        offer_cancel(waiting)
        raise
    return [outcomes[index] for index in range(total)]


def _poll_seconds() -> float:
    try:
        return max(0.2, float(os.environ.get("FEMU_SLURM_POLL", POLL_SECONDS)))
    except ValueError:
        return POLL_SECONDS


def _outcome(sweep, index: int, job: str, task, place: str, say) -> PointOutcome:
    item = sweep.points[index]
    folder = sweep.folder / item.point.name
    if sweep_folder.state(folder) == DONE and (task is None or task.state not in FAILED_STATES):
        figures = sweep_folder.read_figures(folder)
        say(f"{place}: done, {headline(figures or {})}")
        return PointOutcome(item.point, folder, "done", figures)
    log = slurm_queue.log_path(sweep.folder, job, index)
    slurm_state = task.state if task is not None else "gone from the queue"
    error = f"task {job}_{index} {slurm_state}, point {sweep_folder.state(folder)}; log {log}"
    say(f"{place}: failed: {error}")
    for line in slurm_queue.log_tail(log):
        say(f"    {line}")
    return PointOutcome(item.point, folder, "failed", error=error)


def offer_cancel(waiting: Dict[int, str], ask: Callable[[str], str] = input,
                 interactive: bool = None) -> bool:
    """Ctrl-C while waiting: on a terminal ask whether to scancel what is left; without
    one (CI, no stdin) leave the tasks running and print the command. True if cancelled."""
    jobs = sorted(set(waiting.values()))
    if not jobs:
        return False
    cancel = "scancel " + " ".join(jobs)
    if interactive is None:
        interactive = sys.stdin is not None and sys.stdin.isatty()
    if interactive:
        try:
            answer = ask(f"\ncancel job {', '.join(jobs)} ({len(waiting)} task(s) left)? "
                         "[y/N] ")
        except (EOFError, KeyboardInterrupt):
            answer = ""
        if answer.strip().lower() in ("y", "yes"):
            try:
                command.run(["scancel", *jobs])
                lab_sweep.say(f"cancelled job {', '.join(jobs)}")
                return True
            except command.CommandError as error:
                lab_sweep.say(str(error))
            return False
    lab_sweep.say(f"job {', '.join(jobs)} keeps running ({len(waiting)} task(s) left); "
                  f"to cancel it: {cancel}")
    return False
