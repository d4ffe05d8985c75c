"""A real-world trace replayed in the guest: `femu-lab run --trace FILE`.

femu-trace converts the trace (any format it reads) to fio's version-3 iolog aimed at
/dev/nvme0n1, its addresses fitted to the namespace (--trace-lba-map, --device-bytes =
the configuration's logical capacity). The iolog travels gzipped as a guest file (an
fw_cfg item) and fio replays it with read_iolog on the raw device, O_DIRECT, libaio:

    timed   at the trace's arrival times (fio waits for each request's time)
    fast    back to back, in order, as fast as the device takes them (replay_no_stall)

The results folder keeps the iolog the guest replayed (replay.iolog.gz) beside the
device's statistics and fio's JSON (fio-trace-replay.json), as for any run.
"""
import gzip
import math
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Sequence

from ..devconfig import DeviceConfig
from ..length import Length
from ..traces import femu_trace
from ..vm.launch import guest_file_path
from ..workloads import Workload

TIMINGS = ("timed", "fast")
GUEST_IOLOG = "replay.iolog.gz"
FIO_RESULT = "fio-trace-replay"
IODEPTH = 16            # the lab's fio workloads' depth (gc-randwrite); the log keeps order
FIO_FILE = "/dev/nvme0n1"
# The guest job's time limit comes from the workload's runtime. A fast replay has no
# times: allow for a slow TCG guest, a few hundred requests and a few MiB per second.
FAST_REQUESTS_PER_S = 200
FAST_BYTES_PER_S = 4 << 20


@dataclass
class TraceReplay:
    workload: Workload
    guest_files: Dict[str, Path]          # what the VM gets: {GUEST_IOLOG: the iolog}
    summary: Dict[str, object]            # femu-trace info of the source trace
    params: Dict[str, object]             # what params.json records about the replay


def guest_body(timing: str, limit_s: Optional[int] = None) -> str:
    """The workload body: the iolog from its fw_cfg item, then fio replaying it on $DEV
    (replay_redirect: the log names /dev/nvme0n1, the namespace may be another node),
    stopped after limit_s seconds when given."""
    stall = " --replay_no_stall=1" if timing == "fast" else ""
    stall += f" --runtime={limit_s}" if limit_s else ""
    return (f'gunzip -c {guest_file_path(GUEST_IOLOG)} > /tmp/replay.iolog\n'
            f'say "replaying $(wc -l < /tmp/replay.iolog) iolog lines ({timing})"\n'
            "phase workload\n"
            f'fio_json {FIO_RESULT} --name=trace-replay --read_iolog=/tmp/replay.iolog \\\n'
            f'    --replay_redirect="$DEV" --ioengine=libaio --iodepth={IODEPTH} '
            f'--direct=1{stall}\n')


def _runtime(summary: Dict[str, object], timing: str) -> int:
    """Seconds to allow for the replay (the job's time limit): the span when timed, a
    slow guest's pace when fast."""
    if timing == "timed":
        return max(1, math.ceil(int(summary["span_ns"]) / 1e9))
    volume = int(summary["bytes_read"]) + int(summary["bytes_written"])
    return max(1, math.ceil(int(summary["records"]) / FAST_REQUESTS_PER_S
                            + volume / FAST_BYTES_PER_S))


def replay_length(summary: Dict[str, object], timing: str,
                  limit_s: Optional[int] = None) -> Length:
    """What the replay will take, for the live line and params.json: a timed one the
    trace's span (its requests are rebased to the first: the last request's time), or
    limit_s if sooner; a fast one its bytes, however long the device takes for them."""
    if timing == "timed":
        span_s = max(1, math.ceil(int(summary["span_ns"]) / 1e9))
        return Length(seconds=min(span_s, limit_s) if limit_s else span_s)
    volume = int(summary["bytes_read"]) + int(summary["bytes_written"])
    return Length(io_bytes=volume, at_most_s=limit_s,
                  budget_s=limit_s or _runtime(summary, timing))


def prepare(trace: Path, config: DeviceConfig, scratch: Path, timing: str = "timed",
            trace_format: Optional[str] = None, lba_map: str = "modulo",
            limit_s: Optional[int] = None, reader: Sequence[str] = ()) -> TraceReplay:
    """Convert trace into scratch/GUEST_IOLOG (the run copies it into its results folder)
    and describe the replay as a workload; limit_s (--runtime) stops fio early; reader:
    the reader's options (femu_trace.reader_args: filters, units, bad lines).
    femu_trace.TraceToolError (one line) when femu-trace refuses the trace."""
    if timing not in TIMINGS:
        raise ValueError(f"timing '{timing}' is not one of {', '.join(TIMINGS)}")
    summary = femu_trace.info(trace, trace_format, reader)
    iolog = scratch / "replay.iolog"
    femu_trace.convert(trace, iolog, "fio-iolog", trace_format=trace_format,
                       lba_map=lba_map, device_bytes=config.logical_bytes, fio_file=FIO_FILE,
                       reader=reader)
    with open(iolog, "rb") as source, gzip.open(scratch / GUEST_IOLOG, "wb") as target:
        shutil.copyfileobj(source, target)
    iolog.unlink()
    name = trace.name.split(".")[0] or "trace"
    workload = Workload(
        name=f"trace-{name}", path=trace.resolve(), arg="",
        description=f"the requests of {trace.name}, replayed {timing} by fio",
        runtime=limit_s or _runtime(summary, timing), runs=1, needs_mib=0,
        body=guest_body(timing, limit_s), fixed_length=replay_length(summary, timing, limit_s))
    # "runtime" is --runtime's limit (None without): the replay's own length is the plan
    params = {"runtime": limit_s,
              "trace": str(trace.resolve()), "trace_format": summary.get("format"),
              "trace_timing": timing, "trace_lba_map": lba_map,
              "trace_reader_options": " ".join(reader),
              "trace_records": summary.get("records"), "trace_span_ns": summary.get("span_ns")}
    return TraceReplay(workload, {GUEST_IOLOG: scratch / GUEST_IOLOG}, summary, params)
