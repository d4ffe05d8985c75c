"""femu-lab presets: the real-drive presets of conf/ measured in ftl-sim against the figures
their files state (spec.py has the lines), a table of target, femu, error.

    femu-lab presets [--preset FILE]... [--only NAME[,NAME...]] [-o DIR] [--ftl-sim PATH]

Each preset is first checked (its figure lines, then ftl-sim --print-config on it and on
it with its '# run' arguments); then every fit and check figure is one ftl-sim run (two
with a fill), in order, each announced on stderr. DIR (default results/presets) gets
presets.csv and presets.md (also printed), and runs/PRESET/ with each run's summary.

error % = 100 x (femu - target) / target. A bad preset, option or configuration: one
line, exit status 2; a failed ftl-sim run: one line, exit status 1.
"""
import argparse
import shlex
import sys
from pathlib import Path
from typing import List, Optional

import pandas as pd

from femu_common.cli_args import UsageError, describe
from femu_common.progress import Progress

from .. import paths
from ..devconfig import ftl_sim_path
from ..output_file import check_replaceable, new_file, replace
from ..ftl_sim import CommandError, ftl_sim_reason, run_ftl_sim
from . import measure as preset_measure
from .spec import Preset, PresetError, read_preset

PROG = "femu-lab presets"
PRESETS = ("samsung-980pro.conf", "samsung-pm9a3.conf", "wd-zn540.conf")
COLUMNS = ["preset", "figure", "kind", "target", "unit", "femu", "error_pct", "metric",
           "args", "command", "source"]


def default_presets() -> List[Path]:
    return [paths.REPO_ROOT / "conf" / name for name in PRESETS]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    describe(parser, __doc__.split("\n\n")[0].strip())
    parser.add_argument("--preset", type=Path, action="append", default=None,
                        metavar="FILE", help="a preset conf file (repeatable; default the "
                                             f"three: {', '.join(PRESETS)} in conf/)")
    parser.add_argument("--only", default=None, metavar="NAME[,NAME...]",
                        help="measure only these figures (names as the files give them)")
    parser.add_argument("-o", "--out", type=Path, default=paths.REPO_ROOT / "results" /
                        "presets", metavar="DIR", help="output folder (default "
                                                       "results/presets)")
    parser.add_argument("--ftl-sim", type=Path, default=None, metavar="PATH",
                        help="the ftl-sim binary (default: $FEMU_BUILD_DIR or build/release)")


def full_capacity_mib(ftl_sim: Path, preset: Preset) -> float:
    """Check the preset with ftl-sim (alone, then with its run arguments); its logical
    MiB. PresetError naming the file when ftl-sim refuses it."""
    base = [str(ftl_sim), "--config", str(preset.path)]
    for extra in ([], preset.run_args):
        try:
            proc = run_ftl_sim([*base, *extra, "--print-config"], timeout=60)
        except CommandError as error:
            with_run = " with its '# run' arguments" if extra else ""
            raise PresetError(f"{preset.path}: ftl-sim refuses it{with_run}: "
                              f"{ftl_sim_reason(error)}") from None
        if not extra:
            sizes = [line.split("=", 1)[1].split()[0] for line in proc.stdout.splitlines()
                     if line.startswith("devsz_mb=")]
    if len(sizes) != 1:
        raise PresetError(f"{preset.path}: ftl-sim --print-config gave no devsz_mb line")
    return float(sizes[0])


def shown_command(words: List[str]) -> str:
    """A command line as the table shows it: the repository's paths relative."""
    root = f"{paths.REPO_ROOT}/"
    return " ".join(shlex.quote(word.replace(root, "")) for word in words)


def error_pct(femu: float, target: float) -> float:
    return 100.0 * (femu - target) / target


def _row(preset: Preset, figure, femu=None, lines=None) -> dict:
    return {"preset": preset.name, "figure": figure.name, "kind": figure.kind,
            "target": figure.target, "unit": figure.unit, "femu": femu,
            "error_pct": None if femu is None else error_pct(femu, figure.target),
            "metric": figure.metric, "args": figure.args,
            "command": " && ".join(shown_command(words) for words in lines or []),
            "source": " / ".join(figure.sources)}


def _cell(value, digits=1) -> str:
    if value is None or pd.isna(value):
        return "-"
    if isinstance(value, float):
        return f"{value:,.{digits}f}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def markdown(table: pd.DataFrame) -> str:
    head = "| preset | figure | kind | target | femu (ftl-sim) | error | source |"
    lines = [head, "|---|---|---|---|---|---|---|"]
    for row in table.itertuples():
        error = "-" if pd.isna(row.error_pct) else f"{row.error_pct:+.1f} %"
        unit = "" if row.unit == "-" else f" {row.unit}"
        target = "missing" if row.kind == "missing" else f"{_cell(row.target)}{unit}"
        femu = "-" if pd.isna(row.femu) else f"{_cell(row.femu)}{unit}"
        lines.append(f"| {row.preset} | {row.figure} | {row.kind} | {target} | {femu} | "
                     f"{error} | {row.source.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def measure_all(ftl_sim: Path, presets: List[Preset], only: Optional[set], out: Path,
                say) -> pd.DataFrame:
    full = {preset.path: full_capacity_mib(ftl_sim, preset) for preset in presets}
    chosen = [(preset, figure) for preset in presets for figure in preset.figures
              if only is None or figure.name in only]
    rows = []
    for number, (preset, figure) in enumerate(chosen, 1):
        if figure.kind == "missing":
            rows.append(_row(preset, figure))
            continue
        say(f"{preset.name}: {figure.name} ({figure.kind}), {number} of {len(chosen)}")
        done = preset_measure.measure(ftl_sim, preset, figure, out / "runs" / preset.name,
                                      full[preset.path])
        row = _row(preset, figure, done.value, done.commands)
        say(f"{preset.name}: {figure.name} = {done.value:,.1f} {figure.unit} (target "
            f"{figure.target:,.1f}, {row['error_pct']:+.1f} %)")
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def run(args: argparse.Namespace) -> int:
    ftl_sim = args.ftl_sim or ftl_sim_path()
    if not ftl_sim.exists():
        raise UsageError(f"{ftl_sim}: no ftl-sim there (build it: ninja -C build/release)")
    presets = [read_preset(path) for path in (args.preset or default_presets())]
    only = None
    if args.only is not None:
        only = {name.strip() for name in args.only.split(",") if name.strip()}
        known = {figure.name for preset in presets for figure in preset.figures}
        unknown = ", ".join(sorted(only - known)) or repr(args.only)
        if not only or only - known:
            raise UsageError(f"--only: no figure named {unknown} in the presets")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"-o {args.out}: {error.strerror}") from None
    for name in ("presets.csv", "presets.md"):
        check_replaceable(args.out / name, "-o")
    table = measure_all(ftl_sim, presets, only, args.out, Progress("presets"))
    text = markdown(table)
    write_output(args.out / "presets.csv", table.to_csv(index=False))
    write_output(args.out / "presets.md", text)
    sys.stdout.write(text)
    return 0


def write_output(path: Path, text: str) -> None:
    """text into path: written beside it, then renamed over it (output_file's rule)."""
    beside = path.with_name(f".{path.name}.new")
    with new_file(beside) as out:
        out.write(text.encode())
    replace(beside, path, "-o")
