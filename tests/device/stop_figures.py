"""Figures (a benchmark, not a test): how long QEMU exit (SIGTERM), a controller reset
(CC.EN 1->0) and a hot-unplug take with 64 Dataset Management commands queued on the
12 GiB default configuration, for one or more QEMU binaries (e.g. today's and an older
build, to compare):

    PYTHONPATH=tests/support .venv/bin/python tests/device/stop_figures.py \
        build-femu/qemu-system-x86_64 [OLD_QEMU...]

(run from the repository's root: tests/support holds the qtest driver nvme_qtest; the
device tests it borrows from sit beside this script, on Python's path as its folder).

Workloads: `full` = 64 DSMs of 256 ranges each spanning the whole namespace (refused
by the DSM limits since they exist), `limit` = 64 DSMs of 255 ranges within the limits.
Prints seconds; asserts nothing.
"""
import argparse
import struct
import sys
import tempfile
import time
from pathlib import Path

from femu_lab.vm.qtest import QTest
from nvme_qtest import CC, CSTS, CSTS_RDY, RAM_MB, Nvme, PciFunction, ready
from test_nvme_bounded import DEFAULT_GEOMETRY, DEFAULT_NSZE, GIB_LBAS, dsm, submit_batch
from test_nvme_dma_safety import MMCONFIG, ROOT_PORT_SLOT

GEOMETRY = "secsz=512,secs_per_pg=8,pls_per_lun=1," + DEFAULT_GEOMETRY
SLOT_POWER_OFF = 0x0700


def workload(nvme, kind: str):
    if kind == "full":
        ranges = [(0, DEFAULT_NSZE)] * 256
    else:
        step = DEFAULT_NSZE // 255
        ranges = [(i * step, GIB_LBAS // 255) for i in range(255)]
    return [dsm(nvme, ranges) for _ in range(64)]


def machine(qemu: Path):
    """A q35 qtest machine with femu behind a native-hotplug root port (so it can be
    unplugged); returns (qt, nvme, root port)."""
    args = ["-m", str(RAM_MB), "-global", "ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off",
            "-device", f"pcie-root-port,id=rp0,bus=pcie.0,addr={ROOT_PORT_SLOT:#x},slot=1,"
                       "chassis=1",
            "-device", f"femu,{GEOMETRY},bus=rp0,addr=0"]
    qt = QTest(qemu, args)
    host_bridge = PciFunction(qt, 0)
    host_bridge.writel(0x60, MMCONFIG | 1)
    port = PciFunction(qt, ROOT_PORT_SLOT)
    port.writel(0x18, 0x00010100)
    port.writel(0x20, 0xEFF0E000)
    port.writel(0x24, 0x0000FFF0)
    port.writew(0x04, port.readw(0x04) | 0x6)
    return qt, Nvme(qt, pci=PciFunction(qt, 0, bus=1)), port


def measure(qemu: Path, kind: str, event: str) -> float:
    qt, nvme, port = machine(qemu)
    try:
        sq = ready(nvme, size=128)[0]
        submit_batch(nvme, sq, workload(nvme, kind))
        time.sleep(0.2)                                    # fetched, with the FTL thread
        began = time.monotonic()
        if event == "exit":
            qt.terminate(timeout=600)
        elif event == "reset":
            nvme.writel(CC, nvme.readl(CC) & ~1)
            nvme.wait_csts(CSTS_RDY, 0, timeout=600)
        else:                                              # the guest powers the slot off
            cap = port.capability(0x10)
            port.writew(cap + 0x18, SLOT_POWER_OFF)
            assert qt.returncode is None and port.readw(0x04) is not None
        return time.monotonic() - began
    finally:
        qt.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("qemu", nargs="+", type=Path)
    args = parser.parse_args()
    print(f"{'binary':40} {'workload':8} {'exit s':>8} {'reset s':>8} {'unplug s':>9}")
    for qemu in args.qemu:
        for kind in ("full", "limit"):
            times = [measure(qemu, kind, event) for event in ("exit", "reset", "unplug")]
            print(f"{str(qemu)[-40:]:40} {kind:8} " + " ".join(f"{t:8.2f}" for t in times),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
