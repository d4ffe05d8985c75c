/* The NVM command set's I/O commands (cmd/nvm.c, poller). */
#ifndef HW_FEMU_CMD_NVM_H
#define HW_FEMU_CMD_NVM_H

#include "femu.h"

uint16_t femu_io_cmd(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
uint16_t femu_io_nvm(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req);

#endif
