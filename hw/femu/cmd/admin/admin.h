/*
 * The admin commands that have no file of their own (cmd/admin/admin.c, poller), rows of the
 * admin command set's table (top/cmd_tables.c).
 */
#ifndef HW_FEMU_CMD_ADMIN_H
#define HW_FEMU_CMD_ADMIN_H

#include "cmd/core/cmd_set.h"

/* Vendor opcodes (CONTROLLER.md, "Vendor commands"). */
#define FEMU_VENDOR_LPN_DUMP    0xc0    /* write lpn_access_count.csv now */
#define FEMU_VENDOR_PHASE       0xc1    /* phase marker into phases.csv */
#define FEMU_VENDOR_SAVE_STATE  0xc2    /* write the device state to state_out now */

FemuAdminFn femu_adm_delete_sq;
FemuAdminFn femu_adm_create_sq;
FemuAdminFn femu_adm_delete_cq;
FemuAdminFn femu_adm_create_cq;
FemuAdminFn femu_adm_abort;
FemuAdminFn femu_adm_dbbuf_config;
FemuAdminFn femu_vendor_lpn_dump;
FemuAdminFn femu_vendor_phase;

#endif
