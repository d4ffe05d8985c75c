"""femu-lab crash: the crash-consistency lab. File systems on a femu SSD with a volatile
write cache, the power cut at random points of their write stream, the machine rebooted,
and what survived compared with what was acknowledged durable (fsync returned).

    femu-lab crash [--fs ext4,f2fs] [--barriers on,off] [--plp off,on] [--cuts N]
                   [--seed N] [--set KEY=VALUE]... [-o DIR] [VM options]

Every combination of the lists is a configuration: one machine that reboots CUTS times
(femu_lab.crash.runner). With barriers the file system flushes the cache (or writes FUA)
where it must and no durable write may be lost; without them (mount -o barrier=0 /
nobarrier) and without power-loss protection, durable writes are expected to be lost;
with plp=on the device saves its buffer and nothing acknowledged is lost.

The folder (-o, default results/crash-lab) holds a folder per configuration (console.log,
stats/ with the device's power_cuts.csv and power_cut_lost.csv, cuts.csv) and the table,
crash-lab.csv and crash-lab.md, printed too: per configuration the cuts, durable writes
checked, writes lost, fsck clean / repaired / failed, the device's lost and torn sectors,
and the seconds from a cut to the next boot's check. Bad arguments: one line, exit
status 2; a configuration that could not run: one line naming its folder, exit status 1.
"""
import argparse
import csv
import sys
import time
from pathlib import Path
from typing import Dict, List, Sequence

from femu_common.cli_args import UsageError, describe, whole_number

from .. import devconfig, lab_options, paths, setup_steps
from .runner import (CRASH_SSD, ConfigResult, CrashConfig, CrashLabError, config_props,
                     run_config)

PROG = "femu-lab crash"
RESULTS_ROOT = paths.REPO_ROOT / "results"
TABLE_STEM = "crash-lab"
FILE_SYSTEMS = ("ext4", "f2fs")
ON_OFF = {"on": True, "off": False}
COLUMNS = ("configuration", "cuts", "durable_checked", "lost", "fsck_clean", "fsck_repaired",
           "fsck_failed", "unmountable", "device_lost_sectors", "device_torn_pages",
           "seconds_per_cycle", "expected", "verdict")


def _list(choices):
    def parse(text: str) -> List[str]:
        items = [t.strip() for t in text.split(",") if t.strip()]
        bad = [t for t in items if t not in choices]
        if not items or bad:
            raise argparse.ArgumentTypeError(
                f"'{text}': want a comma-separated list of {', '.join(choices)}")
        return list(dict.fromkeys(items))
    return parse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    describe(parser, **parser_texts())
    parser.add_argument("--fs", type=_list(FILE_SYSTEMS), default=list(FILE_SYSTEMS),
                        metavar="LIST", help="file systems: ext4,f2fs (default both)")
    parser.add_argument("--barriers", type=_list(tuple(ON_OFF)), default=["on", "off"],
                        metavar="LIST", help="write barriers: on,off (default both)")
    parser.add_argument("--plp", type=_list(tuple(ON_OFF)), default=["off", "on"],
                        metavar="LIST", help="power-loss protection: off,on (default both)")
    parser.add_argument("--cuts", type=whole_number(1, 1000), default=5, metavar="N",
                        help="power cuts per configuration (default 5)")
    lab_options.add_seed_option(parser, "draws the cut points (default 1)")
    lab_options.add_set_option(parser, "override a key of the lab's SSD "
                                       "(write_buffer_sectors=...)")
    lab_options.add_out_folder(parser, "results folder (default results/crash-lab)")
    lab_options.add_guest_options(parser, qemu_help="the QEMU with the femu device (default: "
                                                    "the built one)")


def parser_texts() -> dict:
    return dict(formatter_class=argparse.RawDescriptionHelpFormatter,
                description=__doc__.split("\n\n", 1)[1].rsplit("\n\n", 1)[0],
                epilog="example:\n  femu-lab crash --fs ext4 --cuts 10 --seed 7")


def device_props(overrides: List[str],
                 plps: Sequence[str] = tuple(ON_OFF)) -> Dict[str, str]:
    """The lab's SSD with the overrides (without plp: each configuration adds its own),
    every key and value checked with each plp setting the lab runs (plps: --plp's list):
    a key such as plp_budget_pages is valid with plp on only."""
    given = devconfig.parse_overrides(overrides)
    if "plp" in given:
        raise UsageError("--set plp: use --plp (the lab runs each setting it lists)")
    props = {**{k: str(v) for k, v in CRASH_SSD.items()}, **given}
    if props["write_buffer_sectors"] == "0":
        raise UsageError("--set write_buffer_sectors=0: the device would have no volatile "
                         "cache for a cut to lose (the lab needs a write buffer)")
    for plp in plps:
        _check_with_plp(props, plp)
    return props


def device_config(props: Dict[str, str], plp: bool) -> devconfig.DeviceConfig:
    """The configuration one plp setting runs, as ftl-sim reads it (the device's own
    checks)."""
    return devconfig.load(None, config_props(props, plp))


def _check_with_plp(props: Dict[str, str], plp: str) -> None:
    """ConfigError when the --plp setting plp cannot run props; it names the setting when
    the other one could (a key such as plp_budget_pages needs plp on)."""
    try:
        device_config(props, ON_OFF[plp])
    except devconfig.ConfigError as error:
        try:
            device_config(props, not ON_OFF[plp])
        except devconfig.ConfigError:
            raise error from None
        raise devconfig.ConfigError(f"--plp {plp}: {error}") from None


def configurations(args) -> List[CrashConfig]:
    return [CrashConfig(fs, ON_OFF[b], ON_OFF[p])
            for fs in args.fs for b in args.barriers for p in args.plp]


def _device_losses(stats: Path) -> Dict[str, int]:
    out = {"device_lost_sectors": 0, "device_torn_pages": 0}
    try:
        with open(stats / "power_cuts.csv", newline="") as f:
            for row in csv.DictReader(f):
                out["device_lost_sectors"] += int(row["buffered_sectors"])
                out["device_torn_pages"] += int(row["torn_pages"])
    except (OSError, KeyError, ValueError):
        pass
    return out


def table_row(result: ConfigResult, folder: Path) -> Dict[str, object]:
    c, v = result.config, result.verdicts
    lost = sum(x.lost for x in v)
    fscks = [x.fsck for x in v]
    if c.loss_expected:
        verdict = "loss seen" if lost else "no loss seen"
    else:
        verdict = "ok" if lost == 0 else "DURABLE WRITES LOST"
    cycle = sum(result.cycle_seconds) / len(result.cycle_seconds) if result.cycle_seconds else 0
    return {"configuration": c.name, "cuts": len(v),
            "durable_checked": sum(x.durable_checked for x in v), "lost": lost,
            "fsck_clean": fscks.count("clean"), "fsck_repaired": fscks.count("repaired"),
            "fsck_failed": fscks.count("failed"), "unmountable": fscks.count("unmountable"),
            **_device_losses(folder / "stats"), "seconds_per_cycle": round(cycle, 1),
            "expected": "loss" if c.loss_expected else "no loss", "verdict": verdict}


def write_cuts(result: ConfigResult, folder: Path) -> None:
    with open(folder / "cuts.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["cut", "durable_checked", "lost", "fsck", "seconds_to_check",
                    "device_status", "lost_log_records", "lost_db_writes"])
        for i, (v, status, s) in enumerate(zip(result.verdicts, result.cut_statuses,
                                               result.cycle_seconds), 1):
            w.writerow([i, v.durable_checked, v.lost, v.fsck, f"{s:.1f}", status,
                        " ".join(map(str, v.lost_log)),
                        " ".join(f"{p}:{ver}" for p, ver in v.lost_db)])


def write_table(rows: List[Dict[str, object]], folder: Path) -> str:
    with open(folder / f"{TABLE_STEM}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(str(r[c]) for c in COLUMNS) + " |" for r in rows]
    text = "\n".join(lines) + "\n"
    (folder / f"{TABLE_STEM}.md").write_text(text)
    return text


def _check_folder(out: Path) -> None:
    """UsageError unless out is a folder, or can be made one: the nearest part of it
    that exists is a folder (a file there made mkdir raise, after QEMU was built)."""
    existing = next(path for path in (out, *out.parents) if path.exists())
    if not existing.is_dir():
        raise UsageError(f"-o {out}: {existing} is not a folder")


def _make_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"-o {out}: {error.strerror}") from None


def run(args) -> int:
    try:
        props = device_props(args.overrides, args.plp)
    except (UsageError, devconfig.ConfigError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    out = args.out or RESULTS_ROOT / "crash-lab"
    _check_folder(out)
    qemu = setup_steps.ensure_qemu(args.qemu)
    image = setup_steps.ensure_guest(release=args.guest_release)
    accelerator = setup_steps.choose_accel(args.accel, qemu, image)
    _make_folder(out)    # after the checks: a bad argument leaves no folder behind
    rows = []
    for config in configurations(args):
        folder = out / config.name
        started = time.monotonic()
        print(f"{PROG}: {config.name}: {args.cuts} cuts ...", file=sys.stderr, flush=True)
        try:
            result = run_config(config, qemu, folder, args.cuts, args.seed, props,
                                accel_choice=accelerator, kernel=image.kernel,
                                initramfs=image.initramfs)
        except CrashLabError as error:
            print(f"{PROG}: {error}", file=sys.stderr)
            return 1
        write_cuts(result, folder)
        rows.append(table_row(result, folder))
        print(f"{PROG}: {config.name}: done in {time.monotonic() - started:.0f} s "
              f"({result.accel}): {rows[-1]['lost']} of {rows[-1]['durable_checked']} durable "
              "writes lost", file=sys.stderr, flush=True)
    print(write_table(rows, out), end="")
    return 0
