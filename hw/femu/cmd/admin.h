/* Admin commands (cmd/admin.c, poller). */
#ifndef HW_FEMU_CMD_ADMIN_H
#define HW_FEMU_CMD_ADMIN_H

#include "femu.h"

uint16_t femu_admin_cmd(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);

#endif
