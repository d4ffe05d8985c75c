"""Fuzz the femu NVMe controller over qtest (tests/fuzz/README.md). From the repository's
root, with tests/support on the import path:

  PYTHONPATH=tests/support .venv/bin/python -m nvmefuzz \\
      --qemu build-femu/qemu-system-x86_64 --seeds 10 --first-seed 1 --commands 10000 \\
      [--minimize]
  PYTHONPATH=tests/support .venv/bin/python -m nvmefuzz --qemu ... \\
      --replay /tmp/fuzz-findings/X.jsonl
"""
import argparse
import json
import sys
import time
from pathlib import Path

from nvmefuzz import campaign, replay
from nvmefuzz.target import DEVICE_PROPS

COMMAND = "PYTHONPATH=tests/support .venv/bin/python -m nvmefuzz"


def _args(argv):
    p = argparse.ArgumentParser(prog="python -m nvmefuzz", description=__doc__.split("\n")[0])
    p.add_argument("--qemu", type=Path, required=True, help="qemu-system-x86_64 with femu")
    p.add_argument("--seeds", type=int, default=1, help="how many seeds (default 1)")
    p.add_argument("--first-seed", type=int, default=1, help="the first seed (default 1)")
    p.add_argument("--commands", type=int, default=10000,
                   help="commands per seed (a seed stops at the first sync past it; a "
                        "pool flood's 20470 flushes do not count)")
    p.add_argument("--deadline", type=float, default=10.0,
                   help="seconds within which every owed command must complete")
    p.add_argument("--replay", type=Path, help="run a replay file instead of seeds")
    p.add_argument("--minimize", action="store_true",
                   help="minimise each failure (ddmin) before saving it")
    p.add_argument("--min-budget", type=float, default=900.0,
                   help="seconds of minimisation per failure (default 900)")
    p.add_argument("--min-deadline", type=float, default=5.0,
                   help="the completion deadline while minimising (default 5 s)")
    p.add_argument("--findings", type=Path, default=Path("/tmp/fuzz-findings"),
                   help="where failing replays go (default /tmp/fuzz-findings)")
    p.add_argument("--skip", default="",
                   help="comma-separated actions never generated, to steer around a known "
                        "finding: toggle, toggles, disable, shutdown, flood, aer (AER "
                        "storms, templates and notice pairs), nsfix, reg, "
                        "bad_enable, setup, a register kind (generator.py: db-value, "
                        "db-live, cc-en, cfg, ...), a pointer class (layout.py: rom, "
                        "mmio, unassigned, ram, queue, edge, zero), dbbuf-trust (the "
                        "host always rewrites the shadows after Doorbell Buffer Config), "
                        "or pcut (no power cuts)")
    p.add_argument("--variant", choices=["default", "ftl", "zns", "fdp", "kv"],
                   default="default",
                   help="device properties: default; ftl (DFTL, one-page CMT, small write "
                        "buffer, block GC); zns (the zoned namespace under a zone limit "
                        "setting picked by the seed, a state_out and a QMP monitor: zone "
                        "commands, Copy into zones, C2h and QMP saves); fdp (placement=fdp "
                        "on a smaller flash, handles, their type and a time limit picked "
                        "by the seed: the FDP logs, features, I/O Management, placed "
                        "writes, handle lists, the FDP check and configuration changes); "
                        "kv (a Key Value namespace, kv_ns_mb picked by the seed: Store, "
                        "Retrieve, List, Delete, Exist with random keys and sizes)")
    p.add_argument("--json", type=Path, help="also write the figures here")
    return p.parse_args(argv)


def _say(text: str) -> None:
    print(text, flush=True)


def _replay(args) -> int:
    header, records = replay.load(args.replay)
    _say(f"replay {args.replay}: {len(records)} records (seed {header.get('seed')}, "
         f"saved as {header.get('kind')}: {header.get('message', '')[:200]})")
    failure, sent = replay.execute(args.qemu, records, header.get("deadline", args.deadline),
                                   props=header.get("props", DEVICE_PROPS))
    if failure is None:
        _say(f"replay: no failure ({sent} commands)")
        return 0
    _say(f"replay: FAIL {failure.kind} at record {failure.index}: {failure.message}")
    return 1


def main(argv=None) -> int:
    args = _args(argv)
    if not args.qemu.exists():
        print(f"nvmefuzz: {args.qemu}: no such binary", file=sys.stderr)
        return 2
    if args.replay:
        return _replay(args)
    skip = {s for s in args.skip.split(",") if s}
    figures = campaign.Figures()
    started = time.monotonic()
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        result = campaign.run_seed(args.qemu, seed, args.commands, args.deadline, skip,
                                   props=campaign.variant_props(args.variant, seed))
        figures.add(result)
        rate = result.sent / result.seconds if result.seconds else 0
        if result.failure is None:
            extra = f", GC {result.gc_runs}" if result.gc_runs else ""
            if result.power_cuts:
                extra += (f", power cuts {result.power_cuts} ({result.cut_lost} sectors "
                          f"lost, {result.cut_torn} pages torn)")
            if result.fdp:
                extra += (f", FDP checks {result.fdp['checks']} ({result.fdp['exact']} exact),"
                          f" changes {result.fdp['changes']}")
            _say(f"seed {seed}: ok, {result.sent} commands, {rate:.0f}/s{extra}")
            continue
        f = result.failure
        _say(f"seed {seed}: FAIL {f.kind} ({f.category}) at record {f.index} after "
             f"{result.sent} commands: {f.message}")
        campaign.keep_finding(result, args.qemu, args.findings, args.minimize,
                              args.min_deadline, args.min_budget, _say)
        _say(f"seed {seed}: replay ({result.minimized} records): {result.replay_file}")
        _say(f"  run it: {COMMAND} --qemu {args.qemu} --replay {result.replay_file}")
        if result.minimized is not None and result.minimized <= 40:
            for line in result.replay_file.read_text().splitlines()[1:]:
                _say("    " + line[:300])
    _say(f"figures ({args.qemu}): {figures.summary()}; wall {time.monotonic() - started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({
            "qemu": str(args.qemu), "seeds": figures.seeds, "commands": figures.commands,
            "flood_commands": figures.flood,
            "fuzz_seconds": figures.seconds, **figures.by_category,
            "variant": args.variant,
            "max_register_write_ms": round(figures.max_reg * 1000, 2),
            "max_register_write": figures.max_reg_what,
            "register_writes": figures.reg_writes,
            "max_qmp_command_ms": round(figures.max_qmp * 1000, 2),
            "max_qmp_command": figures.max_qmp_what,
            "qmp_commands": figures.qmp_commands,
            "register_writes_over_100ms": figures.reg_slow,
            "qmp_commands_over_100ms": figures.qmp_slow,
            "gc_seeds": figures.gc_seeds, "gc_runs": figures.gc_runs,
            "power_cuts": figures.power_cuts, "power_cut_seeds": figures.power_cut_seeds,
            "power_cut_lost_sectors": figures.cut_lost,
            "power_cut_torn_pages": figures.cut_torn,
            "non_flood_commands": figures.commands - figures.flood,
            **({"fdp": figures.fdp} if figures.fdp else {}),
            "failures": [{"seed": r.seed, "kind": r.failure.kind, "message": r.failure.message,
                          "replay": str(r.replay_file)} for r in figures.results if r.failure]},
            indent=1))
    return 1 if any(r.failure for r in figures.results) else 0


if __name__ == "__main__":
    sys.exit(main())
