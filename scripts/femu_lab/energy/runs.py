"""What both energy labs share: the lab folder, one ftl-sim run into a run folder, its
summary's figures, and the table files.

A run folder is what femu-plot reads (ftl-sim's --stats-dir) plus summary.json,
config.conf (the effective configuration), params.json (what the lab set), sim-cmdline.txt
(the exact ftl-sim command line) and ftl-sim.log (its output).
"""
import csv
import json
import math
import shutil
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from femu_common.cli_args import UsageError
from femu_common.errors import RunFailure

from .. import paths
from ..devconfig import DeviceConfig
from .. import sim_folder

LAB_FILE = "lab.json"
RESULTS_ROOT = paths.REPO_ROOT / "results"
# energy_split_j's parts, in ftl-sim's order (summary_energy.c)
PARTS = ("nand_read", "nand_program", "nand_erase", "channel", "link", "controller", "dram",
         "static")


NAND_KEYS = ("nand_vcc_mv", "nand_icc_read_ua", "nand_icc_prog_ua", "nand_icc_erase_ua",
             "nand_io_pj_per_byte")
# lab-1g's flash (4 KiB pages, 40 us reads, 200 us programs, 2 ms erases) is SLC-like:
# conf/nand/slc.conf's figures are a datasheet's (docs/energy.md)
DEFAULT_NAND = paths.REPO_ROOT / "conf" / "nand" / "slc.conf"


def profile_figures(path: Path) -> Dict[str, str]:
    """The NAND energy figures of a conf/nand profile (key=value lines, '#' comments);
    UsageError naming the file and the key it lacks."""
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--nand-energy {path}: cannot read: {error}") from None
    found = {}
    for line in lines:
        key, sep, value = line.split("#", 1)[0].partition("=")
        if sep and key.strip() in NAND_KEYS:
            found[key.strip()] = value.strip()
    for key in NAND_KEYS:
        if not found.get(key, "").isdigit():
            raise UsageError(f"--nand-energy {path}: no {key}=<whole number> line")
    return found


def lacking_nand(values: Mapping[str, str], user: Mapping[str, str]) -> List[str]:
    """The NAND figures the effective configuration leaves at 0 and --set does not give."""
    return [key for key in NAND_KEYS if values.get(key, "0") == "0" and key not in user]


class RunReadError(RunFailure):
    """A run folder whose summary.json is missing or lacks a figure; one line."""


def claim_folder(folder: Path, outputs: Sequence[str], what: str) -> None:
    """Create the lab folder, or take back one this lab left (its runs and outputs go
    first: a run of other settings would pass for this lab's); refuse anything else."""
    if folder.exists():
        if not folder.is_dir():
            raise UsageError(f"{folder} is not a folder: choose another --out")
        record = folder / LAB_FILE
        if any(folder.iterdir()):
            try:
                tool = json.loads(record.read_text()).get("tool")
            except (OSError, ValueError, AttributeError):
                tool = None
            if tool != what:
                raise UsageError(f"{folder} exists and is not a '{what}' folder (no "
                                 f"{LAB_FILE} of it): choose another --out")
        shutil.rmtree(folder / "runs", ignore_errors=True)
        for name in outputs:
            (folder / name).unlink(missing_ok=True)
    folder.mkdir(parents=True, exist_ok=True)


def config_sets(overrides: Mapping[str, str]) -> List[str]:
    return [word for key, value in overrides.items() for word in ("--set", f"{key}={value}")]


def run_one(args: List[str], config: DeviceConfig, params: Dict[str, object],
            folder: Path) -> Tuple[dict, float]:
    """ftl-sim with args (its --stats-dir and --summary pointing into folder) into the run
    folder (sim_folder.run_into); (its summary, wall seconds)."""
    wall = sim_folder.run_into(args, folder, config, params, f"failed in {folder}")
    return read_summary(folder), wall


def read_summary(folder: Path) -> dict:
    try:
        summary = json.loads((folder / "summary.json").read_text())
    except (OSError, ValueError) as error:
        raise RunReadError(f"{folder}: no readable summary.json: {error}") from None
    if not isinstance(summary, dict):
        raise RunReadError(f"{folder / 'summary.json'}: not a JSON object")
    return summary


def number(summary: Mapping, key: str, folder: Path, optional: bool = False) -> Optional[float]:
    """summary[key] as a float; None for JSON null; RunReadError when the key is absent
    (unless optional) or not a number."""
    if key not in summary:
        if optional:
            return None
        raise RunReadError(f"{folder / 'summary.json'}: no '{key}' (an ftl-sim without the "
                           "energy model, or a run without energy=on?)")
    value = summary[key]
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise RunReadError(f"{folder / 'summary.json'}: '{key}' is not a number")
    return float(value)


def energy_split(summary: Mapping, folder: Path) -> Dict[str, float]:
    """energy_split_j's parts, every one of PARTS present and a number."""
    split = summary.get("energy_split_j")
    if not isinstance(split, dict):
        raise RunReadError(f"{folder / 'summary.json'}: no 'energy_split_j' object")
    return {part: number(split, part, folder / "energy_split_j") for part in PARTS}


def csv_value(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def write_csv(rows: Sequence[Mapping], keys: Sequence[str], path: Path) -> Path:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(keys)
        for row in rows:
            writer.writerow([csv_value(row.get(key)) for key in keys])
    return path


def cell(value, fmt: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return fmt.format(value)


def markdown_table(rows: Sequence[Mapping], columns: Sequence[Tuple[str, str, str]],
                   text_columns: int) -> List[str]:
    """Lines of a Markdown table: columns are (key, header, format); the first
    text_columns are left-aligned text, the others numbers."""
    lines = ["| " + " | ".join(title for _, title, _ in columns) + " |",
             "|" + "|".join(["---"] * text_columns +
                            ["---:"] * (len(columns) - text_columns)) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(cell(row.get(key), fmt) for key, _, fmt in columns)
                     + " |")
    return lines
