"""One Slurm array task of a sweep: `python -m femu_lab.slurm.task SWEEP INDEX` runs point
INDEX (0-based, the order of sweep.json's points) into SWEEP/<point>/ on this node, through
the same code as the local executor, from what SWEEP/slurm/request.json recorded.

Exit status 0 when the point finished (or had already), 1 when it failed, 2 when the
arguments or the request are wrong. The output goes to the task's Slurm log.
"""
import os
import socket
import sys
from pathlib import Path
from typing import List, Optional

from .. import setup_steps
from ..devconfig import ConfigError
from ..sweep import checks as sweep_checks, folder as sweep_folder, runner as lab_sweep
from ..sweep.folder import DONE
from ..workloads import WorkloadError
from . import request as slurm_request


def say(message: str) -> None:
    print(f"femu-lab task: {message}", file=sys.stderr, flush=True)


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) != 2 or not argv[1].isdigit():
        say(f"error: usage: python -m femu_lab.slurm.task SWEEP INDEX, got {argv}")
        return 2
    folder, index = Path(argv[0]).resolve(), int(argv[1])
    try:
        request = slurm_request.sweep_request(slurm_request.read(folder))
        points = sweep_checks.load_points(request.config_path, request.plan)
    except (slurm_request.RequestError, ConfigError, WorkloadError, OSError) as error:
        say(f"error: {error}")
        return 2
    if index >= len(points):
        say(f"error: index {index}: the sweep in {folder} has {len(points)} points")
        return 2
    item = points[index]
    point_folder = folder / item.point.name
    place = f"[{index + 1}/{len(points)}]"
    job = os.environ.get("SLURM_ARRAY_JOB_ID", "?")
    say(f"task {job}_{index} on {socket.gethostname()}: {item.point.label} into "
        f"{point_folder}")
    state = sweep_folder.state(point_folder)
    if state == DONE:
        say(f"{place} {item.point.label}: finished earlier, kept")
        return 0
    try:
        runner = lab_sweep.point_runner(request)
    except setup_steps.SetupError as error:
        say(f"error: {error}")
        return 1
    outcome = lab_sweep.run_point(runner, item, point_folder, state, place, say)
    return 0 if outcome.status == "done" else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:   # scancel sends SIGTERM; Ctrl-C only in a manual run
        sys.exit(130)
