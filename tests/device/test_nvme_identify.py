"""Identify: controller, namespace, active namespace list, namespace descriptors."""
import re
import struct

from nvme_qtest import femu_only, nvme_qemu, pattern, ready, shared, start  # noqa: F401

NSZE = (64 << 20) // 512          # the harness's 64 MiB device in 512-byte sectors


def u16(data, off): return struct.unpack_from("<H", data, off)[0]
def u32(data, off): return struct.unpack_from("<I", data, off)[0]
def u64(data, off): return struct.unpack_from("<Q", data, off)[0]


def test_controller_common_fields(shared):
    cqe, data = shared.nvme.identify(1)
    assert cqe.ok
    assert data[512] == 0x66 and data[513] == 0x44       # SQES, CQES
    assert u32(data, 516) >= 1                           # NN
    assert u32(data, 80) == 0x10400                      # VER


@femu_only()
def test_controller_fields(shared):
    cqe, data = shared.nvme.identify(1)
    assert cqe.ok
    assert u16(data, 0) == 0x8086 and u16(data, 2) == 0x8086     # VID, SSVID
    assert data[24:64] == b"femu SSD".ljust(40)                   # MN
    assert data[64:72] == b"1.0".ljust(8)                         # FR
    assert data[77] == 10                                         # MDTS default
    assert u32(data, 80) == 0x10400                               # VER
    assert data[111] == 1                                         # CNTRLTYPE: I/O controller
    # OACS: Format NVM, Namespace Management, doorbell buffer config, Get LBA Status
    assert u16(data, 256) == (1 << 1) | (1 << 3) | (1 << 8) | (1 << 9)
    assert u16(data, 78) == 0                                     # CNTLID
    assert u32(data, 92) == 1 << 8 | 1 << 13     # OAES: namespace and LBA status notices
    assert data[258] == 3 and data[259] == 3                      # ACL, AERL
    assert data[260] == 0x03 and data[261] == 0x05                # FRMW, LPA: SMART per ns
    assert data[262] == 3                                         # ELPE
    assert u16(data, 266) == 343 and u16(data, 268) == 373        # WCTEMP, CCTEMP
    assert data[512] == 0x66 and data[513] == 0x44                # SQES, CQES
    assert u32(data, 516) == 32                                   # NN
    assert u32(data, 540) == 32                                   # MNAN
    # ONCS: Compare, Write Uncorrectable, DSM, Write Zeroes, Save and Select Feature
    # Support (every SEL; SV where a feature is saveable), Verify, Copy
    assert u16(data, 520) == 0x19F
    assert data[524] == 0                                         # FNA: per namespace
    assert data[525] == 0x06       # VWC: Flush takes FFFFFFFFh (FB 11b), no cache (no buffer)
    assert u32(data, 536) == 0                                    # SGLS


@femu_only()
def test_serial_default_and_property(start):
    nvme = start().nvme
    ready(nvme, io_queues=0)
    _, data = nvme.identify(1)
    serial = data[4:24].decode("ascii")
    assert re.fullmatch(r"FEMU0*4 *0 *", serial), serial        # "FEMU", slot 4, function 0
    nvme = start("serial=LAB-0042").nvme
    ready(nvme, io_queues=0)
    _, data = nvme.identify(1)
    assert data[4:24] == b"LAB-0042".ljust(20)


@femu_only()
def test_mdts_property(start):
    nvme = start("mdts=5").nvme
    ready(nvme, io_queues=0)
    _, data = nvme.identify(1)
    assert data[77] == 5


def test_namespace_size_and_format(shared):
    cqe, data = shared.nvme.identify(0, nsid=1)
    assert cqe.ok
    assert u64(data, 0) == NSZE and u64(data, 8) == NSZE      # NSZE, NCAP
    assert data[26] & 0xF == 0                                # FLBAS: format 0
    assert data[128 + 2] == 9                                 # LBAF0 LBADS: 512 bytes


@femu_only()
def test_namespace_formats_and_dlfeat(shared):
    _, data = shared.nvme.identify(0, nsid=1)
    assert data[25] == 1 and data[26] == 0                    # NLBAF (two formats), FLBAS
    assert data[128 + 2] == 9 and data[132 + 2] == 12         # LBAF0 512 B, LBAF1 4 KiB
    assert data[33] == 0x09                                   # DLFEAT


@femu_only()
def test_namespace_utilization_counts_mapped_sectors(start):
    nvme = start().nvme
    sq = ready(nvme)[0]
    _, data = nvme.identify(0, nsid=1)
    assert u64(data, 16) == 0
    assert nvme.write(sq, 0, pattern(4096, 1)).ok
    assert nvme.write(sq, 64, pattern(8192, 2)).ok
    _, data = nvme.identify(0, nsid=1)
    assert u64(data, 16) == 24
    assert nvme.dsm_deallocate(sq, [(64, 8)]).ok
    assert nvme.write_zeroes(sq, 72, 8, deac=True).ok
    _, data = nvme.identify(0, nsid=1)
    assert u64(data, 16) == 8


def test_active_namespace_list(shared):
    cqe, data = shared.nvme.identify(2, nsid=0)
    assert cqe.ok
    assert u32(data, 0) == 1 and u32(data, 4) == 0
    cqe, data = shared.nvme.identify(2, nsid=1)
    assert cqe.ok and u32(data, 0) == 0


@femu_only()
def test_namespace_descriptor_list_is_one_uuid(shared):
    cqe, data = shared.nvme.identify(3, nsid=1)
    assert cqe.ok
    assert (data[0], data[1]) == (3, 16)                     # NIDT UUID, NIDL 16
    assert data[4:20] != bytes(16)
    assert data[20:24] == bytes(4)                           # nothing after the UUID
