/*
 * Admission (femu_ftl/kv.h): the command set's rules over admission's ordered map of the
 * live keys (kv_treap.c). It knows nothing of flash or time.
 */
#include "femu_ftl/ftl.h"
#include "kv/kv_stores.h"
#include "kv/kv_treap.h"

static bool key_size_bad(const struct ftl_kv_key *k)
{
    return !k || k->len == 0 || k->len > FTL_KV_KEY_MAX;
}

int ftl_kv_admit_store(struct ftl *ftl, uint32_t nsid, const struct ftl_kv_key *key,
                       uint32_t value_bytes, unsigned opts, uint64_t value_tag)
{
    if (key_size_bad(key)) {
        return FTL_E_KV_KEY_SIZE;
    }
    struct kv_store *s = kv_store_of(ftl, nsid);
    if (!s) {
        return FTL_E_INVAL;
    }
    struct kv_admission *a = &s->adm;
    if (value_bytes > s->max_value_bytes) {
        return FTL_E_KV_VALUE_SIZE;
    }
    struct kv_anode *n = (struct kv_anode *)kv_adm_find(a, key);
    if ((opts & FTL_KV_ONLY_IF_EXISTS) && !n) {
        return FTL_E_KV_NO_KEY;
    }
    if ((opts & FTL_KV_ONLY_IF_ABSENT) && n) {
        return FTL_E_KV_KEY_EXISTS;
    }
    uint64_t live = a->live_bytes - (n ? n->value_bytes : 0) + value_bytes;
    if (live > s->capacity_bytes || (!n && a->keys >= s->max_keys)) {
        return FTL_E_KV_CAPACITY;
    }
    if (n) {
        n->value_bytes = value_bytes;
        n->tag = value_tag;
    } else {
        if (!kv_adm_reserve(a)) {
            return FTL_E_NOMEM;
        }
        kv_adm_insert(a, key, value_bytes, value_tag);
        a->keys++;
    }
    a->live_bytes = live;
    return FTL_OK;
}

/* The live node of key in nsid's store, or the status saying why there is none. */
static int adm_lookup(const struct ftl *ftl, uint32_t nsid, const struct ftl_kv_key *key,
                      struct kv_store **store, const struct kv_anode **node)
{
    if (key_size_bad(key)) {
        return FTL_E_KV_KEY_SIZE;
    }
    struct kv_store *s = kv_store_of(ftl, nsid);
    if (!s) {
        return FTL_E_INVAL;
    }
    const struct kv_anode *n = kv_adm_find(&s->adm, key);
    if (!n) {
        return FTL_E_KV_NO_KEY;
    }
    *store = s;
    *node = n;
    return FTL_OK;
}

int ftl_kv_admit_retrieve(const struct ftl *ftl, uint32_t nsid, const struct ftl_kv_key *key,
                          uint32_t *value_bytes, uint64_t *value_tag)
{
    struct kv_store *s;
    const struct kv_anode *n;
    int rc = adm_lookup(ftl, nsid, key, &s, &n);
    if (rc == FTL_OK) {
        if (value_bytes) {
            *value_bytes = n->value_bytes;
        }
        if (value_tag) {
            *value_tag = n->tag;
        }
    }
    return rc;
}

int ftl_kv_admit_exist(const struct ftl *ftl, uint32_t nsid, const struct ftl_kv_key *key)
{
    struct kv_store *s;
    const struct kv_anode *n;
    return adm_lookup(ftl, nsid, key, &s, &n);
}

int ftl_kv_admit_delete(struct ftl *ftl, uint32_t nsid, const struct ftl_kv_key *key)
{
    struct kv_store *s;
    const struct kv_anode *n;
    int rc = adm_lookup(ftl, nsid, key, &s, &n);
    if (rc != FTL_OK) {
        return rc;
    }
    s->adm.live_bytes -= n->value_bytes;
    s->adm.keys--;
    struct ftl_kv_key k = n->key;
    kv_adm_erase(&s->adm, &k);
    return FTL_OK;
}

int ftl_kv_admit_list(const struct ftl *ftl, uint32_t nsid, const struct ftl_kv_key *start,
                      struct ftl_kv_key *out, uint32_t max, uint32_t *n)
{
    if (n) {
        *n = 0;
    }
    if (key_size_bad(start)) {
        return FTL_E_KV_KEY_SIZE;
    }
    struct kv_store *s = kv_store_of(ftl, nsid);
    if (!s) {
        return FTL_E_INVAL;
    }
    uint32_t got = 0;
    const struct kv_anode *a = kv_adm_ceil(&s->adm, start, false);
    while (a && got < max) {
        if (out) {
            out[got] = a->key;
        }
        got++;
        a = kv_adm_ceil(&s->adm, &a->key, true);
    }
    if (n) {
        *n = got;
    }
    return FTL_OK;
}
