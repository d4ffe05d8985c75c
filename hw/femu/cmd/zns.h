/*
 * The zoned namespace's I/O commands (cmd/zns.c, poller). Zone rules are admitted by the
 * FTL (ftl_zone_admit_*, under engine_lock) before any data moves.
 */
#ifndef HW_FEMU_CMD_ZNS_H
#define HW_FEMU_CMD_ZNS_H

#include "femu.h"

uint16_t femu_zns_io_cmd(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd,
                         FemuRequest *req);

#endif
