"""What the mapping lab runs: every scheme x read-cache setting x workload, each one ftl-sim
run after the same sequential fill, and the read cache's size sweep.

A scheme is a set of configuration keys (mapping=, and log_blocks for the hybrid ones); a
read cache is read_cache_pages and read_cache_policy, set only when the cache is on, so the
runs without it work on an ftl-sim built before the cache existed. The keys are the ones
the FTL defines (docs/ftl.md); the lab never interprets them, ftl-sim checks them.
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

SCHEMES = ("page", "dftl", "block", "bast", "fast")
HYBRID = ("bast", "fast")               # the schemes with log blocks
POLICIES = ("lru", "clock", "2q", "arc")
WORKLOADS = ("seq", "uniform", "zipf-0.9", "zipf-1.2", "trace")
SWEEP_WORKLOAD = "zipf-1.2"
# the keys a cell sets (its scheme and read cache), with the option that chooses each
CELL_KEYS = {"mapping": "--schemes", "log_blocks": "--log-blocks",
             "read_cache_pages": "--cache-pages", "read_cache_policy": "--cache-policy"}
# ftl-sim --dist of the random mixes; seq writes in order, trace replays a file
DISTS = {"uniform": "random", "zipf-0.9": "zipf:0.9", "zipf-1.2": "zipf:1.2"}


@dataclass(frozen=True)
class Cache:
    pages: int = 0                      # 0: no read cache
    policy: str = ""

    @property
    def on(self) -> bool:
        return self.pages > 0

    @property
    def label(self) -> str:
        return f"{self.policy} {self.pages}" if self.on else "off"

    @property
    def slug(self) -> str:
        return f"cache-{self.policy}-{self.pages}" if self.on else "nocache"

    def overrides(self) -> Dict[str, str]:
        if not self.on:
            return {}
        return {"read_cache_pages": str(self.pages), "read_cache_policy": self.policy}


OFF = Cache()


def scheme_overrides(scheme: str, log_blocks: int) -> Dict[str, str]:
    keys = {"mapping": scheme}
    if scheme in HYBRID:
        keys["log_blocks"] = str(log_blocks)
    return keys


@dataclass(frozen=True)
class Shape:
    """How every run is driven: bytes moved after the fill, reads in the random mixes,
    requests kept outstanding, the seed, and the trace workload's file and label."""
    io_bytes: int
    read_pct: int = 70
    qd: int = 4
    seed: int = 1
    trace: Optional[Path] = None
    trace_label: str = "trace"


@dataclass(frozen=True)
class Run:
    scheme: str
    cache: Cache
    workload: str
    sweep: bool = False                  # a point of the cache size sweep

    @property
    def folder(self) -> str:
        """runs/<this>: no '=', ':' or space (shell tools take it as it is)."""
        return f"{'sweep-' if self.sweep else ''}{self.scheme}-{self.cache.slug}-{self.workload}"

    def workload_name(self, trace_label: str) -> str:
        """The workload as the tables name it: the trace by its file's label."""
        return trace_label if self.workload == "trace" else self.workload

    def label(self, trace_label: str = "trace") -> str:
        return f"{self.scheme}, cache {self.cache.label}, {self.workload_name(trace_label)}"

    def overrides(self, user: Dict[str, str], log_blocks: int) -> Dict[str, str]:
        """The user's --set first, then what makes this cell what it is."""
        return {**user, **scheme_overrides(self.scheme, log_blocks), **self.cache.overrides()}


def workload_args(workload: str, shape: Shape) -> List[str]:
    """ftl-sim's workload options for one workload, after `--precondition seq`."""
    common = ["--qd", str(shape.qd), "--seed", str(shape.seed)]
    if workload == "seq":
        return ["--rw", "write", "--bs", "4k", "--io-size", str(shape.io_bytes), *common]
    if workload == "trace":
        if shape.trace is None:
            raise ValueError("the trace workload has no trace file")
        return ["--trace", str(shape.trace), "--trace-lba-map", "scale",
                "--trace-time", "closed-loop", *common]
    return ["--rw", "randrw", "--rwmixread", str(shape.read_pct), "--dist", DISTS[workload],
            "--bs", "4k", "--io-size", str(shape.io_bytes), *common]


def sim_args(ftl_sim: Path, config: Path, overrides: Dict[str, str], workload: str,
             shape: Shape, folder: Path) -> List[str]:
    sets = [arg for key, value in overrides.items() for arg in ("--set", f"{key}={value}")]
    return [str(ftl_sim), "--config", str(config), *sets, "--precondition", "seq",
            *workload_args(workload, shape), "--stats-dir", str(folder),
            "--summary", str(folder / "summary.json")]


def grid(schemes: Sequence[str], caches: Sequence[Cache],
         workloads: Sequence[str]) -> List[Run]:
    """The table's runs, scheme by scheme: each without and with the cache, per workload."""
    return [Run(scheme, cache, workload) for scheme in schemes for cache in caches
            for workload in workloads]


def sweep(scheme: str, sizes: Sequence[int], policies: Sequence[str]) -> List[Run]:
    """Hit rate against the cache's size: every policy at every size, on zipf 1.2."""
    return [Run(scheme, Cache(pages, policy), SWEEP_WORKLOAD, sweep=True)
            for policy in policies for pages in sizes]


def configurations(runs: Sequence[Run]) -> List[Tuple[str, Cache]]:
    """The distinct (scheme, cache) pairs: what ftl-sim checks before anything runs."""
    return list(dict.fromkeys((run.scheme, run.cache) for run in runs))
