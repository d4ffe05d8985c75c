"""femu-lab fdp-lab: the FDP lab, fdp-separation with and without placement identifiers on
one device (placement=fdp), side by side.

    femu-lab fdp-lab [--config conf/lab-fdp.conf] [--set KEY=VALUE]... [--hot-handle N]
                     [--passes N] [--seed N] [-o DIR] [VM options]

Two variants of the workload: `with-placement` (fdp-separation:N: the hot writes carry
placement identifier N, the cold ones 0) and `without-placement` (fdp-separation:0: no
write names one, every write goes to placement handle 0). Each gets an aged state of its
own (femu-lab age with that variant's '# sim:' line: a fill, then PASSES capacities of its
writes, the hot data already on its handle), a VM run from that state that records its
requests (run-blackbox.sh --aged STATE --record), and two ftl-sim replays of the recording
from the same state: at its recorded times (the device's statistics again) and closed
loop at the workload's queue depth in simulated time (the lab's figure that no host's
speed moves: the workload's request stream is the same at any speed, and GC's ages follow
simulated time as in the ageing). Then femu-plot fdp of the two runs
(plots/fdp_compare.png, .csv) and a table, fdp-lab.csv and fdp-lab.md, printed too: per
variant the WAF of the closed-loop replay and its IOPS, the device's WAF from stats.csv,
from the FDP statistics log (MBMW / HBMW between the workload's two reads) and from the
timed replay, host and media bytes, the media bytes of each handle and the device's IOPS.

The folder (-o, default results/fdp-lab-<config>) holds STATE files, one run folder per
variant, its replays (VARIANT-replay/, VARIANT-closed/), plots/ and lab.json (the
settings). The same
command again keeps what is finished and does the rest; a folder made with other settings
is refused. Bad arguments: one line, exit status 2; a failed step: one line naming the
folder to read, exit status 1.
"""
import argparse
import csv
import json
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional

from femu_common.cli_args import UsageError, describe, whole_number

from .. import devconfig, lab_options, paths, setup_steps, workloads
from ..devconfig import DeviceConfig
from ..ftl_sim import CommandError, run_ftl_sim
from ..run import aged, vm_run as lab_run
from ..run import fdp_report

PROG = "femu-lab fdp-lab"
DEFAULT_CONFIG = paths.REPO_ROOT / "conf" / "lab-fdp.conf"
RESULTS_ROOT = paths.REPO_ROOT / "results"
WORKLOAD = "fdp-separation"
LAB_FILE = "lab.json"
TABLE_STEM = "fdp-lab"
REPLAY_LOG = "ftl-sim.log"
MIB = 1 << 20


class ReplayError(lab_run.LabRunError):
    """ftl-sim's replay of a run failed (one line naming its folder)."""


@dataclass(frozen=True)
class Variant:
    name: str          # folder name
    label: str         # in plots and tables
    hot_handle: int    # the workload's ARG: 0 = no placement identifiers

    @property
    def workload_spec(self) -> str:
        return f"{WORKLOAD}:{self.hot_handle}"


def variants(hot_handle: int) -> List[Variant]:
    return [Variant("with-placement", f"with placement (hot on handle {hot_handle})",
                    hot_handle),
            Variant("without-placement", "without placement (all on handle 0)", 0)]


# ---- command line -------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    describe(parser, **parser_texts())
    lab_options.add_ssd_options(parser, DEFAULT_CONFIG, "SSD configuration with placement=fdp "
                                                        "(default conf/lab-fdp.conf)")
    parser.add_argument("--hot-handle", type=whole_number(1, 255), default=1, metavar="N",
                        help="placement handle of the hot data with placement (default 1; "
                             "the cold data is on 0)")
    parser.add_argument("--passes", type=whole_number(1, 100), default=3, metavar="N",
                        help="logical capacities of writes that age each variant's state "
                             "after its fill (default 3)")
    lab_options.add_seed_option(parser, "ftl-sim's seed of the ageing (default 1)")
    lab_options.add_out_folder(parser, "lab folder (default results/fdp-lab-<config>)")
    lab_options.add_machine_options(parser)


def parser_texts() -> dict:
    return dict(description="\n\n".join(__doc__.split("\n\n")[:4]).strip(),
                formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog="example:\n  femu-lab fdp-lab                       # conf/lab-fdp.conf, "
                       "512 MiB per run, a few minutes under TCG\n"
                       "  femu-lab fdp-lab --passes 4 --hot-handle 3 -o results/fdp")


# ---- checks and the folder ----------------------------------------------------------

def check_config(config: DeviceConfig, hot_handle: int) -> None:
    """UsageError unless the configuration offers FDP with a handle for the hot data."""
    if config.values.get("placement") != "fdp":
        raise UsageError(f"{config.name} has placement={config.values.get('placement')}: the "
                         "FDP lab needs placement=fdp (conf/lab-fdp.conf, or --set "
                         "placement=fdp)")
    handles = int(config.values.get("fdp_ruhs", "0"))
    if hot_handle >= handles:
        raise UsageError(f"--hot-handle {hot_handle}: {config.name} has fdp_ruhs={handles} "
                         f"(placement handles 0-{handles - 1})")


def definition(config: DeviceConfig, args, length: str) -> Dict[str, object]:
    """What makes a lab folder: a folder made with anything else is another lab."""
    return {"tool": PROG, "config": config.text, "config_name": config.name,
            "overrides": config.overrides, "workload": WORKLOAD,
            "hot_handle": args.hot_handle, "length": length, "passes": args.passes,
            "seed": args.seed, "guest_release": args.guest_release}


def claim_folder(folder: Path, wanted: Dict[str, object]) -> None:
    """Create the folder, or take back one this lab left with the same settings."""
    lab_file = folder / LAB_FILE
    if folder.exists():
        if not folder.is_dir():
            raise UsageError(f"{folder} is not a folder: choose another --out")
        if lab_file.is_file():
            try:
                found = json.loads(lab_file.read_text())
            except ValueError:
                found = None
            if found != wanted:
                changed = sorted(key for key in wanted
                                 if not isinstance(found, dict) or found.get(key) != wanted[key])
                raise UsageError(f"{folder} holds an FDP lab with other settings "
                                 f"({', '.join(changed) or 'unreadable ' + LAB_FILE}): choose "
                                 "another --out")
        elif any(folder.iterdir()):
            raise UsageError(f"{folder} exists and holds no {LAB_FILE} (not an fdp-lab "
                             "folder): choose another --out")
    folder.mkdir(parents=True, exist_ok=True)
    lab_file.write_text(json.dumps(wanted, indent=2) + "\n")


# ---- the steps ----------------------------------------------------------------------

def age_variant(config: DeviceConfig, workload: workloads.Workload, state: Path, args,
                say: Callable[[str], None]) -> None:
    if state.is_file():
        say(f"{state.name}: aged earlier, kept")
        return
    request = aged.AgeRequest(config=config, workload=workload, out=state,
                              passes=args.passes, seed=args.seed)
    result = aged.age(request)
    say(aged.describe(result, request))


def replay_command(ftl_sim: Path, run_folder: Path, state: Path, work: Path,
                   closed_qd: Optional[int] = None) -> List[str]:
    """ftl-sim replaying a run's recording under the run's configuration, from the state
    the run started from: at its recorded times (its statistics are the device's), or with
    closed_qd requests outstanding in simulated time (recorded times ignored)."""
    args = [str(ftl_sim), "--config", str(run_folder / "config.conf"),
            "--state-in", str(state), "--trace", str(run_folder / lab_run.TRACE_FILE),
            "--stats-dir", str(work), "--summary", str(work / "summary.json")]
    if closed_qd is not None:
        args += ["--replay", "closed", "--qd", str(closed_qd)]
    return args


def workload_qd(workload: workloads.Workload) -> int:
    """The queue depth of the workload's '# sim:' line (fio's iodepth in the guest)."""
    args = workload.simulator_args()
    if "--qd" not in args:
        raise UsageError(f"{workload.name}: its '# sim:' line names no --qd")
    return int(args[args.index("--qd") + 1])


def replay(ftl_sim: Path, run_folder: Path, state: Path, folder: Path,
           closed_qd: Optional[int] = None) -> Dict[str, object]:
    """The replay into folder (built as .incomplete, as a run is); its figures."""
    def build(work: Path) -> Dict[str, object]:
        (work / "config.conf").write_text((run_folder / "config.conf").read_text())
        params = json.loads((run_folder / "params.json").read_text())
        params.update({"engine": "sim", "replay_of": str(run_folder),
                       "replay": "closed" if closed_qd else "open"})
        if closed_qd:
            params["replay_qd"] = closed_qd
        (work / "params.json").write_text(json.dumps(params, indent=2) + "\n")
        args = replay_command(ftl_sim, run_folder, state, work, closed_qd)
        (work / "sim-cmdline.txt").write_text(shlex.join(args) + "\n")
        started = time.monotonic()
        try:
            run_ftl_sim(args, log=work / REPLAY_LOG)
        except CommandError as error:
            raise ReplayError(error.saying("ftl-sim", failed="failed replaying "
                                           f"{run_folder.name}"), log=REPLAY_LOG) from None
        figures = (closed_figures(work) if closed_qd else replay_figures(work, run_folder))
        figures["wall_seconds"] = round(time.monotonic() - started, 3)
        (work / "result.json").write_text(json.dumps(figures, indent=2) + "\n")
        return figures
    if (folder / "result.json").is_file():
        return json.loads((folder / "result.json").read_text())
    return lab_run.build_folder(folder, build, ReplayError, (REPLAY_LOG,)).figures


def replay_figures(replay_folder: Path, run_folder: Path) -> Dict[str, object]:
    """stats.csv's per-handle figures of the replay over the run's own window (the
    recording carries the phase markers, so the replay's window is the same)."""
    from femu_analysis.errors import AnalysisError
    from femu_analysis.loader import load_run
    from femu_analysis.window import find_window
    try:
        run_window = find_window(load_run(run_folder))
        replay_run = load_run(replay_folder)
        figures = fdp_report.handle_figures(replay_folder, replay_run, run_window)
    except AnalysisError as error:
        raise ReplayError(f"analysis of the replay of {run_folder.name}: {error}") from None
    return {"waf": figures["waf"], "window_s": figures["window_s"],
            "handles": figures["handles"]}


def closed_figures(replay_folder: Path) -> Dict[str, object]:
    """A closed-loop replay's figures over all of it (simulated time has no boot or setup
    between the requests; the few before the workload are the guest's boot reads, which
    write nothing): per-handle pages, the WAF, and the host commands per simulated
    second."""
    from femu_analysis.errors import AnalysisError
    from femu_analysis.loader import load_run
    from femu_analysis.window import Window
    try:
        run = load_run(replay_folder)
        if run.stats is None or run.stats.empty:
            raise AnalysisError(f"{replay_folder}: no stats.csv rows")
        whole = Window(0.0, float(run.stats["time_s"].max()), "explicit")
        figures = fdp_report.handle_figures(replay_folder, run, whole)
    except AnalysisError as error:
        raise ReplayError(f"analysis of the closed-loop replay in {replay_folder.name}: "
                          f"{error}") from None
    return {"waf": figures["waf"], "window_s": figures["window_s"],
            "host_pages": figures["host_pages"],
            "iops": commands_per_second(run.stats, whole),
            "handles": figures["handles"]}


def commands_per_second(stats, window) -> Optional[float]:
    """Host reads and writes over the window's seconds (None for an empty window)."""
    if not window.length_s:
        return None
    return float(stats["host_read_cmds"].sum() + stats["host_write_cmds"].sum()) \
        / window.length_s


def run_variant(variant: Variant, request: lab_run.LabRequest,
                say: Callable[[str], None]) -> Dict[str, object]:
    folder = request.folder
    if (folder / "result.json").is_file():
        say(f"{folder.name}: finished earlier, kept")
        return json.loads((folder / "result.json").read_text())
    say(f"{folder.name}: {variant.workload_spec}, "
        f"{request.workload.length(request.runtime).text()} from "
        f"{request.aged.name}, recording into {lab_run.TRACE_FILE}")
    result = lab_run.run(request)
    if "fdp" not in result.figures:
        raise lab_run.LabRunError(f"{folder.name} saved no FDP statistics log (fdp-start-"
                                  "stats.json): is the workload fdp-separation?")
    return result.figures


# ---- the table ----------------------------------------------------------------------

def table_rows(outcomes: List[Dict[str, object]]) -> List[Dict[str, object]]:
    """One row per variant: the closed-loop replay's WAF and IOPS (simulated time), the
    device's three WAFs, host and media bytes (the FDP log's), each handle's media bytes
    over the window (stats.csv; handles no variant wrote are left out) and the device's
    IOPS."""
    written = sorted({handle["handle"] for outcome in outcomes
                      for handle in outcome["run"]["fdp"]["csv"]["handles"]
                      if handle["media_pages"]})
    rows = []
    for outcome in outcomes:
        fdp = outcome["run"]["fdp"]
        media = {handle["handle"]: handle["media_bytes"] for handle in fdp["csv"]["handles"]}
        row = {"variant": outcome["variant"].name, "workload": outcome["variant"].workload_spec,
               "waf_closed_loop": outcome["closed"]["waf"],
               "closed_loop_iops": outcome["closed"]["iops"],
               "waf_stats_csv": fdp["csv"]["waf"], "waf_fdp_log": fdp["log"]["waf"],
               "waf_replay": outcome["replay"]["waf"],
               "host_bytes": fdp["log"]["hbmw_bytes"], "media_bytes": fdp["log"]["mbmw_bytes"],
               "media_erased_bytes": fdp["log"]["mbe_bytes"]}
        for handle in written:
            row[f"handle{handle}_media_bytes"] = media.get(handle, 0)
        row["device_iops"] = outcome["run"].get("device_iops_mean")
        rows.append(row)
    return rows


def write_csv(rows: List[Dict[str, object]], path: Path) -> Path:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({key: (f"{value:.4f}" if isinstance(value, float) else value)
                             for key, value in row.items()})
    return path


def _waf(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def _iops(value) -> str:
    return "-" if value is None else f"{value:.0f}"


def markdown(rows: List[Dict[str, object]], notes: List[str]) -> str:
    handles = [key for key in rows[0] if key.startswith("handle")]
    header = ["variant", "WAF closed loop", "IOPS closed loop", "WAF stats.csv",
              "WAF FDP log", "WAF timed replay",
              "host MiB", "media MiB", *[f"handle {key[6:].split('_')[0]} media MiB"
                                         for key in handles], "device IOPS"]
    lines = ["# FDP lab: fdp-separation with and without placement identifiers", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [row["variant"], _waf(row["waf_closed_loop"]), _iops(row["closed_loop_iops"]),
                 _waf(row["waf_stats_csv"]), _waf(row["waf_fdp_log"]),
                 _waf(row["waf_replay"]), f"{row['host_bytes'] / MIB:.1f}",
                 f"{row['media_bytes'] / MIB:.1f}",
                 *[f"{row[key] / MIB:.1f}" for key in handles],
                 _iops(row["device_iops"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines + [""] + [f"- {note}" for note in notes]) + "\n"


def notes(config: DeviceConfig, args, length: str, closed_qd: int, rows) -> List[str]:
    placed, mixed = rows[0]["waf_closed_loop"], rows[1]["waf_closed_loop"]
    lines = [f"configuration {config.name}"
             + (" with " + " ".join(f"{k}={v}" for k, v in config.overrides.items())
                if config.overrides else "")
             + f": {config.logical_bytes // MIB} MiB logical, fdp_ruhs="
             f"{config.values.get('fdp_ruhs')}, fdp_ruh_type={config.values.get('fdp_ruh_type')}"
             f", gc_scope={config.values.get('gc_scope')}",
             f"each variant from its own aged state (fill + {args.passes} capacities of its "
             f"writes in ftl-sim, seed {args.seed}), then {length} of fdp-separation in the "
             "VM: 4 KiB random writes, 90 % to the first 10 % of the LBAs, in one fixed order",
             f"closed loop: the recording replayed in ftl-sim from the same state, QD "
             f"{closed_qd}, in simulated time: the same at any host speed",
             "the device's figures follow the host's speed: WAF stats.csv (flash programs / "
             "host pages over the run's window), WAF FDP log (MBMW / HBMW between the "
             "workload's two reads of log 22h) and WAF timed replay (the recording replayed "
             "at its recorded times) because GC runs on the device's clock (paced GC moves "
             "pages while LUNs are idle; across handles it weighs units by their age); "
             "device IOPS because the guest issues them, up to what the flash allows"]
    if placed and mixed:
        lines.append(f"placement identifiers cut the closed-loop WAF from {mixed:.3f} to "
                     f"{placed:.3f} ({mixed / placed:.2f} x fewer media bytes per host byte)")
    return lines


# ---- the lab ------------------------------------------------------------------------

def run(args, prog: str = PROG, say: Optional[Callable[[str], None]] = None) -> int:
    say = say or (lambda message: print(f"{prog}: {message}", file=sys.stderr, flush=True))
    overrides = devconfig.parse_overrides(args.overrides)
    ftl_sim = setup_steps.ensure_ftl_sim()
    config = devconfig.load(args.config, overrides)
    check_config(config, args.hot_handle)
    chosen = variants(args.hot_handle)
    specs = {variant.name: workloads.resolve(variant.workload_spec) for variant in chosen}
    runtime = specs[chosen[0].name].runtime     # unused by the workload: it ends with its I/O
    length = specs[chosen[0].name].length(runtime).text()
    closed_qd = workload_qd(specs[chosen[0].name])
    folder = (args.out or RESULTS_ROOT / f"fdp-lab-{config.name}").resolve()
    claim_folder(folder, definition(config, args, length))
    qemu = setup_steps.ensure_qemu(args.qemu).resolve()
    image = setup_steps.ensure_guest(release=args.guest_release)
    setup_steps.choose_accel(args.accel, qemu, image, say)
    started = time.monotonic()
    outcomes = []
    for variant in chosen:
        workload = specs[variant.name]
        state = folder / f"{variant.name}.state"
        age_variant(config, workload, state, args, say)
        figures = run_variant(variant, lab_run.LabRequest(
            workload=workload, config=config, folder=folder / variant.name, qemu=qemu,
            runtime=runtime, record=True, aged=state, smp=args.smp, mem_mb=args.mem,
            accel=args.accel, params={"fdp_variant": variant.name}, kernel=image.kernel,
            initramfs=image.initramfs), say)
        say(f"{variant.name}: {fdp_report.format_figures(figures['fdp'])}")
        replayed = replay(ftl_sim, folder / variant.name, state,
                          folder / f"{variant.name}-replay")
        say(f"{variant.name}: ftl-sim's replay of the recording: WAF {_waf(replayed['waf'])}")
        closed = replay(ftl_sim, folder / variant.name, state,
                        folder / f"{variant.name}-closed", closed_qd)
        say(f"{variant.name}: ftl-sim's closed-loop replay at QD {closed_qd}: WAF "
            f"{_waf(closed['waf'])}, {closed['iops']:.0f} IOPS in simulated time")
        outcomes.append({"variant": variant, "run": figures, "replay": replayed,
                         "closed": closed})
    plot_paths = compare_plot(folder, chosen)
    rows = table_rows(outcomes)
    lab_notes = notes(config, args, length, closed_qd, rows)
    write_csv(rows, folder / f"{TABLE_STEM}.csv")
    text = markdown(rows, lab_notes)
    (folder / f"{TABLE_STEM}.md").write_text(text)
    print(text, flush=True)
    for path in plot_paths:
        print(path)
    say(f"done in {time.monotonic() - started:.0f} s")
    print(folder, flush=True)
    return 0


def compare_plot(folder: Path, chosen: List[Variant]) -> List[Path]:
    """femu-plot fdp of the two runs into folder/plots."""
    from femu_analysis import fdp_plots
    from femu_analysis.errors import AnalysisError
    from femu_analysis.loader import load_run
    from femu_analysis.window import find_window
    try:
        runs = [load_run(folder / variant.name) for variant in chosen]
        windows = [find_window(run) for run in runs]
        return fdp_plots.plot_fdp_compare(runs, windows, [v.label for v in chosen],
                                          folder / "plots")
    except AnalysisError as error:
        raise lab_run.LabRunError(f"femu-plot fdp of {folder}: {error}") from None
