"""`femu-lab age`: an aged FTL state from ftl-sim, which runs and sweeps start from."""
import argparse
from pathlib import Path

from femu_common.cli_args import describe, shown, whole, whole_number

from .. import devconfig, lab_options, setup_steps, workloads
from ..sweep import runner as lab_sweep
from ..run import aged, blackbox


def add_arguments(parser: argparse.ArgumentParser) -> None:
    describe(parser,
             "Fills the logical space once, then writes PASSES times its capacity\n"
             "with the workload (its '# sim:' line) in ftl-sim, and saves the FTL's\n"
             "state: run-blackbox.sh --aged STATE (or femu-lab sweep --aged STATE)\n"
             "then starts the VM run in steady state. The state holds no data:\n"
             "LBAs the ageing wrote read back as zeroes in the guest.",
             "example:\n  femu-lab age --config conf/lab-4g.conf --workload gc-randwrite "
             "-o aged.state\n  run-blackbox.sh --config conf/lab-4g.conf --aged aged.state")
    # a file, not a folder: not lab_options' -o/--out DIR
    parser.add_argument("-o", "--out", type=Path, required=True, metavar="STATE",
                        help="the state file to write (replaced atomically)")
    lab_options.add_ssd_options(parser, blackbox.LAB_CONFIG,
                                "SSD configuration (default conf/lab-1g.conf)")
    parser.add_argument("--workload", default=blackbox.DEFAULT_WORKLOAD, metavar="NAME|FILE",
                        help=f"the writes that age the SSD (its '# sim:' line; default "
                             f"{blackbox.DEFAULT_WORKLOAD})")
    parser.add_argument("--passes", type=whole_number(1, 100), default=2, metavar="N",
                        help="logical capacities of workload writes after the fill (default 2)")
    parser.add_argument("--no-fill", dest="fill", action="store_false",
                        help="no sequential fill of the logical space first")
    lab_options.add_seed_option(parser, "ftl-sim's random seed of the first pass (default 1)")
    parser.add_argument("--rest", type=rest_seconds, default=0, metavar="TIME",
                        help="leave the SSD idle this long after the last pass, before the "
                             "save: its data ages (read retries); seconds, or with a unit "
                             "s, m, h, d (e.g. 60d), at most 100 days")


def rest_seconds(text: str) -> int:
    """--rest: whole seconds, minutes, hours or days, 1 s to 100 days."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    number, unit = (text[:-1], text[-1]) if text[-1:] in units else (text, "s")
    count = whole(number)
    if count is None:
        raise argparse.ArgumentTypeError(f"'{shown(text)}' is not a duration (e.g. 3600, "
                                         "12h, 60d)")
    seconds = count * units[unit]
    if not 1 <= seconds <= 100 * 86400:
        raise argparse.ArgumentTypeError(f"{shown(text)}: must be 1 s to 100 days")
    return seconds


def run(args: argparse.Namespace) -> int:
    workload = workloads.resolve(args.workload)
    workload.simulator_args()          # WorkloadError without a '# sim:' line
    setup_steps.ensure_ftl_sim()
    config = devconfig.load(args.config, devconfig.parse_overrides(args.overrides))
    request = aged.AgeRequest(config=config, workload=workload, out=args.out,
                              passes=args.passes, fill=args.fill, seed=args.seed,
                              rest_s=args.rest)
    result = aged.age(request)
    lab_sweep.say(aged.describe(result, request))
    print(result.out)
    return 0
