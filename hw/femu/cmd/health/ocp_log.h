/* Log page C0h (cmd/health/ocp_log.c): the OCP Datacenter NVMe SSD SMART / Health Information
 * Extended page, 512 bytes. Not the vendor admin opcode C0h. */
#ifndef HW_FEMU_CMD_OCP_LOG_H
#define HW_FEMU_CMD_OCP_LOG_H

#include "femu.h"

#define FEMU_LOG_OCP_SMART          0xc0    /* its Log Page Identifier */
#define FEMU_OCP_SMART_LOG_BYTES    512
void femu_ocp_smart_log(FemuCtrl *n, uint8_t *buf);

#endif
