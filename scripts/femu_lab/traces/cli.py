"""`femu-lab trace`: synthetic traces, and femu-trace's info and convert.

    femu-lab trace generate --format F --records N [--seed S] [--footprint BYTES]
                            [--read-fraction X] OUT
    femu-lab trace info FILE [--trace-format F] [--json]
    femu-lab trace convert IN OUT --to fio-iolog|femu|mqsim [--trace-format F]
                           [--trace-lba-map M --device-bytes N] [--trace-time T]
                           [--fio-file PATH]

info and convert run femu-trace (build/release/tools/femu-trace): its exit status and
its messages are theirs (2 and `FILE:LINE: ...` for a bad trace).
"""
import argparse
import json
import os
import sys
from pathlib import Path

from femu_common.cli_args import UsageError, describe, number, size_bytes, whole_number

from .. import output_file
from . import femu_trace, generate as generator, requests
from .writers import WRITERS

PROG = "femu-lab trace"


def footprint_bytes(text: str) -> int:
    value = size_bytes(text, fractions=False)
    if value is None or value <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a size (e.g. 512M, 4GiB)")
    return int(value)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    describe(parser, __doc__.split("\n\n")[0].strip())
    actions = parser.add_subparsers(dest="trace_command", metavar="ACTION",
                                    parser_class=type(parser))
    actions.required = True
    gen = actions.add_parser(
        "generate", help="a synthetic trace in one of the formats the readers know",
        description="Writes N seeded requests (reads and writes of 4 KiB to 256 KiB, "
                    "exponential arrival gaps) in format F; the same seed gives the same "
                    "requests in every format. OUT ending in .gz or .xz is compressed.")
    gen.add_argument("--format", required=True, choices=list(WRITERS), dest="trace_format")
    gen.add_argument("--records", required=True, type=whole_number(1, 10 ** 10), metavar="N")
    gen.add_argument("--seed", type=whole_number(0, 2 ** 63), default=1, metavar="S",
                     help="random seed (default 1)")
    gen.add_argument("--footprint", type=footprint_bytes, default=requests.DEFAULT_FOOTPRINT,
                     metavar="BYTES", help="the addresses requests fall in, from 0 "
                     f"(default {requests.DEFAULT_FOOTPRINT >> 20}M)")
    gen.add_argument("--read-fraction", type=number(0.0, 1.0),
                     default=requests.DEFAULT_READ_FRACTION, metavar="X",
                     help=f"share of reads (default {requests.DEFAULT_READ_FRACTION})")
    gen.add_argument("out", type=Path, metavar="OUT")

    info = actions.add_parser("info", help="what a trace holds (femu-trace info)",
                              description="Records, span, read/write mix, footprint and "
                                          "request sizes of a trace, in any format.")
    info.add_argument("trace", type=Path, metavar="FILE")
    info.add_argument("--trace-format", choices=femu_trace.READ_FORMATS,
                      help="the trace's format (default: auto, from its content)")
    info.add_argument("--json", action="store_true", help="femu-trace's JSON as it is")
    femu_trace.add_reader_arguments(info)

    convert = actions.add_parser(
        "convert", help="a trace in another format (femu-trace convert)",
        description="Converts a trace to fio's version-3 iolog, femu's trace or MQSim's; "
                    "a bad input line stops it (exit 2, FILE:LINE) with nothing written.")
    convert.add_argument("source", type=Path, metavar="IN")
    convert.add_argument("target", type=Path, metavar="OUT")
    convert.add_argument("--to", required=True, choices=femu_trace.TARGETS)
    convert.add_argument("--trace-format", choices=femu_trace.READ_FORMATS)
    convert.add_argument("--trace-lba-map", choices=femu_trace.LBA_MAPS,
                         help="addresses past --device-bytes: wrapped (modulo), scaled "
                              "into the device (scale) or refused")
    convert.add_argument("--device-bytes", type=whole_number(1, 2 ** 62), metavar="N")
    convert.add_argument("--trace-time", metavar="scale=F|closed-loop",
                         help="arrival times scaled by F, or dropped (closed-loop)")
    convert.add_argument("--fio-file", metavar="PATH",
                         help="the file a fio iolog addresses (default femu-trace's)")
    femu_trace.add_reader_arguments(convert)


def run(args: argparse.Namespace, prog: str = PROG) -> int:
    if args.trace_command == "generate":
        return _generate(args, prog)
    if args.trace_command == "info":
        return _info(args)
    return _convert(args)


def _generate(args, prog: str) -> int:
    try:
        counts = generator.generate(args.out, args.trace_format, args.records, args.seed,
                                    args.footprint, args.read_fraction)
    except ValueError as error:
        raise UsageError(str(error)) from None
    print(f"{prog}: {counts.records:,} {args.trace_format} records ({counts.reads:,} reads, "
          f"{counts.writes:,} writes) over {counts.span_ns / 1e9:.3f} s, footprint "
          f"{femu_trace.size_text(counts.footprint_bytes)}", file=sys.stderr)
    print(args.out)
    return 0


def _passed_through(proc) -> int:
    """femu-trace's stderr on ours, its exit status as ours."""
    if proc.stderr:
        sys.stderr.write(proc.stderr)
    return proc.returncode


def _info(args) -> int:
    proc = femu_trace.run(femu_trace.info_args(args.trace, args.trace_format,
                                               femu_trace.reader_args(args)))
    if proc.returncode != 0 or args.json:
        sys.stdout.write(proc.stdout)
        return _passed_through(proc)
    _passed_through(proc)
    try:
        summary = json.loads(proc.stdout)
    except json.JSONDecodeError as error:
        raise femu_trace.TraceToolError(f"femu-trace info printed no JSON ({error})") \
            from None
    print(femu_trace.describe(args.trace, summary))
    return 0


def _same_file(source: Path, target: Path) -> bool:
    try:
        return os.path.samefile(source, target)
    except OSError:      # one of them is missing: femu-trace says so about IN
        return False


def _convert(args) -> int:
    if args.trace_lba_map and args.trace_lba_map != "refuse" and args.device_bytes is None:
        raise UsageError(f"--trace-lba-map {args.trace_lba_map} needs --device-bytes")
    # femu-trace renames its output over OUT too: the same check, before it runs
    output_file.check_replaceable(args.target, "OUT")
    if _same_file(args.source, args.target):
        raise UsageError(f"IN and OUT are the same file ({args.target}): the conversion "
                         "would replace the trace it reads")
    proc = femu_trace.run(femu_trace.convert_args(
        args.source, args.target, args.to, trace_format=args.trace_format,
        lba_map=args.trace_lba_map, device_bytes=args.device_bytes,
        trace_time=args.trace_time, fio_file=args.fio_file,
        reader=femu_trace.reader_args(args)))
    sys.stdout.write(proc.stdout)
    return _passed_through(proc)
