"""A key-value workload's load (kv-ycsb-*): how many keys it stores before the measured
part and the queue depth kv-load keeps, the same in both engines.

Their defaults are the workload's '# sim:' line (--kv-keys, --qd: what ftl-sim --kv runs
in `femu-lab sweep --engine sim`). A VM run hands them to the guest job as KV_KEYS and
KV_QD (lib/kv.sh, whose own 4000 and 4 serve a workload file without a '# sim:' line), and
records them in params.json; `femu-lab run --kv-keys N --kv-qd N` replaces them for one
run. A workload is a key-value one when it includes lib/kv.sh.
"""
from typing import Dict, Optional

from femu_common.cli_args import UsageError

from ..workloads import Workload, WorkloadError
from .workload_params import option_value

KV_LIB = ("lib", "kv.sh")
QD_MAX = 1024                  # kv-load's --qd (tools/kv-load/kv_options.h)
KEYS_MAX = 500_000_000_000     # kv-load's --keys: half its 10^12 key numbers
# the '# sim:' option, the guest job's variable and params.json's key of each
FIELDS = (("--kv-keys", "KV_KEYS", "kv_keys", KEYS_MAX), ("--qd", "KV_QD", "kv_qd", QD_MAX))


def is_kv(workload: Workload) -> bool:
    return any(path.parts[-2:] == KV_LIB for path in workload.includes)


def _sim_default(workload: Workload, option: str, high: int) -> Optional[int]:
    """option's value on the workload's '# sim:' line, None without one; WorkloadError
    (naming the file) for a value kv-load would refuse."""
    if not workload.sim_args:
        return None
    value = option_value(workload.simulator_args(), option)
    if value is None:
        return None
    if not value.isdigit() or not 1 <= int(value) <= high:
        raise WorkloadError(f"{workload.path}: '# sim:' {option} '{value}' is not a whole "
                            f"number from 1 to {high}")
    return int(value)


def choose(workload: Workload, keys: Optional[int] = None,
           qd: Optional[int] = None) -> Dict[str, int]:
    """{"kv_keys": N, "kv_qd": N} of a key-value workload: the options given, else its
    '# sim:' line's (a value neither gives is left out: lib/kv.sh's default); {} for any
    other workload, and a UsageError if it was given either option."""
    if not is_kv(workload):
        if keys is not None or qd is not None:
            raise UsageError(f"--kv-keys and --kv-qd are for key-value workloads (kv-ycsb-*); "
                             f"'{workload.name}' is not one")
        return {}
    chosen = {}
    for (option, _, key, high), given in zip(FIELDS, (keys, qd)):
        value = given if given is not None else _sim_default(workload, option, high)
        if value is not None:
            chosen[key] = value
    return chosen


def guest_variables(chosen: Dict[str, int]) -> Dict[str, str]:
    """The guest job's variables for choose()'s values: {"KV_KEYS": "4000", ...}."""
    return {variable: str(chosen[key]) for _, variable, key, _ in FIELDS if key in chosen}
