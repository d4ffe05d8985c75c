/*
 * The write buffer (WBUF): the buffered pages from the least recently written to the
 * most, each with its LPN, the stream of its last write (where its flush places it) and
 * the sectors buffered. Their data is the host's (the device's data store); a page waits
 * for the watermark or a Flush, never for a time, so there is no time to save.
 *
 * Derived, not saved: the pages and sectors buffered (from the masks), the entry slots,
 * free list and hash table (any slots hold the same order), the watermark and full mask
 * (from the configuration).
 */

#include "state/ftl_state_section.h"

#include "femu_ftl/error.h"
#include "flash/ftl_handle.h"
#include "place/placement.h"
#include "wbuf/write_buffer_tables.h"

#define WBUF_RECORD_BYTES (2 * 4 + 8)
#define WBUF_HEADER_BYTES (4 + 2 * 4)   /* version, nentries, pages */

int ftl_state_save_wbuf(const struct ftl *ftl, struct state_writer *w, char *err,
                        size_t errlen)
{
    const struct wbuf *b = ftl->wbuf;
    struct state_buf s = { 0 };

    state_buf_u32(&s, FTL_STATE_SECTION_VERSION);
    state_buf_u32(&s, b->nentries);
    state_buf_u32(&s, b->pages);
    for (uint32_t i = b->order.lru; i != LRU_NONE; i = b->entries[i].link.newer) {
        const struct wbuf_entry *e = &b->entries[i];
        state_buf_u32(&s, e->lpn);
        state_buf_u32(&s, e->stream);
        state_buf_u64(&s, e->mask);
    }
    return state_buf_section(&s, w, STATE_TAG_FTL_WBUF, err, errlen);
}

/* What a host write could have buffered: an LPN that exists, cached once, with sectors
 * of the page only, from a stream placement=stream accepts (others ignore it). */
static bool entry_valid(const struct ftl *ftl, const struct wbuf_entry *e)
{
    const struct wbuf *b = ftl->wbuf;
    return e->lpn < ftl->geo.logical_pages && e->mask && !(e->mask & ~b->full_mask) &&
           (!placement_host_handles(ftl) || e->stream < placement_host_handles(ftl)) &&
           lpn_table_get(&b->where, e->lpn) == LPN_TABLE_NONE;
}

static int load_entries(struct ftl *ftl, struct state_reader *r, struct state_cursor *c,
                        uint32_t pages, char *err, size_t errlen)
{
    struct wbuf *b = ftl->wbuf;

    for (uint32_t i = 0; i < pages; i++) {
        struct wbuf_entry e = { .lpn = state_cur_u32(c) };
        e.stream = state_cur_u32(c);
        e.mask = state_cur_u64(c);
        if (!entry_valid(ftl, &e)) {
            return state_section_error(r, STATE_TAG_FTL_WBUF, err, errlen, "page %u (LPN "
                                       "%u, stream %u, sectors %#llx) out of range or "
                                       "buffered twice", i, e.lpn, e.stream,
                                       (unsigned long long)e.mask);
        }
        b->entries[i] = e;
        lpn_table_put(&b->where, e.lpn, i);
        lru_push_mru(&b->order, i);
        b->used = b->pages = i + 1;
        b->sectors += (uint64_t)__builtin_popcountll(e.mask);
    }
    return 0;
}

static uint64_t wbuf_max_bytes(const struct ftl *ftl)
{
    return WBUF_HEADER_BYTES + (uint64_t)ftl->wbuf->nentries * WBUF_RECORD_BYTES;
}

size_t ftl_state_wbuf_limits(const struct ftl *ftl, struct state_section_limit *out)
{
    out[0] = (struct state_section_limit){ STATE_TAG_FTL_WBUF, wbuf_max_bytes(ftl) };
    return 1;
}

int ftl_state_load_wbuf(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_WBUF;
    struct wbuf *b = ftl->wbuf;
    struct state_cursor c;

    if (state_section_open(r, tag, 0, wbuf_max_bytes(ftl), &c, err, errlen)) {
        return -1;
    }
    uint32_t nentries = state_cur_u32(&c), pages = state_cur_u32(&c);
    int rc = 0;
    if (c.overrun || nentries != b->nentries || pages > b->nentries ||
        c.len - c.pos != (uint64_t)pages * WBUF_RECORD_BYTES) {
        rc = state_section_error(r, tag, err, errlen, "%u pages of %u in %zu bytes, this "
                                 "buffer has room for %u", pages, nentries, c.len - c.pos,
                                 b->nentries);
    }
    /* the watermark and that every buffered LPN was written: wbuf_check(), ftl_check() */
    if (rc == 0) {
        rc = load_entries(ftl, r, &c, pages, err, errlen);
    }
    state_cursor_free(&c);
    return rc;
}
