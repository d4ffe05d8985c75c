"""The device's DMA reaches guest RAM only: data pointers, queues and doorbell buffers
that land on MMIO (femu's own BAR, another device's registers, PCIe config space through
MMCONFIG) or on nothing get the spec's error, and no register behind them changes."""
import struct

from femu_lab.vm.qtest import QTest
from nvme_qtest import (CC, CSTS, CSTS_CFS, CSTS_RDY, IO_READ, IO_WRITE, RAM_MB, SC_INVALID_FIELD,
                        SC_DATA_TRANSFER_ERROR, SMALL_GEOMETRY, ADM_DBBUF, Command, Nvme,
                        PciFunction, femu_only, nvme_qemu, pattern, ready, start,  # noqa: F401
                        trace_args, traced, wait_for)

pytestmark = femu_only()

MMCONFIG = 0xB000_0000          # q35's PCIe ECAM window
UNASSIGNED = 0x4_0000_0000      # above RAM and every BAR: nothing answers there


def test_read_into_own_registers_is_a_data_transfer_error(start):
    """A Read whose PRP1 is femu's own BAR0 would write CC (a reset) and more."""
    nvme = start().nvme
    sq = ready(nvme)[0]
    assert nvme.write(sq, 0, bytes(4096)).ok          # zeroes: CC.EN would drop
    cc = nvme.readl(CC)
    cqe = nvme.run(sq, Command(IO_READ, nsid=1, prp1=nvme.bar0, cdw12=7))
    assert cqe.code == SC_DATA_TRANSFER_ERROR and cqe.dnr
    assert nvme.readl(CC) == cc and nvme.readl(CSTS) & CSTS_RDY
    assert nvme.write(sq, 8, pattern(4096, 1)).ok      # still serving


def test_write_from_mmio_and_unassigned_space_fails_cleanly(start):
    nvme = start().nvme
    sq = ready(nvme)[0]
    for addr in (nvme.bar0 + 0x1000, MMCONFIG, UNASSIGNED, 0xFEC0_0000):
        cqe = nvme.run(sq, Command(IO_WRITE, nsid=1, prp1=addr, cdw12=0))
        assert cqe.code == SC_DATA_TRANSFER_ERROR, hex(addr)
    assert nvme.readl(CSTS) & CSTS_RDY


def test_queues_and_doorbell_buffers_outside_ram_are_refused(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    for addr in (nvme.bar0, MMCONFIG, UNASSIGNED):
        cqe, _ = nvme.create_cq(1, 16, addr=addr)
        assert cqe.code == SC_INVALID_FIELD, hex(addr)
    assert nvme.create_cq(1, 16)[0].ok
    for addr in (nvme.bar0, MMCONFIG, UNASSIGNED):
        cqe, _ = nvme.create_sq(1, 16, 1, addr=addr)
        assert cqe.code == SC_INVALID_FIELD, hex(addr)
    ram = nvme.mem.alloc(4096)
    for shadow, eventidx in ((nvme.bar0, ram), (ram, MMCONFIG), (UNASSIGNED, ram)):
        cqe = nvme.admin(Command(ADM_DBBUF, prp1=shadow, prp2=eventidx))
        assert cqe.code == SC_INVALID_FIELD
    assert nvme.readl(CSTS) & CSTS_RDY


def test_admin_queue_on_mmio_fails_the_enable(start):
    nvme = start().nvme
    csts = nvme.enable(asq=nvme.bar0 + 0x2000)
    assert csts & CSTS_CFS and not csts & CSTS_RDY


def test_completion_queue_lost_mid_flight_sets_cfs(start, tmp_path):
    """Bus mastering switched off while a write is with the flash: posting its CQE fails,
    which is fatal (CSTS.CFS) rather than silently lost."""
    log = tmp_path / "femu-trace.log"
    machine = start("pg_wr_lat=300000000",             # 300 ms: time to pull the plug
                    extra=trace_args(log, "femu_cmd"))
    nvme = machine.nvme
    sq = ready(nvme)[0]
    xfer = nvme.transfer(4096)
    cid = nvme.submit(sq, nvme.rw(sq, IO_WRITE, 0, 8, xfer))
    # fetched, data moved: the poller traces femu_cmd once the write's data is in
    wait_for(lambda: traced(log, f"femu_cmd sqid 1 cid {cid} opcode 0x1 "), timeout=10,
             what="the write's femu_cmd trace event")
    nvme.pci.writew(0x04, nvme.pci.readw(0x04) & ~0x4)
    nvme.wait_csts(CSTS_CFS, CSTS_CFS, timeout=10)


# ---- the trigger the issue names: femu behind a native-hotplug PCIe root port

ROOT_PORT_SLOT = 5
SLOT_CONTROL_POWER_OFF = 0x0700      # power controller off, power indicator off
PCI_EXP_CAP = 0x10


def _pcie_cap(pci: PciFunction) -> int:
    cap = pci.capability(PCI_EXP_CAP)
    assert cap is not None
    return cap


def test_read_onto_root_port_slot_control_does_not_unplug(nvme_qemu, tmp_path):
    """A Read whose PRP1 is the root port's Slot Control (through MMCONFIG) and whose data
    says "power off": DMA would unplug femu from its own poller thread, and QEMU aborted."""
    args = ["-m", str(RAM_MB), "-global", "ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off",
            "-device", f"pcie-root-port,id=rp0,bus=pcie.0,addr={ROOT_PORT_SLOT:#x},slot=1,"
                       "chassis=1",
            "-device", f"femu,{SMALL_GEOMETRY},bus=rp0,addr=0"]
    with QTest(nvme_qemu, args) as qt:
        host_bridge = PciFunction(qt, 0)
        host_bridge.writel(0x64, 0)
        host_bridge.writel(0x60, MMCONFIG | 1)            # PCIEXBAR: what firmware does
        port = PciFunction(qt, ROOT_PORT_SLOT)
        port.writel(0x18, 0x00010100)                     # primary 0, secondary 1, sub 1
        port.writel(0x20, 0xEFF0E000)                     # memory window 0xE0000000-0xEFFFFFFF
        port.writel(0x24, 0x0000FFF0)                     # no prefetchable window
        port.writew(0x04, port.readw(0x04) | 0x6)
        nvme = Nvme(qt, pci=PciFunction(qt, 0, bus=1))
        sq = ready(nvme)[0]
        sltctl = MMCONFIG + (ROOT_PORT_SLOT << 15) + _pcie_cap(port) + 0x18
        assert sltctl % 4 == 0
        data = bytearray(512)
        struct.pack_into("<H", data, 0, SLOT_CONTROL_POWER_OFF)
        assert nvme.write(sq, 0, bytes(data)).ok
        before = port.readw(_pcie_cap(port) + 0x18)
        cqe = nvme.run(sq, Command(IO_READ, nsid=1, prp1=sltctl, cdw12=0))
        assert cqe.code == SC_DATA_TRANSFER_ERROR
        assert port.readw(_pcie_cap(port) + 0x18) == before
        assert nvme.write(sq, 8, pattern(4096, 3)).ok       # femu is still there
        assert qt.returncode is None
