"""One sweep point through ftl-sim instead of a VM: the same FTL code in simulated time,
seconds instead of minutes, for a preview of what a VM sweep will show.

The folder follows lab_run's convention (built as NAME.incomplete, renamed to NAME on
success, NAME.failed on failure) and holds what a VM run's folder holds where the
simulator has it: config.conf, params.json, the statistics CSVs, plots/ and result.json,
plus ftl-sim's summary.json, its command line and its output.
"""
import json
import shlex
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from .. import devconfig
from ..devconfig import DeviceConfig
from ..ftl_sim import CommandError, run_ftl_sim
from ..length import measured_workload_seconds
from ..workloads import Workload
from . import vm_run as lab_run, workload_params
from .report import analyse
from .steady import SteadyRule
from .vm_run import LabResult

# Analysis of parallel points one at a time: matplotlib is not documented thread-safe.
_ANALYSIS_LOCK = threading.Lock()
LOG = "ftl-sim.log"            # ftl-sim's output: what a failed point's last line names


class SimRunError(lab_run.LabRunError):
    """The point failed; the message is one line and names the folder kept."""


@dataclass
class SimRequest:
    workload: Workload
    config: DeviceConfig
    folder: Path                   # the final point folder (must not exist yet)
    runtime: int
    precondition: bool = False
    params: Dict[str, object] = field(default_factory=dict)   # the swept settings
    aged: Optional[Path] = None    # a state file ftl-sim starts from (--state-in)
    workload_params: Dict[str, str] = field(default_factory=dict)   # wl.* (workload_params)
    steady: Optional[SteadyRule] = None   # measure where WAF settled (run/steady.py)


def bounded_by_io(request: SimRequest) -> bool:
    """The workload's '# sim:' line ends it after so many bytes (--io-size, write-cliff's):
    ftl-sim takes no --runtime beside it, and the run has no planned duration."""
    return "--io-size" in request.workload.simulator_args()


def command(request: SimRequest, work: Path) -> List[str]:
    args = [str(devconfig.ftl_sim_path()), "--config", str(work / "config.conf"),
            *workload_params.sim_args(request.workload.simulator_args(),
                                      request.workload_params)]
    if not bounded_by_io(request):
        args += ["--runtime", str(request.runtime)]
    if request.precondition:   # after the workload's own (e.g. region): the last one counts
        args += ["--precondition", "seq"]
    if request.aged is not None:
        args += ["--state-in", str(request.aged)]
    return args + ["--stats-dir", str(work), "--summary", str(work / "summary.json")]


def run(request: SimRequest) -> LabResult:
    return lab_run.build_folder(request.folder, lambda work: _run_in(request, work),
                                SimRunError, (LOG,))


def _run_in(request: SimRequest, work: Path) -> Dict[str, object]:
    request.config.write(work / "config.conf")
    params = {"workload": request.workload.name,
              "runtime": None if bounded_by_io(request) else request.runtime,
              "precondition": request.precondition, "config_name": request.config.name,
              **request.config.overrides, **request.params}
    if request.aged is not None:
        params["aged"] = str(request.aged)
    params.update(workload_params.record(request.workload_params, request.steady))
    (work / "params.json").write_text(json.dumps(params, indent=2) + "\n")
    args = command(request, work)
    (work / "sim-cmdline.txt").write_text(shlex.join(args) + "\n")
    started = time.monotonic()
    try:
        run_ftl_sim(args, log=work / LOG)
    except CommandError as error:
        raise SimRunError(str(error)) from None
    wall = time.monotonic() - started
    # what ran: the simulated seconds of the workload phase (an --io-size or a trace may
    # end it before --runtime)
    params["workload_s"] = measured_workload_seconds(work)
    (work / "params.json").write_text(json.dumps(params, indent=2) + "\n")
    with _ANALYSIS_LOCK:
        figures = analyse(work, request.workload, request.steady)
    summary = json.loads((work / "summary.json").read_text())
    figures.update({"engine": "sim", "wall_seconds": round(wall, 3),
                    "sim_seconds": summary.get("sim_time_s")})
    if isinstance(summary.get("kv"), dict):     # ftl-sim --kv: the measured part's ops/s
        figures["kv_ops_per_s"] = summary["kv"].get("ops_per_s")
    (work / "result.json").write_text(json.dumps(figures, indent=2) + "\n")
    return figures
