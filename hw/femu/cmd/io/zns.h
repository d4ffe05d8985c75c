/*
 * The zoned namespace's I/O commands (cmd/io/zns.c, poller), rows of the Zoned command set's
 * table (top/cmd_tables.c). Zone rules are admitted by the FTL (ftl_zone_admit_*, under
 * engine_lock) before any data moves.
 */
#ifndef HW_FEMU_CMD_ZNS_H
#define HW_FEMU_CMD_ZNS_H

#include "cmd/core/cmd_set.h"

FemuIoFn femu_zns_write;
FemuIoFn femu_zns_append;
FemuIoFn femu_zns_write_zeroes;
FemuIoFn femu_zns_read;
FemuIoFn femu_zns_compare;
FemuIoFn femu_zns_verify;
FemuIoFn femu_zns_dsm;
FemuIoFn femu_zns_mgmt_send;
FemuIoFn femu_zns_mgmt_recv;

#endif
