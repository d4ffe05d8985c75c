"""One lab run: a workload in the guest on a femu SSD, collected into one results folder.

The folder is built as NAME.incomplete and renamed to NAME only when the guest job
succeeded and the analysis ran, so a folder without that suffix is always a whole result;
a failed run is left as NAME.failed for a post-mortem. Layout of a finished folder:

    config.conf          the complete effective device configuration (what -device used)
    params.json          workload, runtime, overrides, config name: the analysis labels
    workload.sh          the exact guest job
    qemu-cmdline.txt     the QEMU command line, shell-quoted
    console.log          the guest console
    job.log, dmesg.txt   the job's output and the guest kernel log
    *.json, *.txt        fio JSON / sysbench output from the guest
    replay.iolog.gz      a trace replay (--trace): the fio iolog the guest replayed
    IOPSData.csv ...     the device's statistics (stats.csv, phases.csv, lpn_access_count.csv)
    plots/               femu-plot's plots, summary.json and summary.md
    result.json          the headline figures (device IOPS and WAF, fio IOPS, timings)
    zns-phases.csv       a run that used zones or Copy: nand.csv's figures per phase
    fdp.json             a run that saved the FDP statistics log (fdp-separation): its WAF
                         from the log and from stats.csv, media writes per handle
    kv.json              a KV run (kv-ycsb-*): the load generator's summary beside the
                         device's kv_* counters (kv-load.json, kv-ops.csv: the guest's)
    power_cut.txt        a run with --power-cut: the spec and the device's status line, with
    power_cuts.csv       the device's row for the cut and the ranges it lost
    power_cut_lost.csv   (docs/device.md, "Power cuts")
"""
import json
import os
import shlex
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Optional, Sequence, Type

from femu_common.errors import RunFailure

from .. import setup_steps
from .cut_spec import DEV_ID, CutDriver, CutSpec
from ..devconfig import DeviceConfig
from . import fdp_report, kv_report
from ..vm.qmp import qmp_args
from ..vm import accel, launch as vm
from ..workloads import Workload
from . import zns_report
from ..length import measured_workload_seconds
from .live_progress import LiveProgress
from . import kv_params, workload_params
from .report import ReportError, analyse, name_summaries
from .steady import SteadyRule

BOOT_AND_SETUP_ALLOWANCE_S = 900   # guest job timeout beyond the workload's timed runs
TRACE_FILE = "io.trace"        # --record: what the device served (hw/femu/ftl/include/femu_ftl/trace.h)


class LabRunError(RunFailure):
    """The run failed; the message is one line and names the folder kept for inspection.
    log: the file in the run's folder that says why (build_folder names it), when known."""

    def __init__(self, message: str, log: Optional[str] = None):
        super().__init__(message)
        self.log = log


class LabRunInterrupted(LabRunError):
    """Ctrl-C stopped the run (callers stop too, instead of going on to the next run)."""


@dataclass
class LabRequest:
    workload: Workload
    config: DeviceConfig
    folder: Path                   # the final results folder (must not exist yet)
    qemu: Path
    runtime: int
    precondition: bool = False
    record: bool = False           # the device records its requests into TRACE_FILE
    aged: Optional[Path] = None    # a state file the device starts from (state_in=)
    smp: int = 2
    mem_mb: int = 1024
    accel: str = field(default_factory=accel.default_from_env)
    live: bool = True              # the live progress line on stderr
    params: Dict[str, object] = field(default_factory=dict)   # extra labels (sweeps)
    kernel: Optional[Path] = None
    initramfs: Optional[Path] = None
    guest_files: Dict[str, Path] = field(default_factory=dict)   # copied into the folder,
                                   # then given to the guest (a trace replay's iolog)
    power_cut: Optional[CutSpec] = None   # the host cuts the device's power (run/cut_spec)
    workload_params: Dict[str, str] = field(default_factory=dict)   # a sweep's wl.* keys
    steady: Optional[SteadyRule] = None   # measure where WAF settled (run/steady.py)
    kv_keys: Optional[int] = None   # a KV workload's load (run/kv_params; None: its default)
    kv_qd: Optional[int] = None


@dataclass
class LabResult:
    folder: Path
    figures: Dict[str, object]


def incomplete_path(folder: Path) -> Path:
    return folder.with_name(folder.name + ".incomplete")


def failed_path(folder: Path) -> Path:
    return folder.with_name(folder.name + ".failed")


def job_timeout(request: LabRequest) -> int:
    workload = request.workload
    timed = max(request.runtime * workload.runs, workload.length(request.runtime).allowance_s())
    precondition = 1200 if request.precondition else 0
    return int(timed * 1.5) + BOOT_AND_SETUP_ALLOWANCE_S + precondition


# The files that say why a VM run failed, the first one the folder has unless the error
# names its own: the job's output, the console (with QEMU's and the device's messages), the
# console of a run that stopped before its files were collected.
RUN_LOGS = ("job.log", "console.log", "vm/console.log")


def run(request: LabRequest) -> LabResult:
    return build_folder(request.folder, lambda work: _run_in(request, work), LabRunError,
                        RUN_LOGS)


def build_folder(folder: Path, build: Callable[[Path], Dict[str, object]],
                 error_type: Type[LabRunError], logs: Sequence[str] = RUN_LOGS) -> LabResult:
    """Run build(work) in folder's .incomplete twin (removing an earlier attempt's
    .incomplete or .failed first); rename it to folder when build returns the figures, to
    .failed when it raises; the summaries in it name the folder it becomes. error_type (or
    a ReportError) comes back as an error_type naming the kept folder and the log to read
    (the error's own, else the first of logs there); Ctrl-C as LabRunInterrupted."""
    if folder.exists():
        raise error_type(f"{folder} already exists: choose another --out")
    work, failed = incomplete_path(folder), failed_path(folder)
    for leftover in (work, failed):   # an earlier attempt: it never finished, or it failed
        if leftover.exists():
            shutil.rmtree(leftover)
    work.mkdir(parents=True)
    try:
        figures = build(work)
    except BaseException as error:
        try:
            name_summaries(work, failed)
        except (OSError, ValueError):   # a damaged summary: the error that came first counts
            pass
        work.rename(failed)
        if isinstance(error, KeyboardInterrupt):
            raise LabRunInterrupted(f"interrupted; what was collected is in {failed}") from None
        if isinstance(error, (error_type, ReportError)):
            read = _log_to_read(failed, getattr(error, "log", None), logs)
            raise error_type(f"{error}; what was collected is in {failed}{read}") from None
        raise
    name_summaries(work, folder)
    work.rename(folder)
    return LabResult(folder, figures)


def _log_to_read(folder: Path, named: Optional[str], logs: Sequence[str]) -> str:
    """' (read FOLDER/LOG)' for the first of named, logs that the folder has; '' if none."""
    for name in ([named] if named else []) + list(logs):
        if (folder / name).is_file():
            return f" (read {folder / name})"
    return ""


def _run_in(request: LabRequest, work: Path) -> Dict[str, object]:
    workload = request.workload
    request.config.write(work / "config.conf")
    kv = kv_params.choose(workload, request.kv_keys, request.kv_qd)
    script = workload.guest_script(request.runtime, request.precondition,
                                   workload_params.fio_args(request.workload_params),
                                   kv_params.guest_variables(kv))
    (work / "workload.sh").write_text(script)
    params = {"workload": workload.name, "runtime": request.runtime,
              **workload.length(request.runtime).params(),
              "precondition": request.precondition, "config_name": request.config.name,
              **request.config.overrides, **workload.device, **kv, **request.params}
    if request.aged is not None:
        params["aged"] = str(request.aged)
    params.update(workload_params.record(request.workload_params, request.steady))
    params["accel_requested"] = request.accel
    (work / "params.json").write_text(json.dumps(params, indent=2) + "\n")

    extra: Dict[str, object] = {"trace_out": work / TRACE_FILE} if request.record else {}
    if request.aged is not None:
        extra["state_in"] = request.aged
    cut_socket: Optional[Path] = None
    if request.power_cut is not None:
        extra["id"] = DEV_ID
        cut_socket = Path(tempfile.mkdtemp(prefix="femu-cut-")) / "qmp.sock"
    device = vm.femu_args(config=work / "config.conf", stats_dir=work, **workload.device,
                          **extra)
    timeout = job_timeout(request)
    guest_files = {}
    for name, path in request.guest_files.items():   # the folder keeps what the guest got
        guest_files[name] = Path(shutil.copyfile(path, work / name))
    spec = vm.VmSpec(job=script, qemu=str(request.qemu), kernel=request.kernel,
                     initramfs=request.initramfs, memory_mb=request.mem_mb, cpus=request.smp,
                     device_args=device, job_timeout=timeout, timeout=timeout + 180,
                     accel=request.accel, guest_files=guest_files,
                     extra_args=qmp_args(cut_socket) if cut_socket else [])
    progress = LiveProgress(work, workload.length(request.runtime)) \
        if request.live else None
    running = threading.Event()
    running.set()
    cut = CutDriver(request.power_cut, cut_socket, work, running.is_set) \
        if cut_socket else None
    started = time.monotonic()
    if progress:
        progress.start()
    if cut:
        cut.start()
    try:
        result = vm.run(spec, work / "vm", quiet=True)
    except (vm.VmError, accel.AccelError) as error:
        raise LabRunError(str(error).splitlines()[0]) from None
    finally:
        running.clear()
        if progress:
            progress.stop()
        if cut:
            _finish_cut(cut, work)
    wall = time.monotonic() - started
    _record_accel(work, result)
    # Read before _collect moves the console; without a job status it ends with the
    # console's last line already.
    state = result.summary().split('; console:')[0]
    _collect(result, work, request.folder)
    if not result.ok:
        last = "" if result.exit_status is None else \
            f"; last console line: {_last_line(work / 'console.log')}"
        # the job's output when the job ran to its end, else the console (QEMU's messages)
        ran = result.exit_status is not None and (work / "job.log").exists()
        raise LabRunError(f"the guest job failed: {state}{last}",
                          log="job.log" if ran else "console.log")
    if not (work / "stats.csv").exists():
        raise LabRunError("the device wrote no statistics", log="console.log")
    figures = analyse(work, workload, request.steady)
    zns_phases = zns_report.record(work)
    if zns_phases is not None:
        figures["zns_phases"] = zns_phases
    try:
        fdp = fdp_report.record(work)
    except fdp_report.FdpReportError as error:
        raise ReportError(str(error)) from None
    if fdp is not None:
        figures["fdp"] = fdp
    try:
        kv = kv_report.record(work)
    except kv_report.KvReportError as error:
        raise ReportError(str(error)) from None
    if kv is not None:
        figures["kv"] = kv
        figures["kv_ops_per_s"] = kv["guest"].get("ops_per_s")   # a sweep's table column
    figures.update({"accel": result.accel, "accel_fallback": result.accel_fallback,
                    "wall_seconds": round(wall, 1),
                    "boot_to_job_seconds": result.boot_to_job_seconds,
                    "job_seconds": _float(result.status.get("job_seconds")),
                    **environment_note()})
    (work / "result.json").write_text(json.dumps(figures, indent=2) + "\n")
    return figures


def _finish_cut(cut: CutDriver, work: Path) -> None:
    """power_cut.txt: the spec and what the device said (or why there was no cut)."""
    cut.stop()
    cut.join(30)
    shutil.rmtree(cut.socket_path.parent, ignore_errors=True)
    outcome = cut.error and f"QMP: {cut.error}" or cut.status or "no cut: the run ended first"
    (work / "power_cut.txt").write_text(f"spec: {cut.spec.text}\nstatus: {outcome}\n")


def _record_accel(work: Path, result: vm.RunResult) -> None:
    """params.json gains the accelerator the run used, why KVM was left for TCG if it
    was (a KVM that could not run the guest; a line says it too), and how long the
    workload phase ran (workload_s, beside the planned_* figures)."""
    params = json.loads((work / "params.json").read_text())
    params["accel"] = result.accel
    params["accel_fallback"] = result.accel_fallback
    params["workload_s"] = measured_workload_seconds(work)   # what ran, beside the plan
    (work / "params.json").write_text(json.dumps(params, indent=2) + "\n")
    if result.accel_fallback:
        setup_steps.say(f"KVM cannot run a guest here; this run was booted again under TCG "
                        f"(details: {accel.DOC}, the KVM boot's console: "
                        f"{vm.FAILED_KVM_CONSOLE} in the results folder)")


def _collect(result: vm.RunResult, work: Path, final: Path) -> None:
    """Move what the VM run produced into the results folder; drop the raw duplicates."""
    command = shlex.join(result.command).replace(str(work), str(final))
    (work / "qemu-cmdline.txt").write_text(
        f"# paths as they are once the run finished (QEMU ran in {work.name}); the guest job\n"
        "# (-fw_cfg opt/femu/job) is workload.sh, its results came over the second serial port\n"
        + command + "\n")
    vm_dir = result.out_dir
    if result.console_log.exists():
        result.console_log.rename(work / "console.log")
    for kept in vm_dir.glob("console-*.log"):   # a failed KVM boot's, a retried boot's
        kept.rename(work / kept.name)
    files = vm_dir / "files"
    if files.is_dir():
        for item in sorted(files.iterdir()):
            target = work / item.name
            if item.name == "femu-status":
                target = work / "guest-status.txt"
            if not target.exists():
                item.rename(target)
    shutil.rmtree(vm_dir, ignore_errors=True)


def _last_line(path: Path) -> str:
    try:
        lines = [l for l in path.read_text(errors="replace").splitlines() if l.strip()]
    except OSError:
        return "(no console log)"
    return lines[-1][:200] if lines else "(console empty)"


def _float(text: Optional[str]) -> Optional[float]:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def default_folder(root: Path, workload: Workload) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return root / f"{stamp}-{workload.slug}"


def fresh_name(folder: Path) -> Path:
    """folder, or folder-2, -3 ... when a run of the same second already took it."""
    candidate, number = folder, 2
    while any(p.exists() for p in (candidate, incomplete_path(candidate),
                                  failed_path(candidate))):
        candidate = folder.with_name(f"{folder.name}-{number}")
        number += 1
    return candidate


def environment_note() -> Dict[str, object]:
    """Under TCG the guest's speed depends on what else the host runs: keep it on record."""
    return {"host_cpus": os.cpu_count(), "host_load_average_1min": os.getloadavg()[0]}
