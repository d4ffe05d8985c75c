/*
 * What changes the namespace table (cmd/admin/ns.c, poller): the namespaces given at realize,
 * Namespace Management and Attachment, Format NVM, and the Changed Namespace List. Reading
 * the table: cmd/core/ns_table.h.
 */
#ifndef HW_FEMU_CMD_NS_H
#define HW_FEMU_CMD_NS_H

#include "femu.h"

bool femu_ns_realize(FemuCtrl *n, Error **errp);       /* namespaces given at realize */
void femu_ns_release(FemuCtrl *n);      /* unrealize: the KV namespaces' value bytes */
uint16_t femu_ns_management(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
uint16_t femu_ns_attachment(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
uint16_t femu_format_nvm(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
/* Changed Namespace List log (4 KiB into buf), built without changing anything. */
size_t femu_ns_changed_log(FemuCtrl *n, uint8_t *buf, size_t len);
/* The host got the log: without rae the list is cleared and the event re-armed. */
void femu_ns_changed_log_read(FemuCtrl *n, bool rae);
void femu_ns_reset(FemuCtrl *n);        /* controller reset: event masks */

#endif
