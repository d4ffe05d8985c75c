/*
 * Admission (femu_ftl/kv.h): the command set's rules over an ordered map of the live keys,
 * a treap whose priorities are a hash of the key (no random state: the same keys make the
 * same tree, so a replay is exact), O(log n) expected per operation. It knows nothing of
 * flash or time.
 */
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/ftl.h"
#include "kv/kv_store.h"

int ftl_kv_key_cmp(const struct ftl_kv_key *a, const struct ftl_kv_key *b)
{
    uint32_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->bytes, b->bytes, n);
    if (c != 0) {
        return c;
    }
    return (int)a->len - (int)b->len;
}

/* The key with the bytes past its length zeroed, as every table keeps it. */
static struct ftl_kv_key key_clean(const struct ftl_kv_key *k)
{
    struct ftl_kv_key c = { .len = k->len };
    memcpy(c.bytes, k->bytes, k->len);
    return c;
}

static bool key_size_bad(const struct ftl_kv_key *k)
{
    return !k || k->len == 0 || k->len > FTL_KV_KEY_MAX;
}

int kv_adm_init(struct kv_admission *a)
{
    *a = (struct kv_admission){ .root = KV_NONE, .free_head = KV_NONE };
    return FTL_OK;
}

void kv_adm_free(struct kv_admission *a)
{
    free(a->nodes);
    *a = (struct kv_admission){ .root = KV_NONE, .free_head = KV_NONE };
}

void kv_adm_clear(struct kv_admission *a)
{
    a->unused = 0;
    a->root = KV_NONE;
    a->free_head = KV_NONE;
    a->keys = 0;
    a->live_bytes = 0;
}

/* Room for one more node, before anything changes. */
static bool adm_reserve(struct kv_admission *a)
{
    if (a->free_head != KV_NONE || a->unused < a->cap) {
        return true;
    }
    uint32_t cap = a->cap ? a->cap * 2 : 64;
    if (cap <= a->cap) {
        return false;
    }
    struct kv_anode *n = realloc(a->nodes, (size_t)cap * sizeof(*n));
    if (!n) {
        return false;
    }
    a->nodes = n;
    a->cap = cap;
    return true;
}

static uint32_t adm_take(struct kv_admission *a)
{
    uint32_t i = a->free_head;
    if (i != KV_NONE) {
        a->free_head = a->nodes[i].left;
        return i;
    }
    return a->unused++;
}

const struct kv_anode *kv_adm_find(const struct kv_admission *a, const struct ftl_kv_key *k)
{
    uint32_t t = a->root;
    while (t != KV_NONE) {
        int c = ftl_kv_key_cmp(k, &a->nodes[t].key);
        if (c == 0) {
            return &a->nodes[t];
        }
        t = c < 0 ? a->nodes[t].left : a->nodes[t].right;
    }
    return NULL;
}

const struct kv_anode *kv_adm_ceil(const struct kv_admission *a, const struct ftl_kv_key *k,
                                   bool strict)
{
    const struct kv_anode *best = NULL;
    uint32_t t = a->root;
    while (t != KV_NONE) {
        int c = ftl_kv_key_cmp(&a->nodes[t].key, k);
        if (c > 0 || (c == 0 && !strict)) {
            best = &a->nodes[t];
            if (c == 0) {
                break;
            }
            t = a->nodes[t].left;
        } else {
            t = a->nodes[t].right;
        }
    }
    return best;
}

/* Treap merge: every key of l below every key of r. */
static uint32_t adm_merge(struct kv_admission *a, uint32_t l, uint32_t r)
{
    if (l == KV_NONE) {
        return r;
    }
    if (r == KV_NONE) {
        return l;
    }
    if (a->nodes[l].prio >= a->nodes[r].prio) {
        a->nodes[l].right = adm_merge(a, a->nodes[l].right, r);
        return l;
    }
    a->nodes[r].left = adm_merge(a, l, a->nodes[r].left);
    return r;
}

/* Treap split: keys < k into *lo, the rest into *hi. */
static void adm_split(struct kv_admission *a, uint32_t t, const struct ftl_kv_key *k,
                      uint32_t *lo, uint32_t *hi)
{
    if (t == KV_NONE) {
        *lo = *hi = KV_NONE;
        return;
    }
    if (ftl_kv_key_cmp(&a->nodes[t].key, k) < 0) {
        adm_split(a, a->nodes[t].right, k, &a->nodes[t].right, hi);
        *lo = t;
    } else {
        adm_split(a, a->nodes[t].left, k, lo, &a->nodes[t].left);
        *hi = t;
    }
}

/* The subtree t without key k (present in it). */
static uint32_t adm_erase(struct kv_admission *a, uint32_t t, const struct ftl_kv_key *k)
{
    int c = ftl_kv_key_cmp(k, &a->nodes[t].key);
    if (c == 0) {
        uint32_t joined = adm_merge(a, a->nodes[t].left, a->nodes[t].right);
        a->nodes[t].left = a->free_head;
        a->free_head = t;
        return joined;
    }
    if (c < 0) {
        a->nodes[t].left = adm_erase(a, a->nodes[t].left, k);
    } else {
        a->nodes[t].right = adm_erase(a, a->nodes[t].right, k);
    }
    return t;
}

/* A new node for key (absent), after adm_reserve. */
static void adm_insert(struct kv_admission *a, const struct ftl_kv_key *k, uint32_t value_bytes,
                       uint64_t tag)
{
    uint32_t i = adm_take(a);
    uint64_t h = kv_key_hash(k);
    a->nodes[i] = (struct kv_anode){
        .key = key_clean(k), .value_bytes = value_bytes, .left = KV_NONE, .right = KV_NONE,
        .tag = tag, .prio = (h ^ (h >> 31)) * 0x94d049bb133111ebull,
    };
    uint32_t lo, hi;
    adm_split(a, a->root, k, &lo, &hi);
    a->root = adm_merge(a, adm_merge(a, lo, i), hi);
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
        if (!adm_reserve(a)) {
            return FTL_E_NOMEM;
        }
        adm_insert(a, key, value_bytes, value_tag);
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
    s->adm.root = adm_erase(&s->adm, s->adm.root, &k);
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
