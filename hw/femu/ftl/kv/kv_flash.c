/*
 * The flash side of the KV commands. A request arriving at t: its index lookups' flash
 * work starts at t and ends at t1; a Store's value pages program from t1 (after a
 * compaction, which starts at t1, when one is needed); a Retrieve reads its value's pages
 * from t1; it completes at the latest end. A key the flash record does not hold costs an
 * index lookup only.
 */
#include "kv/kv_flash.h"

#include "base/max_u64.h"
#include "flash/ftl_handle.h"
#include "kv/kv_index.h"
#include "kv/kv_log.h"
#include "kv/kv_map.h"
#include "kv/kv_stores.h"
#include "kv/kv_treap.h"

static int kv_store_value(struct ftl *ftl, struct kv_store *s, const struct ftl_request *r,
                          uint64_t t1, uint64_t *done)
{
    struct kv_flash_map *m = &s->map;
    uint32_t i = kv_map_find(m, &r->key);
    if (i == KV_NONE) {
        i = kv_map_insert(m, &r->key);
        if (i == KV_NONE) {
            return FTL_E_NOMEM;
        }
    } else {
        kv_log_kill(s, i);
        m->value_bytes -= m->recs[i].value_bytes;
    }
    struct kv_frec *rec = &m->recs[i];
    rec->value_bytes = r->kv_bytes;
    rec->rec_bytes = (uint32_t)kv_record_bytes(r->key.len, r->kv_bytes);
    rec->tag = r->value_tag;
    m->value_bytes += r->kv_bytes;
    ftl->ctr.kv_store_bytes += r->kv_bytes;
    int rc = kv_log_append(ftl, s, i, t1, done);
    if (rc != FTL_OK) {
        /* the log could not take it: the flash record no longer holds the key */
        if (m->recs[i].seg != KV_NONE) {
            kv_log_kill(s, i);
        }
        kv_map_remove(m, i);
    }
    return rc;
}

static int kv_retrieve_value(struct ftl *ftl, struct kv_store *s, const struct ftl_request *r,
                             uint64_t t1, uint64_t *done)
{
    uint32_t i = kv_map_find(&s->map, &r->key);
    if (i == KV_NONE) {
        return FTL_OK;
    }
    const struct kv_frec *rec = &s->map.recs[i];
    uint64_t n = r->kv_bytes < rec->value_bytes ? r->kv_bytes : rec->value_bytes;
    ftl->ctr.kv_retrieve_bytes += n;
    return kv_log_read(ftl, s, i, kv_record_bytes(rec->key.len, n), t1, done);
}

/* List: one index lookup per key returned, kv_bytes of them at most, from the start key
 * in admission's order; all from the arrival. */
static int kv_list(struct ftl *ftl, struct kv_store *s, const struct ftl_request *r,
                   uint64_t *done)
{
    const struct kv_anode *a = kv_adm_ceil(&s->adm, &r->key, false);
    for (uint32_t n = 0; a && n < r->kv_bytes; n++) {
        struct ftl_kv_key k = a->key;
        int rc = kv_index_lookup(ftl, s, &k, false, r->arrival_ns, done);
        if (rc != FTL_OK) {
            return rc;
        }
        a = kv_adm_ceil(&s->adm, &k, true);
    }
    return FTL_OK;
}

static int kv_serve_op(struct ftl *ftl, struct kv_store *s, const struct ftl_request *r,
                       uint64_t *done)
{
    uint64_t t1 = r->arrival_ns;
    int rc;
    switch (r->op) {
    case FTL_OP_KV_STORE:
        ftl->ctr.kv_stores++;
        rc = kv_index_lookup(ftl, s, &r->key, true, r->arrival_ns, &t1);
        *done = max_u64(*done, t1);
        return rc != FTL_OK ? rc : kv_store_value(ftl, s, r, t1, done);
    case FTL_OP_KV_RETRIEVE:
        ftl->ctr.kv_retrieves++;
        rc = kv_index_lookup(ftl, s, &r->key, false, r->arrival_ns, &t1);
        *done = max_u64(*done, t1);
        return rc != FTL_OK ? rc : kv_retrieve_value(ftl, s, r, t1, done);
    case FTL_OP_KV_DELETE: {
        ftl->ctr.kv_deletes++;
        uint32_t i = kv_map_find(&s->map, &r->key);
        rc = kv_index_lookup(ftl, s, &r->key, i != KV_NONE, r->arrival_ns, done);
        if (rc == FTL_OK && i != KV_NONE) {
            kv_log_kill(s, i);
            kv_map_remove(&s->map, i);
        }
        return rc;
    }
    case FTL_OP_KV_EXIST:
        ftl->ctr.kv_exists++;
        return kv_index_lookup(ftl, s, &r->key, false, r->arrival_ns, done);
    case FTL_OP_KV_LIST:
        ftl->ctr.kv_lists++;
        return kv_list(ftl, s, r, done);
    default:
        return FTL_E_INVAL;
    }
}

int kv_flash_serve(struct ftl *ftl, const struct ftl_request *r, uint64_t *done_ns)
{
    struct kv_store *s = kv_store_of(ftl, r->nsid ? r->nsid : 1);
    uint64_t done = r->arrival_ns;
    int rc = FTL_OK;
    *done_ns = r->arrival_ns;
    if (!s || r->key.len == 0 || r->key.len > FTL_KV_KEY_MAX) {
        return FTL_OK;
    }
    rc = kv_serve_op(ftl, s, r, &done);
    kv_gauges_update(ftl);
    *done_ns = done;
    return rc;
}

void kv_flash_format(struct ftl *ftl, uint64_t slba, uint64_t nlb)
{
    const struct kv_stores *all = ftl->kv;
    for (uint32_t i = 0; all && i < all->n; i++) {
        struct kv_store *s = all->v[i];
        if (s->base_sector == slba && s->sectors == nlb) {
            kv_map_clear(&s->map);
            kv_log_clear(&s->log);
            kv_index_clear(s);
        }
    }
    kv_gauges_update(ftl);
}

int kv_admit_request(struct ftl *ftl, const struct ftl_request *r)
{
    uint32_t nsid = r->nsid ? r->nsid : 1;
    /* A namespace without a store fails admission (FTL_E_INVAL, kv.h): a replayed KV
     * record for a store nobody created is an error, never served as nothing. */
    switch (r->op) {
    case FTL_OP_KV_STORE:
        return ftl_kv_admit_store(ftl, nsid, &r->key, r->kv_bytes,
                                  r->flags & (FTL_KV_ONLY_IF_EXISTS | FTL_KV_ONLY_IF_ABSENT),
                                  r->value_tag);
    case FTL_OP_KV_RETRIEVE:
        return ftl_kv_admit_retrieve(ftl, nsid, &r->key, NULL, NULL);
    case FTL_OP_KV_DELETE:
        return ftl_kv_admit_delete(ftl, nsid, &r->key);
    case FTL_OP_KV_EXIST:
        return ftl_kv_admit_exist(ftl, nsid, &r->key);
    case FTL_OP_KV_LIST: {
        uint32_t n;
        return ftl_kv_admit_list(ftl, nsid, &r->key, NULL, r->kv_bytes, &n);
    }
    default:
        return FTL_E_INVAL;
    }
}
