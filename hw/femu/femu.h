/*
 * femu: an NVMe SSD emulator whose flash translation layer lives in the device.
 *
 * FemuCtrl is the controller-facing state shared by the device's source files: its
 * properties, the FTL configuration they resolve to, and the FTL handle. femu.c owns the
 * QOM type, the properties and realize; the NVMe controller (registers, queues, commands)
 * builds on this struct from its own files.
 */
#ifndef HW_FEMU_FEMU_H
#define HW_FEMU_FEMU_H

#include "hw/pci/pci_device.h"
#include "qom/object.h"

#include "ftl/ftl.h"

#define TYPE_FEMU "femu"
OBJECT_DECLARE_SIMPLE_TYPE(FemuCtrl, FEMU)

/*
 * PCI identity. Guests bind their NVMe driver on the class code (mass storage, NVM
 * subclass, NVMe programming interface), so the IDs only name the device: these are the
 * ones FEMU and older QEMU NVMe controllers show, so lab scripts that grep lspci still work.
 */
#define FEMU_PCI_VENDOR_ID      PCI_VENDOR_ID_INTEL
#define FEMU_PCI_DEVICE_ID      0x5845
#define FEMU_PCI_PROG_IF_NVME   0x02

/* Controller property limits (FEMU's defaults: queues=8, mdts=10). */
#define FEMU_DEFAULT_QUEUES     8
#define FEMU_MAX_QUEUES         64      /* I/O queue pairs the controller offers at most */
#define FEMU_DEFAULT_MDTS       10      /* 2^10 minimum-size (4 KiB) pages: 4 MiB */
#define FEMU_MAX_MDTS           20      /* 4 GiB: larger transfers are surely a typo */
#define FEMU_SERIAL_MAX_LEN     20      /* the NVMe Identify Controller SN field */

/* Room for every FTL key (ftl_config_key()); checked when the class is built. */
#define FEMU_FTL_KEYS_MAX       32

/* One FTL key exposed as a device property. */
typedef struct FemuFtlProperty {
    char *text;         /* current value as the FTL parses it (decimal, or a placement name) */
    bool explicit;      /* set on -device / -global / QMP, so it overrides config=FILE */
} FemuFtlProperty;

struct FemuCtrl {
    PCIDevice parent_obj;

    /* Properties; read only by realize. */
    char *config_file;                  /* config=FILE: a conf/ file, applied before ftl_props */
    char *stats_dir;                    /* stats_dir=DIR: where the CSV statistics go */
    char *serial;                       /* serial=: NVMe serial number; derived when unset */
    uint32_t queues;                    /* queues=: I/O queue pairs */
    uint8_t mdts;                       /* mdts=: max data transfer, power of two of 4 KiB */
    FemuFtlProperty ftl_props[FEMU_FTL_KEYS_MAX];   /* indexed like ftl_config_key() */

    /* State built by realize, valid while the device is realized. */
    struct ftl_config ftl_config;       /* defaults <- config file <- explicit properties */
    struct ftl_geometry geometry;       /* derived from ftl_config */
    char serial_number[FEMU_SERIAL_MAX_LEN + 1];    /* serial, or one derived from the slot */
    struct ftl *ftl;
};

#endif
