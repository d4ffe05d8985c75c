/*
 * The error log the controller keeps (cmd/health/error_log.c, poller): an entry for every command
 * that completes with an error, the last FEMU_ELPE + 1 kept, as Get Log Page 01h returns.
 */
#ifndef HW_FEMU_CMD_ERROR_LOG_H
#define HW_FEMU_CMD_ERROR_LOG_H

#include "femu.h"

void femu_error_log_add(FemuCtrl *n, const FemuRequest *req, uint32_t nsid, uint64_t lba);
/* Log page 01h: FEMU_ELPE + 1 entries into entries, newest first. */
void femu_error_log_page(FemuCtrl *n, NvmeErrorLog *entries);

#endif
