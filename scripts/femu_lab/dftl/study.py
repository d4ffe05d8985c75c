"""femu-lab dftl-study: DFTL with a write buffer and multi-stream placement, in ftl-sim.

Three version-1 traces (dftl_traces: interleaved, phased, mistagged), each replayed by
ftl-sim on three builds of the same configuration:

    dftl                  the configuration as it is (conf/lab-dftl.conf: mapping=dftl)
    dftl+buffer           + write_buffer_sectors=N (--buffer-sectors, default 8192: 4 MiB)
    dftl+buffer+streams   + placement=stream nstreams=2 gc_scope=stream (the trace's C/H
                          tag is the stream; GC takes the lab's per-stream rule with its
                          defragmenting fallback)

    ftl-sim --config C [--set K=V]... --trace T --summary S.json --stats-dir D --unit-log

The folder (-o) gets traces/, runs/<trace>-<build>/ (each a run folder femu-plot reads:
the statistics, summary.json, config.conf, params.json, ftl-sim's command line and
output), dftl-study.csv and dftl-study.md (a row per run), waf.png and
victims_<build>.png, and study.json (what ran). The same command again redoes the study
in the same folder; a folder holding anything else is refused.

Bad arguments, a missing ftl-sim or a bad configuration: one line, exit status 2. A failed
ftl-sim run: one line naming its folder (with ftl-sim.log), exit status 1.
"""
import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Tuple

from femu_common.cli_args import UsageError, describe, number, whole_number
from femu_common.progress import counted

from .. import devconfig, lab_options, paths
from ..devconfig import DeviceConfig
from .. import sim_folder
from ..ftl_sim import SimError
from . import report as dftl_report, traces as dftl_traces

PROG = "femu-lab dftl-study"
DEFAULT_CONFIG = paths.REPO_ROOT / "conf" / "lab-dftl.conf"
RESULTS_ROOT = paths.REPO_ROOT / "results"
STUDY_FILE = "study.json"
TABLE_STEM = "dftl-study"
DEFAULT_BUFFER_SECTORS = 8192


@dataclass(frozen=True)
class Build:
    name: str
    overrides: Tuple[Tuple[str, str], ...]   # on top of the configuration and --set


def builds(buffer_sectors: int) -> List[Build]:
    buffer = (("write_buffer_sectors", str(buffer_sectors)),)
    return [Build("dftl", ()),
            Build("dftl+buffer", buffer),
            Build("dftl+buffer+streams", buffer + (("placement", "stream"),
                                                   ("nstreams", "2"),
                                                   ("gc_scope", "stream")))]


# ---- command line -------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    describe(parser, **parser_texts())
    lab_options.add_ssd_options(parser, DEFAULT_CONFIG,
                                "SSD configuration (default conf/lab-dftl.conf)",
                                "override one configuration key in every build (repeatable; "
                                "a key a build sets itself keeps the build's value there)")
    parser.add_argument("--seed", type=whole_number(0, 2**32 - 1), default=1, metavar="N",
                        help="seed of the traces (default 1)")
    parser.add_argument("--capacity-writes", type=number(1.0, 100.0), default=4.0,
                        metavar="X", help="writes of each trace, in multiples of the logical "
                                          "capacity (default 4; 1 to 100)")
    parser.add_argument("--hot-fraction", type=number(0.01, 0.9), default=0.15,
                        metavar="F", help="share of the logical space in the hot set "
                                          "(default 0.15)")
    parser.add_argument("--read-fraction", type=number(0.0, 0.9), default=0.1,
                        metavar="F", help="share of the requests that are reads (default 0.1)")
    parser.add_argument("--buffer-sectors", type=whole_number(8, 2**31),
                        default=DEFAULT_BUFFER_SECTORS, metavar="N",
                        help="write_buffer_sectors of the buffered builds (default 8192: "
                             "4 MiB)")
    lab_options.add_out_folder(parser, "study folder (default "
                                       "results/dftl-study-<config>-seed<N>)")
    parser.add_argument("--ftl-sim", type=Path, metavar="PATH",
                        help="ftl-sim binary (default build/release/tools/ftl-sim/ftl-sim)")


def parser_texts() -> dict:
    return dict(description="\n\n".join(__doc__.split("\n\n")[:4]).strip(),
                formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog="example:\n  femu-lab dftl-study --seed 1 -o results/dftl-study\n"
                       "  femu-lab dftl-study --capacity-writes 2 --set cmt_entries=2048")


# ---- the study ---------------------------------------------------------------------

def study_folder(args) -> Path:
    if args.out is not None:
        return args.out
    return RESULTS_ROOT / f"dftl-study-{args.config.stem}-seed{args.seed}"


def claim_folder(folder: Path) -> None:
    """Create the folder, or take back one an earlier study left; refuse anything else."""
    if folder.exists():
        if not folder.is_dir():
            raise UsageError(f"{folder} is not a folder: choose another --out")
        if any(folder.iterdir()) and not (folder / STUDY_FILE).is_file():
            raise UsageError(f"{folder} exists and holds no {STUDY_FILE} (not a dftl-study "
                             "folder): choose another --out")
    folder.mkdir(parents=True, exist_ok=True)


def load_builds(args, ftl_sim: Path) -> Dict[str, DeviceConfig]:
    """Every build's effective configuration, checked by ftl-sim before anything runs."""
    user = devconfig.parse_overrides(args.overrides)
    configs = {}
    for build in builds(args.buffer_sectors):
        overrides = {**user, **dict(build.overrides)}
        try:
            configs[build.name] = devconfig.load(args.config, overrides, ftl_sim)
        except devconfig.ConfigError as error:
            if not build.overrides:   # the configuration itself (checked first)
                raise
            raise devconfig.ConfigError(f"build {build.name}: {error}") from None
    return configs


def command(ftl_sim: Path, config: Path, overrides: Mapping[str, str], trace: Path,
            folder: Path) -> List[str]:
    sets = [arg for key, value in overrides.items() for arg in ("--set", f"{key}={value}")]
    return [str(ftl_sim), "--config", str(config), *sets, "--trace", str(trace),
            "--summary", str(folder / "summary.json"), "--stats-dir", str(folder),
            "--unit-log"]


def run_one(ftl_sim: Path, config_path: Path, config: DeviceConfig, trace_kind: str,
            trace: Path, build: str, folder: Path, params: Mapping[str, object]) -> dict:
    """One ftl-sim run into folder (replaced if there); its summary."""
    args = command(ftl_sim, config_path, config.overrides, trace, folder)
    sim_folder.run_into(args, folder, config,
                        {"workload": f"dftl-study {trace_kind}", "trace": trace_kind,
                         "build": build, "config_name": config.name, **params,
                         **config.overrides}, f"failed on {trace_kind} / {build}")
    try:
        return json.loads((folder / "summary.json").read_text())
    except (OSError, ValueError) as error:
        raise SimError(f"ftl-sim left no readable summary in {folder}: {error}") from None


def run(args, prog: str = PROG, out=None) -> int:
    out = out or sys.stdout
    ftl_sim = (args.ftl_sim or devconfig.ftl_sim_path()).resolve()
    configs = load_builds(args, ftl_sim)
    config_path = args.config.resolve()
    first = next(iter(configs.values()))
    shape = dftl_traces.TraceShape.for_capacity(
        first.logical_bytes, capacity_writes=args.capacity_writes,
        hot_fraction=args.hot_fraction, read_fraction=args.read_fraction)
    try:
        shape.check()
    except dftl_traces.TraceError as error:
        raise UsageError(str(error)) from None
    folder = study_folder(args)
    claim_folder(folder)
    started = time.monotonic()
    traces = {kind: dftl_traces.generate(kind, shape, args.seed) for kind in dftl_traces.KINDS}
    trace_paths = {}
    (folder / "traces").mkdir(exist_ok=True)
    for kind, trace in traces.items():
        trace_paths[kind] = trace.write(folder / "traces" / f"{kind}.trace")
    params = {"seed": args.seed, "capacity_writes": args.capacity_writes,
              "hot_fraction": args.hot_fraction, "read_fraction": args.read_fraction}
    record = {"tool": "femu-lab dftl-study", "config": str(args.config),
              "overrides": devconfig.parse_overrides(args.overrides),
              "logical_bytes": first.logical_bytes, **params,
              "buffer_sectors": args.buffer_sectors, "ftl_sim": str(ftl_sim),
              "traces": {kind: {"file": str(trace_paths[kind].relative_to(folder)),
                                **trace.counts()} for kind, trace in traces.items()},
              "builds": {name: config.overrides for name, config in configs.items()},
              "runs": []}
    (folder / STUDY_FILE).write_text(json.dumps(record, indent=2) + "\n")
    rows, summaries = [], {}
    plan = [(kind, build) for kind in traces for build in configs]
    runs = counted(plan, "dftl-study", "run")
    for kind, build in runs:
        runs.note(f"{kind} / {build}")
        run_folder = folder / "runs" / f"{kind}-{build}"
        began = time.monotonic()
        summary = run_one(ftl_sim, config_path, configs[build], kind, trace_paths[kind],
                          build, run_folder, params)
        summaries[(kind, build)] = summary
        rows.append(dftl_report.study_row(kind, build, summary))
        record["runs"].append({"trace": kind, "build": build,
                               "folder": str(run_folder.relative_to(folder)),
                               "wall_seconds": round(time.monotonic() - began, 3)})
    (folder / STUDY_FILE).write_text(json.dumps(record, indent=2) + "\n")
    written = write_report(folder, rows, summaries, args, first)
    print(dftl_report.markdown(rows, notes(args, first)), file=out)
    for path in written:
        print(path, file=out)
    print(f"{prog}: {len(plan)} runs in {time.monotonic() - started:.1f} s; folder {folder}",
          file=sys.stderr)
    return 0


def notes(args, config: DeviceConfig) -> List[str]:
    overrides = " ".join(f"--set {item}" for item in args.overrides)
    return [f"configuration {args.config}{' ' + overrides if overrides else ''}: "
            f"{config.logical_bytes >> 20} MiB logical",
            f"traces: seed {args.seed}, {args.capacity_writes:g} x the logical capacity "
            f"written in 4 KiB writes, hot set {args.hot_fraction:g} of the space, "
            f"{args.read_fraction:g} of the requests reads",
            f"buffered builds: write_buffer_sectors={args.buffer_sectors}; streams: "
            "placement=stream nstreams=2 gc_scope=stream (C = stream 0, H = stream 1; "
            "per-stream victims with the defragmenting fallback)",
            "WAF = every flash program (host, GC, translation pages, map GC, fallback) / "
            "host pages; the host pages include those the buffer absorbed (a later write "
            "replaced them in the buffer: one program for both) and those pending in it at "
            "the end (the run ends without a flush: never programmed), so a buffered build's "
            "WAF can be below 1",
            "GC runs = every data collection: data GC's victims + the defragmenting "
            "fallback's (as gc_victims.csv counts them); mean valid pages per data victim "
            "over the same victims"]


def write_report(folder: Path, rows, summaries, args, config: DeviceConfig) -> List[Path]:
    csv_path = dftl_report.write_csv(rows, folder / f"{TABLE_STEM}.csv")
    md_path = folder / f"{TABLE_STEM}.md"
    md_path.write_text(dftl_report.markdown(rows, notes(args, config)))
    suffix = f" — {config.name}, seed {args.seed}"
    figures = dftl_report.save_figures(rows, summaries, folder, suffix)
    return [csv_path, md_path, *figures]
