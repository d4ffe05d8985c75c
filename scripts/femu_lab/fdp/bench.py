"""The FDP bench: the textbook hot/cold case's steady-state WAF with one reclaim unit
handle, two with gc_scope=stream and two with gc_scope=global, the analytic optimum, and
ftl-sim's speed (requests per second of host time) with placement=fdp against
placement=single on the same workload.

    femu-lab fdp-bench [--ftl-sim PATH] [--writes N] [--speed-writes N] [--repeat R]

Run it from anywhere: configuration paths are the repository's. Progress lines go to
stderr, the figures to stdout. The command line's registry takes add_arguments() and
run(); an error is one line, `fdp-bench: error: ...`, and exit status 2.
"""
import argparse
import sys
from pathlib import Path

from femu_analysis import fdp_model
from femu_common.cli_args import UsageError, whole_number
from femu_common.progress import Progress

from ..devconfig import ftl_sim_path
from ..paths import REPO_ROOT as REPO
from . import textbook as fdp_textbook

PROG = "fdp-bench"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ftl-sim", type=Path, default=None, metavar="PATH",
                        help="the ftl-sim binary (default: $FEMU_BUILD_DIR or build/release)")
    parser.add_argument("--writes", type=whole_number(1000, 10**8),
                        default=fdp_textbook.DEFAULT_WRITES, metavar="N",
                        help="random writes per steady-state step: runs of fill + N and "
                             "fill + 2N (default %(default)s)")
    parser.add_argument("--speed-writes", type=whole_number(1000, 10**9), default=2_000_000,
                        metavar="N", help="random writes after the fill of each speed run "
                                          "(default %(default)s)")
    parser.add_argument("--repeat", type=whole_number(1, 100), default=3, metavar="R",
                        help="speed runs of each placement; the fastest counts (default 3)")


def speed(ftl_sim, case_args, writes, repeat, say, label):
    """Requests per second of host time of the fastest of `repeat` runs."""
    best = None
    for attempt in range(repeat):
        say(f"speed, {label}: run {attempt + 1} of {repeat}")
        run = fdp_textbook.timed_run(ftl_sim, fdp_textbook.textbook_args(case_args, writes),
                                     REPO)
        rate = run.requests() / run.seconds
        best = rate if best is None or rate > best else best
    return best


def bench(ftl_sim, writes, speed_writes, repeat, say, out=None):
    out = out or sys.stdout
    cases = []
    for name in fdp_textbook.CASES:
        say(f"steady state, {name}: fill + {writes} and fill + {2 * writes} writes")
        cases.append(fdp_textbook.textbook_case(ftl_sim, name, writes, REPO))
    summary = cases[0].long.summary
    optimum = fdp_textbook.analytic_optimum(summary)
    print(f"textbook hot/cold ({fdp_textbook.CONFIG}, page mapping, whole-block GC at "
          f"95/95, {fdp_textbook.DIST}): steady-state WAF over {writes} writes after "
          f"fill + {writes}", file=out)
    print(f"  {'case':32s} {'WAF':>6s}  per handle", file=out)
    for case in cases:
        handles = ", ".join("-" if w is None else f"{w:.3f}" for w in case.handle_wafs)
        print(f"  {case.name:32s} {case.waf:6.3f}  {handles}", file=out)
    print(f"  {'analytic optimum':32s} {optimum:6.3f}  (spare "
          f"{fdp_model.spare_of(summary)} pages)", file=out)
    placements = {"placement=single": fdp_textbook.SINGLE,
                  "placement=fdp, 2 handles, global": fdp_textbook.CASES[
                      "two handles, gc_scope=global"]}
    rates = {label: speed(ftl_sim, args, speed_writes, repeat, say, label)
             for label, args in placements.items()}
    print(f"ftl-sim speed (fill + {speed_writes} writes of the same workload, fastest of "
          f"{repeat}): requests per second of host time", file=out)
    for label, rate in rates.items():
        print(f"  {label:32s} {rate / 1e6:6.2f} M/s", file=out)
    return cases, optimum, rates


def run(args: argparse.Namespace) -> int:
    """The bench with add_arguments()'s options; 0, or 2 after a one-line error."""
    try:
        ftl_sim = args.ftl_sim or ftl_sim_path()
        if not ftl_sim.exists():
            raise UsageError(f"{ftl_sim}: no ftl-sim there (build it: ninja -C build/release)")
        bench(ftl_sim, args.writes, args.speed_writes, args.repeat, Progress(PROG))
    except (UsageError, RuntimeError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    return 0
