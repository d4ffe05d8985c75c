"""femu-trace, the C tool that reads every trace format ftl-sim replays, run from Python:

    femu-trace info FILE --json [--trace-format F]      what a trace holds, as JSON
    femu-trace convert IN OUT --to fio-iolog|femu|mqsim [options]   one format to another

It is built beside ftl-sim (build/release/tools/femu-trace/femu-trace, FEMU_BUILD_DIR
overrides the folder). Its own messages (exit status 2 and `FILE:LINE: ...` for a bad
trace) are what the user sees: run() hands back its exit status and stderr untouched.
"""
import json
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Union

from femu_common.cli_args import whole_number
from femu_common.command import CommandError, run as run_command
from femu_common.errors import RunFailure

from .. import devconfig

NAME = "femu-trace"
TARGETS = ("fio-iolog", "femu", "mqsim")        # what convert writes
READ_FORMATS = ("auto", "msr", "spc", "blkparse", "fio-iolog", "mqsim", "disksim", "femu")
LBA_MAPS = ("modulo", "scale", "refuse")
MIB = 1 << 20


class TraceToolError(RunFailure):
    """femu-trace is missing, or failed; one line (its own last line when it said one)."""


class TraceToolMissing(TraceToolError):
    """femu-trace is not built (a setup problem, not a bad trace)."""


def tool_path() -> Path:
    return devconfig.c_tool_path(NAME)


def require_tool() -> Path:
    path = tool_path()
    if not path.exists():
        raise TraceToolMissing(f"{path} is not built: build it with 'meson setup build/release "
                             "--buildtype=release && ninja -C build/release'")
    return path


def run(args: Sequence[Union[str, Path]]) -> subprocess.CompletedProcess:
    """femu-trace with args, to its end, output captured, whatever its exit status;
    TraceToolError when it is missing or cannot start."""
    try:
        return run_command([require_tool(), *args], NAME, check=False,
                           stdin=subprocess.DEVNULL)
    except CommandError as error:
        raise TraceToolError(str(error)) from None


# The reader's options femu-trace passes on to every format's reader (filters, units,
# bad lines): (flag, argparse keyword arguments); reader_args turns parsed ones back.
READER_OPTIONS = (
    ("--trace-host", dict(metavar="NAME", help="msr: only this Hostname's requests")),
    ("--trace-disk", dict(type=whole_number(0, 2 ** 64 - 1), metavar="N",
                          help="msr DiskNumber, mqsim and disksim device: only this one")),
    ("--trace-asu", dict(choices=("stream", "offset"),
                         help="spc: the ASU becomes a placement stream or an offset region")),
    ("--trace-events", dict(choices=("queue", "complete"),
                            help="blkparse: replay queue (Q, default) or completion (C) events")),
    ("--trace-sector-size", dict(type=whole_number(1, 1 << 20), metavar="N",
                                 help="the sector unit of blkparse, spc, mqsim, disksim "
                                      "(default 512)")),
    ("--trace-skip-bad", dict(action="store_true",
                              help="skip and count bad lines instead of failing")),
)


def add_reader_arguments(parser) -> None:
    for flag, options in READER_OPTIONS:
        parser.add_argument(flag, **options)


def reader_args(args) -> List[str]:
    """The reader options given on a parsed command line, as femu-trace arguments."""
    out: List[str] = []
    for flag, _ in READER_OPTIONS:
        value = getattr(args, flag[2:].replace("-", "_"), None)
        if value is True:
            out.append(flag)
        elif value is not None and value is not False:   # 0 == False: --trace-disk 0 counts
            out += [flag, str(value)]
    return out


def info_args(trace: Path, trace_format: Optional[str] = None,
              reader: Sequence[str] = ()) -> List[str]:
    args = ["info", str(trace), "--json"]
    if trace_format:
        args += ["--trace-format", trace_format]
    return args + list(reader)


def convert_args(source: Path, target: Path, to: str, trace_format: Optional[str] = None,
                 lba_map: Optional[str] = None, device_bytes: Optional[int] = None,
                 trace_time: Optional[str] = None,
                 fio_file: Optional[str] = None, reader: Sequence[str] = ()) -> List[str]:
    args = ["convert", str(source), str(target), "--to", to]
    for option, value in (("--trace-format", trace_format), ("--trace-lba-map", lba_map),
                          ("--device-bytes", device_bytes), ("--trace-time", trace_time),
                          ("--fio-file", fio_file)):
        if value is not None:
            args += [option, str(value)]
    return args + list(reader)


def _checked(proc: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        reason = lines[-1].strip() if lines else "no message"
        raise TraceToolError(f"{NAME} failed (exit status {proc.returncode}): {reason}")
    return proc


def info(trace: Path, trace_format: Optional[str] = None,
         reader: Sequence[str] = ()) -> Dict[str, object]:
    """femu-trace info's JSON as a dict; TraceToolError when it fails."""
    proc = _checked(run(info_args(trace, trace_format, reader)))
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as error:
        raise TraceToolError(f"{NAME} info printed no JSON ({error})") from None


def convert(source: Path, target: Path, to: str, **options) -> None:
    """femu-trace convert; TraceToolError when it fails (it then writes nothing)."""
    _checked(run(convert_args(source, target, to, **options)))


def size_text(count: float) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", MIB), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count:.0f} B"


def _share(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:5.1f} %" if whole else "    - "


def describe(trace: Path, summary: Dict[str, object]) -> str:
    """femu-trace info's JSON in words: format, records, span, mix, footprint, sizes."""
    records = int(summary["records"])
    span_s = int(summary["span_ns"]) / 1e9
    lines = [f"{trace}: {summary['format']} trace, {records:,} records over {span_s:.3f} s"
             + (f" ({records / span_s:,.0f} requests/s)" if span_s > 0 else "")]
    for kind, count, volume in (("reads", summary["reads"], summary["bytes_read"]),
                                ("writes", summary["writes"], summary["bytes_written"])):
        lines.append(f"  {kind:<8}{int(count):>12,}  {_share(int(count), records)}  "
                     f"{size_text(int(volume))}")
    for kind in ("trims", "flushes"):
        lines.append(f"  {kind:<8}{int(summary[kind]):>12,}  "
                     f"{_share(int(summary[kind]), records)}")
    approximate = " (approximate)" if summary.get("footprint_approximate") else ""
    lines.append(f"  footprint {size_text(int(summary['footprint_bytes']))} in distinct 4 KiB "
                 f"pages{approximate}")
    if summary.get("extent_bytes") is not None:
        extent = int(summary["extent_bytes"])
        lines.append(f"  largest address {size_text(extent)} ({extent:,} bytes, the end of the "
                     "highest request): a device of this many logical bytes holds the trace "
                     "as it is, a smaller one needs --trace-lba-map")
    dropped = {key: int(summary.get(key) or 0)
               for key in ("skipped_bad", "zero_length", "filtered")}
    if any(dropped.values()):
        lines.append("  left out: " + ", ".join(f"{count:,} {key.replace('_', ' ')}"
                                                for key, count in dropped.items() if count))
    histogram = summary.get("size_histogram") or {}
    if histogram:
        lines.append("  request sizes (up to):")
        requests = sum(histogram.values())
        for bound in sorted(histogram, key=int):
            count = histogram[bound]
            bar = "#" * round(40 * count / requests) if requests else ""
            lines.append(f"    {size_text(int(bound)):>10} {count:>12,} "
                         f"{_share(count, requests)} {bar}")
    return "\n".join(lines)
