# The devices femu's QEMU is built with: configure runs with --without-default-devices
# --with-devices-x86_64=femu, and femu_build.overlay copies this file into the QEMU tree
# as configs/devices/x86_64-softmmu/femu.mak. Kconfig adds what these select: a PC's
# i8259 / i8254 / RTC / ISA serial / ACPI, AHCI on q35, IDE on pc, the SCSI bus of
# virtio-scsi, fw_cfg, SMBIOS. Nothing else (no VGA, USB devices, sound, other NICs or
# disk controllers, Xen emulation): a device used with -device must be listed here.

# Machines: q35 (the lab, the VM harness, qtest) and pc (i440FX: FEMU-compatible mode).
CONFIG_Q35=y
CONFIG_I440FX=y

# The femu SSD, and QEMU's own NVMe controller that the tests and figures compare it with.
CONFIG_FEMU=y
CONFIG_NVME_PCI=y

# pcie-root-port: hotplug of femu (device_del / device_add in the soak and device tests).
CONFIG_PCIE_PORT=y

# virtio-net-pci (ssh into a guest), virtio-scsi-pci + scsi-hd (the OS disk in
# FEMU-compatible mode, as FEMU attached it), virtio-blk-pci.
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_NET=y
CONFIG_VIRTIO_SCSI=y
CONFIG_VIRTIO_BLK=y

# The serial console (a PC machine selects it too).
CONFIG_SERIAL_ISA=y
