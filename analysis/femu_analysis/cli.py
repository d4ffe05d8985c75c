"""femu-plot: the lab plots, comparisons, CDFs, sweeps and summaries from the command line.

    femu-plot RUN_DIR [--window auto|START:END] [--out DIR] [--format png|svg]
    femu-plot compare RUN_DIR... [--label TEXT]... [--metric iops|waf|throughput]
    femu-plot cdf RUN_DIR
    femu-plot sweep RUN_DIR... --param NAME
    femu-plot summary RUN_DIR...
    femu-plot fdp RUN_A RUN_B [--label TEXT]...
    femu-plot read-latency RUN_DIR... [--label TEXT]...
    femu-plot write-cliff RUN_DIR... [--label TEXT]...
    femu-plot energy RUN_DIR|SWEEP_DIR... [--label TEXT]... [--window ...]

User errors (bad folder, malformed CSV, bad option) print one line and exit with status 2.
"""
import pathlib
import sys

from femu_common.cli_args import OneLineParser, UsageError
from femu_common.progress import counted

from . import cliff_plots, energy_plots, fdp_plots, plots, retry_plots, sweep, table
from .errors import AnalysisError
from .lab_outputs import SWEEP_FILE, read_sweep
from .loader import load_run
from .summary import summarize, write_summaries
from .window import find_window, parse_window

PROG = "femu-plot"
SUBCOMMANDS = ("plot", "compare", "cdf", "sweep", "summary", "fdp", "read-latency",
               "write-cliff", "energy")


def build_parser():
    parser = OneLineParser(prog=PROG, description="Plots and summaries of femu / ftl-sim runs. "
                     f"Without a subcommand, '{PROG} RUN_DIR' is '{PROG} plot RUN_DIR'.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)

    def command(name, help_text, many, formats=True, window=True):
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("runs", nargs="+" if many else None, metavar="RUN_DIR")
        sub.add_argument("--out", type=pathlib.Path, metavar="DIR",
                         help="output folder (default: plots/ inside the run folder, or "
                              "inside the runs' common parent folder)")
        if formats:
            sub.add_argument("--format", choices=("png", "svg"), default="png")
        if window:
            sub.add_argument("--window", default="auto", metavar="auto|START:END",
                             help="benchmark window in seconds (default: phase markers, "
                                  "else sustained I/O)")
        return sub

    command("plot", "IOPS, throughput, erased blocks, moved pages and WAF over time, "
            "plus the summary", many=False)
    compare = command("compare", "overlay one metric of several runs", many=True)
    compare.add_argument("--label", action="append", default=[], metavar="TEXT",
                         help="legend label, once per run in order (default: the "
                              "settings that differ between runs)")
    compare.add_argument("--metric", choices=tuple(plots.COMPARE_METRICS), default="iops")
    command("cdf", "CDF of per-LPN write counts (full and <= 50 writes)", many=False,
            window=False)
    sweep_command = command("sweep", "IOPS, bandwidth, mean latency against a parameter "
                            "(fio JSON results)", many=True, window=False)
    sweep_command.add_argument("--param", required=True, metavar="NAME")
    command("summary", "table of IOPS, MiB/s, GC work and WAF over the window; writes "
            "summary.json and summary.md", many=True, formats=False)
    fdp = command("fdp", "two runs side by side (e.g. fdp-separation with and without "
                  "placement IDs): WAF over time and media writes per reclaim unit handle",
                  many=True)
    fdp.add_argument("--label", action="append", default=[], metavar="TEXT",
                     help="legend label, once per run in order (default: the settings "
                          "that differ between the runs)")
    latency = command("read-latency", "CDFs of the flash read sense time by block age "
                      "(read_retries.csv of runs with the read-retry model on)", many=True,
                      window=False)
    latency.add_argument("--label", action="append", default=[], metavar="TEXT",
                         help="legend label, once per run in order (default: the folder "
                              "names)")
    cliff = command("write-cliff", "write throughput against data written, with the SLC "
                    "cache's capacity and fill: where the cliff falls and what idle time "
                    "gives back", many=True, window=False)
    cliff.add_argument("--label", action="append", default=[], metavar="TEXT",
                       help="legend label, once per run in order (default: the folder "
                            "names)")
    energy = command("energy", "power over time with the power state under it (runs with "
                     "energy=on), and with several runs joules per GiB written against WAF",
                     many=True)
    energy.add_argument("--label", action="append", default=[], metavar="TEXT",
                        help="label, once per run in order (default: the settings that "
                             "differ between the runs; a sweep's points: their settings)")
    return parser


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in (*SUBCOMMANDS, "-h", "--help"):
        argv.insert(0, "plot")  # 'femu-plot RUN_DIR ...' and 'femu-plot --window W RUN_DIR'
    try:
        args = build_parser().parse_args(argv)
        if args.command is None:
            raise UsageError(f"expected RUN_DIR or a subcommand (see {PROG} --help)")
        for path in _dispatch(args):
            print(path)
    except (AnalysisError, UsageError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    return 0


def _dispatch(args):
    """Dispatch; returns the files written."""
    return {"plot": _plot, "compare": _compare, "cdf": _cdf, "sweep": _sweep,
            "summary": _summary, "fdp": _fdp, "read-latency": _read_latency,
            "write-cliff": _write_cliff, "energy": _energy}[args.command](args)


def _plot(args):
    run = load_run(args.runs)
    window = find_window(run, parse_window(args.window))
    out = args.out or run.path / "plots"
    written = plots.plot_run(run, window, out, args.format)
    written += write_summaries([summarize(run, window)], out)
    return written


def _compare(args):
    _check_labels(args)
    runs = _load_all(args.runs)
    explicit = parse_window(args.window)
    windows = [find_window(run, explicit) for run in runs]
    labels = args.label or plots.distinguishing_labels(runs)
    return plots.plot_compare(runs, windows, labels, args.metric, _out_for(args), args.format)


def _fdp(args):
    if len(args.runs) != 2:
        raise AnalysisError(f"fdp compares two runs (with and without placement), got "
                            f"{len(args.runs)}")
    if args.label and len(args.label) != 2:
        raise AnalysisError(f"--label given {len(args.label)} times for 2 runs")
    runs = _load_all(args.runs)
    explicit = parse_window(args.window)
    windows = [find_window(run, explicit) for run in runs]
    labels = args.label or plots.distinguishing_labels(runs)
    return fdp_plots.plot_fdp_compare(runs, windows, labels, _out_for(args), args.format)


def _read_latency(args):
    _check_labels(args)
    _check_dirs(args.runs)
    labels = args.label or [pathlib.Path(path).name for path in args.runs]
    return retry_plots.plot_read_latency(args.runs, labels, _out_for(args), args.format)


def _write_cliff(args):
    _check_labels(args)
    _check_dirs(args.runs)
    runs = [load_run(path, need_series=False) for path in args.runs]
    labels = args.label or [run.name for run in runs]
    return cliff_plots.plot_write_cliff(runs, labels, _out_for(args), args.format)


def _energy(args):
    _check_dirs(args.runs)
    folders, given = _expand_sweeps(args.runs)
    if args.label and len(args.label) != len(folders):
        raise AnalysisError(f"--label given {len(args.label)} times for {len(folders)} runs")
    runs = [load_run(path) for path in counted(folders, "loading runs", "run")]
    labels = args.label or [given.get(folder) for folder in folders]
    if not args.label and None in labels:
        found = plots.distinguishing_labels(runs)
        labels = [label or found[index] for index, label in enumerate(labels)]
    return energy_plots.plot_energy(runs, labels, _out_for(args), args.format,
                                    parse_window(args.window))


def _expand_sweeps(paths):
    """Run folders, a sweep folder (sweep.json) standing for its finished points; the
    points' labels ({folder: 'key=value, ...'})."""
    folders, labels = [], {}
    for path in map(pathlib.Path, paths):
        if not (path / SWEEP_FILE).is_file():
            folders.append(path)
            continue
        found = read_sweep(path)
        if not found.points:
            raise AnalysisError(f"{path}: a sweep without a finished point")
        for point in found.points:
            folders.append(point.folder)
            labels[point.folder] = ", ".join(f"{k}={v}" for k, v in point.settings.items())
    return folders, labels


def _cdf(args):
    run = load_run(args.runs, need_series=False)
    return plots.plot_cdf(run, args.out or run.path / "plots", args.format)


def _sweep(args):
    _check_dirs(args.runs)
    return sweep.plot_sweep([pathlib.Path(p) for p in args.runs], args.param, _out_for(args),
                            args.format)


def _summary(args):
    runs = _load_all(args.runs)
    explicit = parse_window(args.window)
    summaries = [summarize(run, find_window(run, explicit)) for run in runs]
    print(table.text_table(summaries))
    if args.out is None:  # each run's own plots/ folder
        return [path for run, one in zip(runs, summaries)
                for path in write_summaries([one], run.path / "plots")]
    return write_summaries(summaries, args.out)


def _load_all(paths):
    _check_dirs(paths)
    return [load_run(path) for path in counted(paths, "loading runs", "run")]


def _check_labels(args):
    if args.label and len(args.label) != len(args.runs):
        raise AnalysisError(f"--label given {len(args.label)} times for {len(args.runs)} runs")


def _check_dirs(paths):
    # Fail on a mistyped folder before spending time on the others.
    for path in paths:
        if not pathlib.Path(path).is_dir():
            raise AnalysisError(f"{path}: no such run directory")


def _out_for(args):
    """--out, else plots/ in the runs' common parent (one folder per run, side by side),
    else in the first run's folder."""
    if args.out is not None:
        return args.out
    folders = [pathlib.Path(path).resolve() for path in args.runs]
    parents = {folder.parent for folder in folders}
    if len(folders) > 1 and len(parents) == 1:
        return parents.pop() / "plots"
    return folders[0] / "plots"


if __name__ == "__main__":
    sys.exit(main())
