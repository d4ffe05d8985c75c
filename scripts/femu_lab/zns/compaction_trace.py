"""zns-compaction's plan as an ftl-sim trace: the victims, valid extents and commands of
the guest workload, made by the workload's own functions (valid_extents and
compaction_plan in scripts/workloads/lib/zns-compaction.sh, run by sh here) and written as
a hand-written version-1 trace (femu_ftl/trace.h) for ftl-sim's closed loop at QD 1, so
Copy and read + append can be compared on the flash model alone, without a guest.

    python -m femu_lab.zns.compaction_trace --method copy --out copy.trace
    python -m femu_lab.zns.compaction_trace --method rw --layout contiguous --out rw.trace
    python -m femu_lab.zns.compaction_trace --method none --out fill.trace

Every trace fills the victim zones 0..VICTIMS-1 first (zone writes of 256 KiB), so the
compaction's device time is the run's simulated time less the fill's (`--method none`).
`fragmented` is the workload's layout (runs of 1..16 4 KiB blocks, each valid with
probability PCT %); `contiguous` is one valid extent of EXTENT blocks at the start of each
victim. conf/zns-lab.conf's geometry (4 MiB zones, 512-byte LBAs = ftl-sim's sectors) and
the device's Copy limits (hw/femu/cmd/io/copy.c: MSSRL 1024 LBAs, MCL 4096, 128 ranges);
reads and appends move 256 KiB at most, as in the guest.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, Iterator, List

LIB = Path(__file__).resolve().parents[2] / "workloads" / "lib" / "zns-compaction.sh"
SECTOR = 512
BLOCK_SECTORS = 4096 // SECTOR
ZONE_SECTORS = 8192             # conf/zns-lab.conf: 4 MiB zones, all writable
FILL_SECTORS = (256 << 10) // SECTOR
PLAN_ENV = {"LBA_BYTES": str(SECTOR), "zone_lbas": str(ZONE_SECTORS),
            "cap_lbas": str(ZONE_SECTORS), "mssrl": "1024", "mcl": "4096", "msrc": "127",
            "chunk_bytes": str(256 << 10), "ZDEV": "ZDEV"}


def _sh(script: str, env: Dict[str, str], stdin: str = "") -> str:
    proc = subprocess.run(["sh", "-c", f'. "{LIB}"; {script}'], input=stdin, text=True,
                          capture_output=True, env={**os.environ, **env})
    if proc.returncode != 0:
        raise RuntimeError(f"{LIB.name}: {script.split()[0]} failed: {proc.stderr.strip()}")
    return proc.stdout


def extents(layout: str, victims: int, pct: int, extent: int) -> str:
    """'victim offset length' lines (LBAs from the zone start), the workload's format."""
    if layout == "contiguous":
        return "".join(f"{v} 0 {extent * BLOCK_SECTORS}\n" for v in range(victims))
    return _sh(f"valid_extents {victims} {pct} {ZONE_SECTORS} {BLOCK_SECTORS}", {})


def _option(line: str, name: str) -> List[int]:
    match = re.search(rf"--{name}=([0-9,]+)", line)
    if not match:
        raise RuntimeError(f"compaction_plan wrote no --{name}: {line}")
    return [int(x) for x in match[1].split(",")]


def records(plan: str) -> Iterator[str]:
    """The plan's nvme commands as trace records (the shell's own lines dropped)."""
    for line in plan.splitlines():
        if line.startswith("nvme copy "):
            starts, blocks = _option(line, "slbs"), _option(line, "blocks")  # 0-based
            ranges = " ".join(f"{s} {n + 1}" for s, n in zip(starts, blocks))
            yield f"C {_option(line, 'sdlba')[0]} 1 {ranges}"
        elif line.startswith("nvme read "):
            yield f"ZR {_option(line, 'start-block')[0]} {_option(line, 'block-count')[0] + 1}"
        elif line.startswith("nvme zns zone-append "):
            yield f"ZA {_option(line, 'zslba')[0]} {_option(line, 'data-size')[0] // SECTOR}"
        elif line.startswith("nvme zns reset-zone "):
            yield f"ZM reset {_option(line, 'start-lba')[0]} 0"


def trace_lines(method: str, layout: str, victims: int, pct: int, extent: int) -> Iterator[str]:
    valid = extents(layout, victims, pct, extent)
    moved = sum(int(line.split()[2]) for line in valid.splitlines()) // BLOCK_SECTORS
    what = f"{pct} % valid" if layout == "fragmented" else f"{extent} blocks each"
    if method == "none":
        yield (f"# zns-compaction in ftl-sim (conf/zns-lab.conf): {victims} victim zones "
               "filled, the fill alone (every compaction trace starts with it)")
    else:
        yield (f"# zns-compaction in ftl-sim (conf/zns-lab.conf): {victims} victim zones, "
               f"{layout} ({what}), method {method}: {moved} pages moved")
    made = f"--method {method} --victims {victims}"
    if method != "none":
        made += (f" --layout {layout} --pct {pct}" if layout == "fragmented"
                 else f" --layout {layout} --extent {extent}")
    yield f"# made by: python -m femu_lab.zns.compaction_trace {made}"
    for v in range(victims):
        for at in range(0, ZONE_SECTORS, FILL_SECTORS):
            yield f"ZW {v * ZONE_SECTORS + at} {FILL_SECTORS}"
    if method == "none":
        return
    with tempfile.TemporaryDirectory() as work:
        plan = _sh(f"compaction_plan {method} 0 {2 * victims}", {**PLAN_ENV, "work": work},
                   valid)
    yield from records(plan)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m femu_lab.zns.compaction_trace",
        description="zns-compaction's fill and plan as a version-1 ftl-sim trace")
    parser.add_argument("--method", choices=("copy", "rw", "none"), required=True,
                        help="copy: Simple Copy; rw: zone read + Zone Append; none: the "
                             "fill alone")
    parser.add_argument("--layout", choices=("fragmented", "contiguous"),
                        default="fragmented")
    parser.add_argument("--victims", type=int, default=8, help="victim zones (default 8)")
    parser.add_argument("--pct", type=int, default=50,
                        help="fragmented: percent of runs valid (default 50)")
    parser.add_argument("--extent", type=int, default=512,
                        help="contiguous: valid blocks per victim (default 512)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if not 1 <= args.victims <= 32:
        parser.error("--victims must be 1..32 (targets follow the 2 x victims zones)")
    if not 1 <= args.pct <= 100:
        parser.error("--pct must be 1..100")
    if not 1 <= args.extent <= ZONE_SECTORS // BLOCK_SECTORS:
        parser.error(f"--extent must be 1..{ZONE_SECTORS // BLOCK_SECTORS}")
    try:
        lines = list(trace_lines(args.method, args.layout, args.victims, args.pct,
                                 args.extent))
    except (OSError, RuntimeError) as e:
        print(f"compaction_trace: error: {e}", file=sys.stderr)
        return 1
    args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
