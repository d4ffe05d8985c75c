/*
 * The DRAM write buffer (write_buffer_sectors > 0): host writes land in it at buf_wr_lat
 * and reach flash later, a page at a time.
 *
 * The buffer keeps pages, each with a bitmap of the sectors written into it, in LRU order
 * of their last write. Its capacity counts sectors, so many small writes to distinct
 * pages fill it as fast as a few big ones. A write of a buffered sector replaces it in
 * place (an absorbed rewrite: flash never sees the older version). While more than
 * buf_flush_pcent of the sectors are in use, the least recently written page is flushed:
 * if some of its sectors were never buffered and the page exists on flash, those are read
 * first (a fill read) so the program writes a whole page; if it was never written, the
 * holes are programmed as unwritten data. Flush drains everything.
 *
 * When a write that needed room completes is buf_flush_mode's: `wait` (FEMU's), when the
 * flushes it started end; `ahead` (a drive's controller programming while the buffer
 * fills), at buf_wr_lat, unless the buffered sectors and those of flushes still
 * programming (their data stays in DRAM until the program ends) exceed
 * write_buffer_sectors: then when enough of those programs have ended.
 */
#include "wbuf/write_buffer.h"

#include <stdlib.h>

#include "femu_ftl/error.h"
#include "flash/geometry.h"
#include "flash/slc.h"
#include "flash/timing.h"
#include "hostio/host_page.h"
#include "map/dftl.h"
#include "map/page_map.h"
#include "place/write_count.h"
#include "wbuf/write_buffer_tables.h"

#define NO_ENTRY LRU_NONE  /* = LPN_TABLE_NONE */

int wbuf_init(struct ftl *ftl)
{
    const struct ftl_geometry *g = &ftl->geo;
    struct wbuf *b = calloc(1, sizeof(*b));
    if (!b) {
        return FTL_E_NOMEM;
    }
    ftl->wbuf = b;
    uint64_t cap = ftl->cfg.write_buffer_sectors;
    /* every buffered page holds a sector, and one page can overshoot the watermark */
    uint64_t n = cap + 1 < g->logical_pages ? cap + 1 : g->logical_pages;
    b->nentries = (uint32_t)n;
    b->free_head = NO_ENTRY;
    b->watermark = cap * ftl->cfg.buf_flush_pcent / 100;
    b->full_mask = ftl->secs_per_pg == 64 ? UINT64_MAX
                                          : (UINT64_C(1) << ftl->secs_per_pg) - 1;
    bool table = lpn_table_init(&b->where, b->nentries);
    b->entries = calloc(n, sizeof(struct wbuf_entry));
    lru_init(&b->order, b->entries, sizeof(struct wbuf_entry),
             offsetof(struct wbuf_entry, link));
    /* ahead: after each page a write buffers, buffered + in flight <= cap sectors, so
     * with a sector each at most cap + one page's flushes are ever noted */
    b->ahead = ftl->cfg.buf_flush_mode == FTL_BUF_FLUSH_AHEAD;
    bool flights = !b->ahead || flights_init(&b->flights, cap + ftl->secs_per_pg);
    return table && b->entries && flights ? FTL_OK : FTL_E_NOMEM;
}

void wbuf_free(struct ftl *ftl)
{
    lpn_table_free(&ftl->wbuf->where);
    flights_free(&ftl->wbuf->flights);
    free(ftl->wbuf->entries);
    free(ftl->wbuf);
    ftl->wbuf = NULL;
}

size_t wbuf_metadata_bytes(const struct ftl *ftl)
{
    const struct wbuf *b = ftl->wbuf;
    return sizeof(*b) + lpn_table_bytes(&b->where) + flights_bytes(&b->flights) +
           (size_t)b->nentries * sizeof(struct wbuf_entry);
}

uint64_t wbuf_sectors(const struct ftl *ftl)
{
    return ftl->wbuf->sectors;
}

/* Sectors in a mask: the bit count, written out because without -mpopcnt the builtin
 * is a library call, and this runs for every page a host write touches. */
static inline uint64_t sectors_in(uint64_t m)
{
    m = m - ((m >> 1) & UINT64_C(0x5555555555555555));
    m = (m & UINT64_C(0x3333333333333333)) + ((m >> 2) & UINT64_C(0x3333333333333333));
    m = (m + (m >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (m * UINT64_C(0x0101010101010101)) >> 56;
}

/* ---- entries ---- */

static uint32_t entry_alloc(struct wbuf *b)
{
    uint32_t i = b->free_head;
    if (i != NO_ENTRY) {
        b->free_head = b->entries[i].link.older;
        return i;
    }
    return b->used < b->nentries ? b->used++ : NO_ENTRY;
}

/* Take entry i out of the buffer (after a flush, or its data was trimmed). */
static void entry_remove(struct wbuf *b, uint32_t i)
{
    struct wbuf_entry *e = &b->entries[i];
    lru_unlink(&b->order, i);
    lpn_table_del(&b->where, e->lpn);
    b->sectors -= sectors_in(e->mask);
    b->pages--;
    e->mask = 0;
    e->link.older = b->free_head;
    b->free_head = i;
}

/* ---- flushing ---- */

/* Program buffered page i, completed from flash first if it has holes; then drop it.
 * *end: when its program ends. */
static int flush_entry(struct ftl *ftl, uint32_t i, uint64_t now_ns, uint64_t *end)
{
    struct wbuf *b = ftl->wbuf;
    struct wbuf_entry *e = &b->entries[i];
    uint64_t data_ready = now_ns;

    if (e->mask != b->full_mask) {
        uint64_t mapped = ftl->dftl ? dftl_lookup(ftl, e->lpn, false, now_ns) : now_ns;
        uint32_t ppa = l2p_get(ftl, e->lpn);
        if (ppa != L2P_UNMAPPED) {
            data_ready = nand_read_lat(ftl, ppa_lun(ftl, ppa), mapped, page_read_lat(ftl, ppa));
            ftl->ctr.buf_fill_reads++;
        }
    }
    *end = now_ns;
    int rc = host_program_page(ftl, e->lpn, e->stream, now_ns, data_ready, end);
    if (rc != FTL_OK) {
        return rc;  /* the page stays buffered */
    }
    ftl->ctr.buf_flushed_pages++;
    entry_remove(b, i);
    return FTL_OK;
}

/* Flush page i. *done is raised to its program's end if the caller waits for it (always
 * in wait mode); in ahead mode the program is noted as in flight, and waited for only if
 * it cannot be (never: see wbuf_init), which costs time, not data. */
static int flush_page(struct ftl *ftl, uint32_t i, bool waits, uint64_t now_ns,
                      uint64_t *done)
{
    struct wbuf *b = ftl->wbuf;
    uint64_t sectors = sectors_in(b->entries[i].mask), end;
    int rc = flush_entry(ftl, i, now_ns, &end);
    if (rc != FTL_OK) {
        return rc;
    }
    bool noted = b->ahead && flights_add(&b->flights, end, sectors);
    if (end > b->flights.last_end_ns) {
        b->flights.last_end_ns = end;   /* both modes: a Flush waits for it */
    }
    if (waits || !noted) {
        *done = *done > end ? *done : end;
    }
    return FTL_OK;
}

/* ahead: wait, from *done on, until buffered + in-flight sectors fit the buffer. */
static void make_room(struct ftl *ftl, uint64_t *done)
{
    struct wbuf *b = ftl->wbuf;
    if (b->ahead) {
        uint64_t room = flights_make_room(&b->flights, b->sectors,
                                          ftl->cfg.write_buffer_sectors);
        *done = *done > room ? *done : room;
    }
}

/* Flush LRU pages while the buffer is above its watermark. */
static int flush_to_watermark(struct ftl *ftl, uint64_t now_ns, uint64_t *done)
{
    struct wbuf *b = ftl->wbuf;
    while (b->sectors > b->watermark) {
        int rc = flush_page(ftl, b->order.lru, !b->ahead, now_ns, done);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    return FTL_OK;
}

int wbuf_flush_oldest(struct ftl *ftl, uint64_t pages, uint64_t now_ns, uint64_t *done_ns)
{
    struct wbuf *b = ftl->wbuf;
    uint64_t done = now_ns;
    int rc = FTL_OK;

    for (uint64_t n = 0; n < pages && b->order.lru != NO_ENTRY && rc == FTL_OK; n++) {
        rc = flush_page(ftl, b->order.lru, true, now_ns, &done);
    }
    *done_ns = done;
    return rc;
}

int wbuf_flush_all(struct ftl *ftl, uint64_t now_ns, uint64_t *done_ns)
{
    int rc = wbuf_flush_oldest(ftl, UINT64_MAX, now_ns, done_ns);
    /* pages earlier writes flushed may still be programming (in wait mode too: a write
     * at QD > 1 may not have completed yet, its page an acknowledged one's) */
    uint64_t last = ftl->wbuf->flights.last_end_ns;
    *done_ns = *done_ns > last ? *done_ns : last;
    return rc;
}

void wbuf_forget_flights(struct ftl *ftl)
{
    flights_clear(&ftl->wbuf->flights);
}

/* ---- host commands ---- */

/* Put the sectors in mask of page lpn into the buffer, written by stream. false: no
 * slot (only after a flush failed and left the buffer over its watermark). */
static bool buffer_page(struct ftl *ftl, uint32_t lpn, uint64_t mask, uint32_t stream)
{
    struct wbuf *b = ftl->wbuf;
    uint32_t i = lpn_table_get(&b->where, lpn);

    if (i != NO_ENTRY) {
        struct wbuf_entry *e = &b->entries[i];
        ftl->ctr.buf_absorbed_sectors += sectors_in(e->mask & mask);
        ftl->ctr.buf_absorbed_pages++;     /* the page's one program will carry this write */
        b->sectors += sectors_in(mask & ~e->mask);
        e->mask |= mask;
        e->stream = stream;
        lru_touch(&b->order, i);
        return true;
    }
    /* The watermark is below nentries sectors, so a slot is free here (flushing after
     * every page keeps pages <= watermark + 1 <= nentries). */
    i = entry_alloc(b);
    if (i == NO_ENTRY) {
        return false;
    }
    b->entries[i] = (struct wbuf_entry){ .lpn = lpn, .stream = stream, .mask = mask };
    lpn_table_put(&b->where, lpn, i);
    b->sectors += sectors_in(mask);
    b->pages++;
    lru_push_mru(&b->order, i);
    return true;
}

int wbuf_write(struct ftl *ftl, const struct ftl_io *io, uint64_t *done_ns)
{
    flights_forget_ended(&ftl->wbuf->flights, io->now_ns);
    uint64_t spp = ftl->secs_per_pg;
    uint64_t first = io->slba / spp, last = (io->slba + io->nlb - 1) / spp;
    uint64_t done = io->now_ns + ftl->cfg.buf_wr_lat;
    int rc = FTL_OK;

    for (uint64_t lpn = first; lpn <= last && rc == FTL_OK; lpn++) {
        struct host_page_undo undo;
        if (!host_page_accepted(ftl, (uint32_t)lpn, &undo)) {
            rc = FTL_E_NOMEM;
            break;
        }
        if (!buffer_page(ftl, (uint32_t)lpn, page_sector_mask(ftl, lpn, io->slba, io->nlb),
                         io->stream)) {
            host_page_withdrawn(ftl, (uint32_t)lpn, &undo);
            rc = FTL_E_NOSPC;
            break;
        }
        rc = flush_to_watermark(ftl, io->now_ns, &done);
        make_room(ftl, &done);  /* per page: the heap's bound (wbuf_init) */
    }
    *done_ns = done;
    return rc;
}

int wbuf_write_through(struct ftl *ftl, uint32_t lpn, uint64_t mask, uint32_t stream,
                       uint64_t now_ns, uint64_t *done)
{
    struct wbuf *b = ftl->wbuf;
    uint32_t i = lpn_table_get(&b->where, lpn);

    if (i == NO_ENTRY) {
        return host_program_page(ftl, lpn, stream, now_ns, now_ns, done);
    }
    (void)buffer_page(ftl, lpn, mask, stream);     /* merging needs no new slot */
    int rc = flush_page(ftl, i, true, now_ns, done);
    make_room(ftl, done);   /* the merge may have added sectors */
    return rc;
}

void wbuf_for_each(const struct ftl *ftl, void (*fn)(void *ctx, uint32_t lpn, uint64_t mask),
                   void *ctx)
{
    const struct wbuf *b = ftl->wbuf;
    for (uint32_t i = b->order.lru; i != NO_ENTRY; i = b->entries[i].link.newer) {
        fn(ctx, b->entries[i].lpn, b->entries[i].mask);
    }
}

uint32_t wbuf_pages(const struct ftl *ftl)
{
    return ftl->wbuf->pages;
}

uint64_t wbuf_mask(const struct ftl *ftl, uint32_t lpn)
{
    const struct wbuf *b = ftl->wbuf;
    uint32_t i = lpn_table_get(&b->where, lpn);
    return i != NO_ENTRY ? b->entries[i].mask : 0;
}

bool wbuf_covers(const struct ftl *ftl, uint32_t lpn, uint64_t mask)
{
    const struct wbuf *b = ftl->wbuf;
    uint32_t i = lpn_table_get(&b->where, lpn);
    return i != NO_ENTRY && (b->entries[i].mask & mask) == mask;
}

void wbuf_drop(struct ftl *ftl, uint64_t start, uint64_t end)
{
    struct wbuf *b = ftl->wbuf;
    uint32_t pages_before = b->pages;

    /* Walk whichever is shorter: the buffered pages or the range. */
    if (b->pages < end - start) {
        for (uint32_t i = b->order.mru; i != NO_ENTRY;) {
            uint32_t older = b->entries[i].link.older;
            if (b->entries[i].lpn >= start && b->entries[i].lpn < end) {
                entry_remove(b, i);
            }
            i = older;
        }
    } else {
        for (uint64_t lpn = start; lpn < end; lpn++) {
            uint32_t i = lpn_table_get(&b->where, (uint32_t)lpn);
            if (i != NO_ENTRY) {
                entry_remove(b, i);
            }
        }
    }
    ftl->ctr.buf_dropped_pages += pages_before - b->pages;
}

int wbuf_check(const struct ftl *ftl, char *err, size_t errlen)
{
    const struct wbuf *b = ftl->wbuf;
    uint64_t sectors = 0;
    uint32_t pages = 0, newer = NO_ENTRY;

    for (uint32_t i = b->order.mru; i != NO_ENTRY; i = b->entries[i].link.older) {
        const struct wbuf_entry *e = &b->entries[i];
        if (++pages > b->used || e->link.newer != newer || e->lpn >= ftl->geo.logical_pages ||
            lpn_table_get(&b->where, e->lpn) != i || e->mask == 0 || (e->mask & ~b->full_mask)) {
            return ftl_error(err, errlen, "write buffer list broken at entry %u", i);
        }
        if (wc_get(ftl, e->lpn) == 0) {
            return ftl_error(err, errlen, "buffered LPN %u was never written", e->lpn);
        }
        sectors += sectors_in(e->mask);
        newer = i;
    }
    if (pages != b->pages || pages != b->where.count || sectors != b->sectors ||
        newer != b->order.lru) {
        return ftl_error(err, errlen, "write buffer holds %u pages / %llu sectors, counts "
                         "say %u / %llu", pages, (unsigned long long)sectors, b->pages,
                         (unsigned long long)b->sectors);
    }
    if (b->sectors > b->watermark) {
        return ftl_error(err, errlen, "write buffer above its watermark between commands");
    }
    const char *why = flights_check(&b->flights);
    if (why) {
        return ftl_error(err, errlen, "write buffer: %s", why);
    }
    if (b->sectors + b->flights.sectors > ftl->cfg.write_buffer_sectors) {
        return ftl_error(err, errlen, "write buffer: %llu sectors buffered and %llu in "
                         "flight exceed it", (unsigned long long)b->sectors,
                         (unsigned long long)b->flights.sectors);
    }
    return 0;
}
