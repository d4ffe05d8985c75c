/*
 * Key Value namespaces in the namespace table (cmd/admin/ns_kv.c, poller): made at realize
 * (kv_ns_mb) or by Namespace Management with CSI 01h, and dropped on delete.
 */
#ifndef HW_FEMU_CMD_NS_KV_H
#define HW_FEMU_CMD_NS_KV_H

#include "femu.h"

/* kv_ns_mb: the sectors its namespace takes at the end of the space (0: none), or false. */
bool femu_ns_kv_sectors(FemuCtrl *n, uint64_t *sectors, Error **errp);
/* The kv_ns_mb namespace, NSID nsid, over the last `sectors` (none when 0). */
bool femu_ns_realize_kv(FemuCtrl *n, uint32_t nsid, uint64_t sectors, Error **errp);
uint16_t femu_ns_create_kv(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req);
void femu_ns_drop_kv(FemuCtrl *n, FemuNamespace *ns);   /* no-op on a non-KV namespace */
void femu_ns_release(FemuCtrl *n);      /* unrealize: the KV namespaces' value bytes */

#endif
