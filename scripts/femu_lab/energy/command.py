"""femu-lab energy: the energy model's labs in ftl-sim (energy=on, docs/energy.md).

    femu-lab energy waf  [--placements LIST] [--policies LIST] [--workloads LIST]
                         [--io-size SIZE] [--quick] [--config FILE] [--set K=V]... [-o DIR]
    femu-lab energy apst [--trace FILE | --bursts N --burst-requests N --gap-ms MIN:MAX]
                         [--aggressive-ms MS] [--quick] [--config FILE] [--set K=V]... [-o DIR]

waf: joules per GiB written against WAF over placement x GC policy x write workloads
(waf.py); apst: APST off, Linux's table and an aggressive one on a bursty trace (apst.py).
Each run is one ftl-sim run in DIR/runs/NAME/ (its statistics, summary.json, config.conf,
params.json, sim-cmdline.txt with the exact command line, ftl-sim.log), announced on
stderr; DIR gets the table as .csv and .md (also printed), the figures and lab.json.
Both are deterministic: the same command gives the same figures on any host.

Bad arguments, a missing ftl-sim or a configuration ftl-sim refuses: one line, exit
status 2, before anything runs. A failed run: one line naming its folder, exit status 1.
"""
import argparse
import json
import sys
from pathlib import Path
from typing import Tuple

from femu_common.cli_args import UsageError, describe, number, size_bytes, whole_number
from femu_common.progress import Progress

from .. import devconfig, lab_options, paths
from ..lab_options import name_list
from ..traces.femu_trace import READ_FORMATS
from . import apst as apst_lab, bursts, runs, waf as waf_lab

DEFAULT_CONFIG = paths.REPO_ROOT / "conf" / "lab-1g.conf"
PROG = "femu-lab energy"
QUICK_IO = 1 << 30
QUICK_BURSTS, QUICK_REQUESTS = 12, 50


def io_size(text: str) -> int:
    value = size_bytes(text, fractions=False)
    if value is None or value < 1 << 20 or value > 1 << 50:
        raise argparse.ArgumentTypeError(f"'{text}' is not a size from 1M to 1P (e.g. 4g)")
    return int(value) // 4096 * 4096


def gap_range(text: str) -> Tuple[float, float]:
    low, sep, high = text.partition(":")
    try:
        pair = (float(low), float(high))
    except ValueError:
        pair = None
    if not sep or pair is None or not 0 < pair[0] <= pair[1] <= 3.6e6:
        raise argparse.ArgumentTypeError(f"'{text}': want MIN:MAX in ms, 0 < MIN <= MAX "
                                         "<= 3600000")
    return pair


def _common(parser, out_default):
    lab_options.add_ssd_options(parser, DEFAULT_CONFIG, "SSD configuration (default "
                                "conf/lab-1g.conf; energy=on is set for every run)",
                                "override one configuration key in every run (repeatable)")
    parser.add_argument("--nand-energy", type=Path, default=runs.DEFAULT_NAND,
                        metavar="PROFILE", help="the NAND energy figures (nand_vcc_mv, "
                        "nand_icc_*_ua, nand_io_pj_per_byte) this profile gives, for those "
                        "the configuration lacks (default conf/nand/slc.conf)")
    lab_options.add_seed_option(parser, "seed of the workloads and the trace (default 1)")
    lab_options.add_out_folder(parser, f"lab folder (default {out_default})")
    parser.add_argument("--quick", action="store_true", help="a short lab (the tests')")
    parser.add_argument("--ftl-sim", type=Path, metavar="PATH",
                        help="ftl-sim binary (default build/release/tools/ftl-sim/ftl-sim)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    describe(parser, __doc__.split("\n\n")[0].strip() + "\n\n" + __doc__.split("\n\n")[1])
    actions = parser.add_subparsers(dest="energy_lab", metavar="LAB",
                                    parser_class=type(parser))
    actions.required = True
    waf = actions.add_parser("waf", help="joules per GiB written against WAF",
                             description=waf_lab.__doc__.split("\n\n")[0])
    waf.add_argument("--placements", type=name_list(waf_lab.PLACEMENTS, "placement"),
                     metavar="LIST", help="default single,hotcold")
    waf.add_argument("--policies", type=name_list(waf_lab.POLICIES, "GC policy"),
                     metavar="LIST", help=f"default {','.join(waf_lab.POLICIES)} (--quick: "
                                          f"{','.join(waf_lab.QUICK_POLICIES)})")
    waf.add_argument("--workloads", type=name_list(tuple(waf_lab.WORKLOADS), "workload"),
                     metavar="LIST", help=f"default {','.join(waf_lab.WORKLOADS)} (--quick: "
                                          f"{','.join(waf_lab.QUICK_WORKLOADS)})")
    waf.add_argument("--io-size", type=io_size, metavar="SIZE",
                     help="bytes each run writes after its fill (default 4g; --quick 1g)")
    waf.add_argument("--hot-threshold", type=whole_number(0, 65535), default=6, metavar="N",
                     help="hot_threshold of placement=hotcold (default 6)")
    _common(waf, "results/energy-waf-<config>")
    apst = actions.add_parser("apst", help="APST off, Linux's and an aggressive table on a "
                              "bursty trace", description=apst_lab.__doc__.split("\n\n")[0])
    apst.add_argument("--trace", type=Path, metavar="FILE",
                      help="replay this trace (with times) instead of the bursty one")
    apst.add_argument("--trace-format", choices=READ_FORMATS, help="its format (default: "
                                                                   "auto, from its content)")
    apst.add_argument("--bursts", type=whole_number(1, 100000), metavar="N",
                      help="bursts of the generated trace (default 40; --quick "
                           f"{QUICK_BURSTS})")
    apst.add_argument("--burst-requests", type=whole_number(1, 1000000), metavar="N",
                      help=f"requests a burst (default 200; --quick {QUICK_REQUESTS})")
    apst.add_argument("--gap-ms", type=gap_range, default=bursts.DEFAULT_GAP_MS,
                      metavar="MIN:MAX", help="idle gaps between bursts, drawn log-uniformly "
                                              "(default 5:4000)")
    apst.add_argument("--read-fraction", type=number(0.0, 1.0), default=1.0, metavar="X",
                      help="share of reads (default 1: the latencies are read latencies)")
    apst.add_argument("--aggressive-ms", type=whole_number(1, 3600000), default=1,
                      metavar="MS", help="the aggressive table's idle time (default 1)")
    _common(apst, "results/energy-apst-<config>")


def run(args: argparse.Namespace) -> int:
    from . import lab   # the runs, imported once the arguments are good
    ftl_sim = (args.ftl_sim or devconfig.ftl_sim_path()).resolve()
    if not ftl_sim.exists():
        raise UsageError(f"{ftl_sim}: no ftl-sim there (build it: ninja -C build/release)")
    if args.energy_lab == "waf":
        return lab.run_waf(args, ftl_sim, Progress("energy waf"), sys.stdout)
    return lab.run_apst(args, ftl_sim, Progress("energy apst"), sys.stdout)


def record(folder: Path, args, extra: dict) -> None:
    (folder / runs.LAB_FILE).write_text(json.dumps(
        {"tool": f"{PROG} {args.energy_lab}", "config": str(args.config),
         "overrides": args.overrides, "seed": args.seed, "quick": args.quick, **extra},
        indent=2) + "\n")
