"""Reset and shutdown soak: boot the femu guest again and again, each boot writing and
verifying data with fio around one kind of event, and count what went wrong.

    femu-lab soak --pattern all --boots 50 --out /tmp/soak
    femu-lab soak --pattern reset-controller --pattern reboot --boots 5
    femu-lab soak --pattern device-del-add --device nvme --unplugs-per-boot 20 \
        --boots 25 --out /tmp/soak-nvme

Patterns (femu_lab.soak.guest): poweroff, reboot, reset-controller, pci-remove-rescan,
device-del-add. Boots go round the patterns (boot 1 of each, then boot 2 of each, ...) so a
run stopped early (Ctrl-C, --hours) still has even counts. Each boot's folder is kept only
when it failed (or with --keep-all); --findings DIR gets a copy of every failed one. The
table at the end (also in OUT/soak.json, rewritten after every boot) gives per pattern:
boots, crashes, mismatches, nvme timeouts, hangs, failed boots, wall time per boot.
Exit status: 0 when every boot passed, 1 otherwise, 2 on a usage error.

--device nvme puts QEMU's stock NVMe controller (`-device nvme,serial=...,drive=...` on a
sparse raw file of femu's logical size, a fresh file at every replug) where femu would be,
on the same root port, with the same guest job and fio load, to tell femu's failures from
QEMU's; femu's statistics folders and the checks on them are skipped then. The table
counts device_del commands QEMU accepted (unplugs) beside the events the guest saw, and
soak.json records the device and the command line.

--unplugs-per-boot N makes each device-del-add boot do N unplug + replug events (fio
writing and verifying the region before each, checksums after) instead of its default 2,
so hundreds of unplugs need tens of boots, not hundreds. Its guest job limit, unless
--job-timeout says otherwise, grows with N (JOB_SECONDS_PER_UNPLUG each, at least 900 s).

The QEMU binary may be rebuilt while the soak runs: a boot starts only once the binary
has not changed for a while, and a boot whose QEMU never started the guest while the
binary changed runs again (any failure after the guest started is counted).
"""
import argparse
import json
import shutil
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from femu_common.cli_args import UsageError, describe
from femu_common.progress import Progress
from femu_guest.image import ensure_image

from .. import lab_options, paths, setup_steps
from . import guest as soak_guest
from .boot import DEVICES, BootOutcome, BootPlan, run_boot
from .console import ConsoleFacts
from .table import PatternTotals, table

DEFAULT_QEMU = paths.QEMU
BINARY_SETTLE_SECONDS = 20        # unchanged this long before a boot starts with it
BINARY_WAIT_LIMIT = 3 * 3600
RETRIES_AFTER_REPLACEMENT = 3
DEFAULT_JOB_TIMEOUT = 900
JOB_SECONDS_PER_UNPLUG = 150      # device-del-add's guest limit per event (only hangs hit it)


def binary_stamp(path: Path) -> Optional[Tuple[int, int, int]]:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def wait_for_stable_binary(path: Path, log: Progress) -> Tuple[int, int, int]:
    """The binary's stamp once it exists and has not changed for BINARY_SETTLE_SECONDS."""
    deadline = time.monotonic() + BINARY_WAIT_LIMIT
    next_note = 0.0
    while True:
        stamp = binary_stamp(path)
        if stamp is not None and time.time() - stamp[1] / 1e9 >= BINARY_SETTLE_SECONDS:
            return stamp
        if time.monotonic() > deadline:
            raise SystemExit(f"soak: error: {path} did not settle within "
                             f"{BINARY_WAIT_LIMIT} s")
        if time.monotonic() >= next_note:
            log(f"waiting for {path} to {'appear' if stamp is None else 'settle'} "
                "(a rebuild?)")
            next_note = time.monotonic() + 60
        time.sleep(2)


def _binary_to_blame(outcome: BootOutcome, replaced: bool) -> bool:
    """A failed boot the binary's replacement may explain: the guest never started (QEMU
    could not run, or the file changed under its start). Once a guest has booted, QEMU
    runs the inode it started with (femu-compile.sh replaces the file atomically), so any
    later failure is the boot's own and is counted, never retried."""
    if outcome.ok or outcome.facts.guest_boots > 0:
        return False
    return replaced or outcome.qemu_returncode in (126, 127)


def boot_with_retries(plan: BootPlan, folder: Path, log: Progress,
                      label: str) -> Tuple[BootOutcome, str]:
    """One boot; again (up to RETRIES_AFTER_REPLACEMENT times) when it failed before the
    guest started while the QEMU binary was being replaced; the failed attempt's folder
    is kept beside it (NAME.attempt-K). Returns the outcome and the binary's mtime."""
    for attempt in range(1, RETRIES_AFTER_REPLACEMENT + 2):
        before = wait_for_stable_binary(plan.qemu, log)
        outcome = run_boot(plan, folder, log, label)
        replaced = binary_stamp(plan.qemu) != before
        if attempt > RETRIES_AFTER_REPLACEMENT or not _binary_to_blame(outcome, replaced):
            break
        kept = folder.with_name(f"{folder.name}.attempt-{attempt}")
        log(f"{label}QEMU never started the guest while {plan.qemu.name} was replaced "
            f"({'; '.join(outcome.reasons())}): booting again; that attempt is in {kept}")
        shutil.rmtree(kept, ignore_errors=True)
        folder.rename(kept)
    built = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(before[1] / 1e9))
    return outcome, built


def _guarded_boot(plan: BootPlan, folder: Path, log: Progress,
                  label: str) -> Tuple[BootOutcome, str]:
    """boot_with_retries, with a harness error (a bug here, the disk full, ...) recorded as
    that boot's failure instead of ending the soak."""
    try:
        return boot_with_retries(plan, folder, log, label)
    except Exception as error:   # noqa: BLE001 - reported, and the soak goes on
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "harness-error.txt").write_text(traceback.format_exc())
        outcome = BootOutcome(plan.pattern, folder, 0.0, None, ConsoleFacts())
        outcome.failures.append(f"harness error: {type(error).__name__}: {error}")
        return outcome, "?"


def _outcome_record(outcome: BootOutcome, index: int, binary: str) -> Dict[str, object]:
    facts = outcome.facts
    return {"pattern": outcome.pattern, "boot": index, "ok": outcome.ok,
            "wall_seconds": round(outcome.wall_seconds, 1),
            "qemu_returncode": outcome.qemu_returncode, "binary_mtime": binary,
            "guest_boots": facts.guest_boots, "events": facts.events,
            "fio_runs": facts.fio_runs, "mismatches": facts.mismatches,
            "timeouts": facts.timeouts, "kernel_trouble": facts.kernel_trouble[:20],
            "nvme_complaints": facts.nvme_complaints[:20], "details": facts.details[:60],
            "qemu_messages": facts.qemu_messages[:20], "sanitizer": facts.sanitizer[:20],
            "unplugs": outcome.unplugs, "replugs": outcome.replugs,
            "reasons": outcome.reasons(),
            "folder": str(outcome.folder)}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    describe(parser, __doc__.split("\n\n")[0], formatter_class=argparse.HelpFormatter)
    parser.add_argument("--pattern", action="append", required=True,
                        choices=[*soak_guest.PATTERNS, "all"],
                        help="repeatable; 'all' = every pattern")
    parser.add_argument("--boots", type=int, required=True, help="boots per pattern")
    parser.add_argument("--events", type=int, default=None,
                        help="events per boot (default: reboot 1, reset-controller 4, "
                             "pci-remove-rescan 2, device-del-add 2)")
    parser.add_argument("--unplugs-per-boot", type=int, default=None, metavar="N",
                        help="device-del-add: N unplug + replug events per boot (default 2; "
                             "overrides --events for that pattern)")
    parser.add_argument("--device", choices=DEVICES, default="femu",
                        help="the device under test: femu (default), or QEMU's stock nvme "
                             "on a raw file of the same logical size, for comparison")
    parser.add_argument("--size-mib", type=int, default=32,
                        help="fio region in MiB (the device has 96 MiB)")
    lab_options.add_guest_options(parser, DEFAULT_QEMU,
                                  "default build-femu/qemu-system-x86_64 (the -sanitize one "
                                  "works too: its reports count as crashes)")
    parser.add_argument("--out", type=Path, default=None,
                        help="default: results/soak-<time>")
    parser.add_argument("--findings", type=Path, default=None,
                        help="copy every failed boot's folder here")
    parser.add_argument("--keep-all", action="store_true", help="keep passed boots' folders")
    parser.add_argument("--hours", type=float, default=None,
                        help="start no boot after this many hours")
    parser.add_argument("--job-timeout", type=int, default=None,
                        help=f"guest-side limit per boot in seconds (host: 180 s more; "
                             f"default {DEFAULT_JOB_TIMEOUT}, device-del-add "
                             f"{JOB_SECONDS_PER_UNPLUG} per event if that is more)")


def settle(args: argparse.Namespace) -> argparse.Namespace:
    """The parsed options checked (UsageError), 'all' spelt out as every pattern once and
    the default --out filled in."""
    if args.boots < 1 or (args.events is not None and args.events < 1):
        raise UsageError("--boots and --events must be at least 1")
    if args.unplugs_per_boot is not None and args.unplugs_per_boot < 1:
        raise UsageError("--unplugs-per-boot must be at least 1")
    if not 1 <= args.size_mib <= 64:
        raise UsageError("--size-mib must be between 1 and 64 (the device holds 96 MiB)")
    if "all" in args.pattern:
        args.pattern = list(soak_guest.PATTERNS)
    args.pattern = list(dict.fromkeys(args.pattern))
    if args.unplugs_per_boot is not None and "device-del-add" not in args.pattern:
        raise UsageError("--unplugs-per-boot is for the device-del-add pattern")
    if args.out is None:
        args.out = paths.REPO_ROOT / "results" / time.strftime("soak-%Y%m%d-%H%M%S")
    return args


def events_per_boot(args: argparse.Namespace, pattern: str) -> int:
    if pattern == "device-del-add" and args.unplugs_per_boot is not None:
        return args.unplugs_per_boot
    return args.events or soak_guest.DEFAULT_EVENTS[pattern]


def job_timeout(args: argparse.Namespace, pattern: str, events: int) -> int:
    """--job-timeout, else 900 s, or for device-del-add JOB_SECONDS_PER_UNPLUG per event
    when that is more."""
    if args.job_timeout is not None:
        return args.job_timeout
    if pattern == "device-del-add":
        return max(DEFAULT_JOB_TIMEOUT, JOB_SECONDS_PER_UNPLUG * events)
    return DEFAULT_JOB_TIMEOUT


def boot_plan(args: argparse.Namespace, pattern: str, image) -> BootPlan:
    """The plan of one boot of `pattern` from the command line (image: the guest's)."""
    events = events_per_boot(args, pattern)
    return BootPlan(pattern, args.qemu, events, size_mib=args.size_mib,
                    job_timeout=job_timeout(args, pattern, events), kernel=image.kernel,
                    initramfs=image.initramfs, accel=args.accel, device=args.device)


def _stop_on_sigterm(signum, frame):
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    """The soak; 0 when every boot passed, 1 otherwise. Bad options and a missing QEMU
    raise UsageError, an accelerator that cannot be had AccelError (both exit status 2)."""
    args = settle(args)
    if not args.qemu.exists():
        raise UsageError(f"{args.qemu} is missing: build it with build-femu/femu-compile.sh")
    image = ensure_image(quiet=True, release=args.guest_release)
    log = Progress("soak")
    setup_steps.choose_accel(args.accel, args.qemu, image, log)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    args.out.mkdir(parents=True, exist_ok=True)
    totals = {p: PatternTotals(p) for p in args.pattern}
    records: List[Dict[str, object]] = []
    stop_at = time.monotonic() + args.hours * 3600 if args.hours else None
    log(f"{len(args.pattern)} pattern(s) x {args.boots} boots on {args.device}; "
        f"out {args.out}")
    interrupted = False
    try:
        for index in range(1, args.boots + 1):
            for pattern in args.pattern:
                if stop_at is not None and time.monotonic() > stop_at:
                    raise TimeoutError
                plan = boot_plan(args, pattern, image)
                folder = args.out / pattern / f"boot-{index:03d}"
                label = f"{pattern} {index}/{args.boots}: "
                outcome, binary = _guarded_boot(plan, folder, log, label)
                totals[pattern].add(outcome)
                records.append(_outcome_record(outcome, index, binary))
                verdict = "ok" if outcome.ok else "FAILED: " + "; ".join(outcome.reasons())
                log(f"{label}{verdict} ({outcome.wall_seconds:.0f} s, "
                    f"{len(outcome.facts.events)} events)")
                _keep_or_drop(outcome, args)
                _write_summary(args.out, totals, records, args)
    except KeyboardInterrupt:
        interrupted = True
        log("interrupted: the figures below cover the boots that finished")
    except TimeoutError:
        log(f"--hours {args.hours} reached: no more boots started")
    print(table(totals.values()))
    print(f"soak: details in {args.out / 'soak.json'}")
    failed = any(t.failed_boots for t in totals.values())
    return 1 if failed or interrupted else 0


def _keep_or_drop(outcome: BootOutcome, args: argparse.Namespace) -> None:
    if not outcome.ok and args.findings is not None:
        target = args.findings / outcome.pattern / outcome.folder.name
        if target.exists():
            target = target.with_name(f"{target.name}-{time.strftime('%H%M%S')}")
        shutil.copytree(outcome.folder, target)
    if outcome.ok and not args.keep_all:
        shutil.rmtree(outcome.folder, ignore_errors=True)


def _write_summary(out: Path, totals: Dict[str, PatternTotals],
                   records: List[Dict[str, object]], args: argparse.Namespace) -> None:
    document = {"device": args.device, "qemu": str(args.qemu), "argv": sys.argv,
                "patterns": {p: t.as_dict() for p, t in totals.items()}, "boots": records}
    temporary = out / "soak.json.tmp"
    temporary.write_text(json.dumps(document, indent=2) + "\n")
    temporary.replace(out / "soak.json")

