/*
 * The index: a key's entry lives in index page kv_key_hash(key) mod index_pages; up to
 * cache.cap pages are in DRAM, least recently used evicted first. A miss reads the page
 * from flash unless it was never written (then it is known empty); evicting a dirty page
 * programs it. As DFTL does for the page map, but for keys.
 */
#include <stdlib.h>
#include <string.h>

#include "flash/ftl_handle.h"
#include "kv/kv_index.h"
#include "kv/kv_pages.h"
#include "kv/kv_stores.h"

int kv_index_init(struct kv_store *s, uint32_t cache_pages)
{
    struct kv_index_cache *c = &s->cache;
    *c = (struct kv_index_cache){ .cap = cache_pages };
    c->slots = calloc(cache_pages, sizeof(*c->slots));
    c->slot_of = malloc(s->index_pages * sizeof(uint32_t));
    c->written = calloc((s->index_pages + 63) / 64, sizeof(uint64_t));
    if (!c->slots || !c->slot_of || !c->written) {
        kv_index_free(c);
        return FTL_E_NOMEM;
    }
    memset(c->slot_of, 0xff, s->index_pages * sizeof(uint32_t));
    lru_init(&c->lru, c->slots, sizeof(*c->slots), offsetof(struct kv_cslot, link));
    return FTL_OK;
}

void kv_index_free(struct kv_index_cache *c)
{
    free(c->slots);
    free(c->slot_of);
    free(c->written);
    *c = (struct kv_index_cache){ 0 };
}

void kv_index_clear(struct kv_store *s)
{
    struct kv_index_cache *c = &s->cache;
    memset(c->slot_of, 0xff, s->index_pages * sizeof(uint32_t));
    memset(c->written, 0, (s->index_pages + 63) / 64 * sizeof(uint64_t));
    c->count = 0;
    lru_init(&c->lru, c->slots, sizeof(*c->slots), offsetof(struct kv_cslot, link));
}

static bool page_written(const struct kv_index_cache *c, uint64_t p)
{
    return (c->written[p / 64] >> (p % 64)) & 1;
}

/* A free slot: a new one, or the LRU page's, programmed first when dirty. */
static int index_slot(struct ftl *ftl, struct kv_store *s, uint64_t now_ns, uint64_t *done,
                      uint32_t *slot)
{
    struct kv_index_cache *c = &s->cache;
    if (c->count < c->cap) {
        *slot = c->count++;
        return FTL_OK;
    }
    uint32_t v = c->lru.lru;
    struct kv_cslot *e = &c->slots[v];
    if (e->dirty) {
        int rc = kv_page_write(ftl, s, e->page, now_ns, done);
        if (rc != FTL_OK) {
            return rc;
        }
        c->written[e->page / 64] |= 1ull << (e->page % 64);
        ftl->ctr.kv_index_page_writes++;
    }
    lru_unlink(&c->lru, v);
    c->slot_of[e->page] = KV_NONE;
    *slot = v;
    return FTL_OK;
}

int kv_index_lookup(struct ftl *ftl, struct kv_store *s, const struct ftl_kv_key *key,
                    bool dirty, uint64_t now_ns, uint64_t *done)
{
    struct kv_index_cache *c = &s->cache;
    uint32_t page = (uint32_t)(kv_key_hash(key) % s->index_pages);
    uint32_t slot = c->slot_of[page];
    if (slot != KV_NONE) {
        ftl->ctr.kv_index_hits++;
        lru_touch(&c->lru, slot);
        c->slots[slot].dirty |= dirty;
        return FTL_OK;
    }
    ftl->ctr.kv_index_misses++;
    if (page_written(c, page)) {
        int rc = kv_page_read(ftl, s, page, now_ns, done);
        if (rc != FTL_OK) {
            return rc;
        }
        ftl->ctr.kv_index_page_reads++;
    }
    int rc = index_slot(ftl, s, now_ns, done, &slot);
    if (rc != FTL_OK) {
        return rc;
    }
    c->slots[slot].page = page;
    c->slots[slot].dirty = dirty;
    c->slot_of[page] = slot;
    lru_push_mru(&c->lru, slot);
    return FTL_OK;
}
