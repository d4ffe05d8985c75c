/*
 * A store's life through the engine (FTL_OP_KV_CREATE, FTL_OP_KV_DESTROY, and Format's
 * admission side), so a recording holds every change of which stores exist and a replay
 * makes the same changes at the same point of the request stream.
 */
#include "kv/kv_flash.h"

#include "flash/ftl_handle.h"
#include "kv/kv_stores.h"

int kv_life_serve(struct ftl *ftl, const struct ftl_request *r)
{
    uint32_t nsid = r->nsid ? r->nsid : 1;
    bool admitted = (r->flags & FTL_REQ_ADMITTED) != 0;

    if (r->op == FTL_OP_KV_DESTROY) {
        if (!admitted) {
            if (!kv_store_of(ftl, nsid)) {
                return FTL_E_INVAL;     /* no store to end: not the recording's FTL */
            }
            ftl_kv_destroy(ftl, nsid);
        }
        return FTL_OK;
    }
    if (admitted) {
        /* the caller made it: the record must say what it made */
        const struct kv_store *s = kv_store_of(ftl, nsid);
        return s && s->base_sector == r->slba && s->sectors == r->nlb &&
               s->capacity_bytes == r->kv_capacity ? FTL_OK : FTL_E_INVAL;
    }
    char err[160];
    return ftl_kv_create(ftl, nsid, r->slba, r->nlb, r->kv_capacity, err, sizeof(err)) == 0
           ? FTL_OK : FTL_E_INVAL;
}

void kv_life_format(struct ftl *ftl, const struct ftl_request *r)
{
    const struct kv_stores *all = ftl->kv;
    for (uint32_t i = 0; all && i < all->n; i++) {
        const struct kv_store *s = all->v[i];
        if (s->base_sector == r->slba && s->sectors == r->nlb) {
            if (!(r->flags & FTL_REQ_ADMITTED)) {
                ftl_kv_clear(ftl, s->nsid);     /* the caller has not: a replay */
            }
            break;
        }
    }
    kv_flash_format(ftl, r->slba, r->nlb);
}
