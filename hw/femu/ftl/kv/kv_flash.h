/* The KV layer's flash side as the engine calls it (kv_flash.c). */
#ifndef FEMU_FTL_KV_KV_FLASH_H
#define FEMU_FTL_KV_KV_FLASH_H

#include <stdint.h>

#include "femu_ftl/engine.h"

/*
 * The flash work of FTL_OP_KV_* request r (admitted already): index lookups, value log
 * reads and programs, compaction; *done_ns the latest end (>= arrival). A request for a
 * namespace without a store is nothing (done at arrival, FTL_OK). Counts the kv_*
 * counters. FTL status.
 */
int kv_flash_serve(struct ftl *ftl, const struct ftl_request *r, uint64_t *done_ns);

/* FTL_OP_FORMAT over [slba, slba + nlb): a store whose range it is exactly loses every
 * key of its flash record, its index cache and its log (before the range is formatted). */
void kv_flash_format(struct ftl *ftl, uint64_t slba, uint64_t nlb);

/* Admission of FTL_OP_KV_* request r, for a caller that did not admit it (ftl-sim);
 * FTL_E_INVAL when its namespace has no store. */
int kv_admit_request(struct ftl *ftl, const struct ftl_request *r);

/* FTL_OP_KV_CREATE / FTL_OP_KV_DESTROY (engine.h): FTL status. */
int kv_life_serve(struct ftl *ftl, const struct ftl_request *r);

/* FTL_OP_FORMAT's part in the stores: the store whose range r's is exactly loses every
 * key, in admission too unless r is FTL_REQ_ADMITTED (its caller emptied it), then
 * kv_flash_format. */
void kv_life_format(struct ftl *ftl, const struct ftl_request *r);

#endif
