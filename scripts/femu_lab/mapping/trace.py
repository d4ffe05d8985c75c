"""The mapping lab's real-world trace workload.

The repository ships no published trace (MSR Cambridge's and the UMass sets are large
and under their own terms; the README's "Real-world traces" says where to get them), so
by default the lab replays the traces lab's synthetic MSR-layout trace (`femu-lab trace
generate --format msr`: enterprise-like request sizes of 4 KiB to 256 KiB, a third of
them continuing the one before, seeded), sized to the device: footprint the logical
space, read share the random mixes', about the same bytes as the other workloads. With
--trace FILE the lab replays that file instead (any format ftl-sim reads, e.g. MSR's
hm_0.csv.gz); its addresses are scaled onto the device (--trace-lba-map scale) and its
times ignored (closed loop at the lab's queue depth), so every scheme sees the same
request stream.
"""
from pathlib import Path
from typing import Optional, Tuple

from femu_common.cli_args import UsageError

from ..traces import generate as generator
from ..traces.requests import SIZE_PAGES, SIZE_WEIGHTS, PAGE

SYNTHETIC_LABEL = "msr-synthetic"


def mean_request_bytes() -> float:
    """The generator's mean request size (its size weights)."""
    return PAGE * sum(p * w for p, w in zip(SIZE_PAGES, SIZE_WEIGHTS)) / sum(SIZE_WEIGHTS)


def label_of(path: Path) -> str:
    """hm_0.csv.gz -> hm_0: the workload's name in the tables."""
    name = path.name
    for suffix in (".gz", ".xz", ".csv", ".trace", ".txt"):
        name = name.removesuffix(suffix)
    return name or "trace"


def check_given(given: Optional[Path]) -> None:
    if given is not None and not given.is_file():
        raise UsageError(f"--trace {given}: no such file")


def prepare(given: Optional[Path], folder: Path, logical_bytes: int, io_bytes: int,
            read_fraction: float, seed: int) -> Tuple[Path, str]:
    """(the trace file, its label): the given one, or the synthetic one written into
    folder (the same arguments give the same file)."""
    if given is not None:
        return given.resolve(), label_of(given)
    records = max(1, round(io_bytes / mean_request_bytes()))
    path = folder / f"{SYNTHETIC_LABEL}.csv"
    try:
        generator.generate(path, "msr", records, seed, logical_bytes, read_fraction)
    except ValueError as error:
        raise UsageError(f"the synthetic trace: {error}") from None
    return path, SYNTHETIC_LABEL
