"""What the lab tools leave, found for the notebooks: a sweep folder's points, read from the
sweep's own sweep.json (never from folder names, which change), and run folders, either
named or the newest ones under results/.

A sweep folder (`femu-lab sweep`) holds sweep.json with its axes and the point folder names
in the order of the axes' cross product; a run folder (`femu-lab run`, `run-blackbox.sh`,
a sweep point, an `ftl-sim --stats-dir`) holds the statistics CSVs and, from the lab tools,
params.json naming its workload. Folders a run left unfinished (NAME.incomplete,
NAME.failed) are never picked.
"""
import itertools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence

from .errors import AnalysisError

SWEEP_FILE = "sweep.json"
UNFINISHED = (".incomplete", ".failed")


@dataclass
class SweepPoint:
    settings: Dict[str, str]   # swept key -> this point's value, as typed
    folder: Path

    def value(self, key: str) -> float:
        """The point's value of a numeric swept key, for sorting and tables."""
        try:
            return float(self.settings[key])
        except (KeyError, ValueError):
            raise AnalysisError(f"{self.folder}: swept key {key} has no numeric value "
                                f"({self.settings})") from None


@dataclass
class Sweep:
    folder: Path
    workload: str
    fixed: Dict[str, str]
    keys: List[str]                                     # the swept keys, axis order
    points: List[SweepPoint]                            # finished points, sweep order
    unfinished: List[str] = field(default_factory=list)  # point folders not (yet) whole


def read_sweep(folder) -> Sweep:
    """The sweep in FOLDER: its points from sweep.json; a point whose folder is not a
    whole result (not run, failed, interrupted) is listed in `unfinished`."""
    folder = Path(folder)
    manifest = _read_json(folder / SWEEP_FILE, f"{folder} is not a femu-lab sweep folder")
    try:
        axes = [(axis["key"], [str(value) for value in axis["values"]])
                for axis in manifest["axes"]]
        names = [str(name) for name in manifest["points"]]
        workload = str(manifest["workload"])
        fixed = {str(key): str(value) for key, value in manifest.get("fixed", {}).items()}
    except (KeyError, TypeError) as error:
        raise AnalysisError(f"{folder / SWEEP_FILE}: not a sweep definition "
                            f"(missing {error})") from None
    keys = [key for key, _ in axes]
    combinations = list(itertools.product(*(values for _, values in axes)))
    if len(combinations) != len(names):
        raise AnalysisError(f"{folder / SWEEP_FILE}: {len(names)} point folders for "
                            f"{len(combinations)} combinations of its axes")
    points, unfinished = [], []
    for values, name in zip(combinations, names):
        path = folder / name
        if path.is_dir():
            points.append(SweepPoint(dict(zip(keys, values)), path))
        else:
            unfinished.append(name)
    return Sweep(folder, workload, fixed, keys, points, unfinished)


def find_sweeps(root, key: Optional[str] = None) -> List[Sweep]:
    """Every sweep folder directly under ROOT (that sweeps KEY, when given) with a finished
    point, the newest per workload, sorted by workload."""
    newest: Dict[str, tuple] = {}
    for manifest in Path(root).glob(f"*/{SWEEP_FILE}"):
        sweep = read_sweep(manifest.parent)
        if not sweep.points or (key is not None and key not in sweep.keys):
            continue
        stamp = manifest.stat().st_mtime
        if sweep.workload not in newest or stamp > newest[sweep.workload][0]:
            newest[sweep.workload] = (stamp, sweep)
    return [newest[name][1] for name in sorted(newest)]


def workload_of(folder) -> str:
    """The workload a run folder's params.json names, else the folder's name (ftl-sim's
    --stats-dir folders have no params.json)."""
    params = Path(folder) / "params.json"
    if params.exists():
        value = _read_json(params, f"{folder} has no readable params.json").get("workload")
        if value:
            return str(value)
    return Path(folder).name


def newest_runs(root, workloads: Sequence[str]) -> List[Path]:
    """The newest finished run folder (by its result.json) directly under ROOT for each of
    WORKLOADS that has one, in WORKLOADS' order."""
    newest: Dict[str, tuple] = {}
    for result in Path(root).glob("*/result.json"):
        folder = result.parent
        if folder.name.endswith(UNFINISHED):
            continue
        workload = workload_of(folder)
        stamp = result.stat().st_mtime
        if workload in workloads and (workload not in newest or stamp > newest[workload][0]):
            newest[workload] = (stamp, folder)
    return [newest[name][1] for name in workloads if name in newest]


def sweeps_named_or_found(named: str, results, key: str) -> List[Sweep]:
    """The sweeps NAMED (folders separated by os.pathsep), each of which must sweep KEY;
    if none are named, the newest sweep of KEY per workload under RESULTS."""
    if named.strip():
        sweeps = [read_sweep(folder) for folder in check_folders(folder_list(named),
                                                                 "sweep folder")]
        for sweep in sweeps:
            if key not in sweep.keys:
                raise AnalysisError(f"{sweep.folder}: sweeps {', '.join(sweep.keys)}, "
                                    f"not {key}")
    else:
        sweeps = find_sweeps(results, key)
    if not any(sweep.points for sweep in sweeps):
        raise AnalysisError(f"no finished {key} sweep in {named or results}: run "
                            f"'scripts/femu-lab sweep ... --set {key}=V1,V2 --engine sim' "
                            "or name sweep folders")
    return sweeps


def runs_named_or_found(named: str, results, workloads: Sequence[str]) -> List[Path]:
    """The run folders NAMED (separated by os.pathsep); if none are named, the newest run
    of each of WORKLOADS under RESULTS."""
    if named.strip():
        return check_folders(folder_list(named), "run folder")
    return check_folders(newest_runs(results, workloads),
                         f"run of {', '.join(workloads)} in {results}")


def folder_list(text: str) -> List[Path]:
    """Folders from an environment variable: separated by os.pathsep (':'), blanks dropped."""
    return [Path(part) for part in text.split(os.pathsep) if part.strip()]


def check_folders(folders: Iterable[Path], what: str) -> List[Path]:
    """FOLDERS, each an existing folder; else one clear error naming WHAT was looked for."""
    folders = list(folders)
    if not folders:
        raise AnalysisError(f"no {what} found")
    for folder in folders:
        if not Path(folder).is_dir():
            raise AnalysisError(f"{folder}: no such folder ({what})")
    return folders


def _read_json(path: Path, missing: str) -> dict:
    try:
        value = json.loads(path.read_text())
    except FileNotFoundError:
        raise AnalysisError(f"{missing} (no {path.name})") from None
    except (OSError, ValueError) as error:
        raise AnalysisError(f"{path}: unreadable ({error})") from None
    if not isinstance(value, dict):
        raise AnalysisError(f"{path}: not a JSON object")
    return value
