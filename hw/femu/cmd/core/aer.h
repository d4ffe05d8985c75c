/* Asynchronous Event Requests and the events they report (cmd/core/aer.c, poller). */
#ifndef HW_FEMU_CMD_AER_H
#define HW_FEMU_CMD_AER_H

#include "femu.h"

/* An Asynchronous Event Request: held (NVME_NO_COMPLETE) until an event completes it. */
uint16_t femu_aer_request(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
void femu_aer_post(FemuCtrl *n, uint8_t type, uint8_t info, uint8_t log_page);
void femu_aer_reset(FemuCtrl *n);       /* drop held requests and queued events */

#endif
