"""The GC onset bench: paced GC right after the drive is full, in ftl-sim (simulated time,
so the figures are the same on any host).

    femu-lab gc-onset [--config FILE] [--set K=V] [--runtime 30] [--ftl-sim PATH] [--json OUT]

1. 4 KiB random writes at QD32 after a sequential fill (`femu-lab bench`'s ftl-sim row):
   the per-second host IOPS of every whole second of the measured part, from the first,
   their mean, the worst second against half the mean, and p99 against 7.5 ms.
2. Paced against line GC's WAF at QD8 after a fill, 2 GiB of writes, on uniform, zipf 0.8
   and zipf 1.2 traffic: within 3 % (paced GC takes line GC's victims, only later).

Prints figures and PASS / FAIL lines; asserts nothing and is not a CI test (the pacing
rule is pinned by tests/ftl/test_gc.c, the WAF by tests/ftl-sim/test_gc_pacing.py).
Progress goes to stderr. An error is one line and exit status 2 (bad input) or 1.
"""
import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Mapping

from femu_common.cli_args import whole_number
from femu_common.progress import Progress

from .. import devconfig, lab_options, paths
from ..ftl_sim import CommandError, SimError, run_ftl_sim
from . import sim as bench_sim
from .stats import WORST_SHARE, Geometry   # every whole second >= half the mean

PROG = "femu-lab gc-onset"
DEFAULT_CONFIG = paths.REPO_ROOT / "conf" / "lab-1g.conf"
P99_LIMIT_US = 7500.0
WAF_TOLERANCE = 0.03
WAF_DISTS = ("random", "zipf:0.8", "zipf:1.2")
WAF_JOB = ("--rw", "randwrite", "--bs", "4k", "--qd", "8", "--precondition", "seq",
           "--io-size", "2g")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = __doc__.split("\n\n")[0].strip()
    lab_options.add_ssd_options(parser, DEFAULT_CONFIG,
                                "SSD configuration (default conf/lab-1g.conf)")
    parser.add_argument("--runtime", type=whole_number(2, 24 * 3600), default=30,
                        metavar="SECONDS", help="simulated seconds of the QD32 run "
                                                "(default 30)")
    parser.add_argument("--ftl-sim", type=Path, metavar="PATH",
                        help="ftl-sim binary (default build/release/tools/ftl-sim/ftl-sim)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="save the figures as JSON")


def onset_checks(row: Mapping[str, object]) -> List[str]:
    """PASS / FAIL lines of the onset run: worst whole second >= half the mean, p99 <=
    7.5 ms. A run without a whole second cannot pass."""
    seconds = list(row["seconds"])
    lines = []
    if not seconds:
        return ["FAIL  no whole second in the measured part (raise --runtime)"]
    mean = sum(seconds) / len(seconds)
    low = min(seconds)
    lines.append(f"{'PASS' if low >= WORST_SHARE * mean else 'FAIL'}  worst second "
                 f"{low:,.0f} IOPS >= {WORST_SHARE:g} x mean {mean:,.0f} = "
                 f"{WORST_SHARE * mean:,.0f}")
    p99 = float(row["p99_us"])
    lines.append(f"{'PASS' if p99 <= P99_LIMIT_US else 'FAIL'}  p99 {p99:,.0f} us <= "
                 f"{P99_LIMIT_US:,.0f} us")
    return lines


def waf_check(dist: str, paced: float, line: float) -> str:
    """PASS when paced GC's WAF is within 3 % of line GC's (either side)."""
    ok = abs(paced - line) <= WAF_TOLERANCE * line
    return (f"{'PASS' if ok else 'FAIL'}  {dist}: WAF paced {paced:.3f} within "
            f"{100 * WAF_TOLERANCE:g} % of line {line:.3f} ({100 * (paced / line - 1):+.1f} %)")


def _waf(ftl_sim: Path, config: Path, overrides: Mapping[str, str], mode: str, dist: str,
         folder: Path) -> float:
    sets = [arg for key, value in {**overrides, "gc_mode": mode}.items()
            for arg in ("--set", f"{key}={value}")]
    summary = folder / f"{mode}-{dist.replace(':', '-')}.json"
    args = [str(ftl_sim), "--config", str(config), *sets, "--dist", dist, *WAF_JOB,
            "--summary", str(summary)]
    try:
        run_ftl_sim(args, timeout=3600)
        return float(json.loads(summary.read_text())["waf"])
    except CommandError as error:
        raise SimError(str(error)) from None
    except (OSError, ValueError, KeyError) as error:
        raise SimError(f"ftl-sim summary {summary}: {error}") from None


def measure(ftl_sim: Path, config: Path, overrides: Mapping[str, str], runtime: int,
            geometry: Geometry, folder: Path, say) -> Dict[str, object]:
    say(f"QD32 random writes after a fill, {runtime} s simulated")
    onset = bench_sim.run(ftl_sim, config, overrides, runtime, folder / "onset", geometry)
    waf: Dict[str, Dict[str, float]] = {}
    for dist in WAF_DISTS:
        for mode in ("paced", "line"):
            say(f"WAF, {dist}, gc_mode={mode}")
            waf.setdefault(dist, {})[mode] = _waf(ftl_sim, config, overrides, mode, dist,
                                                  folder)
    return {"onset": onset, "waf": waf}


def report(figures: Mapping[str, object], out=None) -> int:
    """Print the figures and checks; the number of FAIL lines."""
    out = out or sys.stdout
    onset = figures["onset"]
    seconds = list(onset["seconds"])
    print("per-second host IOPS, QD32 random writes after a sequential fill (ftl-sim):",
          file=out)
    for start in range(0, len(seconds), 10):
        print("  " + " ".join(f"{value:7,.0f}" for value in seconds[start:start + 10]),
              file=out)
    if seconds:
        mean = sum(seconds) / len(seconds)
        print(f"mean {mean:,.0f}, worst {min(seconds):,.0f} ({min(seconds) / mean:.2f} of "
              f"the mean), CV {onset['cv']:.3f}; run IOPS {onset['iops']:,.0f}, WAF "
              f"{onset['waf']:.3f}, p99 {onset['p99_us']:,.0f} us", file=out)
    lines = onset_checks(onset)
    for dist, modes in figures["waf"].items():
        lines.append(waf_check(dist, modes["paced"], modes["line"]))
    for line in lines:
        print(line, file=out)
    return sum(line.startswith("FAIL") for line in lines)


def run(args: argparse.Namespace) -> int:
    ftl_sim = (args.ftl_sim or devconfig.ftl_sim_path()).resolve()
    config_path = args.config.resolve()
    overrides = devconfig.parse_overrides(args.overrides)
    config = devconfig.load(config_path, overrides, ftl_sim)
    geometry = Geometry.from_config(config.values)
    progress = Progress(PROG)
    with tempfile.TemporaryDirectory(prefix="femu-gc-onset-") as tmp:
        figures = measure(ftl_sim, config_path, overrides, args.runtime, geometry,
                          Path(tmp), progress)
    report(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0
