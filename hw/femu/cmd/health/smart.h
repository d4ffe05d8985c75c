/*
 * SMART / Health Information (cmd/health/smart.c, poller): the counters the I/O commands add to,
 * the controller's and each namespace's, the health figures made from the FTL's wear, and
 * log page 02h.
 */
#ifndef HW_FEMU_CMD_SMART_H
#define HW_FEMU_CMD_SMART_H

#include "femu.h"

/* Bytes read and (cmds) one host read command, the controller's and ns's. */
void femu_smart_read(FemuCtrl *n, FemuNamespace *ns, uint64_t bytes, bool cmds);
/* Bytes written and one host write command, the controller's and ns's. */
void femu_smart_write(FemuCtrl *n, FemuNamespace *ns, uint64_t bytes);
uint8_t femu_available_spare(const struct ftl_wear *wear);     /* percent of spare left */
/* Log page 02h for NSID nsid into log (zeroed): NVME_SUCCESS, or the NSID's status. */
uint16_t femu_smart_log(FemuCtrl *n, uint32_t nsid, NvmeSmartLog *log);

#endif
