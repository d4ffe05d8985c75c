/*
 * The key-value stores (femu_ftl/kv.h, kv/kv_tables.h), section KVST (layout 8 on):
 *   u32 version; u32 stores; per store in creation order:
 *     u32 nsid; u64 base sector, sectors, capacity bytes; u64 max keys, index pages,
 *     segment pages; u32 segments, index cache slots, max value bytes (these six are what
 *     ftl_kv_create makes of the configuration: refused unless the same);
 *     admission: u64 keys, each in key order as key, u32 value bytes, u64 tag;
 *     flash record, by segment: u8 state, u32 live records, each in offset order as key,
 *     u32 offset, u32 value bytes, u64 tag;
 *     the free segment FIFO: u32 count, its segments from the head;
 *     the head: u32 segment (KV_NONE: none), u64 bytes used in it;
 *     the index cache: u32 pages, each from least to most recently used as u32 page and
 *     u8 dirty; the programmed-page bitmap, (index pages + 63) / 64 u64 words.
 *   A key is u8 length (1 to 16) and 16 bytes (those past the length zero).
 * Derived, not saved: table slots and hash chains (no timing depends on them), each
 * segment's live counts and links, the record sizes, the gauges. A restore replaces the
 * FTL's stores by the file's (a file of layout 7 leaves none). Every field is range-checked
 * as it is read, before anything indexes with it; then the stores' own invariants and the
 * agreement of admission and flash (kv/kv_check.h: a restored FTL has nothing queued).
 */
#include "state/ftl_state_section.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/error.h"
#include "flash/ftl_handle.h"
#include "kv/kv_check.h"
#include "kv/kv_map.h"
#include "kv/kv_stores.h"
#include "kv/kv_treap.h"

#define KV_STORE_HEAD_BYTES (4 + 6 * 8 + 3 * 4)
#define KV_KEY_BYTES (1 + FTL_KV_KEY_MAX)
#define KV_ADM_BYTES (KV_KEY_BYTES + 4 + 8)
#define KV_FREC_BYTES (KV_KEY_BYTES + 4 + 4 + 8)
#define KV_MIN_RECORD (KV_REC_HEADER + 1)   /* a log record's fewest bytes */

/* At most, for any stores this FTL's conventional space holds: every page a store, a
 * segment, an index page; every log record the smallest, its key in both records. */
size_t ftl_state_kv_limits(const struct ftl *ftl, struct state_section_limit *out)
{
    uint64_t pages = ftl->geo.logical_pages, bytes = pages * ftl->geo.page_bytes;
    uint64_t per_page = KV_STORE_HEAD_BYTES + 8 + 4 + 4 + 8 + 4 + (1 + 4) + 4 + 5 + 8 + 8;
    uint64_t max = 8 + pages * per_page + (KV_ADM_BYTES + KV_FREC_BYTES) *
                   (bytes / KV_MIN_RECORD + 1);
    out[0] = (struct state_section_limit){ STATE_TAG_FTL_KVST, max };
    return 1;
}

static void put_key(struct state_buf *b, const struct ftl_kv_key *k)
{
    state_buf_u8(b, k->len);
    for (int i = 0; i < FTL_KV_KEY_MAX; i++) {
        state_buf_u8(b, i < k->len ? k->bytes[i] : 0);
    }
}

static void put_store(struct state_buf *b, const struct kv_store *s)
{
    state_buf_u32(b, s->nsid);
    state_buf_u64(b, s->base_sector);
    state_buf_u64(b, s->sectors);
    state_buf_u64(b, s->capacity_bytes);
    state_buf_u64(b, s->max_keys);
    state_buf_u64(b, s->index_pages);
    state_buf_u64(b, s->seg_pages);
    state_buf_u32(b, s->log.nsegs);
    state_buf_u32(b, s->cache.cap);
    state_buf_u32(b, s->max_value_bytes);
    state_buf_u64(b, s->adm.keys);
    const struct ftl_kv_key smallest = { .len = 1 };
    for (const struct kv_anode *a = kv_adm_ceil(&s->adm, &smallest, false); a;
         a = kv_adm_ceil(&s->adm, &a->key, true)) {
        put_key(b, &a->key);
        state_buf_u32(b, a->value_bytes);
        state_buf_u64(b, a->tag);
    }
    for (uint32_t g = 0; g < s->log.nsegs; g++) {
        state_buf_u8(b, s->log.segs[g].state);
        state_buf_u32(b, s->log.segs[g].live_records);
        for (uint32_t i = s->log.segs[g].first; i != KV_NONE; i = s->map.recs[i].snext) {
            put_key(b, &s->map.recs[i].key);
            state_buf_u32(b, s->map.recs[i].offset);
            state_buf_u32(b, s->map.recs[i].value_bytes);
            state_buf_u64(b, s->map.recs[i].tag);
        }
    }
    state_buf_u32(b, s->log.free_count);
    for (uint32_t g = s->log.free_head; g != KV_NONE; g = s->log.segs[g].next_free) {
        state_buf_u32(b, g);
    }
    state_buf_u32(b, s->log.head_seg);
    state_buf_u64(b, s->log.head_off);
    state_buf_u32(b, s->cache.count);
    for (uint32_t i = s->cache.lru.lru; i != LRU_NONE; i = s->cache.slots[i].link.newer) {
        state_buf_u32(b, s->cache.slots[i].page);
        state_buf_u8(b, s->cache.slots[i].dirty);
    }
    for (uint64_t w = 0; w < (s->index_pages + 63) / 64; w++) {
        state_buf_u64(b, s->cache.written[w]);
    }
}

int ftl_state_save_kv(const struct ftl *ftl, struct state_writer *w, char *err, size_t errlen)
{
    const struct kv_stores *all = ftl->kv;
    struct state_buf b = { 0 };
    state_buf_u32(&b, FTL_STATE_KV_VERSION);
    state_buf_u32(&b, all ? all->n : 0);
    for (uint32_t i = 0; all && i < all->n; i++) {
        put_store(&b, all->v[i]);
    }
    return state_buf_section(&b, w, STATE_TAG_FTL_KVST, err, errlen);
}

/* What a load reads from: the section, its reader (for errors), the store being filled. */
struct kv_load {
    struct ftl *ftl;
    struct state_reader *r;
    struct state_cursor c;
    struct kv_store *s;
    char *err;
    size_t errlen;
};

/* "section KVST: store NSID: what", -1. */
#define KV_FAIL(L, fmt, ...) \
    state_section_error((L)->r, STATE_TAG_FTL_KVST, (L)->err, (L)->errlen, \
                        "store %" PRIu32 ": " fmt, (L)->s ? (L)->s->nsid : 0, __VA_ARGS__)

/* A key: length 1 to 16, the bytes past it zero. */
static bool get_key(struct kv_load *l, struct ftl_kv_key *k)
{
    k->len = state_cur_u8(&l->c);
    bool tail_zero = true;
    for (int i = 0; i < FTL_KV_KEY_MAX; i++) {
        k->bytes[i] = state_cur_u8(&l->c);
        tail_zero &= i < k->len || k->bytes[i] == 0;
    }
    return !l->c.overrun && k->len >= 1 && k->len <= FTL_KV_KEY_MAX && tail_zero;
}

/* The store's head: created here as the file says, its derived sizes as saved. */
static int get_store(struct kv_load *l)
{
    uint32_t nsid = state_cur_u32(&l->c);
    uint64_t base = state_cur_u64(&l->c), sectors = state_cur_u64(&l->c);
    uint64_t cap = state_cur_u64(&l->c), sizes[3];
    uint32_t counts[3];
    for (int i = 0; i < 3; i++) {
        sizes[i] = state_cur_u64(&l->c);
    }
    for (int i = 0; i < 3; i++) {
        counts[i] = state_cur_u32(&l->c);
    }
    char why[256];
    if (l->c.overrun) {
        return state_section_error(l->r, STATE_TAG_FTL_KVST, l->err, l->errlen, "cut in a "
                                   "store's head");
    }
    if (ftl_kv_create(l->ftl, nsid, base, sectors, cap, why, sizeof(why))) {
        return state_section_error(l->r, STATE_TAG_FTL_KVST, l->err, l->errlen, "store %"
                                   PRIu32 ": %s", nsid, why);
    }
    l->s = kv_store_of(l->ftl, nsid);
    const struct kv_store *s = l->s;
    if (sizes[0] != s->max_keys || sizes[1] != s->index_pages || sizes[2] != s->seg_pages ||
        counts[0] != s->log.nsegs || counts[1] != s->cache.cap ||
        counts[2] != s->max_value_bytes) {
        return KV_FAIL(l, "max keys %" PRIu64 ", %" PRIu64 " index pages, %" PRIu64 " pages a "
                       "segment, %" PRIu32 " segments, %" PRIu32 " cache slots, max value %"
                       PRIu32 "; this configuration makes %" PRIu64 ", %" PRIu64 ", %" PRIu64
                       ", %" PRIu32 ", %" PRIu32 ", %" PRIu32, sizes[0], sizes[1], sizes[2],
                       counts[0], counts[1], counts[2], s->max_keys, s->index_pages,
                       s->seg_pages, s->log.nsegs, s->cache.cap, s->max_value_bytes);
    }
    return 0;
}

/* Admission's keys, strictly ascending, each admitted as a new key (so its size, the
 * capacity and max keys are admission's own checks). */
static int get_admission(struct kv_load *l)
{
    uint64_t keys = state_cur_u64(&l->c);
    struct ftl_kv_key prev = { 0 };
    if (l->c.overrun || keys > l->s->max_keys) {
        return KV_FAIL(l, "admission: %" PRIu64 " keys, at most %" PRIu64, keys,
                       l->s->max_keys);
    }
    for (uint64_t i = 0; i < keys; i++) {
        struct ftl_kv_key k;
        bool key_ok = get_key(l, &k);
        uint32_t bytes = state_cur_u32(&l->c);
        uint64_t tag = state_cur_u64(&l->c);
        if (!key_ok || l->c.overrun || (i > 0 && ftl_kv_key_cmp(&prev, &k) >= 0)) {
            return KV_FAIL(l, "admission: key %" PRIu64 " is not 1 to %d bytes, or not "
                           "above the one before", i, FTL_KV_KEY_MAX);
        }
        int rc = ftl_kv_admit_store(l->ftl, l->s->nsid, &k, bytes, FTL_KV_ONLY_IF_ABSENT,
                                    tag);
        if (rc != FTL_OK) {
            return KV_FAIL(l, "admission: key %" PRIu64 " of %" PRIu32 " bytes: %s", i, bytes,
                           ftl_status_str(rc));
        }
        prev = k;
    }
    return 0;
}

/* One live record of segment g at the segment's end, after the one before (end: the
 * byte after it). */
static int get_record(struct kv_load *l, uint32_t g, uint32_t n, uint64_t *end)
{
    struct kv_store *s = l->s;
    struct ftl_kv_key k;
    bool key_ok = get_key(l, &k);
    uint32_t offset = state_cur_u32(&l->c), bytes = state_cur_u32(&l->c);
    uint64_t tag = state_cur_u64(&l->c), rec_bytes = kv_record_bytes(k.len, bytes);
    if (!key_ok || l->c.overrun || bytes > s->max_value_bytes || offset < *end ||
        offset + rec_bytes > s->seg_pages * s->page_bytes) {
        return KV_FAIL(l, "segment %" PRIu32 ": record %" PRIu32 ": a bad key or value size, "
                       "or offset %" PRIu32 " not after the record before (byte %" PRIu64
                       ") or not inside the segment", g, n, offset, *end);
    }
    if (kv_map_find(&s->map, &k) != KV_NONE) {
        return KV_FAIL(l, "segment %" PRIu32 ": record %" PRIu32 ": a key the flash record "
                       "already holds", g, n);
    }
    uint32_t i = kv_map_insert(&s->map, &k);
    if (i == KV_NONE) {
        return ftl_error(l->err, l->errlen, "out of memory loading section KVST");
    }
    struct kv_frec *r = &s->map.recs[i];
    struct kv_segment *seg = &s->log.segs[g];
    r->offset = offset;
    r->value_bytes = bytes;
    r->rec_bytes = (uint32_t)rec_bytes;
    r->tag = tag;
    r->seg = g;
    r->sprev = seg->last;
    if (seg->last != KV_NONE) {
        s->map.recs[seg->last].snext = i;
    } else {
        seg->first = i;
    }
    seg->last = i;
    seg->live_bytes += rec_bytes;
    seg->live_records++;
    s->map.value_bytes += bytes;
    *end = offset + rec_bytes;
    return 0;
}

/* The segments, each with its live records; free ones hold none. */
static int get_segments(struct kv_load *l)
{
    struct kv_log *log = &l->s->log;
    for (uint32_t g = 0; g < log->nsegs; g++) {
        uint8_t state = state_cur_u8(&l->c);
        uint32_t n = state_cur_u32(&l->c);
        log->segs[g] = (struct kv_segment){ .first = KV_NONE, .last = KV_NONE,
                                            .next_free = KV_NONE, .state = state };
        if (l->c.overrun || state > KV_SEG_CLOSED || (state == KV_SEG_FREE && n != 0) ||
            n > l->s->max_keys) {
            return KV_FAIL(l, "segment %" PRIu32 ": state %u with %" PRIu32 " live records",
                           g, state, n);
        }
        uint64_t end = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (get_record(l, g, i, &end)) {
                return -1;
            }
        }
    }
    return 0;
}

/* The free FIFO (each a free segment, once), then the head (none, or an open segment). */
static int get_free_and_head(struct kv_load *l)
{
    struct kv_log *log = &l->s->log;
    uint32_t n = state_cur_u32(&l->c);
    if (l->c.overrun || n > log->nsegs) {
        return KV_FAIL(l, "free FIFO of %" PRIu32 " of %" PRIu32 " segments", n, log->nsegs);
    }
    log->free_head = log->free_tail = KV_NONE;
    log->free_count = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = state_cur_u32(&l->c);
        if (l->c.overrun || g >= log->nsegs || log->segs[g].state != KV_SEG_FREE ||
            log->segs[g].next_free != KV_NONE || g == log->free_tail) {
            return KV_FAIL(l, "free FIFO entry %" PRIu32 " (segment %" PRIu32 "): not a free "
                           "segment, or listed twice", i, g);
        }
        if (log->free_tail == KV_NONE) {
            log->free_head = g;
        } else {
            log->segs[log->free_tail].next_free = g;
        }
        log->free_tail = g;
        log->free_count++;
    }
    log->head_seg = state_cur_u32(&l->c);
    log->head_off = state_cur_u64(&l->c);
    bool head_ok = log->head_seg == KV_NONE
                   ? log->head_off == 0
                   : log->head_seg < log->nsegs && log->segs[log->head_seg].state == KV_SEG_OPEN &&
                     log->head_off < l->s->seg_pages * l->s->page_bytes;
    if (l->c.overrun || !head_ok) {
        return KV_FAIL(l, "head segment %" PRIu32 " at byte %" PRIu64 ": not an open segment "
                       "with the offset inside it", log->head_seg, log->head_off);
    }
    return 0;
}

/* The index cache, least recently used first, and the programmed pages. */
static int get_cache(struct kv_load *l)
{
    struct kv_store *s = l->s;
    struct kv_index_cache *c = &s->cache;
    uint32_t n = state_cur_u32(&l->c);
    if (l->c.overrun || n > c->cap) {
        return KV_FAIL(l, "index cache of %" PRIu32 " pages, %" PRIu32 " slots", n, c->cap);
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t page = state_cur_u32(&l->c);
        uint8_t dirty = state_cur_u8(&l->c);
        if (l->c.overrun || page >= s->index_pages || c->slot_of[page] != KV_NONE ||
            dirty > 1) {
            return KV_FAIL(l, "index cache entry %" PRIu32 ": page %" PRIu32 " of %" PRIu64
                           " (dirty %u), or cached twice", i, page, s->index_pages, dirty);
        }
        c->slots[i] = (struct kv_cslot){ .page = page, .dirty = dirty == 1 };
        c->slot_of[page] = i;
        c->count++;
        lru_push_mru(&c->lru, i);
    }
    uint64_t words = (s->index_pages + 63) / 64;
    for (uint64_t w = 0; w < words; w++) {
        c->written[w] = state_cur_u64(&l->c);
    }
    uint64_t past = s->index_pages % 64 ? c->written[words - 1] >> (s->index_pages % 64) : 0;
    if (l->c.overrun || past != 0) {
        return KV_FAIL(l, "the programmed index pages' bitmap is cut or names a page past %"
                       PRIu64, s->index_pages);
    }
    return 0;
}

/* The stores' invariants and their two records' agreement, named as this section's. */
static int check_loaded(struct kv_load *l)
{
    char why[384];
    if (kv_check_tables(l->ftl, why, sizeof(why)) || kv_check_agree(l->ftl, why, sizeof(why))) {
        return state_section_error(l->r, STATE_TAG_FTL_KVST, l->err, l->errlen, "%s", why);
    }
    return 0;
}

void ftl_state_kv_none(struct ftl *ftl)
{
    while (ftl->kv && ftl->kv->n) {
        ftl_kv_destroy(ftl, ftl->kv->v[0]->nsid);
    }
}

int ftl_state_load_kv(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen)
{
    struct state_section_limit limit;
    ftl_state_kv_limits(ftl, &limit);
    struct kv_load l = { .ftl = ftl, .r = r, .err = err, .errlen = errlen };
    uint32_t version;
    if (state_section_open_range(r, STATE_TAG_FTL_KVST, 0, limit.max_len,
                                 FTL_STATE_KV_VERSION, FTL_STATE_KV_VERSION, &l.c, &version,
                                 err, errlen)) {
        return -1;
    }
    ftl_state_kv_none(ftl);
    uint32_t n = state_cur_u32(&l.c);
    int rc = l.c.overrun ? state_section_error(r, STATE_TAG_FTL_KVST, err, errlen,
                                               "no store count") : 0;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        l.s = NULL;
        rc = get_store(&l);
        rc = rc ? rc : get_admission(&l);
        rc = rc ? rc : get_segments(&l);
        rc = rc ? rc : get_free_and_head(&l);
        rc = rc ? rc : get_cache(&l);
    }
    if (rc == 0 && l.c.pos != l.c.len) {
        rc = state_section_error(r, STATE_TAG_FTL_KVST, err, errlen, "%zu bytes after the "
                                 "stores", l.c.len - l.c.pos);
    }
    state_cursor_free(&l.c);
    kv_gauges_update(ftl);
    return rc ? rc : check_loaded(&l);
}
