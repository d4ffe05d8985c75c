"""femu-lab hotcold-table: hot/cold placement against one stream in ftl-sim.

For each distribution and layout, one run of placement=single, then each hot_threshold
with exact write counts (hot_decay=off) and with counts that age (hot_decay=N): 4 KiB
random writes at QD 16 for --runtime simulated seconds on --config (default lab-1g). The
folder (-o) gets runs/<case>/ (ftl-sim's statistics and summary.json), hotcold-table.csv
and .md (per run: WAF of the whole measured part, WAF after its first minute and the
worst 10 s after it, how many of those 10 s intervals are above the one stream's, and the
pages hot at the end), and hot-set.png (the hot set and the 10 s WAF over time, one panel
per distribution and layout).

    scripts/femu-lab hotcold-table [-o DIR] [--dist zipf:0.8,zipf:1.2] [--layout full,region]
        [--threshold 6,20,50] [--decay off,98304] [--runtime 300] [--config FILE]

Bad arguments or a missing ftl-sim: one line, exit status 2; a failed run: one line, 1.
"""
import argparse
import sys
from pathlib import Path
from typing import Dict, List

from femu_common.cli_args import describe
from femu_common.progress import counted

from .. import devconfig, paths
from ..ftl_sim import CommandError, ftl_sim_reason, run_ftl_sim
from . import cases as hc_cases
from . import metrics, plot

PROG = "femu-lab hotcold-table"
DEFAULT_CONFIG = paths.REPO_ROOT / "conf" / "lab-1g.conf"
DEFAULT_DECAY = "98304"     # half of lab-1g's 196608 logical pages: see docs/ftl.md


def add_arguments(p: argparse.ArgumentParser) -> None:
    describe(p, __doc__.split("\n\n")[0].strip(), formatter_class=argparse.HelpFormatter)
    p.add_argument("-o", "--out", type=Path, default=paths.REPO_ROOT / "results" / "hotcold-table")
    p.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    p.add_argument("--dist", default="zipf:0.8,zipf:1.2", help="comma-separated --dist values")
    p.add_argument("--layout", default="full,region", help="full and/or region")
    p.add_argument("--threshold", default="6,20,50", help="hot_threshold values")
    p.add_argument("--decay", default=f"off,{DEFAULT_DECAY}",
                   help="hot_decay values (off: exact counts)")
    p.add_argument("--runtime", type=int, default=300, help="simulated seconds per run")


def _list(text: str, what: str) -> List[str]:
    items = [x.strip() for x in text.split(",") if x.strip()]
    if not items:
        raise ValueError(f"--{what}: no value given")
    return items


def run_case(case: hc_cases.Case, config: Path, runtime: int, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    args = [str(devconfig.ftl_sim_path()), "--config", str(config), *case.sets(),
            *hc_cases.LAYOUTS[case.layout], "--rw", "randwrite", "--dist", case.dist,
            "--bs", "4k", "--qd", "16", "--runtime", str(runtime),
            "--stats-dir", str(folder), "--summary", str(folder / "summary.json")]
    (folder / "command.txt").write_text(" ".join(args) + "\n")
    run_ftl_sim(args, log=folder / "ftl-sim.log")


def table_rows(plan: List[hc_cases.Case], figures: Dict[hc_cases.Case, metrics.RunFigures]):
    rows = []
    for case in plan:
        f = figures[case]
        base = figures[hc_cases.Case(case.dist, case.layout, "single")]
        rows.append({
            "dist": case.dist, "layout": case.layout, "run": case.label,
            "waf": round(f.waf, 3), "waf_after_1min": round(f.waf_after_minute, 3),
            "worst_10s_after_1min": round(max(w for _, w in f.ten_s), 3) if f.ten_s else None,
            "below_single_pct": round(100 * (1 - f.waf / base.waf), 2),
            "below_single_after_1min_pct":
                round(100 * (1 - f.waf_after_minute / base.waf_after_minute), 2),
            "10s_above_single": metrics.intervals_above(f, base),
            "10s_intervals": len(f.ten_s),
            "hot_pages_end": f.hot_pages_end if case.placement == "hotcold" else None,
        })
    return rows


def write_tables(rows, out: Path, runtime: int) -> str:
    import pandas as pd
    frame = pd.DataFrame(rows)
    frame["hot_pages_end"] = frame["hot_pages_end"].astype("Int64")   # a count, or empty
    frame.to_csv(out / "hotcold-table.csv", index=False)
    head = ["distribution", "layout", "run", f"WAF ({runtime} s)", "WAF after 1 min",
            "worst 10 s after 1 min", "below one stream", "below it after 1 min",
            "10 s above one stream",
            "hot pages at the end"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        hot = "" if r["hot_pages_end"] is None else str(r["hot_pages_end"])
        lines.append(f"| {r['dist']} | {r['layout']} | {r['run']} | {r['waf']:.2f} | "
                     f"{r['waf_after_1min']:.2f} | {r['worst_10s_after_1min']:.2f} | "
                     f"{r['below_single_pct']:.2f} % | "
                     f"{r['below_single_after_1min_pct']:.2f} % | {r['10s_above_single']} of "
                     f"{r['10s_intervals']} | {hot} |")
    text = "\n".join(lines) + "\n"
    (out / "hotcold-table.md").write_text(text)
    return text


def run(args: argparse.Namespace) -> int:
    try:
        plan = hc_cases.plan(_list(args.dist, "dist"), _list(args.layout, "layout"),
                             [int(t) for t in _list(args.threshold, "threshold")],
                             _list(args.decay, "decay"))
        bad = [c.layout for c in plan if c.layout not in hc_cases.LAYOUTS]
        if bad:
            raise ValueError(f"--layout: '{bad[0]}' is not one of full, region")
        if args.runtime <= 60:
            raise ValueError("--runtime: the table reads the time after the first minute: "
                             "give more than 60 s")
        if not args.config.is_file():
            raise ValueError(f"--config: {args.config} is not a file")
        if not devconfig.ftl_sim_path().exists():
            raise ValueError(f"{devconfig.ftl_sim_path()} is missing: build it with "
                             "'meson setup build/release && meson compile -C build/release'")
    except ValueError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    out: Path = args.out
    figures: Dict[hc_cases.Case, metrics.RunFigures] = {}
    for case in counted(plan, PROG, "run"):
        folder = out / "runs" / case.folder
        try:
            run_case(case, args.config, args.runtime, folder)
            figures[case] = metrics.read_run(folder)
        except CommandError as error:
            print(f"{PROG}: {case.folder}: {ftl_sim_reason(error)} (log: "
                  f"{folder / 'ftl-sim.log'})", file=sys.stderr)
            return 1
        except metrics.RunError as error:
            print(f"{PROG}: {error}", file=sys.stderr)
            return 1
    print(write_tables(table_rows(plan, figures), out, args.runtime), end="")
    plot.hot_set_figure(plan, figures, out)
    print(out)
    return 0
