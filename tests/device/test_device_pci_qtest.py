"""The femu device seen from the PCI bus, driven through QEMU's qtest protocol (no guest)."""
import pytest

from femu_lab.vm.qtest import QTest, QTestError

SLOT = 4


@pytest.fixture
def femu_bus(qemu, repo_root):
    with QTest(qemu, ["-device", f"femu,config={repo_root}/conf/lab-1g.conf,addr={SLOT:#x}"]) as qt:
        yield qt


def test_identity_is_an_nvme_controller(femu_bus):
    ids = femu_bus.pci_config_readl(SLOT, 0x00)
    assert ids & 0xFFFF == 0x8086 and ids >> 16 == 0x5845
    class_rev = femu_bus.pci_config_readl(SLOT, 0x08)
    # class 01h (mass storage), subclass 08h (NVM), programming interface 02h (NVMe)
    assert class_rev >> 8 == 0x010802


def test_empty_slot_reads_all_ones(femu_bus):
    assert femu_bus.pci_config_readl(SLOT + 1, 0x00) == 0xFFFFFFFF


def test_guest_memory_round_trip(femu_bus):
    femu_bus.memwrite(0x100000, bytes(range(64)))
    assert femu_bus.memread(0x100000, 64) == bytes(range(64))
    femu_bus.writel(0x100040, 0xDEADBEEF)
    assert femu_bus.readl(0x100040) == 0xDEADBEEF


def test_bad_command_and_dead_qemu_are_errors(qemu):
    with QTest(qemu, []) as qt:
        with pytest.raises(QTestError, match="FAIL"):
            qt.command("frobnicate 1")
    with QTest(qemu, ["-device", "femu,nchs=0"], reply_timeout=30) as qt:
        with pytest.raises(QTestError, match="QEMU exited.*nchs"):
            qt.readl(0)
