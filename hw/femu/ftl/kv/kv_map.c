/*
 * The flash record: key -> where its newest log record lies, a chained hash table over a
 * pool of slots, both grown by doubling (O(1) amortized). Its own record, apart from
 * admission's, so the flash side never depends on what admission was told.
 */
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/ftl.h"
#include "kv/kv_map.h"
#include "kv/kv_stores.h"

#define MAP_FIRST_BUCKETS 64u

int kv_map_init(struct kv_flash_map *m)
{
    *m = (struct kv_flash_map){ .free_head = KV_NONE };
    m->buckets = malloc(MAP_FIRST_BUCKETS * sizeof(uint32_t));
    if (!m->buckets) {
        return FTL_E_NOMEM;
    }
    m->nbuckets = MAP_FIRST_BUCKETS;
    memset(m->buckets, 0xff, MAP_FIRST_BUCKETS * sizeof(uint32_t));
    return FTL_OK;
}

void kv_map_free(struct kv_flash_map *m)
{
    free(m->recs);
    free(m->buckets);
    *m = (struct kv_flash_map){ .free_head = KV_NONE };
}

void kv_map_clear(struct kv_flash_map *m)
{
    memset(m->buckets, 0xff, m->nbuckets * sizeof(uint32_t));
    m->unused = 0;
    m->free_head = KV_NONE;
    m->count = 0;
    m->value_bytes = 0;
}

static uint32_t map_bucket(const struct kv_flash_map *m, const struct ftl_kv_key *k)
{
    return (uint32_t)(kv_key_hash(k) & (m->nbuckets - 1));
}

uint32_t kv_map_find(const struct kv_flash_map *m, const struct ftl_kv_key *k)
{
    for (uint32_t i = m->buckets[map_bucket(m, k)]; i != KV_NONE; i = m->recs[i].hnext) {
        if (ftl_kv_key_cmp(&m->recs[i].key, k) == 0) {
            return i;
        }
    }
    return KV_NONE;
}

/* Twice the buckets, every live slot rechained. */
static bool map_grow_buckets(struct kv_flash_map *m)
{
    uint32_t n = m->nbuckets * 2;
    uint32_t *b = malloc((size_t)n * sizeof(uint32_t));
    if (!b || n <= m->nbuckets) {
        free(b);
        return false;
    }
    memset(b, 0xff, (size_t)n * sizeof(uint32_t));
    free(m->buckets);
    m->buckets = b;
    m->nbuckets = n;
    for (uint32_t i = 0; i < m->unused; i++) {
        struct kv_frec *r = &m->recs[i];
        if (r->key.len == 0) {      /* a free slot */
            continue;
        }
        uint32_t h = map_bucket(m, &r->key);
        r->hnext = m->buckets[h];
        m->buckets[h] = i;
    }
    return true;
}

uint32_t kv_map_insert(struct kv_flash_map *m, const struct ftl_kv_key *k)
{
    if (m->free_head == KV_NONE && m->unused == m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 64;
        struct kv_frec *r = cap > m->cap ? realloc(m->recs, (size_t)cap * sizeof(*r)) : NULL;
        if (!r) {
            return KV_NONE;
        }
        m->recs = r;
        m->cap = cap;
    }
    if (m->count + 1 > m->nbuckets && !map_grow_buckets(m)) {
        return KV_NONE;
    }
    uint32_t i = m->free_head;
    if (i != KV_NONE) {
        m->free_head = m->recs[i].hnext;
    } else {
        i = m->unused++;
    }
    struct kv_frec *r = &m->recs[i];
    *r = (struct kv_frec){ .seg = KV_NONE, .sprev = KV_NONE, .snext = KV_NONE };
    r->key.len = k->len;
    memcpy(r->key.bytes, k->bytes, k->len);
    uint32_t h = map_bucket(m, &r->key);
    r->hnext = m->buckets[h];
    m->buckets[h] = i;
    m->count++;
    return i;
}

void kv_map_remove(struct kv_flash_map *m, uint32_t i)
{
    struct kv_frec *r = &m->recs[i];
    uint32_t *link = &m->buckets[map_bucket(m, &r->key)];
    while (*link != i) {
        link = &m->recs[*link].hnext;
    }
    *link = r->hnext;
    m->value_bytes -= r->value_bytes;
    m->count--;
    *r = (struct kv_frec){ .seg = KV_NONE, .hnext = m->free_head, .sprev = KV_NONE,
                           .snext = KV_NONE };
    m->free_head = i;
}
