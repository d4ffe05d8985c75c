/* An FTL's stores: finding one by namespace, and their gauges in the handle. */
#include "flash/ftl_handle.h"
#include "kv/kv_stores.h"

struct kv_store *kv_store_of(const struct ftl *ftl, uint32_t nsid)
{
    const struct kv_stores *all = ftl->kv;
    for (uint32_t i = 0; all && i < all->n; i++) {
        if (all->v[i]->nsid == nsid) {
            return all->v[i];
        }
    }
    return NULL;
}

uint32_t ftl_kv_store_count(const struct ftl *ftl)
{
    return ftl->kv ? ftl->kv->n : 0;
}

/* Host memory of one store's tables, as allocated now. */
static uint64_t store_host_bytes(const struct kv_store *s)
{
    return sizeof(*s) + (uint64_t)s->adm.cap * sizeof(struct kv_anode) +
           (uint64_t)s->map.cap * sizeof(struct kv_frec) +
           (uint64_t)s->map.nbuckets * sizeof(uint32_t) +
           (uint64_t)s->log.nsegs * sizeof(struct kv_segment) +
           (uint64_t)s->cache.cap * sizeof(struct kv_cslot) +
           s->index_pages * sizeof(uint32_t) + (s->index_pages + 63) / 64 * sizeof(uint64_t);
}

void kv_gauges_update(struct ftl *ftl)
{
    const struct kv_stores *all = ftl->kv;
    ftl->kv_keys = ftl->kv_live_bytes = ftl->kv_host_bytes = 0;
    if (all) {
        ftl->kv_host_bytes = sizeof(*all) + all->cap * sizeof(all->v[0]);
    }
    for (uint32_t i = 0; all && i < all->n; i++) {
        ftl->kv_keys += all->v[i]->map.count;
        ftl->kv_live_bytes += all->v[i]->map.value_bytes;
        ftl->kv_host_bytes += store_host_bytes(all->v[i]);
    }
}
