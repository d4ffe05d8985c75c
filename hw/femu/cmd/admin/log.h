/* Get Log Page (cmd/admin/log.c, poller): the table of pages by LID and their shared rules. */
#ifndef HW_FEMU_CMD_LOG_H
#define HW_FEMU_CMD_LOG_H

#include "femu.h"

uint16_t femu_get_log_page(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);

#endif
