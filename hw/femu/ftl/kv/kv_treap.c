/*
 * Admission's ordered map of the live keys: a treap ordered by ftl_kv_key_cmp whose
 * priorities are a hash of the key (no random state: the same keys make the same tree,
 * so a replay is exact), O(log n) expected per operation; nodes in one array, linked by
 * index.
 */
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/ftl.h"
#include "kv/kv_stores.h"
#include "kv/kv_treap.h"

/* The key with the bytes past its length zeroed, as every table keeps it. */
static struct ftl_kv_key key_clean(const struct ftl_kv_key *k)
{
    struct ftl_kv_key c = { .len = k->len };
    memcpy(c.bytes, k->bytes, k->len);
    return c;
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
bool kv_adm_reserve(struct kv_admission *a)
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

void kv_adm_insert(struct kv_admission *a, const struct ftl_kv_key *k, uint32_t value_bytes,
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

void kv_adm_erase(struct kv_admission *a, const struct ftl_kv_key *k)
{
    a->root = adm_erase(a, a->root, k);
}
