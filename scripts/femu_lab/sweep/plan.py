"""What a sweep varies: its `--set` items split into fixed overrides and swept axes, and
the points of the axes' cross product with the folder names they get.

`--set KEY=V1,V2,...`: one value is a fixed override (as in `femu-lab run`), several make
KEY an axis. Points follow the axes in the order given (the first axis varies slowest)
and each axis's values in the order given, so a sweep runs and tabulates as it was typed.

A point's folder is `pNN-KEY-VALUE+KEY-VALUE` (folder_name): its place in the sweep first,
zero-padded, so `ls` and `sort` list the points in sweep order (not 0, 20, 50, 6), and no
`=`, which awk and make take as an assignment. sweep.json's `point_folders` maps each
point's settings to its folder, so tools never parse the names.

Keys named `wl.KEY` are the workload's (wl.bs, wl.iodepth, wl.numjobs, wl.rwmixread,
wl.runtime: run/workload_params.py), the others the SSD's; both sweep alike, and each
value of a workload key is checked here, before anything runs.

`--baseline` (hot/cold sweeps) adds one point before the others: the same device with
placement=single, labelled "single stream (baseline)", instead of reading a hotcold
threshold as the one-stream case (with counts that age, threshold 0 need not be one).
"""
import itertools
import re
from dataclasses import dataclass, field
from typing import Dict, List, Sequence, Tuple

from femu_common.cli_args import key_value
from femu_common.errors import InputError

from ..run import workload_params

_UNSAFE = re.compile(r"[^A-Za-z0-9_.+-]")
# ftl-sim's one key alias (hw/femu/ftl/config/ftl_config_file.c): both spell the logical size.
_ALIASES = {"ssd_size": "devsz_mb"}
BASELINE_LABEL = "single stream (baseline)"
BASELINE_SETTINGS = (("placement", "single"),)


class PlanError(InputError):
    """A malformed --set; the message is one line naming the item."""


@dataclass(frozen=True)
class Point:
    settings: Tuple[Tuple[str, str], ...]   # (swept key, this point's value), axis order
    overrides: Tuple[Tuple[str, str], ...]  # every --set of this point, in the order given
    index: int = 1                          # its place in the sweep, from 1
    count: int = 1                          # the sweep's points (the index's width)
    baseline: bool = False                  # --baseline's placement=single point

    @property
    def name(self) -> str:
        """The point's folder name, e.g. p02-hot_threshold-6+placement-hotcold."""
        if self.baseline:
            return folder_name(self.index, self.count, (("baseline", "single"),))
        return folder_name(self.index, self.count, self.settings)

    @property
    def label(self) -> str:
        """The legend and log label, e.g. 'hot_threshold=6, placement=hotcold'."""
        if self.baseline:
            return BASELINE_LABEL
        return ", ".join(f"{key}={value}" for key, value in self.settings)

    @property
    def device_overrides(self) -> Dict[str, str]:
        """The SSD's --set items of this point (what its configuration takes)."""
        return workload_params.device_overrides(self.overrides)

    @property
    def workload_params(self) -> Dict[str, str]:
        """The workload's (wl.*) of this point, bare names, as the engines get them."""
        return workload_params.of(self.overrides)

    @property
    def workload_labels(self) -> Dict[str, str]:
        """The wl.* items of this point as typed, for params.json's labels."""
        return {key: value for key, value in self.overrides
                if workload_params.is_workload_key(key)}


@dataclass
class SweepPlan:
    keys: List[str] = field(default_factory=list)                 # every key, --set order
    fixed: Dict[str, str] = field(default_factory=dict)           # one-value keys
    axes: List[Tuple[str, List[str]]] = field(default_factory=list)
    baseline: bool = False             # a placement=single point first (add_baseline)

    @property
    def swept_keys(self) -> List[str]:
        return [key for key, _ in self.axes]

    def given(self, key: str) -> bool:
        return key in self.keys

    def points(self) -> List[Point]:
        combinations = list(itertools.product(*(values for _, values in self.axes)))
        first = 2 if self.baseline else 1
        count = len(combinations) + first - 1
        points = [self._baseline(count)] if self.baseline else []
        for index, values in enumerate(combinations, first):
            chosen = dict(zip(self.swept_keys, values))
            points.append(Point(
                settings=tuple(zip(self.swept_keys, values)),
                overrides=tuple((key, chosen.get(key, self.fixed.get(key)))
                                for key in self.keys),
                index=index, count=count))
        return points

    def _baseline(self, count: int) -> Point:
        """The fixed settings with placement=single, without the hot/cold ones."""
        kept = tuple((key, value) for key, value in self.fixed.items()
                     if key != "placement" and not key.startswith("hot_"))
        return Point(settings=BASELINE_SETTINGS, overrides=kept + BASELINE_SETTINGS,
                     index=1, count=count, baseline=True)

    def add_baseline(self) -> None:
        """--baseline: only beside a hot/cold sweep (placement=hotcold fixed, only hot_*
        keys swept), where one stream is the case to compare against; PlanError else."""
        if self.fixed.get("placement") != "hotcold":
            raise PlanError("--baseline adds a placement=single point to a hot/cold sweep: "
                            "give --set placement=hotcold")
        others = [key for key in self.swept_keys if not key.startswith("hot_")]
        if others:
            raise PlanError(f"--baseline: the sweep also varies {others[0]}, which the "
                            "one-stream point would need a value of (sweep hot_* keys only)")
        self.baseline = True


def folder_name(index: int, count: int, settings: Sequence[Tuple[str, str]]) -> str:
    """p02-hot_threshold-6+placement-hotcold: the one rule for a point's folder name."""
    width = max(2, len(str(count)))
    parts = "+".join(f"{key}-{value}" for key, value in settings)
    return f"p{index:0{width}d}-" + _UNSAFE.sub("-", parts)


def is_old_folder_name(name: str) -> bool:
    """A point folder of femu-lab before pNN- names (KEY=VALUE,KEY=VALUE)."""
    return "=" in name


def parse_sets(items: Sequence[str]) -> SweepPlan:
    plan = SweepPlan()
    seen: Dict[str, Tuple[str, bool]] = {}        # canonical key -> (spelling, swept)
    for item in items:
        pair = key_value(item)
        if pair is None:
            raise PlanError(f"--set: expected KEY=VALUE or KEY=V1,V2,..., got '{item}'")
        key, text = pair
        values = [value.strip() for value in text.split(",")]
        if not text.strip():
            raise PlanError(f"--set {key}: empty value list")
        if "" in values:
            raise PlanError(f"--set {key}: empty value in '{text.strip()}'")
        meant = values
        if workload_params.is_workload_key(key):
            try:
                meant = [workload_params.check(key, value) for value in values]
            except workload_params.ParamError as error:
                raise PlanError(str(error)) from None
        repeated = next((v for i, v in enumerate(values) if meant[i] in meant[:i]), None)
        if repeated is not None:
            raise PlanError(f"--set {key}: value '{repeated}' given twice")
        swept = len(values) > 1
        canonical = _ALIASES.get(key, key)
        if canonical in seen:
            earlier, earlier_swept = seen[canonical]
            if swept or earlier_swept:
                also = "" if earlier == key else f" (also as {earlier})"
                raise PlanError(f"--set {key}: swept key given twice{also}; "
                                f"list every value in one --set {key}=V1,V2,...")
            plan.keys.remove(earlier)     # a fixed key given again: the last one wins
            del plan.fixed[earlier]
        seen[canonical] = (key, swept)
        plan.keys.append(key)
        if swept:
            plan.axes.append((key, values))
        else:
            plan.fixed[key] = values[0]
    if not plan.axes:
        raise PlanError("nothing to sweep: give a --set KEY=V1,V2,... with several values "
                        "(one run is 'femu-lab run')")
    _check_names(plan.points())
    return plan


def _check_names(points: List[Point]) -> None:
    """Values that differ only in characters a folder name replaces would share a folder."""
    by_name: Dict[str, Point] = {}
    for point in points:
        other = by_name.setdefault(point.name, point)
        if other is not point:
            raise PlanError(f"--set: points '{other.label}' and '{point.label}' would share "
                            f"the folder {point.name}")
