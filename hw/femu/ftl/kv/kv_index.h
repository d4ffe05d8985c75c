/* The index and its DRAM cache (kv_index.c). */
#ifndef FEMU_FTL_KV_KV_INDEX_H
#define FEMU_FTL_KV_KV_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "kv/kv_tables.h"

struct ftl;

int kv_index_init(struct kv_store *s, uint32_t cache_pages);
void kv_index_free(struct kv_index_cache *c);
void kv_index_clear(struct kv_store *s);
/* Look up key's index page at now_ns (dirty: a Store or Delete changes it): a hit costs
 * nothing, a miss reads the page (if ever written) and may evict a dirty page. The end of
 * its flash work into *done. FTL status. */
int kv_index_lookup(struct ftl *ftl, struct kv_store *s, const struct ftl_kv_key *key,
                    bool dirty, uint64_t now_ns, uint64_t *done);

#endif
