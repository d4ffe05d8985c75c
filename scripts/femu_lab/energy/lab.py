"""The two energy labs' runs: configuration checked first, then each ftl-sim run with a
progress line, then the tables and figures (command.py has the options)."""
from pathlib import Path
from typing import List, TextIO

from femu_analysis import load_run
from femu_analysis.energy_plots import energy_window, power_figure
from femu_analysis.style import save
from femu_common.cli_args import UsageError

from .. import devconfig
from ..devconfig import ConfigError
from . import apst as apst_lab, bursts, command, runs, waf as waf_lab


def _folder(args, name: str) -> Path:
    return args.out if args.out is not None else \
        runs.RESULTS_ROOT / f"energy-{name}-{args.config.stem}"


def _user(args, ftl_sim: Path):
    """--set's keys with energy=on, and the NAND energy figures the configuration lacks
    from --nand-energy's profile; (keys, a note saying where the figures came from)."""
    user = devconfig.parse_overrides(args.overrides)
    if user.get("energy", "on") != "on":
        raise UsageError(f"--set energy={user['energy']}: the energy labs need energy=on")
    plain = devconfig.load(args.config, {k: v for k, v in user.items() if k != "energy"},
                           ftl_sim)
    lacking = runs.lacking_nand(plain.values, user)
    note = "NAND energy figures: the configuration's"
    if lacking:
        figures = runs.profile_figures(args.nand_energy)
        user.update({key: figures[key] for key in lacking})
        note = (f"NAND energy figures from {_shown(args.nand_energy)} (the configuration "
                f"has none): {', '.join(f'{key}={figures[key]}' for key in lacking)}")
    return {**user, "energy": "on"}, note


def _shown(path: Path) -> str:
    root = f"{runs.paths.REPO_ROOT}/"
    return str(path.resolve()).replace(root, "")


def _finish(say, out: TextIO, md: Path, written: List[Path], count: int, folder: Path):
    print(md.read_text(), file=out)
    for path in written:
        print(path, file=out)
    say(f"{count} runs done; folder {folder}")
    return 0


def run_waf(args, ftl_sim: Path, say, out: TextIO) -> int:
    for key in ("placement", "gc_policy"):
        if key in devconfig.parse_overrides(args.overrides):
            raise UsageError(f"--set {key}: the lab sets it per run (use "
                             f"{waf_lab.SETTING_KEYS[key]})")
    user, nand_note = _user(args, ftl_sim)
    placements = args.placements or list(waf_lab.PLACEMENTS)
    policies = args.policies or list(waf_lab.QUICK_POLICIES if args.quick else waf_lab.POLICIES)
    workloads = args.workloads or list(waf_lab.QUICK_WORKLOADS if args.quick
                                       else waf_lab.WORKLOADS)
    io_bytes = args.io_size or (command.QUICK_IO if args.quick else 4 << 30)
    grid = waf_lab.grid(placements, policies, workloads)
    configs = {}
    for placement in placements:     # every setting through --print-config first
        for policy in policies:
            overrides = waf_lab.Run(placement, policy, "").overrides(user, args.hot_threshold)
            try:
                configs[(placement, policy)] = devconfig.load(args.config, overrides, ftl_sim)
            except ConfigError as error:
                raise ConfigError(f"placement {placement}, gc_policy {policy}: {error}") \
                    from None
    logical = next(iter(configs.values())).logical_bytes
    folder = _folder(args, "waf")
    runs.claim_folder(folder, waf_lab.OUTPUTS, f"{command.PROG} waf")
    command.record(folder, args, {"io_bytes": io_bytes, "placements": placements,
                                  "policies": policies, "workloads": workloads,
                                  "hot_threshold": args.hot_threshold, "ftl_sim": str(ftl_sim)})
    say(f"{len(grid)} ftl-sim runs into {folder}")
    rows = []
    for index, one in enumerate(grid, 1):
        config = configs[(one.placement, one.policy)]
        run_folder = folder / "runs" / one.folder
        words = waf_lab.sim_args(ftl_sim, args.config.resolve(), config.overrides,
                                 one.workload, logical, io_bytes, args.seed, run_folder)
        summary, wall = runs.run_one(words, config, {
            "workload": f"energy-waf {one.workload}", "setting": one.setting,
            "config_name": config.name, **config.overrides}, run_folder)
        row = waf_lab.table_row(one, summary, run_folder)
        rows.append(row)
        say(f"run {index}/{len(grid)} {one.setting}, {one.workload}: {wall:.2f} s, WAF "
            f"{row['waf']:.3f}, {row['j_per_gib_written']:.3f} J/GiB")
    picked = waf_lab.closest(rows, waf_lab.TARGETS)
    sets = " ".join(f"--set {item}" for item in args.overrides)
    notes = [f"configuration {_shown(args.config)}{' ' + sets if sets else ''}, energy=on; "
             f"{logical >> 20} MiB logical", nand_note,
             f"every run: its fill (not measured), then {io_bytes / (1 << 30):g} GiB of writes "
             f"at QD {waf_lab.QD}, seed {args.seed}; hotcold with hot_threshold="
             f"{args.hot_threshold}",
             "figures of the measured part as ftl-sim's summary.json gives them; J/GiB is "
             "joules over the GiB the host wrote"]
    written = waf_lab.write_outputs(rows, picked, notes, folder,
                                    f"Energy per GiB written against WAF — {args.config.stem}")
    return _finish(say, out, folder / f"{waf_lab.TABLE_STEM}.md", written, len(rows), folder)


def run_apst(args, ftl_sim: Path, say, out: TextIO) -> int:
    user, nand_note = _user(args, ftl_sim)
    base = devconfig.load(args.config, user, ftl_sim)
    nonop = apst_lab.states(base.values)
    apst_lab.check_table(nonop, str(args.config))
    if args.trace is not None and not args.trace.is_file():
        raise UsageError(f"--trace {args.trace}: no such file")
    count = args.bursts or (command.QUICK_BURSTS if args.quick else 40)
    per_burst = args.burst_requests or (command.QUICK_REQUESTS if args.quick else 200)
    folder = _folder(args, "apst")
    runs.claim_folder(folder, (*apst_lab.OUTPUTS, bursts.TRACE_NAME),
                      f"{command.PROG} apst")
    if args.trace is None:
        trace = bursts.write(folder / bursts.TRACE_NAME, count, per_burst, args.gap_ms,
                             base.logical_bytes, args.read_fraction, args.seed)
        gaps = bursts.idle_gaps_ms(count, per_burst, args.gap_ms, base.logical_bytes,
                                   args.read_fraction, args.seed)
        mix = "reads only" if args.read_fraction == 1 else f"{args.read_fraction:.0%} reads"
        said = (f"trace {trace.name}: {count} bursts of {per_burst} 4 KiB requests ({mix}, "
                f"50 us apart on average), idle gaps "
                f"{args.gap_ms[0]:g}-{args.gap_ms[1]:g} ms log-uniform (drawn: "
                f"{min(gaps, default=0):.1f} to {max(gaps, default=0):.1f} ms), seed "
                f"{args.seed}")
    else:
        trace, said = args.trace.resolve(), f"trace {args.trace} (its own times)"
    command.record(folder, args, {"trace": str(trace), "bursts": count,
                                  "burst_requests": per_burst, "gap_ms": list(args.gap_ms),
                                  "aggressive_ms": args.aggressive_ms,
                                  "ftl_sim": str(ftl_sim)})
    say(f"{len(apst_lab.SETTINGS)} ftl-sim runs into {folder}")
    rows, written = [], []
    for index, setting in enumerate(apst_lab.SETTINGS, 1):
        table = apst_lab.apst_argument(setting, nonop, args.aggressive_ms)
        run_folder = folder / "runs" / setting
        words = apst_lab.sim_args(ftl_sim, args.config.resolve(), base.overrides, trace,
                                  args.trace_format, table, run_folder)
        summary, wall = runs.run_one(words, base, {
            "workload": f"energy-apst {trace.name}", "apst": table,
            "config_name": base.name, **base.overrides}, run_folder)
        row = apst_lab.table_row(setting, table, summary, run_folder, len(nonop))
        rows.append(row)
        say(f"run {index}/{len(apst_lab.SETTINGS)} APST {setting}: {wall:.2f} s, "
            f"{row['energy_j']:.3f} J, p99 {row['p99_latency_us']:,.1f} us, "
            f"{row['ps_exits']:.0f} exits")
        loaded = load_run(run_folder)
        written.append(save(power_figure(loaded, f"APST {setting}", energy_window(loaded)),
                            folder, f"power-{setting}", "png"))
    sets = " ".join(f"--set {item}" for item in args.overrides)
    notes = [f"configuration {_shown(args.config)}{' ' + sets if sets else ''}, energy=on; "
             f"{len(nonop)} power states, non-operational: "
             f"{', '.join(f'PS{n}' for n, flag in enumerate(nonop) if flag)} (the "
             "configuration's power-state table)", nand_note,
             said, "every run: a sequential fill (not measured), then the trace open-loop "
             "at its own times (addresses scaled onto the device)",
             "latencies of every request (the default trace has reads only); energy and "
             "power of the measured part (summary.json)"]
    md = folder / f"{apst_lab.TABLE_STEM}.md"
    md.write_text(apst_lab.markdown(rows, nonop, notes))
    written = [runs.write_csv(rows, apst_lab.keys(len(nonop)),
                              folder / f"{apst_lab.TABLE_STEM}.csv"), md, *written]
    return _finish(say, out, md, written, len(rows), folder)
