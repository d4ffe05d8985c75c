"""The runs of the hot/cold table: one stream, then each threshold with exact counts
(hot_decay=off) and with counts that age, per distribution and layout."""
from dataclasses import dataclass
from typing import List, Sequence, Tuple

# full: the whole logical space written first, the workload over all of it (the issue's
# "lab-1g full"); region: the hot/cold lab's 576 MiB file, written first, as fio lays it out.
LAYOUTS = {
    "full": ("--precondition", "seq"),
    "region": ("--size", "576m", "--precondition", "region"),
}


@dataclass(frozen=True)
class Case:
    dist: str
    layout: str
    placement: str           # single | hotcold
    threshold: int = 0
    decay: str = "off"       # hot_decay: off or host page writes between halvings

    @property
    def label(self) -> str:
        if self.placement == "single":
            return "single stream"
        aging = "exact counts" if self.decay == "off" else f"aging every {self.decay}"
        return f"hotcold threshold {self.threshold}, {aging}"

    @property
    def folder(self) -> str:
        """A name shell tools take as a path (no '=' or ':'); thresholds zero-padded, so
        a listing sorts them in numeric order."""
        tail = "single" if self.placement == "single" else \
            f"hotcold-t{self.threshold:03d}-decay-{self.decay}"
        return f"{self.dist.replace(':', '')}-{self.layout}-{tail}"

    def sets(self) -> Tuple[str, ...]:
        pairs = [f"placement={self.placement}"]
        if self.placement == "hotcold":
            pairs += [f"hot_threshold={self.threshold}", f"hot_decay={self.decay}"]
        else:
            pairs += ["hot_decay=off"]
        return tuple(x for p in pairs for x in ("--set", p))


def plan(dists: Sequence[str], layouts: Sequence[str], thresholds: Sequence[int],
         decays: Sequence[str]) -> List[Case]:
    cases: List[Case] = []
    for dist in dists:
        for layout in layouts:
            cases.append(Case(dist, layout, "single"))
            for decay in decays:
                for t in thresholds:
                    cases.append(Case(dist, layout, "hotcold", t, decay))
    return cases
