"""femu-lab sweep: one workload over the cross product of configuration settings, one
results folder per point, then comparison plots and a table.

    prepare(request)  checks everything (every point's config, the workload's fit, the
                      engine, the folder) before anything runs; one-line errors
    run(sweep)        runs the points that are not finished yet (one at a time, or
                      --jobs at once), then writes SWEEP/plots/, sweep.csv and sweep.md

Engines: `vm` runs each point as a lab run (lab_run: femu in QEMU, a guest workload);
`sim` replays the workload's '# sim:' line through ftl-sim in simulated time (sim_run).
"""
import concurrent.futures
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional

from .. import devconfig, paths, setup_steps
from ..run import aged, sim_run, vm_run as lab_run, workload_params
from ..run.steady import SteadyRule
from ..vm import accel
from ..workloads import Workload
from . import checks as sweep_checks, folder as sweep_folder, point_progress
from . import report as sweep_report
from .checks import PlannedPoint
from .folder import DONE, NEW
from .plan import SweepPlan
from .report import PointOutcome

RESULTS_ROOT = paths.REPO_ROOT / "results"
ENGINES = ("vm", "sim")


@dataclass
class SweepRequest:
    workload: Workload
    config_path: Path
    plan: SweepPlan
    runtime: int
    precondition: bool = False
    engine: str = "vm"
    jobs: int = 1
    out: Optional[Path] = None
    smp: int = 2
    mem_mb: int = 1024
    accel: str = field(default_factory=accel.default_from_env)
    qemu: Path = setup_steps.QEMU
    aged: Optional[Path] = None    # every point starts from this state file
    guest_release: Optional[str] = None   # femu_guest's default when None
    steady: Optional[SteadyRule] = None   # --steady: measure where WAF settled


@dataclass
class Sweep:
    request: SweepRequest
    folder: Path
    points: List[PlannedPoint]
    definition: Dict[str, object]


def prepare(request: SweepRequest) -> Sweep:
    """Raises ConfigError, WorkloadError, CheckError or FolderError (one line each)."""
    if request.engine == "sim":
        request.workload.simulator_args()     # WorkloadError without a '# sim:' line
    else:
        request.workload.require_guest()
    setup_steps.ensure_ftl_sim()              # it checks every configuration
    base = devconfig.load(request.config_path, {})
    points = sweep_checks.load_points(request.config_path, request.plan)
    sweep_checks.check_workload_fits(request.workload, request.engine, points)
    sweep_checks.check_hot_threshold(request.plan, points)
    sweep_checks.check_workload_params(request.workload, request.engine, request.plan)
    sweep_checks.check_kv_precondition(request.workload, request.engine, request.precondition)
    if request.aged is not None:
        request.aged = _check_aged(request.aged, points)
    folder = request.out or sweep_folder.default_folder(RESULTS_ROOT, request.workload,
                                                        request.plan, request.engine)
    definition = sweep_folder.definition(request.workload, request.config_path, base.text,
                                         request.plan, request.runtime, request.precondition,
                                         request.engine)
    if request.aged is not None:   # absent from older folders' definitions: they still match
        definition["aged"] = str(request.aged)
    if request.plan.baseline:
        definition["baseline"] = True
    if request.steady is not None:
        definition["steady"] = request.steady.spec
    sweep_folder.check(folder.resolve(), definition)
    return Sweep(request, folder.resolve(), points, definition)


def run(sweep: Sweep, say: Callable[[str], None]) -> int:
    """Run what is left of the sweep and report; 0 when every point finished, else 1."""
    request = sweep.request
    sweep_folder.claim(sweep.folder, sweep.definition, [item.point for item in sweep.points])
    with sweep_folder.Lock(sweep.folder):
        runner = point_runner(request, say)
        outcomes = _run_points(sweep, runner, say)
        return finish(sweep, outcomes, say)


def point_runner(request: SweepRequest, say: Optional[Callable[[str], None]] = None
                 ) -> Callable:
    """The engine as one call: (planned point, folder) -> lab_run.LabResult; the swept
    settings and the wl.* items go into each point's params.json as labels. With say, a
    simulated point that runs longer than a few seconds says how far it got
    (point_progress)."""
    if request.engine == "sim":
        def simulate(item: PlannedPoint, folder: Path) -> lab_run.LabResult:
            runtime = _point_runtime(request, item)
            progress = None
            if say is not None:
                progress = point_progress.PointProgress(
                    say, f"[{item.point.index}/{item.point.count}] {item.point.label}",
                    lab_run.incomplete_path(folder), _simulated_total(request, runtime))
                progress.start()
            try:
                return sim_run.run(sim_run.SimRequest(
                    workload=request.workload, config=item.config, folder=folder,
                    runtime=runtime, precondition=request.precondition,
                    params=_labels(item), aged=request.aged,
                    workload_params=item.point.workload_params, steady=request.steady))
            finally:
                if progress is not None:
                    progress.stop()
        return simulate
    qemu = setup_steps.ensure_qemu(request.qemu).resolve()
    image = setup_steps.ensure_guest(release=request.guest_release)
    # a Slurm task has no say of its own: the accelerator line goes to its log as before
    setup_steps.choose_accel(request.accel, qemu, image,
                             say if say is not None else setup_steps.say)

    def boot(item: PlannedPoint, folder: Path) -> lab_run.LabResult:
        return lab_run.run(lab_run.LabRequest(
            workload=request.workload, config=item.config, folder=folder, qemu=qemu,
            runtime=_point_runtime(request, item), precondition=request.precondition,
            smp=request.smp, mem_mb=request.mem_mb, accel=request.accel,
            live=request.jobs == 1, params=_labels(item), aged=request.aged,
            kernel=image.kernel, initramfs=image.initramfs,
            workload_params=item.point.workload_params, steady=request.steady))
    return boot


def _point_runtime(request: SweepRequest, item: PlannedPoint) -> int:
    """The point's wl.runtime, else the sweep's --runtime."""
    return workload_params.runtime(item.point.workload_params, request.runtime)


def _labels(item: PlannedPoint) -> Dict[str, object]:
    """params.json's labels: the swept settings and every wl.* item as typed."""
    return {**dict(item.point.settings), **item.point.workload_labels}


def _simulated_total(request: SweepRequest, runtime: int) -> Optional[int]:
    """The simulated seconds a point's workload runs for, when --runtime decides it (a
    '# sim:' line that ends with its I/O or a trace may stop sooner: no total then)."""
    args = request.workload.simulator_args()
    ends_early = any(arg.split("=")[0] in ("--io-size", "--trace") for arg in args)
    return None if ends_early else runtime


def _check_aged(state: Path, points: List[PlannedPoint]) -> Path:
    """The state file, checked against every distinct point configuration (AgedError
    naming the first key that differs); absolute, as the points run elsewhere."""
    checked = set()
    for item in points:
        if item.config.text not in checked:
            aged.check_state(state, item.config)
            checked.add(item.config.text)
    return state.resolve()


def _run_points(sweep: Sweep, runner: Callable, say: Callable[[str], None]) -> list:
    total = len(sweep.points)
    outcomes: Dict[str, PointOutcome] = {}
    todo = []
    for number, item in enumerate(sweep.points, 1):
        folder = sweep.folder / item.point.name
        state = sweep_folder.state(folder)
        if state == DONE:
            outcomes[item.point.name] = PointOutcome(item.point, folder, "done",
                                                     sweep_folder.read_figures(folder))
            say(f"[{number}/{total}] {item.point.label}: finished earlier, kept")
        else:
            todo.append((number, item, folder, state))

    def one(number, item, folder, state) -> PointOutcome:
        return run_point(runner, item, folder, state, f"[{number}/{total}]", say)

    jobs = min(sweep.request.jobs, len(todo)) or 1
    if jobs == 1:
        for args in todo:
            outcomes[args[1].point.name] = one(*args)
    else:
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
        try:
            futures = [pool.submit(one, *args) for args in todo]
            for future in concurrent.futures.as_completed(futures):
                outcome = future.result()
                outcomes[outcome.point.name] = outcome
        finally:   # on Ctrl-C: start nothing new, wait for the running points to stop
            pool.shutdown(wait=True, cancel_futures=True)
    return [outcomes[item.point.name] for item in sweep.points]


def run_point(runner: Callable, item: PlannedPoint, folder: Path, state: str, place: str,
              say: Callable[[str], None]) -> PointOutcome:
    """One planned point into its folder through runner (point_runner's), as every executor
    runs it: progress lines prefixed with place ("[2/5]"); a failure is an outcome, Ctrl-C
    a KeyboardInterrupt."""
    again = "" if state == NEW else f" again ({state} before)"
    say(f"{place} {item.point.label}: running{again}")
    try:
        result = runner(item, folder)
    except lab_run.LabRunError as error:   # sim_run.SimRunError is one too
        if isinstance(error, lab_run.LabRunInterrupted):
            raise KeyboardInterrupt from None
        outcome = PointOutcome(item.point, folder, "failed", error=str(error))
    except Exception as error:            # keep the other points going; name the cause
        outcome = PointOutcome(item.point, folder, "failed",
                               error=f"{type(error).__name__}: {error}")
    else:
        outcome = PointOutcome(item.point, folder, "done", result.figures)
    if outcome.status == "done":
        from ..run.report import headline
        say(f"{place} {item.point.label}: {headline(outcome.figures)}")
    else:
        say(f"{place} {item.point.label}: failed: {outcome.error}")
    return outcome


def finish(sweep: Sweep, outcomes: list, say: Callable[[str], None]) -> int:
    plots, notes = sweep_report.compare_plots(outcomes, sweep.folder / "plots")
    swept = sweep.request.plan.swept_keys
    columns, headers, rows = sweep_report.table(outcomes, swept)
    # the csv names each point's folder too (the table on screen leaves it out)
    sweep_report.write_csv(sweep.folder / "sweep.csv", columns + ["folder"],
                           [row + [o.folder.name] for row, o in zip(rows, outcomes)])
    failed = [outcome for outcome in outcomes if outcome.status != "done"]
    notes += [f"{outcome.point.label} failed: {outcome.error}" for outcome in failed]
    notes += [f"{outcome.point.label}: WAF did not settle ({record['rule']}) in the "
              f"{record['searched_s']:g} s of whole intervals of its workload phase: its "
              "figures cover the whole phase, not a steady state" for outcome in outcomes
              for record in [(outcome.figures or {}).get("steady")]
              if record and not record.get("reached")]
    (sweep.folder / "sweep.md").write_text(sweep_report.markdown(
        _title(sweep), _facts(sweep), headers, rows, plots, notes))
    print(sweep_report.text_table(headers, rows), flush=True)
    for note in notes:
        say(note)
    if failed:
        say(f"{len(failed)} of {len(outcomes)} points failed; run the same command again to "
            "retry them")
    print(sweep.folder, flush=True)
    return 1 if failed else 0


def _title(sweep: Sweep) -> str:
    request = sweep.request
    config = sweep.points[0].config.name
    return f"Sweep of {request.workload.name} on {config} ({request.engine} engine)"


def _facts(sweep: Sweep) -> List[str]:
    request, definition = sweep.request, sweep.definition
    facts = [f"swept: {key} = {', '.join(values)}" for key, values in request.plan.axes]
    if request.plan.baseline:
        facts.append("baseline: the same device with placement=single (one stream), the "
                     "first point")
    if request.plan.fixed:
        facts.append("fixed: " + " ".join(f"{k}={v}" for k, v in request.plan.fixed.items()))
    facts.append(f"config: {definition['config']}")
    runtime = ("wl.runtime's per point" if request.plan.given("wl.runtime")
               else f"{request.runtime} s per timed run")
    facts.append(f"runtime: {runtime}"
                 f"{', preconditioned' if request.precondition else ''}"
                 + ("" if request.aged is None else f", every point starts from {request.aged}"))
    if request.steady is not None:
        facts.append(f"steady state ({request.steady.spec}): each point is measured "
                     f"{request.steady.describe()}; a point that never settles is measured "
                     "over its whole workload phase and says 'NOT reached'")
    facts.append("engine: " + ("ftl-sim, simulated time" if request.engine == "sim" else
                               f"femu in QEMU, {request.jobs} VM(s) at a time"))
    return facts


def say(message: str) -> None:
    print(f"femu-lab: {message}", file=sys.stderr, flush=True)
