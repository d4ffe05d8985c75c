/* Identify (cmd/admin/identify.c, poller): one function per CNS value. */
#ifndef HW_FEMU_CMD_IDENTIFY_H
#define HW_FEMU_CMD_IDENTIFY_H

#include "femu.h"

uint16_t femu_identify(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);

#endif
