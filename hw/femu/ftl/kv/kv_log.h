/* The value log and its compaction (kv_log.c). */
#ifndef FEMU_FTL_KV_KV_LOG_H
#define FEMU_FTL_KV_KV_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "kv/kv_tables.h"

struct ftl;

int kv_log_init(struct kv_log *l, uint32_t nsegs);
void kv_log_free(struct kv_log *l);
void kv_log_clear(struct kv_log *l);
/* Append key's record (rec the flash record slot, already holding key, sizes and tag) at
 * the head, compacting first when it needs a new segment and the free ones are too few;
 * full pages program at now_ns (after a compaction, at its end). FTL status:
 * FTL_E_KV_CAPACITY when the log has no room even after compaction. */
int kv_log_append(struct ftl *ftl, struct kv_store *s, uint32_t rec, uint64_t now_ns,
                  uint64_t *done);
/* The record no longer live: its segment's counts drop. */
void kv_log_kill(struct kv_store *s, uint32_t rec);
/* Read the pages of the first `bytes` bytes of the record (those outside the open page)
 * at now_ns. */
int kv_log_read(struct ftl *ftl, struct kv_store *s, uint32_t rec, uint64_t bytes,
                uint64_t now_ns, uint64_t *done);

#endif
