/* Copy (19h) on any namespace, in both I/O command sets, and its limits (MSSRL, MCL, MSRC)
 * (cmd/io/copy.c, poller). */
#ifndef HW_FEMU_CMD_COPY_H
#define HW_FEMU_CMD_COPY_H

#include "femu.h"

uint16_t femu_copy(FemuCtrl *n, FemuNamespace *ns, const NvmeCmd *cmd, FemuRequest *req);
void femu_copy_limits(const FemuNamespace *ns, NvmeIdNs *id);

#endif
