"""Everything a sweep checks before its first run, so a mistake in point 7 of 8 does not
surface hours into a VM sweep: every point's device configuration (the same ftl-sim
validation the device runs), that the workload fits every point's device, that the
simulator can run the workload, and that a swept setting actually changes something.
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

from femu_common.cli_args import size_bytes
from femu_common.errors import InputError

from .. import devconfig
from ..devconfig import ConfigError, DeviceConfig
from ..run import workload_params
from ..workloads import Workload
from .plan import Point, SweepPlan

MIB = 1 << 20


class CheckError(InputError):
    """A sweep that must not start; the message is one line."""


@dataclass
class PlannedPoint:
    point: Point
    config: DeviceConfig


def load_points(config_path: Path, plan: SweepPlan) -> List[PlannedPoint]:
    """Every point's effective configuration; a ConfigError that may come from a swept
    value names the point."""
    planned = []
    fixed_prefixes = tuple(f"--set {key}:" for key in plan.fixed)
    for point in plan.points():
        try:
            config = devconfig.load(config_path, point.device_overrides)
        except ConfigError as error:
            if str(error).startswith(fixed_prefixes):
                raise
            raise ConfigError(f"{error} (point {point.label})") from None
        planned.append(PlannedPoint(point, config))
    return planned


def check_workload_fits(workload: Workload, engine: str, planned: List[PlannedPoint]) -> None:
    sim_bytes = sim_region_bytes(workload) if engine == "sim" else None
    for item in planned:
        config = item.config
        holds = f"{config.name} at {item.point.label} holds {config.logical_bytes // MIB} MiB"
        if workload.needs_mib * MIB > config.logical_bytes:
            raise CheckError(f"workload '{workload.name}' needs {workload.needs_mib} MiB but "
                             f"{holds} (try --config conf/lab-4g.conf)")
        if sim_bytes is not None and sim_bytes > config.logical_bytes:
            raise CheckError(f"workload '{workload.name}' covers {sim_bytes // MIB} MiB in "
                             f"ftl-sim (its '# sim:' --size) but {holds}")


def sim_region_bytes(workload: Workload) -> Optional[int]:
    """The --size of the workload's '# sim:' line in bytes; None when it has none (the
    simulator then covers the whole device) or writes it in a way ftl-sim will judge."""
    args = workload.simulator_args()
    for index, arg in enumerate(args[:-1]):
        if arg == "--size":
            size = size_bytes(args[index + 1], fractions=False)
            if size is not None:
                return int(size)
    return None


def check_workload_params(workload: Workload, engine: str, plan: SweepPlan) -> None:
    """The wl.* keys the workload takes (its '# workload-keys:' header, and runtime),
    in either engine, so a sim preview varies only what the VM run would vary too."""
    keys = [key[len(workload_params.PREFIX):] for key in plan.keys
            if workload_params.is_workload_key(key)]
    refused = workload_params.refusal(workload.name, workload.workload_keys, keys)
    if refused:
        raise CheckError(refused)
    if "runtime" in keys and engine == "sim" and "--io-size" in workload.simulator_args():
        raise CheckError(f"--set wl.runtime: workload '{workload.name}' ends after its "
                         "'# sim:' --io-size in ftl-sim, whatever the runtime")


def check_hot_threshold(plan: SweepPlan, planned: List[PlannedPoint]) -> None:
    """The FTL reads hot_threshold only under placement=hotcold: sweeping it elsewhere would
    compare identical runs, and setting it without any hotcold point changes nothing."""
    if not plan.given("hot_threshold"):
        return
    swept = "hot_threshold" in plan.swept_keys
    placements: Dict[str, str] = {item.point.label: item.config.values.get("placement", "?")
                                  for item in planned if not item.point.baseline}
    others = {label: value for label, value in placements.items() if value != "hotcold"}
    if (swept and others) or len(others) == len(placements):
        label, placement = next(iter(others.items()))
        where = "" if len(others) == len(placements) else f" at {label}"
        raise CheckError(f"--set hot_threshold: placement is {placement}{where}, and the FTL "
                         "ignores hot_threshold unless placement=hotcold "
                         "(add --set placement=hotcold)")


def check_kv_precondition(workload: Workload, engine: str, precondition: bool) -> None:
    """ftl-sim --kv takes no --precondition: a key-value workload's load phase fills it."""
    if engine == "sim" and precondition and "--kv" in workload.simulator_args():
        raise CheckError(f"--precondition: workload '{workload.name}' is key-value (ftl-sim "
                         "--kv): its load phase stores its keys first, there is no block "
                         "device to fill")
