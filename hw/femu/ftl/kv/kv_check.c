/* The key-value stores' invariants: see kv_check.h. */
#include "kv/kv_check.h"

#include <inttypes.h>

#include "femu_ftl/error.h"
#include "flash/ftl_handle.h"
#include "kv/kv_map.h"
#include "kv/kv_stores.h"
#include "kv/kv_treap.h"

/* Segment g's live records: linked both ways, in offset order without overlap, inside the
 * segment (the open one: before head_off), each its flash record's; their count and bytes
 * the segment's. Adds them to *records and *values. */
static int check_segment(const struct kv_store *s, uint32_t g, uint64_t *records,
                         uint64_t *values, char *err, size_t errlen)
{
    const struct kv_segment *seg = &s->log.segs[g];
    uint64_t end = g == s->log.head_seg ? s->log.head_off : s->seg_pages * s->page_bytes;
    uint64_t n = 0, bytes = 0, next_free_byte = 0;
    uint32_t prev = KV_NONE;
    for (uint32_t i = seg->first; i != KV_NONE; i = s->map.recs[i].snext) {
        const struct kv_frec *r = i < s->map.unused ? &s->map.recs[i] : NULL;
        if (!r || n >= s->map.count || r->seg != g || r->sprev != prev || r->key.len == 0 ||
            r->rec_bytes != kv_record_bytes(r->key.len, r->value_bytes) ||
            r->offset < next_free_byte || r->offset + (uint64_t)r->rec_bytes > end) {
            return ftl_error(err, errlen, "kv store %" PRIu32 ": segment %" PRIu32 ": live "
                             "record %" PRIu64 " (slot %" PRIu32 ") is not in order inside "
                             "its %" PRIu64 " bytes, or not this segment's", s->nsid, g, n,
                             i, end);
        }
        next_free_byte = r->offset + (uint64_t)r->rec_bytes;
        bytes += r->rec_bytes;
        *values += r->value_bytes;
        prev = i;
        n++;
    }
    if (seg->last != prev || n != seg->live_records || bytes != seg->live_bytes ||
        (seg->state == KV_SEG_FREE && n != 0)) {
        return ftl_error(err, errlen, "kv store %" PRIu32 ": segment %" PRIu32 " (state %u) "
                         "counts %" PRIu32 " records and %" PRIu64 " live bytes, its records "
                         "sum to %" PRIu64 " and %" PRIu64, s->nsid, g, seg->state,
                         seg->live_records, seg->live_bytes, n, bytes);
    }
    *records += n;
    return 0;
}

/* The head: none and offset 0, or the one open segment with its offset inside it. */
static int check_head(const struct kv_store *s, char *err, size_t errlen)
{
    const struct kv_log *l = &s->log;
    uint32_t open = 0;
    for (uint32_t g = 0; g < l->nsegs; g++) {
        open += l->segs[g].state == KV_SEG_OPEN;
    }
    bool ok = l->head_seg == KV_NONE
              ? open == 0 && l->head_off == 0
              : l->head_seg < l->nsegs && open == 1 &&
                l->segs[l->head_seg].state == KV_SEG_OPEN &&
                l->head_off < s->seg_pages * s->page_bytes;
    return ok ? 0 : ftl_error(err, errlen, "kv store %" PRIu32 ": the open page's offset "
                              "%" PRIu64 " in head segment %" PRIu32 " (%" PRIu32 " open "
                              "segments, %" PRIu64 " bytes each)", s->nsid, l->head_off,
                              l->head_seg, open, s->seg_pages * s->page_bytes);
}

/* The free FIFO: exactly the free segments, each once, its tail the last. */
static int check_free(const struct kv_store *s, char *err, size_t errlen)
{
    const struct kv_log *l = &s->log;
    uint32_t n = 0, free_segs = 0, last = KV_NONE;
    for (uint32_t g = l->free_head; g != KV_NONE && n <= l->nsegs; g = l->segs[g].next_free) {
        if (g >= l->nsegs || l->segs[g].state != KV_SEG_FREE) {
            n = l->nsegs + 1;
            break;
        }
        last = g;
        n++;
    }
    for (uint32_t g = 0; g < l->nsegs; g++) {
        free_segs += l->segs[g].state == KV_SEG_FREE;
    }
    if (n != free_segs || n != l->free_count || last != l->free_tail) {
        return ftl_error(err, errlen, "kv store %" PRIu32 ": the free segment FIFO holds %"
                         PRIu32 " (free_count %" PRIu32 "), %" PRIu32 " segments are free",
                         s->nsid, n, l->free_count, free_segs);
    }
    return 0;
}

/* The index cache: at most kv_index_cache_pages pages, each once, its LRU all of them. */
static int check_cache(const struct ftl *ftl, const struct kv_store *s, char *err,
                       size_t errlen)
{
    const struct kv_index_cache *c = &s->cache;
    uint32_t listed = 0;
    if (c->cap > ftl->cfg.kv_index_cache_pages || c->count > c->cap) {
        return ftl_error(err, errlen, "kv store %" PRIu32 ": the index cache holds %" PRIu32
                         " pages in %" PRIu32 " slots; kv_index_cache_pages is %" PRIu64,
                         s->nsid, c->count, c->cap, ftl->cfg.kv_index_cache_pages);
    }
    for (uint32_t i = 0; i < c->count; i++) {
        if (c->slots[i].page >= s->index_pages || c->slot_of[c->slots[i].page] != i) {
            return ftl_error(err, errlen, "kv store %" PRIu32 ": index cache slot %" PRIu32
                             " holds page %" PRIu32 " of %" PRIu64 ", twice or unmapped",
                             s->nsid, i, c->slots[i].page, s->index_pages);
        }
    }
    for (uint32_t i = c->lru.lru; i != LRU_NONE && listed <= c->count;
         i = c->slots[i].link.newer) {
        listed += i < c->count ? 1 : c->count + 1;
    }
    if (listed != c->count) {
        return ftl_error(err, errlen, "kv store %" PRIu32 ": the index cache's LRU lists %"
                         PRIu32 " of its %" PRIu32 " pages", s->nsid, listed, c->count);
    }
    return 0;
}

static int check_store(const struct ftl *ftl, const struct kv_store *s, char *err,
                       size_t errlen)
{
    uint64_t records = 0, values = 0;
    if (check_head(s, err, errlen) || check_free(s, err, errlen) ||
        check_cache(ftl, s, err, errlen)) {
        return -1;
    }
    for (uint32_t g = 0; g < s->log.nsegs; g++) {
        if (check_segment(s, g, &records, &values, err, errlen)) {
            return -1;
        }
    }
    if (records != s->map.count || values != s->map.value_bytes) {
        return ftl_error(err, errlen, "kv store %" PRIu32 ": the flash record holds %" PRIu64
                         " keys of %" PRIu64 " value bytes, the segments %" PRIu64 " of %"
                         PRIu64, s->nsid, s->map.count, s->map.value_bytes, records, values);
    }
    return 0;
}

int kv_check_tables(const struct ftl *ftl, char *err, size_t errlen)
{
    const struct kv_stores *all = ftl->kv;
    for (uint32_t i = 0; all && i < all->n; i++) {
        if (check_store(ftl, all->v[i], err, errlen)) {
            return -1;
        }
    }
    return 0;
}

/* Admission's keys in order, each in the flash record with its size and tag; as many. */
static int agree_store(const struct kv_store *s, char *err, size_t errlen)
{
    const struct ftl_kv_key smallest = { .len = 1 };
    uint64_t n = 0;
    for (const struct kv_anode *a = kv_adm_ceil(&s->adm, &smallest, false); a;
         a = kv_adm_ceil(&s->adm, &a->key, true), n++) {
        uint32_t i = kv_map_find(&s->map, &a->key);
        if (i == KV_NONE || s->map.recs[i].value_bytes != a->value_bytes ||
            s->map.recs[i].tag != a->tag) {
            return ftl_error(err, errlen, "kv store %" PRIu32 ": admission's key %" PRIu64
                             " (%" PRIu32 " bytes, tag %" PRIu64 ") is %s the flash record",
                             s->nsid, n, a->value_bytes, a->tag,
                             i == KV_NONE ? "not in" : "another size or tag in");
        }
    }
    if (n != s->adm.keys || n != s->map.count || s->adm.live_bytes != s->map.value_bytes) {
        return ftl_error(err, errlen, "kv store %" PRIu32 ": admission holds %" PRIu64 " keys "
                         "(counts %" PRIu64 ") of %" PRIu64 " bytes, the flash record %" PRIu64
                         " of %" PRIu64, s->nsid, n, s->adm.keys, s->adm.live_bytes,
                         s->map.count, s->map.value_bytes);
    }
    return 0;
}

int kv_check_agree(const struct ftl *ftl, char *err, size_t errlen)
{
    const struct kv_stores *all = ftl->kv;
    for (uint32_t i = 0; all && i < all->n; i++) {
        if (agree_store(all->v[i], err, errlen)) {
            return -1;
        }
    }
    return 0;
}
