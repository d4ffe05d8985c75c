/* A command the device answers without the FTL, charged to the link and the controller
 * when their model is on (cmd/core/front_cmd.c, poller). */
#ifndef HW_FEMU_CMD_FRONT_CMD_H
#define HW_FEMU_CMD_FRONT_CMD_H

#include "femu.h"

/* After the command ran (req->status its status): make it the engine's FTL_OP_ADMIN with
 * the bytes it moved (n->cmd_bytes_in, cmd_bytes_out) when it is one to charge. */
void femu_front_cmd(FemuCtrl *n, uint16_t qid, const NvmeCmd *cmd, FemuRequest *req);

#endif
