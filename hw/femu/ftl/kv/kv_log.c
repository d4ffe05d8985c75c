/*
 * The value log: records (header, key, value) appended at the head, never crossing a
 * segment (the rest of a segment is padding); the page being filled stays in controller
 * memory until it is full. Each segment keeps its live bytes and its live records in
 * offset order, so compaction moves a victim's records without looking at any other key.
 */
#include <stdlib.h>
#include <string.h>

#include "flash/ftl_handle.h"
#include "kv/kv_log.h"
#include "kv/kv_pages.h"

int kv_log_init(struct kv_log *l, uint32_t nsegs)
{
    *l = (struct kv_log){ .nsegs = nsegs };
    l->segs = calloc(nsegs, sizeof(*l->segs));
    if (!l->segs) {
        return FTL_E_NOMEM;
    }
    kv_log_clear(l);
    return FTL_OK;
}

void kv_log_free(struct kv_log *l)
{
    free(l->segs);
    *l = (struct kv_log){ 0 };
}

/* Every segment free, in index order. */
void kv_log_clear(struct kv_log *l)
{
    for (uint32_t i = 0; i < l->nsegs; i++) {
        l->segs[i] = (struct kv_segment){ .first = KV_NONE, .last = KV_NONE,
                                          .next_free = i + 1 < l->nsegs ? i + 1 : KV_NONE,
                                          .state = KV_SEG_FREE };
    }
    l->free_head = l->nsegs ? 0 : KV_NONE;
    l->free_tail = l->nsegs ? l->nsegs - 1 : KV_NONE;
    l->free_count = l->nsegs;
    l->head_seg = KV_NONE;
    l->head_off = 0;
}

static uint32_t seg_pop_free(struct kv_log *l)
{
    uint32_t i = l->free_head;
    l->free_head = l->segs[i].next_free;
    if (l->free_head == KV_NONE) {
        l->free_tail = KV_NONE;
    }
    l->free_count--;
    l->segs[i].next_free = KV_NONE;
    return i;
}

static void seg_push_free(struct kv_log *l, uint32_t i)
{
    l->segs[i] = (struct kv_segment){ .first = KV_NONE, .last = KV_NONE,
                                      .next_free = KV_NONE, .state = KV_SEG_FREE };
    if (l->free_tail == KV_NONE) {
        l->free_head = i;
    } else {
        l->segs[l->free_tail].next_free = i;
    }
    l->free_tail = i;
    l->free_count++;
}

static uint64_t seg_bytes(const struct kv_store *s)
{
    return s->seg_pages * s->page_bytes;
}

/* Region page of page p of segment seg. */
static uint64_t seg_page(const struct kv_store *s, uint32_t seg, uint64_t p)
{
    return s->index_pages + (uint64_t)seg * s->seg_pages + p;
}

void kv_log_kill(struct kv_store *s, uint32_t rec)
{
    struct kv_frec *r = &s->map.recs[rec];
    struct kv_segment *g = &s->log.segs[r->seg];
    if (r->sprev != KV_NONE) {
        s->map.recs[r->sprev].snext = r->snext;
    } else {
        g->first = r->snext;
    }
    if (r->snext != KV_NONE) {
        s->map.recs[r->snext].sprev = r->sprev;
    } else {
        g->last = r->sprev;
    }
    g->live_bytes -= r->rec_bytes;
    g->live_records--;
    r->seg = KV_NONE;
    r->sprev = r->snext = KV_NONE;
}

static void seg_add(struct kv_store *s, uint32_t seg, uint32_t rec)
{
    struct kv_frec *r = &s->map.recs[rec];
    struct kv_segment *g = &s->log.segs[seg];
    r->seg = seg;
    r->sprev = g->last;
    r->snext = KV_NONE;
    if (g->last != KV_NONE) {
        s->map.recs[g->last].snext = rec;
    } else {
        g->first = rec;
    }
    g->last = rec;
    g->live_bytes += r->rec_bytes;
    g->live_records++;
}

/* Program pages [p0, p1) of the head segment at now_ns (moving: compaction's). */
static int program_pages(struct ftl *ftl, struct kv_store *s, uint64_t p0, uint64_t p1,
                         bool moving, uint64_t now_ns, uint64_t *done)
{
    for (uint64_t p = p0; p < p1; p++) {
        int rc = kv_page_write(ftl, s, seg_page(s, s->log.head_seg, p), now_ns, done);
        if (rc != FTL_OK) {
            return rc;
        }
        if (moving) {
            ftl->ctr.kv_compaction_pages++;
        }
    }
    return FTL_OK;
}

/* Close the head segment: its open page, if it holds bytes, is programmed (padding fills
 * the rest of the segment). */
static int head_close(struct ftl *ftl, struct kv_store *s, bool moving, uint64_t now_ns,
                      uint64_t *done)
{
    struct kv_log *l = &s->log;
    uint64_t open = l->head_off / s->page_bytes;
    int rc = FTL_OK;
    if (l->head_off % s->page_bytes) {
        rc = program_pages(ftl, s, open, open + 1, moving, now_ns, done);
    }
    l->segs[l->head_seg].state = KV_SEG_CLOSED;
    l->head_seg = KV_NONE;
    l->head_off = 0;
    return rc;
}

/* The closed segment with the fewest live bytes (ties: the lowest index), or KV_NONE. */
static uint32_t pick_victim(const struct kv_log *l)
{
    uint32_t best = KV_NONE;
    for (uint32_t i = 0; i < l->nsegs; i++) {
        if (l->segs[i].state == KV_SEG_CLOSED &&
            (best == KV_NONE || l->segs[i].live_bytes < l->segs[best].live_bytes)) {
            best = i;
        }
    }
    return best;
}

static int log_place(struct ftl *ftl, struct kv_store *s, uint32_t rec, bool moving,
                     uint64_t now_ns, uint64_t *done);

/*
 * Compact segment v at now_ns: read every page holding live bytes, append each live
 * record at the head (its pages program when the reads have ended), deallocate the
 * segment's pages; it is free.
 */
static int compact(struct ftl *ftl, struct kv_store *s, uint32_t v, uint64_t now_ns,
                   uint64_t *done)
{
    struct kv_log *l = &s->log;
    uint64_t read_end = now_ns, last_read = KV_NONE;
    for (uint32_t i = l->segs[v].first; i != KV_NONE; i = s->map.recs[i].snext) {
        const struct kv_frec *r = &s->map.recs[i];
        uint64_t p0 = r->offset / s->page_bytes;
        uint64_t p1 = (r->offset + r->rec_bytes - 1) / s->page_bytes;
        /* records lie in offset order: a page shared with the previous one is read once */
        for (uint64_t p = (last_read != KV_NONE && p0 <= last_read) ? last_read + 1 : p0;
             p <= p1; p++) {
            int rc = kv_page_read(ftl, s, seg_page(s, v, p), now_ns, &read_end);
            if (rc != FTL_OK) {
                return rc;
            }
        }
        last_read = p1 > last_read || last_read == KV_NONE ? p1 : last_read;
    }
    uint64_t end = read_end;
    while (l->segs[v].first != KV_NONE) {
        uint32_t i = l->segs[v].first;
        kv_log_kill(s, i);
        int rc = log_place(ftl, s, i, true, read_end, &end);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    int rc = kv_pages_trim(ftl, s, seg_page(s, v, 0), s->seg_pages, read_end, &end);
    seg_push_free(l, v);
    ftl->ctr.kv_compactions++;
    *done = end > *done ? end : *done;
    return rc;
}

/*
 * Free segments back to the slack: compact the best victim while fewer than
 * KV_SLACK_SEGMENTS are free and a victim can give room (not wholly live; a live one
 * needs a free segment to move into); at most one pass per segment. Ends at *t.
 */
static int make_room(struct ftl *ftl, struct kv_store *s, uint64_t *t)
{
    struct kv_log *l = &s->log;
    for (uint32_t guard = l->nsegs; guard > 0 && l->free_count < KV_SLACK_SEGMENTS; guard--) {
        uint32_t v = pick_victim(l);
        if (v == KV_NONE || l->segs[v].live_bytes >= seg_bytes(s) ||
            (l->segs[v].live_bytes > 0 && l->free_count == 0)) {
            break;
        }
        uint64_t end = *t;
        int rc = compact(ftl, s, v, *t, &end);
        if (rc != FTL_OK) {
            return rc;
        }
        *t = end;
    }
    return FTL_OK;
}

/* Put record rec (in no segment) at the head; moving: compaction's own appends, which
 * never compact. */
static int log_place(struct ftl *ftl, struct kv_store *s, uint32_t rec, bool moving,
                     uint64_t now_ns, uint64_t *done)
{
    struct kv_log *l = &s->log;
    uint64_t bytes = s->map.recs[rec].rec_bytes;
    bool compacted = moving;
    for (;;) {
        if (l->head_seg != KV_NONE && l->head_off + bytes <= seg_bytes(s)) {
            break;
        }
        if (l->head_seg != KV_NONE) {
            int rc = head_close(ftl, s, moving, now_ns, done);
            if (rc != FTL_OK) {
                return rc;
            }
        }
        if (!compacted && l->free_count < KV_SLACK_SEGMENTS) {
            /* the append's own programs start when the compaction has ended */
            compacted = true;
            int rc = make_room(ftl, s, &now_ns);
            if (rc != FTL_OK) {
                return rc;
            }
            *done = now_ns > *done ? now_ns : *done;
            continue;
        }
        if (l->free_count == 0) {
            return FTL_E_KV_CAPACITY;
        }
        l->head_seg = seg_pop_free(l);
        l->segs[l->head_seg].state = KV_SEG_OPEN;
        l->head_off = 0;
    }
    uint32_t seg = l->head_seg;
    uint64_t start = l->head_off, end = start + bytes;
    s->map.recs[rec].offset = (uint32_t)start;
    seg_add(s, seg, rec);
    l->head_off = end;
    /* the pages this record completes leave controller memory */
    int rc = program_pages(ftl, s, start / s->page_bytes, end / s->page_bytes, moving, now_ns,
                           done);
    if (rc == FTL_OK && end == seg_bytes(s)) {
        rc = head_close(ftl, s, moving, now_ns, done);
    }
    return rc;
}

int kv_log_append(struct ftl *ftl, struct kv_store *s, uint32_t rec, uint64_t now_ns,
                  uint64_t *done)
{
    return log_place(ftl, s, rec, false, now_ns, done);
}

int kv_log_read(struct ftl *ftl, struct kv_store *s, uint32_t rec, uint64_t bytes,
                uint64_t now_ns, uint64_t *done)
{
    const struct kv_frec *r = &s->map.recs[rec];
    const struct kv_log *l = &s->log;
    if (bytes == 0) {
        return FTL_OK;
    }
    uint64_t p0 = r->offset / s->page_bytes, p1 = (r->offset + bytes - 1) / s->page_bytes;
    for (uint64_t p = p0; p <= p1; p++) {
        if (r->seg == l->head_seg && p == l->head_off / s->page_bytes) {
            continue;   /* the open page: controller memory */
        }
        int rc = kv_page_read(ftl, s, seg_page(s, r->seg, p), now_ns, done);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    return FTL_OK;
}
