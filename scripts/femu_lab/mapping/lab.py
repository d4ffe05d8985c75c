"""femu-lab mapping-lab: page, DFTL, block, BAST and FAST mapping, each without and with
the DRAM read cache, on sequential writes, uniform random, zipf 0.9 and zipf 1.2 mixes
(70 % reads) and a real-world trace, in ftl-sim (about a second per run).

Every run starts from the same sequential fill of the whole logical space (--precondition
seq, not measured), then moves --capacity-io times the logical capacity in 4 KiB requests
at --qd outstanding, on one small SSD made for the lab: conf/lab-mapping.conf, 64 MiB raw
(1 ch x 4 LUN x 32 blocks of 128 4-KiB pages), 48 MiB logical, gc_unit=block, so block
mapping (each overwrite copies its block) and the hybrids' full merges finish in seconds.
The schemes differ only in mapping= (log_blocks=--log-blocks for bast and fast), the
cache in read_cache_pages and read_cache_policy; --set changes the device for every run.

    scripts/femu-lab mapping-lab [--schemes page,dftl,block,bast,fast] [--cache-pages 512]
        [--cache-policy lru] [--cache-sweep] [--trace FILE] [-o DIR]

The folder (-o) gets runs/<scheme>-<cache>-<workload>/ (each an ftl-sim run folder
femu-plot reads: statistics, summary.json, config.conf, sim-cmdline.txt, ftl-sim.log),
mapping-lab.csv and .md (WAF, erases, merges by type, mean/p50/p99 latency, the read
cache's hit rate and the run's wall time, per scheme x cache x workload), waf.png,
erases.png, merges.png, latency.png, hit_rate.png, and with --cache-sweep cache_sweep.csv
and cache_sweep.png (hit rate against the cache's size per policy on zipf 1.2), and
lab.json (what ran). The same command again redoes the lab in the same folder.

Bad arguments, a missing ftl-sim, or a scheme or cache key this ftl-sim does not know:
one line, exit status 2, before anything runs. A failed run: one line naming its folder
(with ftl-sim.log), exit status 1.
"""
import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from femu_common.cli_args import UsageError, describe, number, whole_number
from femu_common.progress import Progress

from .. import devconfig, lab_options, paths, sim_folder
from ..devconfig import ConfigError, DeviceConfig
from ..lab_options import name_list
from . import figures, measure, plan, table, trace as lab_trace
from .plan import Cache, Run, Shape

PROG = "femu-lab mapping-lab"
DEFAULT_CONFIG = paths.REPO_ROOT / "conf" / "lab-mapping.conf"
RESULTS_ROOT = paths.REPO_ROOT / "results"
LAB_FILE = "lab.json"
TABLE_STEM = "mapping-lab"
SWEEP_STEM = "cache_sweep"
DEFAULT_SWEEP_SIZES = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
QUICK_SWEEP_SIZES = (16, 256, 4096)
QUICK_CAPACITY_IO = 1.0
# the files a lab writes beside runs/ (an earlier lab's go before a new one runs)
LAB_OUTPUTS = (f"{TABLE_STEM}.csv", f"{TABLE_STEM}.md", f"{SWEEP_STEM}.csv",
               f"{SWEEP_STEM}.png", *(f"{stem}.png" for stem in figures.STEMS),
               f"{lab_trace.SYNTHETIC_LABEL}.csv")


# ---- command line -------------------------------------------------------------------

def size_list(text: str) -> List[int]:
    """'64,128' -> [64, 128]: cache sizes in pages, each 1 or more, none twice."""
    sizes = []
    for item in (item.strip() for item in text.split(",")):
        try:
            sizes.append(whole_number(1, 2 ** 31)(item))
        except argparse.ArgumentTypeError as error:
            raise argparse.ArgumentTypeError(f"cache size {error}") from None
    if len(set(sizes)) < len(sizes):
        raise argparse.ArgumentTypeError(f"a cache size named twice in '{text}'")
    return sorted(sizes)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    describe(parser, "\n\n".join(__doc__.split("\n\n")[:4]).strip(),
             epilog="examples:\n  femu-lab mapping-lab -o results/mapping-lab --cache-sweep\n"
                    "  femu-lab mapping-lab --schemes page,dftl --cache-pages 0 --quick\n"
                    "  femu-lab mapping-lab --trace hm_0.csv.gz   (a published MSR trace)")
    lab_options.add_ssd_options(parser, DEFAULT_CONFIG,
                                "SSD configuration (default conf/lab-mapping.conf)",
                                "override one configuration key in every run (repeatable; "
                                "the scheme's and cache's own keys win)")
    parser.add_argument("--schemes", type=name_list(plan.SCHEMES, "scheme"),
                        default=list(plan.SCHEMES), metavar="LIST",
                        help=f"mappings to run (default {','.join(plan.SCHEMES)})")
    parser.add_argument("--workloads", type=name_list(plan.WORKLOADS, "workload"),
                        default=list(plan.WORKLOADS), metavar="LIST",
                        help=f"workloads to run (default {','.join(plan.WORKLOADS)})")
    parser.add_argument("--log-blocks", type=whole_number(1, 1 << 20), default=16,
                        metavar="N", help="log_blocks of bast and fast (default 16)")
    parser.add_argument("--cache-pages", type=whole_number(0, 2 ** 31), default=512,
                        metavar="N", help="read_cache_pages of the runs with the cache "
                                          "(default 512: 2 MiB; 0: only runs without it)")
    parser.add_argument("--cache-policy", choices=plan.POLICIES, default="lru",
                        help="read_cache_policy of the runs with the cache (default lru)")
    parser.add_argument("--cache-sweep", action="store_true",
                        help="also the hit rate against the cache's size, per policy, on "
                             "zipf 1.2 (cache_sweep.png)")
    parser.add_argument("--sweep-sizes", type=size_list, metavar="LIST",
                        help="cache sizes in pages of the sweep (default "
                             f"{','.join(map(str, DEFAULT_SWEEP_SIZES))})")
    parser.add_argument("--sweep-policies", type=name_list(plan.POLICIES, "policy"),
                        default=list(plan.POLICIES), metavar="LIST",
                        help=f"policies of the sweep (default {','.join(plan.POLICIES)})")
    parser.add_argument("--sweep-scheme", choices=plan.SCHEMES, default="page",
                        help="the mapping the sweep runs under (default page)")
    parser.add_argument("--capacity-io", type=number(0.01, 100.0), metavar="X",
                        help="bytes each run moves after the fill, in multiples of the "
                             "logical capacity (default 4; --quick 1)")
    parser.add_argument("--read-pct", type=whole_number(0, 100), default=70, metavar="PCT",
                        help="reads in the random mixes and the synthetic trace "
                             "(default 70)")
    parser.add_argument("--qd", type=whole_number(1, 1024), default=4, metavar="N",
                        help="requests kept outstanding (default 4)")
    lab_options.add_seed_option(parser, "seed of the workloads and the synthetic trace "
                                        "(default 1)")
    parser.add_argument("--trace", type=Path, metavar="FILE",
                        help="the trace workload's file (any format ftl-sim reads, e.g. "
                             "MSR's hm_0.csv.gz; default: a synthetic MSR-layout trace)")
    parser.add_argument("--quick", action="store_true",
                        help="a short lab: --capacity-io 1 and three sweep sizes")
    lab_options.add_out_folder(parser, "lab folder (default results/mapping-lab-<config>)")
    parser.add_argument("--ftl-sim", type=Path, metavar="PATH",
                        help="ftl-sim binary (default build/release/tools/ftl-sim/ftl-sim)")


# ---- before anything runs -----------------------------------------------------------

def lab_folder(args) -> Path:
    return args.out if args.out is not None else RESULTS_ROOT / f"mapping-lab-{args.config.stem}"


def claim_folder(folder: Path) -> None:
    """Create the folder, or take back one an earlier lab left (what that lab wrote goes:
    a run, table or figure of other settings would pass for this lab's); refuse anything
    else."""
    if folder.exists():
        if not folder.is_dir():
            raise UsageError(f"{folder} is not a folder: choose another --out")
        if any(folder.iterdir()) and not (folder / LAB_FILE).is_file():
            raise UsageError(f"{folder} exists and holds no {LAB_FILE} (not a mapping-lab "
                             "folder): choose another --out")
        shutil.rmtree(folder / "runs", ignore_errors=True)
        for name in LAB_OUTPUTS:
            (folder / name).unlink(missing_ok=True)
    folder.mkdir(parents=True, exist_ok=True)


def page_bytes(config: DeviceConfig) -> int:
    return int(config.values["secsz"]) * int(config.values["secs_per_pg"])


def check_cache_sizes(args, config: DeviceConfig, sweep_sizes: Sequence[int]) -> None:
    """A read cache larger than the data it caches measures nothing: refused."""
    logical_pages = config.logical_bytes // page_bytes(config)
    for option, pages in (("--cache-pages", [args.cache_pages]),
                          ("--sweep-sizes", sweep_sizes)):
        for size in pages:
            if size > logical_pages:
                raise UsageError(f"{option} {size}: more pages than the device's "
                                 f"{logical_pages} logical pages")


def check_user_keys(user: Dict[str, str]) -> None:
    """The keys that make a cell what it is come from the lab's options, never --set (a
    cache set there would be on in the runs labelled without it)."""
    for key, option in plan.CELL_KEYS.items():
        if key in user:
            raise UsageError(f"--set {key}: the lab sets it per run (use {option})")


def check_configurations(args, runs: Sequence[Run], ftl_sim: Path,
                         user: Dict[str, str]) -> Dict[Tuple[str, Cache], DeviceConfig]:
    """Every (scheme, cache) configuration through ftl-sim --print-config, so a key this
    ftl-sim lacks (a scheme or the cache not built in) is one line before any run; a
    configuration file that turns the cache on is refused for the runs without it."""
    configs = {}
    for scheme, cache in plan.configurations(runs):
        overrides = Run(scheme, cache, "").overrides(user, args.log_blocks)
        try:
            config = devconfig.load(args.config, overrides, ftl_sim)
        except ConfigError as error:
            raise ConfigError(f"scheme {scheme}, read cache {cache.label}: {error}") from None
        if not cache.on and config.values.get("read_cache_pages", "0") != "0":
            raise ConfigError(f"{args.config} sets read_cache_pages="
                              f"{config.values['read_cache_pages']}: the lab sets it per "
                              "run (use --cache-pages)")
        configs[(scheme, cache)] = config
    return configs


# ---- the runs -----------------------------------------------------------------------

def run_one(ftl_sim: Path, config_path: Path, config: DeviceConfig, run: Run, shape: Shape,
            folder: Path) -> Tuple[Dict[str, object], float]:
    """One ftl-sim run into folder (replaced if there): its figures and wall seconds."""
    params = {"workload": f"mapping-lab {run.workload}", "scheme": run.scheme,
              "read_cache": run.cache.label, "config_name": config.name, **config.overrides}
    args = plan.sim_args(ftl_sim, config_path, config.overrides, run.workload, shape, folder)
    wall = sim_folder.run_into(args, folder, config, params,
                               f"failed on {run.label(shape.trace_label)}")
    return measure.read_run(folder), wall


def run_all(runs: Sequence[Run], configs, args, ftl_sim: Path, shape: Shape, folder: Path,
            say: Progress, record: dict):
    """Each run in turn, a progress line each; [(run, figures, wall seconds)]."""
    done = []
    for index, run in enumerate(runs, 1):
        run_folder = folder / "runs" / run.folder
        found, wall = run_one(ftl_sim, args.config.resolve(),
                              configs[(run.scheme, run.cache)], run, shape, run_folder)
        waf = found.get("waf")
        say(f"run {index}/{len(runs)} {run.label(shape.trace_label)}: {wall:.2f} s"
            + (f", WAF {waf:.3f}" if waf is not None else ""))
        record["runs"].append({"scheme": run.scheme, "cache": run.cache.label,
                               "workload": run.workload, "sweep": run.sweep,
                               "folder": str(run_folder.relative_to(folder)),
                               "wall_seconds": round(wall, 3)})
        done.append((run, found, wall))
    return done


def notes(args, config: DeviceConfig, shape: Shape) -> List[str]:
    overrides = " ".join(f"--set {item}" for item in args.overrides)
    return [f"configuration {args.config}{' ' + overrides if overrides else ''}: "
            f"{config.logical_bytes >> 20} MiB logical, {config.values['pgs_per_blk']} pages "
            f"per block",
            f"every run: a sequential fill (not measured), then {shape.io_bytes >> 20} MiB "
            f"in 4 KiB requests at QD {shape.qd}, seed {shape.seed}; random mixes "
            f"{shape.read_pct} % reads; seq: sequential writes; trace: {shape.trace_label} "
            "(addresses scaled onto the device, closed loop)",
            f"bast and fast: log_blocks={args.log_blocks}; read cache: read_cache_pages and "
            "read_cache_policy as the cache column says",
            "figures of the measured part as ftl-sim reported them (summary.json; erases "
            "and any counter missing there from phases.csv); '-': not reported by this "
            "ftl-sim, or a hit rate without a lookup"]


def run(args, prog: str = PROG, out=None) -> int:
    out = out or sys.stdout
    ftl_sim = (args.ftl_sim or devconfig.ftl_sim_path()).resolve()
    user = devconfig.parse_overrides(args.overrides)
    check_user_keys(user)
    base = devconfig.load(args.config, user, ftl_sim)
    sweep_sizes = args.sweep_sizes or (QUICK_SWEEP_SIZES if args.quick else
                                       DEFAULT_SWEEP_SIZES)
    check_cache_sizes(args, base, sweep_sizes if args.cache_sweep else ())
    caches = [plan.OFF] + ([Cache(args.cache_pages, args.cache_policy)]
                           if args.cache_pages else [])
    grid = plan.grid(args.schemes, caches, args.workloads)
    sweep = (plan.sweep(args.sweep_scheme, sweep_sizes, args.sweep_policies)
             if args.cache_sweep else [])
    configs = check_configurations(args, grid + sweep, ftl_sim, user)
    lab_trace.check_given(args.trace if "trace" in args.workloads else None)
    folder = lab_folder(args)
    claim_folder(folder)
    capacity_io = args.capacity_io or (QUICK_CAPACITY_IO if args.quick else 4.0)
    io_bytes = int(base.logical_bytes * capacity_io) // 4096 * 4096
    trace_path, trace_label = (None, "trace")
    if "trace" in args.workloads:
        trace_path, trace_label = lab_trace.prepare(
            args.trace, folder, base.logical_bytes, io_bytes, args.read_pct / 100, args.seed)
    shape = Shape(io_bytes=io_bytes, read_pct=args.read_pct, qd=args.qd, seed=args.seed,
                  trace=trace_path, trace_label=trace_label)
    record = {"tool": PROG, "config": str(args.config), "overrides": user,
              "logical_bytes": base.logical_bytes, "io_bytes": io_bytes,
              "read_pct": args.read_pct, "qd": args.qd, "seed": args.seed,
              "log_blocks": args.log_blocks, "trace": str(trace_path) if trace_path else None,
              "ftl_sim": str(ftl_sim), "runs": []}
    (folder / LAB_FILE).write_text(json.dumps(record, indent=2) + "\n")
    say = Progress("mapping-lab")
    count = len(grid) + len(sweep)
    say(f"{count} ftl-sim run{'s' if count != 1 else ''} into {folder}")
    done = run_all(grid + sweep, configs, args, ftl_sim, shape, folder, say, record)
    (folder / LAB_FILE).write_text(json.dumps(record, indent=2) + "\n")
    md, written = write_outputs(done, args, base, shape, folder)
    print(md, file=out)
    for path in written:
        print(path, file=out)
    say(f"{len(done)} runs done; folder {folder}")
    return 0


def write_outputs(done, args, base: DeviceConfig, shape: Shape,
                  folder: Path) -> Tuple[str, List[Path]]:
    """The tables and figures of the runs done: the Markdown table and every file."""
    rows = [table.table_row(run, run.workload_name(shape.trace_label), found, wall)
            for run, found, wall in done if not run.sweep]
    md = table.markdown(rows, notes(args, base, shape))
    written = [table.write_csv(rows, folder / f"{TABLE_STEM}.csv"),
               folder / f"{TABLE_STEM}.md"]
    written[1].write_text(md)
    written += figures.save_all(rows, folder, f" — {base.name}, seed {args.seed}")
    sweep = [table.sweep_row(run, found, wall) for run, found, wall in done if run.sweep]
    if sweep:
        written.append(table.write_csv(sweep, folder / f"{SWEEP_STEM}.csv",
                                       table.SWEEP_KEYS))
        written.append(figures.save_sweep(sweep, folder,
                                          f" — {args.sweep_scheme} mapping, zipf 1.2"))
    return md, written
