"""Aged SSD states: age a device in ftl-sim in seconds of host time, and check a state
file before a run starts from it.

    age(request)            fill the logical space once, then `passes` times its capacity
                            of the workload's writes, each pass one ftl-sim run continuing
                            from the last one's state (--state-in / --state-out); the last
                            state is the result, after `rest_s` seconds idle when asked
                            (data retention: the read-retry model's block ages). Each
                            pass's WAF shows the approach to steady state.
    check_state(path, cfg)  the file is a femu state whose recorded configuration cfg
                            matches: ftl-sim restores it (every checksum, the configuration
                            and the FTL's own consistency checks, the C code the device
                            runs at realize) without running anything; one-line AgedError
                            otherwise
    read_meta(path)         the META section (producer, data present or absent, created)

A state aged in ftl-sim holds the FTL's maps and counters but no data: the device restores
it and reads zeroes where a guest would have had data (it says so at start).
"""
import json
import struct
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from femu_common.errors import InputError, RunFailure
from femu_common.progress import counted

from .. import devconfig, output_file
from ..devconfig import DeviceConfig
from ..ftl_sim import CommandError, ftl_sim_reason, run_ftl_sim
from ..workloads import Workload

# The container (hw/femu/statefile/state_file.h): what read_meta needs of it.
MAGIC = b"FEMUSTAT"
STATE_VERSION = 1
HEADER = struct.Struct("<8sIIQ")         # magic, format version, header bytes, reserved
SECTION = struct.Struct("<IIQ")          # tag, reserved, payload bytes
META_TAG = struct.unpack("<I", b"META")[0]
META_MAX_BYTES = 1 << 20                 # STATE_META_MAX_BYTES


class AgedError(InputError):
    """A state file that cannot be used, or a bad ageing request (one line, exit 2)."""


class AgeFailed(RunFailure):
    """ftl-sim failed while ageing (one line, exit 1)."""


@dataclass
class AgeRequest:
    config: DeviceConfig
    workload: Workload
    out: Path
    passes: int = 2           # capacities of workload writes after the fill
    fill: bool = True         # write the whole logical space sequentially first
    seed: int = 1
    rest_s: int = 0           # idle seconds after the last pass (its data ages)


@dataclass
class AgeResult:
    out: Path
    host_seconds: float
    sim_seconds: float
    pass_waf: List[Optional[float]] = field(default_factory=list)
    host_write_pages: int = 0
    state_bytes: int = 0


def read_meta(path: Path) -> Dict[str, str]:
    """The META section's key=value pairs; AgedError when path is not a state file. Reads
    the header and the first section only, META in every file femu writes, held to the
    size the device's reader allows (the device and ftl-sim verify the checksums), so a
    damaged or hostile file costs two short reads."""
    try:
        with open(path, "rb") as f:
            head = f.read(HEADER.size)
            if len(head) < len(MAGIC) or head[:len(MAGIC)] != MAGIC:
                raise AgedError(f"{path}: not a femu state file")
            if len(head) < HEADER.size:
                raise AgedError(f"{path}: truncated")
            _, version, header_bytes, _ = HEADER.unpack(head)
            if version != STATE_VERSION:
                raise AgedError(f"{path}: state format version {version}, this femu reads "
                                f"version {STATE_VERSION}")
            if header_bytes != HEADER.size:
                raise AgedError(f"{path}: corrupt (file header)")
            raw = f.read(SECTION.size)
            if len(raw) < SECTION.size:
                raise AgedError(f"{path}: truncated")
            tag, _, length = SECTION.unpack(raw)
            if tag != META_TAG:
                raise AgedError(f"{path}: corrupt (no META section first)")
            if length > META_MAX_BYTES:
                raise AgedError(f"{path}: corrupt (section META: {length} bytes, at most "
                                f"{META_MAX_BYTES})")
            text = f.read(length)
            if len(text) < length:
                raise AgedError(f"{path}: truncated")
            return dict(line.split("=", 1) for line in
                        text.decode("utf-8", errors="replace").splitlines() if "=" in line)
    except OSError as error:
        raise AgedError(f"{path}: {error.strerror or error}") from None


def check_state(path: Path, config: DeviceConfig,
                ftl_sim: Optional[Path] = None) -> Dict[str, str]:
    """The state's META when ftl-sim restores it under config; AgedError naming the
    problem (missing, truncated, corrupt, another version, a configuration key that
    differs) otherwise."""
    path = Path(path)
    if not path.exists():
        raise AgedError(f"{path}: no such file")
    if not path.is_file():
        raise AgedError(f"{path}: not a file")
    meta = read_meta(path)
    tool = Path(ftl_sim) if ftl_sim else devconfig.ftl_sim_path()
    with tempfile.TemporaryDirectory(prefix="femu-state-check-") as scratch:
        conf = config.write(Path(scratch) / "config.conf")
        # One sector of writes after the restore: the restore is what is checked.
        try:
            run_ftl_sim([tool, "--config", conf, "--state-in", path,
                         "--rw", "write", "--bs", "4k", "--io-size", "4k"])
        except CommandError as error:
            if error.returncode is None:   # ftl-sim did not run: not the state's fault
                raise AgeFailed(str(error)) from None
            raise AgedError(ftl_sim_reason(error)) from None
    return meta


def pass_command(request: AgeRequest, conf: Path, number: int, state_in: Optional[Path],
                 state_out: Path, summary: Path, ftl_sim: Path) -> List[str]:
    """ftl-sim for pass `number` (1 first): one logical capacity of the workload's I/O."""
    args = [str(ftl_sim), "--config", str(conf), *request.workload.simulator_args(),
            "--io-size", str(request.config.logical_bytes),
            "--seed", str(request.seed + number - 1),
            "--state-out", str(state_out), "--summary", str(summary)]
    if state_in is not None:
        args += ["--state-in", str(state_in)]
    elif request.fill:
        args += ["--precondition", "seq"]
    if request.rest_s and number == request.passes:
        # one pause, after the pass's last write: the device rests before the save
        args += ["--idle", f"{request.config.logical_bytes}:{request.rest_s}"]
    return args


def age(request: AgeRequest, ftl_sim: Optional[Path] = None) -> AgeResult:
    tool = Path(ftl_sim) if ftl_sim else devconfig.ftl_sim_path()
    output_file.check_replaceable(request.out, "-o")
    # the link's folder resolved, never the file: a symlink -o is refused, not followed
    out = request.out.parent.resolve() / request.out.name
    result = AgeResult(out=out, host_seconds=0.0, sim_seconds=0.0)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=".femu-age-", dir=out.parent) as scratch:
        work = Path(scratch)
        conf = request.config.write(work / "config.conf")
        previous: Optional[Path] = None
        steps = range(1, request.passes + 1)
        passes = counted(steps, "femu-lab age", "pass")
        for number in passes:
            state = work / f"pass-{number}.state"
            summary = work / f"pass-{number}.json"
            args = pass_command(request, conf, number, previous, state, summary, tool)
            try:
                run_ftl_sim(args)
            except CommandError as error:
                raise AgeFailed(error.saying("ftl-sim", failed=f"failed in pass {number}")) \
                    from None
            figures = json.loads(summary.read_text())
            result.pass_waf.append(figures.get("waf"))
            result.sim_seconds += float(figures.get("sim_time_s") or 0) + \
                float(figures.get("precondition_sim_time_s") or 0)
            result.host_write_pages += int(figures.get("host_write_pages") or 0)
            passes.note(f"WAF {figures.get('waf')}")
            if previous is not None:
                previous.unlink()
            previous = state
        output_file.replace(previous, out, "-o")   # same folder: a rename, atomic
    result.host_seconds = time.monotonic() - started
    result.state_bytes = out.stat().st_size
    return result


def describe(result: AgeResult, request: AgeRequest) -> str:
    fill = f"fill of {request.config.logical_bytes >> 20} MiB, then " if request.fill else ""
    wafs = ", ".join("-" if w is None else f"{w:.3f}" for w in result.pass_waf)
    rest = f", then {request.rest_s} s idle" if request.rest_s else ""
    return (f"aged {request.config.name} in {result.host_seconds:.1f} s of host time "
            f"({result.sim_seconds:.0f} s simulated): {fill}{request.passes} x the capacity "
            f"of {request.workload.name}{rest}; WAF by pass {wafs}; state {result.out} "
            f"({result.state_bytes / (1 << 20):.1f} MiB)")
