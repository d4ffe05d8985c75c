"""The workload library: guest shell scripts with a header the host reads.

A workload is a file `scripts/workloads/NAME.sh` (or any file given by path). Its leading
comment lines carry `# key: value` headers:

    # description: one line for `--list`
    # runtime: 300            default seconds of each timed run (--runtime overrides)
    # runs: 1                 timed runs in the job (studies run several), for the ETA
    # needs-mib: 2400         logical capacity the workload needs (checked before boot)
    # arg: 1.2                default for NAME:ARG (e.g. zipf:1.2 -> file zipf.sh, ARG=1.2)
    # include: lib/hotcold.sh shell code inlined before the body (relative to the library,
                              and inside it)
    # sim: --rw randwrite ... the same workload for ftl-sim (--engine sim); $ARG expands;
                              only the workload options of SIM_OPTIONS (a key-value
                              workload's --kv-keys and --qd are its VM run's too:
                              run/kv_params)
    # sweep-param: numjobs    the parameter a study varies (its plots use it)
    # workload-keys: bs iodepth   the sweep's wl.* keys its guest job honours (femu_lab.run.
                              workload_params: its measured fio calls use fio_json)
    # length: 1920m of I/O + 3 x RUNTIME   what the workload phase will take, when not
                              `runs x RUNTIME` seconds (femu_lab.length)
    # config: kv-lab.conf     the device configuration it runs on without --config (a
                              file of conf/)
    # device: kv_ns_mb=256    -device femu properties it needs (only DEVICE_KEYS, whole
                              numbers), e.g. the Key Value namespace

Other comment lines are prose. The body runs in the guest under `set -eu` after
lib/prelude.sh, with RUNTIME, ARG, PRECONDITION and WORKLOAD set, and must call `phase workload` where the measured part
starts. Dropping a file into the folder adds a workload.

A recorded I/O trace (FILE.trace: run-blackbox.sh --record's io.trace, or ftl-sim
--trace-out; version 2, 3, or 4 under placement=fdp) is a workload too, for ftl-sim only: it replays the recorded requests at their
recorded times, so a sweep runs the one block stream of a VM run under every setting.
"""
import math
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from femu_common.errors import InputError

from . import length as run_length, paths
from .run.workload_params import FIO_KEYS

LIBRARY = paths.REPO_ROOT / "scripts" / "workloads"
PRELUDE = LIBRARY / "lib" / "prelude.sh"
CONFIGS = paths.REPO_ROOT / "conf"
_HEADER = re.compile(r"^#\s*([a-z][a-z-]*):\s*(.*?)\s*$")
_KNOWN = {"description", "runtime", "runs", "needs-mib", "arg", "include", "sim",
          "sweep-param", "length", "workload-keys", "config", "device"}
# What a '# device:' line may set: properties that add what the workload runs on, never a
# file (config=, stats_dir=, state_in= ...).
DEVICE_KEYS = {"kv_ns_mb", "zrwa_zones"}
_ARG = re.compile(r"^[A-Za-z0-9_.+-]+$")
# What a '# sim:' line may set: ftl-sim's workload options, nothing that names a file
# (--trace-out, --stats-dir, --summary, --state-in/out, --trace, --config would let a
# workload file read or overwrite any host file the user can).
SIM_OPTIONS = {"--rw", "--rwmixread", "--dist", "--bs", "--qd", "--size", "--precondition",
               "--io-size", "--runtime", "--seed", "--stream", "--zone", "--fdp", "--fdp-hot",
               "--idle", "--kv", "--kv-mix", "--kv-dist", "--kv-keys", "--kv-ops",
               "--kv-value-size"}
SIM_FLAGS = {"--kv"}           # options of SIM_OPTIONS that take no value
TRACE_SUFFIX = ".trace"
NS_PER_S = 1_000_000_000
_TIMED_RECORDS = {"W", "R", "D", "F", "Y", "X", "P", "A", "E", "ZW", "ZA", "ZR", "ZM", "C",
                  "U"}


class WorkloadError(InputError):
    """A workload that cannot be found or whose header is malformed (one line)."""


@dataclass
class Workload:
    name: str                      # as the user wrote it, e.g. zipf:1.2
    path: Path
    arg: str                       # "" when none
    description: str
    runtime: int
    runs: int
    needs_mib: int
    includes: List[Path] = field(default_factory=list)
    sim_args: Optional[str] = None
    sweep_param: Optional[str] = None
    body: str = ""
    trace: Optional[Path] = None   # a recorded trace: replayed by ftl-sim, no guest script
    length_header: Optional[str] = None   # '# length:' (None: runs x RUNTIME)
    fixed_length: Optional[run_length.Length] = None   # known outright (a trace replay)
    workload_keys: List[str] = field(default_factory=list)   # '# workload-keys:'
    config: Optional[Path] = None   # '# config:': its default device configuration
    device: Dict[str, str] = field(default_factory=dict)   # '# device:' properties

    @property
    def slug(self) -> str:
        """The name as a folder-name part: zipf:1.2 -> zipf-1.2."""
        return re.sub(r"[^A-Za-z0-9_.+-]", "-", self.name)

    def length(self, runtime: int) -> run_length.Length:
        """What the workload phase will take with RUNTIME = runtime: the progress line's
        total, params.json's plan, the job's time limit."""
        if self.fixed_length is not None:
            return self.fixed_length
        if self.length_header:
            return run_length.parse(self.length_header, runtime)
        return run_length.Length(seconds=runtime * self.runs)

    def simulator_args(self) -> List[str]:
        if not self.sim_args:
            raise WorkloadError(f"workload '{self.name}' has no '# sim:' line: it cannot run "
                                "in ftl-sim")
        return shlex.split(self.sim_args.replace("$ARG", self.arg))

    def require_guest(self) -> None:
        """WorkloadError for a workload with no guest script (a recorded trace)."""
        if self.trace:
            raise WorkloadError(f"workload '{self.name}' is a recorded trace: it replays in "
                                "ftl-sim only (femu-lab sweep --engine sim)")

    def guest_script(self, runtime: int, precondition: bool,
                     fio_args: Sequence[str] = (),
                     variables: Optional[Dict[str, str]] = None) -> str:
        """The whole job: variables, prelude, includes, optional precondition, body, end.
        fio_args: options fio_json appends to each measured fio call (a sweep's wl.*);
        variables: more of the job's variables (a KV load's KV_KEYS, run/kv_params)."""
        self.require_guest()
        # Names come from the user (a file's name may hold a newline or '$(...)'): they
        # enter the job only as quoted words, never in a comment, where a newline would
        # end the comment and run the rest as root in the guest.
        parts = ["#!/bin/sh",
                 "# femu workload: WORKLOAD is its name, WORKLOAD_FILE its file",
                 f"RUNTIME={runtime}",
                 f"ARG={shlex.quote(self.arg)}",
                 f"PRECONDITION={1 if precondition else 0}",
                 f"WORKLOAD={shlex.quote(self.name)}",
                 f"WORKLOAD_FILE={shlex.quote(self.path.name)}",
                 f"WL_FIO_ARGS={shlex.quote(' '.join(fio_args))}"]
        parts += [f"{name}={shlex.quote(value)}" for name, value in (variables or {}).items()]
        parts += [PRELUDE.read_text()]
        parts += [path.read_text() for path in self.includes]
        parts += ["precondition_device" if precondition else "", self.body, "finish_workload"]
        return "\n".join(parts) + "\n"


def library_names(library: Path = LIBRARY) -> List[str]:
    return sorted(p.stem for p in library.glob("*.sh"))


def resolve(spec: str, library: Path = LIBRARY) -> Workload:
    """NAME, NAME:ARG, or a path to a workload file."""
    candidate = Path(spec)
    if spec.endswith(TRACE_SUFFIX):
        if not candidate.is_file():
            raise WorkloadError(f"trace file {spec} does not exist")
        return from_trace(candidate)
    if ("/" in spec or spec.endswith(".sh")) and candidate.is_file():
        return parse(candidate, candidate.stem, "")
    if "/" in spec or spec.endswith(".sh"):
        raise WorkloadError(f"workload file {spec} does not exist")
    stem, _, arg = spec.partition(":")
    path = library / f"{stem}.sh"
    if not stem or not path.is_file():
        known = ", ".join(library_names(library))
        raise WorkloadError(f"unknown workload '{spec}' (known: {known}; or give a file path)")
    if arg and not _ARG.match(arg):
        raise WorkloadError(f"workload '{spec}': argument '{arg}' may only hold letters, digits "
                            "and . _ + -")
    return parse(path, spec, arg)


def _read_text(path: Path) -> str:
    """path's text; WorkloadError (one line) for a binary or unreadable file."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise WorkloadError(f"{path} is not a text file (byte {error.start} is not "
                            "UTF-8)") from None
    except OSError as error:
        raise WorkloadError(f"{path}: {error.strerror}") from None


def parse(path: Path, name: str, arg: str) -> Workload:
    headers: Dict[str, List[str]] = {}
    lines = _read_text(path).splitlines()
    body_start = 0
    for number, line in enumerate(lines):
        if line.startswith("#!") and number == 0:
            continue
        if not line.startswith("#"):
            body_start = number
            break
        match = _HEADER.match(line)
        if match and match.group(1) in _KNOWN:
            headers.setdefault(match.group(1), []).append(match.group(2))
    else:
        body_start = len(lines)

    def number_of(key: str, default: int, minimum: int) -> int:
        values = headers.get(key, [str(default)])
        try:
            value = int(values[-1])
        except ValueError:
            raise WorkloadError(f"{path}: header '{key}': '{values[-1]}' is not a whole number") \
                from None
        if value < minimum:
            raise WorkloadError(f"{path}: header '{key}': must be at least {minimum}")
        return value

    includes = []
    library = LIBRARY.resolve()
    for item in headers.get("include", []):
        # relative to the library, and inside it: an include is copied into the guest job
        # and the results, so it must never reach another host file
        include = (library / item).resolve()
        if library not in include.parents:
            raise WorkloadError(f"{path}: include '{item}' is outside the workload library "
                                f"({LIBRARY})")
        if not include.is_file():
            raise WorkloadError(f"{path}: include '{item}' does not exist")
        includes.append(include)
    for sim in headers.get("sim", []):
        _check_sim_line(path, sim)
    keys = " ".join(headers.get("workload-keys", [])).split()
    unknown = [key for key in keys if key not in FIO_KEYS]
    if unknown:
        raise WorkloadError(f"{path}: header 'workload-keys': '{unknown[0]}' is not one of "
                            f"{', '.join(FIO_KEYS)}")
    length_header = headers.get("length", [None])[-1]
    if length_header is not None:
        try:
            run_length.parse(length_header, 1)
        except run_length.LengthError as error:
            raise WorkloadError(f"{path}: header 'length': {error}") from None
    config = None
    if "config" in headers:
        # a file of conf/, by name only: a workload never points at another host file
        config_name = headers["config"][-1]
        config = CONFIGS / config_name
        if "/" in config_name or not config.is_file():
            raise WorkloadError(f"{path}: header 'config': '{config_name}' is not a file of "
                                f"{CONFIGS}")
    device = _device_properties(path, " ".join(headers.get("device", [])))
    default_arg = headers.get("arg", [""])[-1]
    return Workload(
        name=name if (arg or not default_arg) else f"{name}:{default_arg}",
        path=path, arg=arg or default_arg,
        description=headers.get("description", [""])[-1],
        runtime=number_of("runtime", 60, 1), runs=number_of("runs", 1, 1),
        needs_mib=number_of("needs-mib", 0, 0), includes=includes,
        sim_args=headers.get("sim", [None])[-1], sweep_param=headers.get("sweep-param", [None])[-1],
        body="\n".join(lines[body_start:]), length_header=length_header,
        workload_keys=keys, config=config, device=device)


def _device_properties(path: Path, line: str) -> Dict[str, str]:
    """A '# device:' line's KEY=N words; WorkloadError for another key or value."""
    properties = {}
    for word in line.split():
        key, _, value = word.partition("=")
        if key not in DEVICE_KEYS or not value.isdigit():
            raise WorkloadError(f"{path}: header 'device': '{word}' is not KEY=N with KEY "
                                f"one of {', '.join(sorted(DEVICE_KEYS))}")
        properties[key] = value
    return properties


def _check_sim_line(path: Path, line: str) -> None:
    """WorkloadError unless every option of a '# sim:' line is one of SIM_OPTIONS."""
    try:
        words = shlex.split(line)
    except ValueError as error:
        raise WorkloadError(f"{path}: '# sim:' line: {error}") from None
    expects_value = False
    for word in words:
        if word.startswith("-"):
            option = word.split("=", 1)[0]
            if option not in SIM_OPTIONS:
                raise WorkloadError(f"{path}: '# sim:' option {option} is not allowed (a "
                                    f"workload sets only {', '.join(sorted(SIM_OPTIONS))})")
            expects_value = "=" not in word and option not in SIM_FLAGS
        elif expects_value:
            expects_value = False
        else:
            raise WorkloadError(f"{path}: '# sim:' line: '{word}' is not an option's value")


def from_trace(path: Path) -> Workload:
    """A recorded version-2 trace as a workload. Its runtime is the recording's length, so
    a replay covers all of it unless --runtime cuts it short."""
    end_ns = _trace_end_ns(path)
    name = path.parent.name if path.stem == "io" else path.stem   # run-blackbox's io.trace
    return Workload(name=f"replay-{name}", path=path, arg="",
                    description=f"the requests recorded in {path}",
                    runtime=max(1, math.ceil(end_ns / NS_PER_S)), runs=1, needs_mib=0,
                    sim_args=shlex.join(["--trace", str(path.resolve())]), trace=path)


def _trace_end_ns(path: Path) -> int:
    """The time of the last record (the end record, in a complete recording)."""
    with open(path, "rb") as f:
        if f.readline().split() not in ([b"V", b"2"], [b"V", b"3"], [b"V", b"4"]):
            raise WorkloadError(f"{path} is not a recorded trace (a version-2, -3 or -4 "
                                "trace starts with 'V 2', 'V 3' or 'V 4'; see "
                                "hw/femu/ftl/include/femu_ftl/trace.h)")
        f.seek(0, 2)
        f.seek(max(0, f.tell() - 4096))
        lines = [line.split() for line in f.read().decode("ascii", "replace").splitlines()]
    timed = [fields for fields in lines if len(fields) >= 2 and fields[0] in _TIMED_RECORDS
             and fields[1].isdigit()]
    if not timed:
        raise WorkloadError(f"{path} holds no timed record")
    return int(timed[-1][1])
