"""The sweep folder: sweep.json (the definition), one results folder per point, and the
resume rule that follows from lab_run's folder convention: a point folder without a
suffix is a whole result and is kept, POINT.failed or POINT.incomplete is run again.

The default folder is named after the workload, the swept keys and the engine, so
running the same command again resumes it; a different definition in a folder that
already holds a sweep is refused rather than mixed into it.
"""
import fcntl
import hashlib
import json
from pathlib import Path
from typing import Dict, List, Optional

from femu_common.errors import InputError

from .. import paths
from ..run import vm_run as lab_run
from ..workloads import Workload
from .plan import Point, SweepPlan, is_old_folder_name

SWEEP_FILE = "sweep.json"
LOCK_FILE = ".sweep.lock"
DEFINITION_KEYS = ("workload", "config", "config_sha256", "fixed", "axes", "runtime",
                   "precondition", "engine")
# in a definition only when given (older folders lack them), with the value they mean then
OPTIONAL_KEYS = {"baseline": False, "steady": None}
DONE, FAILED, INCOMPLETE, NEW = "done", "failed", "incomplete", "new"


class FolderError(InputError):
    """The folder cannot take this sweep; the message is one line."""


def definition(workload: Workload, config_path: Path, config_text: str, plan: SweepPlan,
               runtime: int, precondition: bool, engine: str) -> Dict[str, object]:
    return {
        "workload": workload.name,
        "config": _display_path(config_path),
        "config_sha256": hashlib.sha256(config_text.encode()).hexdigest(),
        "fixed": dict(plan.fixed),
        "axes": [{"key": key, "values": list(values)} for key, values in plan.axes],
        "runtime": runtime,
        "precondition": precondition,
        "engine": engine,
    }


def default_folder(root: Path, workload: Workload, plan: SweepPlan, engine: str) -> Path:
    return root / f"sweep-{workload.slug}-{'+'.join(plan.swept_keys)}-{engine}"


def check(folder: Path, wanted: Dict[str, object]) -> None:
    """Refuse a folder that holds another sweep, or other things; writes nothing."""
    record = folder / SWEEP_FILE
    if record.exists():
        held = _read(record)
        if any(is_old_folder_name(str(name)) for name in held.get("points") or []):
            raise FolderError(
                f"{folder} is a sweep of an older femu-lab, whose point folders are named "
                "KEY=VALUE (now pNN-KEY-VALUE, in sweep order): it cannot be resumed; "
                "choose another --out (its finished points stay readable as they are)")
        for key in DEFINITION_KEYS + tuple(OPTIONAL_KEYS):
            if held.get(key, OPTIONAL_KEYS.get(key)) != wanted.get(key, OPTIONAL_KEYS.get(key)):
                raise FolderError(
                    f"{folder} holds another sweep ({key} {_short(held.get(key))} there, "
                    f"{_short(wanted.get(key, OPTIONAL_KEYS.get(key)))} here): "
                    "choose another --out")
    elif folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise FolderError(f"{folder} exists and holds no {SWEEP_FILE}: choose another --out")


def claim(folder: Path, wanted: Dict[str, object], points: List[Point]) -> None:
    """Create the folder and its sweep.json unless it holds this sweep already. Beside
    the definition: "points", the folder names in sweep order, and "point_folders", each
    point's folder with its settings and label (what tools read instead of names)."""
    check(folder, wanted)
    if (folder / SWEEP_FILE).exists():
        return
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / (SWEEP_FILE + ".tmp")
    temporary.write_text(json.dumps({**wanted, "points": [point.name for point in points],
                                     "point_folders": point_folders(points)},
                                    indent=2) + "\n")
    temporary.rename(folder / SWEEP_FILE)


def point_folders(points: List[Point]) -> List[Dict[str, object]]:
    """sweep.json's map from each point to its folder, in sweep order."""
    return [{"folder": point.name, "settings": dict(point.settings), "label": point.label}
            for point in points]


class Lock:
    """One sweep at a time per folder: two would run the same points twice."""

    def __init__(self, folder: Path):
        self.path = folder / LOCK_FILE
        self.file = None

    def __enter__(self):
        self.file = open(self.path, "w")
        try:
            fcntl.flock(self.file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.file.close()
            raise FolderError(f"another femu-lab sweep is running in {self.path.parent}") \
                from None
        return self

    def __exit__(self, *exc):
        self.file.close()      # closing releases the lock
        return False


def state(point_folder: Path) -> str:
    if point_folder.is_dir():
        return DONE
    if lab_run.incomplete_path(point_folder).exists():
        return INCOMPLETE
    if lab_run.failed_path(point_folder).exists():
        return FAILED
    return NEW


def read_figures(point_folder: Path) -> Optional[Dict[str, object]]:
    path = point_folder / "result.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _read(record: Path) -> Dict[str, object]:
    try:
        value = json.loads(record.read_text())
    except (OSError, ValueError) as error:
        raise FolderError(f"{record}: unreadable ({error}): choose another --out") from None
    if not isinstance(value, dict):
        raise FolderError(f"{record}: not a sweep definition: choose another --out")
    return value


def _display_path(path: Path) -> str:
    """Repository paths relative to the root, so the same file reads the same from any
    working directory."""
    resolved = Path(path).resolve()
    try:
        return str(resolved.relative_to(paths.REPO_ROOT))
    except ValueError:
        return str(resolved)


def _short(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."
