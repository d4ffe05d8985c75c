"""Workload parameters a sweep sets beside the SSD's keys: `--set wl.KEY=V1,V2,...`.

The `wl.` prefix keeps them apart from the device's keys (an SSD has no `bs`). Each key
has one meaning in both engines:

    wl.bs         block size (4k ... 1m, whole 4 KiB)    fio --bs        ftl-sim --bs
    wl.iodepth    requests each job keeps outstanding    fio --iodepth   ftl-sim --qd =
    wl.numjobs    fio jobs (1 ... 64)                    fio --numjobs     iodepth x numjobs
    wl.rwmixread  percent reads (0 ... 100): randrw      fio --rw=randrw --rwmixread
                                                         ftl-sim --rw randrw --rwmixread
    wl.runtime    seconds of the timed run               RUNTIME         ftl-sim --runtime

ftl-sim has one closed loop: N jobs of depth D over one region keep N x D requests
outstanding, which is what its --qd keeps (the offsets of independent uniform or skewed
jobs merged are those of one such stream).

A workload names the keys its guest job honours in a `# workload-keys:` header (its
measured fio calls go through the prelude's fio_json, which appends the overrides, and a
later fio option replaces an earlier one); any other key is refused, in either engine, so
a sim preview never varies what the VM run would not. wl.runtime needs no header: every
timed workload reads RUNTIME. A workload that takes iodepth or numjobs runs one job by
default, its '# sim:' --qd being its iodepth.
"""
import re
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from femu_common.cli_args import size_bytes
from femu_common.errors import InputError

PREFIX = "wl."
KIB = 1024
MAX_RUNTIME_S = 7 * 24 * 3600
FIO_KEYS = ("bs", "iodepth", "numjobs", "rwmixread")     # what a header may list
KEYS = FIO_KEYS + ("runtime",)
_WHOLE = re.compile(r"^[0-9]+$")


class ParamError(InputError):
    """A workload parameter that is unknown or out of range; one line naming it."""


def is_workload_key(key: str) -> bool:
    return key.startswith(PREFIX)


def check(key: str, value: str) -> str:
    """The value as the engines get it (bs in bytes); ParamError naming key and value."""
    name = key[len(PREFIX):]
    if name not in KEYS:
        raise ParamError(f"--set {key}: unknown workload key (known: "
                         f"{', '.join(PREFIX + k for k in KEYS)})")
    if name == "bs":
        size = size_bytes(value, fractions=False)
        if size is None or size % (4 * KIB) or not 4 * KIB <= size <= 1024 * KIB:
            raise ParamError(f"--set {key}: '{value}' is not a block size of whole 4 KiB "
                             "from 4k to 1m")
        return str(int(size))
    low, high = {"iodepth": (1, 1024), "numjobs": (1, 64), "rwmixread": (0, 100),
                 "runtime": (1, MAX_RUNTIME_S)}[name]
    if not _WHOLE.match(value) or not low <= int(value) <= high:
        raise ParamError(f"--set {key}: '{value}' is not a whole number from {low} to {high}")
    return str(int(value))


def of(overrides: Sequence[Tuple[str, str]]) -> Dict[str, str]:
    """The workload parameters among a point's --set items, checked: {'bs': '16384'}."""
    return {key[len(PREFIX):]: check(key, value) for key, value in overrides
            if is_workload_key(key)}


def device_overrides(overrides: Sequence[Tuple[str, str]]) -> Dict[str, str]:
    """The SSD's keys among a point's --set items (what the configuration takes)."""
    return {key: value for key, value in overrides if not is_workload_key(key)}


def refusal(workload_name: str, takes: Sequence[str], keys: Sequence[str]) -> Optional[str]:
    """One line if the workload does not take one of keys (bare names), else None."""
    for key in keys:
        if key != "runtime" and key not in takes:
            listed = ", ".join(PREFIX + k for k in list(takes) + ["runtime"])
            return (f"--set {PREFIX}{key}: workload '{workload_name}' does not take it (it "
                    f"takes {listed}; its '# workload-keys:' header)")
    return None


def runtime(params: Mapping[str, str], default: int) -> int:
    return int(params["runtime"]) if "runtime" in params else default


def record(params: Mapping[str, str], steady_rule=None) -> Dict[str, object]:
    """What params.json adds: the workload parameters as the engines got them (bs in
    bytes) and the steady-state rule, when a sweep gave them."""
    out: Dict[str, object] = {}
    if params:
        out["workload_params"] = {key: int(value) for key, value in params.items()}
    if steady_rule is not None:
        out["steady"] = steady_rule.spec
    return out


def fio_args(params: Mapping[str, str]) -> List[str]:
    """The fio options the guest's fio_json appends to each measured fio call."""
    args = []
    if "bs" in params:
        args.append(f"--bs={params['bs']}")
    if "iodepth" in params:
        args.append(f"--iodepth={params['iodepth']}")
    if "numjobs" in params:   # one result over the jobs, as fio_result reads it
        args += [f"--numjobs={params['numjobs']}", "--group_reporting"]
    if "rwmixread" in params:
        args += ["--rw=randrw", f"--rwmixread={params['rwmixread']}"]
    return args


def sim_args(args: Sequence[str], params: Mapping[str, str]) -> List[str]:
    """A '# sim:' line's options with the parameters applied (a later ftl-sim option
    replaces an earlier one, as in fio)."""
    out = list(args)
    if "bs" in params:
        out += ["--bs", params["bs"]]
    if "iodepth" in params or "numjobs" in params:
        depth = int(params.get("iodepth") or option_value(args, "--qd") or 1)
        out += ["--qd", str(depth * int(params.get("numjobs", 1)))]
    if "rwmixread" in params:
        out += ["--rw", "randrw", "--rwmixread", params["rwmixread"]]
    return out


def option_value(args: Sequence[str], name: str) -> Optional[str]:
    """The last value of option name in args (--name V or --name=V)."""
    value = None
    for index, arg in enumerate(args):
        if arg == name and index + 1 < len(args):
            value = args[index + 1]
        elif arg.startswith(name + "="):
            value = arg.split("=", 1)[1]
    return value
