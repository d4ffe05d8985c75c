"""The devices `femu-lab bench` compares, each as the QEMU binary and the -device / -drive
arguments of one boot, all of the same logical size:

    femu    -device femu,config=CONF[,KEY=VALUE...] (this repository's device; its FTL
            keeps the data; --set overrides as device properties)
    stock   QEMU's own nvme on a raw backing file of the logical size
    FEMU    upstream FEMU's blackbox mode (femu_mode=1) with CONF's geometry, latencies
            and GC thresholds, devsz_mb = the logical size (its own binary, given the
            firmware folders UPSTREAM_FIRMWARE)
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Mapping, Optional, Sequence, Tuple

from ..vm.launch import femu_args, make_backing_file, stock_nvme_args

MIB = 1 << 20
STOCK_IMAGE = "stock-nvme.img"

# conf keys upstream FEMU takes under the same names (its -device femu properties)
FEMU_UPSTREAM_KEYS = ("secsz", "secs_per_pg", "pgs_per_blk", "blks_per_pl", "pls_per_lun",
                      "luns_per_ch", "nchs", "pg_rd_lat", "pg_wr_lat", "blk_er_lat",
                      "ch_xfer_lat", "gc_thres_pcent", "gc_thres_pcent_high")
FEMU_BLACKBOX_MODE = 1

# Upstream FEMU's binary, built the usual way (configure and make in its build-femu/, no
# install), finds its firmware only beside itself (build-femu/qemu-bundle, links into its
# pc-bios/); copied anywhere else, or its tree moved, it searches /usr/local/share/qemu
# and every boot fails with "could not load PC BIOS 'bios-256k.bin'". So it gets QEMU -L
# folders, searched before its own: SeaBIOS's bios-256k.bin, then the option ROMs that
# -kernel and the PC machines load (linuxboot_dma.bin, kvmvapic.bin, pvh.bin), each with
# the Debian package that fills it (scripts/deps/device.apt lists both). They are the
# folders this repository's QEMU searches, so all three devices boot the same firmware.
# The bench's machines have no NIC: no iPXE ROM is needed.
UPSTREAM_FIRMWARE = ((Path("/usr/share/seabios"), "seabios"),
                     (Path("/usr/share/qemu"), "qemu-system-data"))
BIOS = "bios-256k.bin"


@dataclass
class Device:
    name: str                                  # femu | stock | FEMU (bench_table.DEVICES)
    qemu: Path
    arguments: Callable[[Path], List[str]]     # boot folder -> QEMU device arguments
    firmware_dirs: Tuple[Path, ...] = ()       # QEMU -L folders for this binary


def firmware_problem(firmware: Optional[Sequence[Tuple[Path, str]]] = None) -> Optional[str]:
    """None when every folder of firmware (default UPSTREAM_FIRMWARE) exists and one holds
    the BIOS; else the one-line reason."""
    firmware = UPSTREAM_FIRMWARE if firmware is None else firmware
    for folder, package in firmware:
        if not folder.is_dir():
            return (f"QEMU's firmware folder {folder} is missing (FEMU's binary gets it as "
                    f"-L): install the Debian package {package} (scripts/install-deps.sh "
                    "device)")
    if not any((folder / BIOS).is_file() for folder, _ in firmware):
        folders = ", ".join(str(folder) for folder, _ in firmware)
        return (f"no {BIOS} in {folders} (FEMU's binary gets them as -L): install the "
                f"Debian package {firmware[0][1]} (scripts/install-deps.sh device)")
    return None


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
        found.append(Device("FEMU", femu_upstream, lambda folder: list(upstream),
                            tuple(folder for folder, _ in UPSTREAM_FIRMWARE)))
    return found


def boot_order(names: List[str], rounds: int) -> List[List[str]]:
    """One list of device names per round: every device once, alternating, the order
    reversed on every other round so that no device always runs first."""
    return [list(names) if r % 2 == 0 else list(reversed(names)) for r in range(rounds)]
