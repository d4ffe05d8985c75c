"""SWEEP/slurm/request.json: everything a Slurm task needs to run one point of a sweep,
written by the submitting command and read by each task on its node, so a task needs
only the shared sweep folder and the repository checkout (at the same path everywhere).

Paths are absolute. The configuration file's text is recorded too: a task whose node
reads a different file at that path refuses to run rather than run another device.

A task runs what the file names (QEMU, the workload), so it trusts the file only as far
as its owner: request.json and a QEMU it names must belong to the user the task runs as
(or root) and be writable by nobody else, as ssh treats its own files; and every field
must be there with its type, or the task stops with one line.
"""
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Dict

from femu_common.errors import InputError

from .. import devconfig, paths, workloads
from ..run import steady
from ..sweep.plan import SweepPlan

SLURM_DIR = "slurm"
REQUEST_FILE = "request.json"


class RequestError(InputError):
    """request.json is missing, unreadable, or does not match this node's files."""


def slurm_dir(sweep_folder: Path) -> Path:
    return sweep_folder / SLURM_DIR


def task_python() -> Path:
    """The repository's venv python (scripts/install-deps.sh makes it), by absolute path:
    a task's shell on the node has no activated venv."""
    return paths.REPO_ROOT / ".venv" / "bin" / "python"


def write(sweep, folder: Path) -> Path:
    """Record sweep (a lab_sweep.Sweep) into folder/slurm/request.json, atomically."""
    request = sweep.request
    workload = request.workload
    config_text = devconfig.load(request.config_path, {}).text
    record = {
        "workload": {"name": workload.name, "path": str(Path(workload.path).resolve()),
                     "arg": workload.arg, "trace": workload.trace is not None},
        "config_path": str(Path(request.config_path).resolve()),
        "config_text": config_text,
        "config_sha256": hashlib.sha256(config_text.encode()).hexdigest(),
        "plan": {"keys": list(request.plan.keys), "fixed": dict(request.plan.fixed),
                 "axes": [[key, list(values)] for key, values in request.plan.axes],
                 "baseline": request.plan.baseline},
        "runtime": request.runtime,
        "precondition": request.precondition,
        "engine": request.engine,
        "smp": request.smp,
        "mem_mb": request.mem_mb,
        "accel": request.accel,
        "guest_release": request.guest_release,
        "qemu": str(Path(request.qemu).resolve()),
        "qemu_given": Path(request.qemu) != Path(_default_qemu()),
        "aged": str(request.aged) if request.aged is not None else None,
        "steady": request.steady.spec if request.steady is not None else None,
        "python": str(task_python()),
        "repo_root": str(paths.REPO_ROOT),
    }
    directory = slurm_dir(folder)
    directory.mkdir(parents=True, exist_ok=True)
    temporary = directory / (REQUEST_FILE + ".tmp")
    temporary.write_text(json.dumps(record, indent=2) + "\n")
    temporary.chmod(0o644)          # whatever the umask: tasks refuse a file others may write
    temporary.rename(directory / REQUEST_FILE)
    return directory / REQUEST_FILE


# Every field a task reads, and its type (None: may be null).
FIELDS = {
    "workload": dict, "config_path": str, "config_text": str, "config_sha256": str,
    "plan": dict, "runtime": (int, type(None)), "precondition": bool, "engine": str,
    "smp": int, "mem_mb": int, "accel": str, "guest_release": (str, type(None)),
    "qemu": str, "qemu_given": bool, "aged": (str, type(None)),
}
WORKLOAD_FIELDS = {"name": str, "path": str, "arg": str, "trace": bool}
PLAN_FIELDS = {"keys": list, "fixed": dict, "axes": list}


def check_owned(path: Path, what: str) -> None:
    """RequestError unless path belongs to this user (or root) and no one else may write
    it: a task runs what the shared folder names only if its owner could have put it there."""
    try:
        info = path.stat()
    except OSError as error:
        raise RequestError(f"{path}: {error.strerror or error}") from None
    if info.st_uid not in (os.getuid(), 0):
        raise RequestError(f"{path}: {what} belongs to user {info.st_uid}, not to this task's "
                           f"user {os.getuid()}")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise RequestError(f"{path}: {what} is writable by others (chmod go-w)")


def _check_fields(path: Path, record: Dict[str, object], fields: Dict[str, object],
                  where: str = "") -> None:
    for key, kind in fields.items():
        if key not in record:
            raise RequestError(f"{path}: field {where}{key} is missing")
        # bool is an int in Python: a count must not be true or false
        if not isinstance(record[key], kind) or (kind is int and isinstance(record[key], bool)):
            raise RequestError(f"{path}: field {where}{key} has the wrong type")


def read(folder: Path) -> Dict[str, object]:
    path = slurm_dir(folder) / REQUEST_FILE
    check_owned(path, "the sweep request")
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise RequestError(f"{path}: unreadable ({error})") from None
    if not isinstance(record, dict):
        raise RequestError(f"{path}: not a sweep request")
    _check_fields(path, record, FIELDS)
    _check_fields(path, record["workload"], WORKLOAD_FIELDS, "workload.")
    _check_fields(path, record["plan"], PLAN_FIELDS, "plan.")
    if record["qemu_given"]:
        check_owned(Path(record["qemu"]), "the QEMU the sweep names")
    return record


def sweep_request(record: Dict[str, object]):
    """The lab_sweep.SweepRequest the record describes, checked against this node's
    configuration file."""
    # the sweep runner imports the executors: import it when needed
    from ..sweep import runner as lab_sweep
    config_path = Path(record["config_path"])
    text = devconfig.load(config_path, {}).text
    if hashlib.sha256(text.encode()).hexdigest() != record["config_sha256"]:
        raise RequestError(f"{config_path} on this node differs from the one the sweep was "
                           "submitted with (the repository must be the same on every node)")
    spec = record["workload"]
    path = Path(spec["path"])
    if spec["trace"]:
        workload = workloads.from_trace(path)
    else:
        workload = workloads.parse(path, spec["name"], spec["arg"])   # name as recorded
    plan = SweepPlan(keys=list(record["plan"]["keys"]), fixed=dict(record["plan"]["fixed"]),
                     axes=[(key, list(values)) for key, values in record["plan"]["axes"]],
                     baseline=record["plan"].get("baseline") is True)
    qemu = Path(record["qemu"]) if record["qemu_given"] else _default_qemu()
    return lab_sweep.SweepRequest(
        workload=workload, config_path=config_path, plan=plan, runtime=record["runtime"],
        precondition=record["precondition"], engine=record["engine"], jobs=1,
        smp=record["smp"], mem_mb=record["mem_mb"], accel=record["accel"], qemu=qemu,
        aged=Path(record["aged"]) if record["aged"] else None,
        guest_release=record.get("guest_release"),
        steady=steady.parse(record["steady"]) if record.get("steady") else None)


def _default_qemu() -> Path:
    from .. import setup_steps
    return setup_steps.QEMU
