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

void kv_gauges_update(struct ftl *ftl)
{
    const struct kv_stores *all = ftl->kv;
    ftl->kv_keys = ftl->kv_live_bytes = 0;
    for (uint32_t i = 0; all && i < all->n; i++) {
        ftl->kv_keys += all->v[i]->map.count;
        ftl->kv_live_bytes += all->v[i]->map.value_bytes;
    }
}
