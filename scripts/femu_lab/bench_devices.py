"""The devices `femu-lab bench` compares, each as the QEMU binary and the -device / -drive
arguments of one boot, all of the same logical size:

    femu    -device femu,config=CONF[,KEY=VALUE...] (this repository's device; its FTL
            keeps the data; --set overrides as device properties)
    stock   QEMU's own nvme on a raw backing file of the logical size
    FEMU    upstream FEMU's blackbox mode (femu_mode=1) with CONF's geometry, latencies
            and GC thresholds, devsz_mb = the logical size (its own binary)
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Mapping, Optional

from .vm import femu_args, make_backing_file, stock_nvme_args

MIB = 1 << 20
STOCK_IMAGE = "stock-nvme.img"

# conf keys upstream FEMU takes under the same names (its -device femu properties)
FEMU_UPSTREAM_KEYS = ("secsz", "secs_per_pg", "pgs_per_blk", "blks_per_pl", "pls_per_lun",
                      "luns_per_ch", "nchs", "pg_rd_lat", "pg_wr_lat", "blk_er_lat",
                      "ch_xfer_lat", "gc_thres_pcent", "gc_thres_pcent_high")
FEMU_BLACKBOX_MODE = 1


@dataclass
class Device:
    name: str                                  # femu | stock | FEMU (bench_table.DEVICES)
    qemu: Path
    arguments: Callable[[Path], List[str]]     # boot folder -> QEMU device arguments


def femu_upstream_args(values: Mapping[str, str], logical_bytes: int) -> List[str]:
    """Upstream FEMU in blackbox mode with the configuration's geometry and timing."""
    if logical_bytes % MIB:
        raise ValueError(f"logical size {logical_bytes} B is not a whole number of MiB "
                         "(FEMU's devsz_mb)")
    options = ["femu", f"devsz_mb={logical_bytes // MIB}", "namespaces=1",
               f"femu_mode={FEMU_BLACKBOX_MODE}"]
    options += [f"{key}={values[key]}" for key in FEMU_UPSTREAM_KEYS if key in values]
    return ["-device", ",".join(options)]


def femu_only_settings(values: Mapping[str, str]) -> List[str]:
    """Settings FEMU has no property for that differ from what FEMU does (one write
    pointer): FEMU runs without them."""
    placement = values.get("placement", "single")
    return [] if placement == "single" else [f"placement={placement}"]


def devices(config_file: Path, overrides: Mapping[str, str], values: Mapping[str, str],
            logical_bytes: int, qemu: Path, femu_upstream: Optional[Path] = None) -> List[Device]:
    """femu and stock (both on `qemu`), then FEMU when its binary is given. femu gets the
    conf file itself and the overrides as properties, not a flattened copy: a device
    binary older than ftl-sim may not know every key ftl-sim prints."""
    def stock(folder: Path) -> List[str]:
        return stock_nvme_args(make_backing_file(folder / STOCK_IMAGE, logical_bytes))

    found = [Device("femu", qemu, lambda folder: femu_args(config=config_file, **overrides)),
             Device("stock", qemu, stock)]
    if femu_upstream is not None:
        upstream = femu_upstream_args(values, logical_bytes)
        found.append(Device("FEMU", femu_upstream, lambda folder: list(upstream)))
    return found


def boot_order(names: List[str], rounds: int) -> List[List[str]]:
    """One list of device names per round: every device once, alternating, the order
    reversed on every other round so that no device always runs first."""
    return [list(names) if r % 2 == 0 else list(reversed(names)) for r in range(rounds)]
