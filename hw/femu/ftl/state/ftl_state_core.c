/*
 * The page-mapped FTL's own state apart from the maps: scalars, counters, write pointers
 * and the victim histogram (FCOR), blocks with their first program's time and the
 * read-retry histogram (FBLK), lines (FLIN), free rings and victim heaps (FQUE). Version 3
 * keeps the times of write pointers, FDP events and blocks as ages (state_time_age);
 * version 2 kept write pointers' and events' times as they were and had no block times.
 * Before layout 6 FCOR also held paced GC's debt, the FDP events and the SLC cache, which
 * now have sections of their own (ftl_state_debt.c, ftl_state_fdp.c, ftl_state_slc.c):
 * get_old_layout reads them from there.
 * Lists keep their order: the free rings from their heads, the heaps in array order (the
 * exact victim order), the full list through the lines' links.
 */

#include "state/ftl_state_section.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/error.h"
#include "flash/debt.h"
#include "flash/ftl_handle.h"
#include "gc/gc.h"

/* The counters a file keeps: all but the power-cut tallies at the end (ftl.h). */
#define NCOUNTERS (offsetof(struct ftl_counters, power_cuts) / sizeof(uint64_t))
_Static_assert(sizeof(struct ftl_counters) % sizeof(uint64_t) == 0 &&
               offsetof(struct ftl_counters, power_cuts) % sizeof(uint64_t) == 0,
               "ftl_counters holds only uint64_t fields");

/* Version 2 files end the counters before the SLC cache's, version 3 files before the
 * pages folded per write pointer, version 4 files before the buffer's page counts,
 * versions 5 and 6 before the merge and read-cache counters, version 7 before the
 * key-value stores', version 8 before the ZRWAs' (loaded as 0). */
#define NCOUNTERS_V2 (offsetof(struct ftl_counters, slc_host_pages) / sizeof(uint64_t))
#define NCOUNTERS_V3 (offsetof(struct ftl_counters, wp_fold_pages) / sizeof(uint64_t))
#define NCOUNTERS_V4 (offsetof(struct ftl_counters, buf_absorbed_pages) / sizeof(uint64_t))
#define NCOUNTERS_V6 (offsetof(struct ftl_counters, merge_switch) / sizeof(uint64_t))
#define NCOUNTERS_V7 (offsetof(struct ftl_counters, kv_stores) / sizeof(uint64_t))
#define NCOUNTERS_V8 (offsetof(struct ftl_counters, zrwa_writes) / sizeof(uint64_t))

#define LINE_RECORD_BYTES (6 * 4 + 2 * 8 + 2 + 1)  /* version 2: without the SLC mode byte */
#define BLOCK_RECORD_BYTES (3 * 4 + 8)     /* version 2: without the first program's age */

/* ---- FCOR ---- */

/* What the section is for: a file of another geometry is refused before anything. */
static void put_geometry(struct state_buf *b, const struct ftl *ftl)
{
    state_buf_u64(b, ftl->nunits);
    state_buf_u64(b, ftl->luns);
    state_buf_u64(b, ftl->pgs_per_line);
    state_buf_u64(b, ftl->geo.phys_pages);
    state_buf_u64(b, ftl->geo.logical_pages);
    state_buf_u64(b, ftl->geo.blocks);
    state_buf_u64(b, ftl->npools);
    state_buf_u64(b, ftl->nwps);
}

static void put_victim_hist(struct state_buf *b, const struct ftl *ftl)
{
    for (int map = 0; map < 2; map++) {
        for (uint32_t v = 0; v <= ftl->pgs_per_line; v++) {
            state_buf_u64(b, ftl->victim_hist[map][v]);
        }
    }
}

static int save_scalars(const struct ftl *ftl, struct state_writer *w, uint64_t now_ns,
                        char *err, size_t errlen)
{
    struct state_buf b = { 0 };
    uint64_t counters[NCOUNTERS];
    memcpy(counters, &ftl->ctr, sizeof(counters));

    state_buf_u32(&b, FTL_STATE_SECTION_VERSION);
    put_geometry(&b, ftl);
    state_buf_u32(&b, (uint32_t)NCOUNTERS);
    for (size_t i = 0; i < NCOUNTERS; i++) {
        state_buf_u64(&b, counters[i]);
    }
    state_buf_u64(&b, ftl->valid_pages);
    state_buf_u64(&b, ftl->max_lpn_plus_one);
    state_buf_u32(&b, ftl->erase_min);
    state_buf_u32(&b, ftl->erase_max);
    state_buf_u64(&b, ftl->erase_min_blocks);
    state_buf_u64(&b, ftl->erase_sum);
    state_buf_u64(&b, ftl->good_blocks);
    state_buf_u64(&b, ftl->read_error_lpn);
    state_buf_u64(&b, ftl->fault_rng);
    state_buf_u64(&b, ftl->gc_rng);
    state_buf_u64(&b, ftl->free_pages);
    state_buf_u64(&b, ftl->close_seq_next);
    state_buf_u32(&b, ftl->free_count);
    state_buf_u32(&b, ftl->full_head);
    state_buf_u32(&b, ftl->full_tail);
    state_buf_u32(&b, ftl->full_count);
    state_buf_u32(&b, ftl->victim_count);
    for (uint32_t i = 0; i <= MAP_WP; i++) {
        state_buf_u32(&b, ftl->wps[i].line);
        state_buf_u32(&b, ftl->wps[i].offset);
        state_buf_u32(&b, ftl->wps[i].next_pool);
        state_buf_u64(&b, state_time_age(now_ns, ftl->wps[i].opened_ns));
    }
    put_victim_hist(&b, ftl);
    return state_buf_section(&b, w, STATE_TAG_FTL_CORE, err, errlen);
}

/* The section in this build's layout. */
static uint64_t scalars_bytes(const struct ftl *ftl)
{
    return 4 + 8 * 8 + 4 + 8 * NCOUNTERS + 2 * 8 + 2 * 4 + 8 * 8 + 5 * 4 +
           (MAP_WP + 1) * 20 + 2 * 8 * ((uint64_t)ftl->pgs_per_line + 1);
}

/* At most, in any layout: before FTL_STATE_LAYOUT_OWN_SECTIONS it also held paced GC's
 * debt (its operations at the end), the FDP events' whole ring and the SLC cache. */
static uint64_t scalars_max_bytes(const struct ftl *ftl)
{
    return scalars_bytes(ftl) + STATE_DEBT_HEAD_BYTES + STATE_FDP_EVENTS_HEAD_BYTES +
           FTL_FDP_EVENT_RING * STATE_FDP_EVENT_BYTES + STATE_SLC_BYTES +
           STATE_DEBT_OP_BYTES * (uint64_t)debt_capacity(ftl);
}

/* The read-retry histogram at FBLK's end (version 3). */
static uint64_t retry_hist_bytes(const struct ftl *ftl)
{
    return 8 * (ftl->cfg.read_retry_max + 1) * (ftl->cfg.read_retry_max + 1);
}

static uint64_t blocks_bytes(const struct ftl *ftl)
{
    uint64_t nblocks = ftl->geo.blocks, words = (nblocks + 63) / 64;
    return 4 + nblocks * BLOCK_RECORD_BYTES + words * 8 + retry_hist_bytes(ftl);
}

static uint64_t lines_bytes(const struct ftl *ftl)
{
    return 4 + (uint64_t)ftl->nunits * LINE_RECORD_BYTES;
}

/* At most: every pool's ring and every line in one queue or heap. */
static uint64_t queues_max_bytes(const struct ftl *ftl)
{
    return 4 + 8 * (uint64_t)ftl->npools + 8 * (uint64_t)ftl->nunits;
}

size_t ftl_state_core_limits(const struct ftl *ftl, struct state_section_limit *out)
{
    out[0] = (struct state_section_limit){ STATE_TAG_FTL_CORE, scalars_max_bytes(ftl) };
    out[1] = (struct state_section_limit){ STATE_TAG_FTL_BLKS, blocks_bytes(ftl) };
    out[2] = (struct state_section_limit){ STATE_TAG_FTL_LINE, lines_bytes(ftl) };
    out[3] = (struct state_section_limit){ STATE_TAG_FTL_QUES, queues_max_bytes(ftl) };
    return 4;
}

static bool line_or_none(const struct ftl *ftl, uint32_t line)
{
    return line == NO_LINE || line < ftl->nunits;
}

/* An error at FCOR after its cursor is freed. */
static int scalars_refused(struct state_reader *r, struct state_cursor *c, const char *why,
                           char *err, size_t errlen)
{
    state_cursor_free(c);
    return state_section_error(r, STATE_TAG_FTL_CORE, err, errlen, "%s", why);
}

/* FCOR opened, its layout version in *version, with this FTL's geometry and the version's
 * counters read (an older file's end before its successors' loads as 0); -1 with a reason
 * and nothing to free when either differs. */
static int open_scalars(struct ftl *ftl, struct state_reader *r, struct state_cursor *c,
                        uint32_t *version, char *err, size_t errlen)
{
    if (state_section_open_version(r, STATE_TAG_FTL_CORE, 0, scalars_max_bytes(ftl), c,
                                   version, err, errlen)) {
        return -1;
    }
    size_t ncounters = *version >= FTL_STATE_LAYOUT_ZRWA ? NCOUNTERS
                     : *version == 8 ? NCOUNTERS_V8 : *version == 7 ? NCOUNTERS_V7
                     : *version >= 5 ? NCOUNTERS_V6
                     : *version == 4 ? NCOUNTERS_V4
                     : *version == 3 ? NCOUNTERS_V3 : NCOUNTERS_V2;
    struct state_buf mine = { 0 };
    put_geometry(&mine, ftl);
    bool same = !mine.failed && c->len >= c->pos + mine.len &&
                memcmp(c->p + c->pos, mine.p, mine.len) == 0;
    c->pos += 8 * 8;
    free(mine.p);
    if (!same) {
        return scalars_refused(r, c, "another geometry", err, errlen);
    }
    if (state_cur_u32(c) != ncounters) {
        return scalars_refused(r, c, "another set of counters", err, errlen);
    }
    uint64_t counters[NCOUNTERS] = { 0 };
    for (size_t i = 0; i < ncounters; i++) {
        counters[i] = state_cur_u64(c);
    }
    memcpy(&ftl->ctr, counters, sizeof(counters));   /* the power-cut tallies stay 0 */
    return 0;
}

/* The scalars after the counters up to the write pointers, whose times layout 2 kept as
 * they were; returns the file's count of good blocks, which check_scalars compares. */
static uint64_t get_scalars(struct ftl *ftl, struct state_cursor *c, uint32_t version,
                            uint64_t now_ns)
{
    ftl->valid_pages = state_cur_u64(c);
    ftl->max_lpn_plus_one = state_cur_u64(c);
    ftl->erase_min = state_cur_u32(c);
    ftl->erase_max = state_cur_u32(c);
    ftl->erase_min_blocks = state_cur_u64(c);
    ftl->erase_sum = state_cur_u64(c);
    uint64_t good_blocks = state_cur_u64(c);
    ftl->read_error_lpn = state_cur_u64(c);
    ftl->fault_rng = state_cur_u64(c);
    ftl->gc_rng = state_cur_u64(c);
    ftl->free_pages = state_cur_u64(c);
    ftl->close_seq_next = state_cur_u64(c);
    ftl->free_count = state_cur_u32(c);
    ftl->full_head = state_cur_u32(c);
    ftl->full_tail = state_cur_u32(c);
    ftl->full_count = state_cur_u32(c);
    ftl->victim_count = state_cur_u32(c);
    for (uint32_t i = 0; i <= MAP_WP; i++) {
        ftl->wps[i].line = state_cur_u32(c);
        ftl->wps[i].offset = state_cur_u32(c);
        ftl->wps[i].next_pool = state_cur_u32(c);
        uint64_t opened = state_cur_u64(c);
        ftl->wps[i].opened_ns = version >= 3 ? state_time_rebase(now_ns, opened) : opened;
    }
    return good_blocks;
}

static void get_victim_hist(struct ftl *ftl, struct state_cursor *c)
{
    for (int map = 0; map < 2; map++) {
        for (uint32_t v = 0; v <= ftl->pgs_per_line; v++) {
            ftl->victim_hist[map][v] = state_cur_u64(c);
        }
    }
}

/* What later code indexes with, before ftl_check() looks at the whole. */
static int check_scalars(const struct ftl *ftl, struct state_reader *r, uint64_t good_blocks,
                         char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_CORE;
    if (good_blocks != ftl->good_blocks) {
        return state_section_error(r, tag, err, errlen, "%llu good blocks, the bad block "
                                   "choice gives %llu", (unsigned long long)good_blocks,
                                   (unsigned long long)ftl->good_blocks);
    }
    if (!line_or_none(ftl, ftl->full_head) || !line_or_none(ftl, ftl->full_tail)) {
        return state_section_error(r, tag, err, errlen, "full list ends out of range");
    }
    for (uint32_t i = 0; i <= MAP_WP; i++) {
        const struct write_pointer *wp = &ftl->wps[i];
        if (!line_or_none(ftl, wp->line) || wp->next_pool >= ftl->npools ||
            (wp->line != NO_LINE && wp->offset >= ftl->pgs_per_line)) {
            return state_section_error(r, tag, err, errlen, "write pointer %u (line %u, "
                                       "offset %u, pool %u) out of range", i, wp->line,
                                       wp->offset, wp->next_pool);
        }
    }
    return 0;
}

/* Which of the fields an older layout kept in FCOR (below) were in range. */
struct old_fields_ok {
    bool slc, debt, events;
};

/*
 * Layouts before FTL_STATE_LAYOUT_OWN_SECTIONS: the scalars, then paced GC's debt's head
 * and the FDP events' whole ring, the victim histogram, the SLC cache (layout 3 on) and the
 * debt's operations to the end; the same bytes as FDBT, FEVT and FSLC now hold.
 */
static struct old_fields_ok get_old_layout(struct ftl *ftl, struct state_cursor *c,
                                           uint32_t version, uint64_t now_ns)
{
    struct old_fields_ok ok = { .slc = true };
    state_debt_get_head(ftl, c);
    ok.events = state_fdp_events_get(ftl, c, now_ns, true, version >= 3);
    get_victim_hist(ftl, c);
    state_slc_none(ftl);      /* before the SLC cache: no unit in SLC mode */
    if (version >= 3) {
        ok.slc = state_slc_get(ftl, c, now_ns);
    }
    ok.debt = state_debt_get_ops(ftl, c);
    return ok;
}

/* FCOR: the core's scalars, or in an older layout (*layout) also the fields that now have
 * sections of their own. */
static int load_scalars(struct ftl *ftl, struct state_reader *r, uint64_t now_ns,
                        uint32_t *layout, char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_CORE;
    struct state_cursor c;
    if (open_scalars(ftl, r, &c, layout, err, errlen)) {
        return -1;
    }
    uint64_t good_blocks = get_scalars(ftl, &c, *layout, now_ns);
    struct old_fields_ok old = { true, true, true };
    bool whole = true;
    if (*layout < FTL_STATE_LAYOUT_OWN_SECTIONS) {
        old = get_old_layout(ftl, &c, *layout, now_ns);   /* its debt checks the length */
    } else {
        get_victim_hist(ftl, &c);
        whole = !c.overrun && c.pos == c.len;
    }
    size_t len = c.len;
    state_cursor_free(&c);
    if (!whole) {
        return state_section_error(r, tag, err, errlen, "%zu bytes, layout %u takes %llu",
                                   len, *layout, (unsigned long long)scalars_bytes(ftl));
    }
    if (check_scalars(ftl, r, good_blocks, err, errlen)) {
        return -1;
    }
    return !old.slc ? state_slc_error(r, tag, ftl, err, errlen)
         : !old.debt ? state_debt_error(r, tag, ftl, err, errlen)
         : !old.events ? state_fdp_events_error(r, tag, ftl, err, errlen) : 0;
}
/* ---- FBLK ---- */

static int save_blocks(const struct ftl *ftl, struct state_writer *w, uint64_t now_ns,
                       char *err, size_t errlen)
{
    struct state_buf b = { 0 };
    state_buf_u32(&b, FTL_STATE_SECTION_VERSION);
    for (uint64_t i = 0; i < ftl->geo.blocks; i++) {
        state_buf_u32(&b, ftl->blocks[i].valid);
        state_buf_u32(&b, ftl->blocks[i].invalid);
        state_buf_u32(&b, ftl->blocks[i].erase_count);
        state_buf_u64(&b, state_time_age(now_ns, ftl->block_programmed_ns[i]));
    }
    for (uint64_t i = 0; i < (ftl->geo.blocks + 63) / 64; i++) {
        state_buf_u64(&b, ftl->bad_bits[i]);
    }
    size_t n;
    const uint64_t *hist = ftl_read_retry_histogram(ftl, &n);
    for (size_t i = 0; i < n * n; i++) {
        state_buf_u64(&b, hist[i]);
    }
    return state_buf_section(&b, w, STATE_TAG_FTL_BLKS, err, errlen);
}

static int load_blocks(struct ftl *ftl, struct state_reader *r, uint64_t now_ns, char *err,
                       size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_BLKS;
    uint64_t nblocks = ftl->geo.blocks, words = (nblocks + 63) / 64;
    struct state_cursor c;
    uint32_t version;
    if (state_section_open_version(r, tag, 0, blocks_bytes(ftl), &c, &version, err, errlen)) {
        return -1;
    }
    /* version 2: no block ages (they start at the restore) and no retry histogram */
    bool v3 = version >= 3;
    uint64_t expected = v3 ? blocks_bytes(ftl)
                           : 4 + nblocks * (BLOCK_RECORD_BYTES - 8) + words * 8;
    if (c.len != expected) {
        uint64_t len = c.len;
        state_cursor_free(&c);
        return state_section_error(r, tag, err, errlen, "%llu bytes, %llu blocks of version "
                                   "%u take %llu", (unsigned long long)len,
                                   (unsigned long long)nblocks, version,
                                   (unsigned long long)expected);
    }
    for (uint64_t i = 0; i < nblocks; i++) {
        ftl->blocks[i].valid = state_cur_u32(&c);
        ftl->blocks[i].invalid = state_cur_u32(&c);
        ftl->blocks[i].erase_count = state_cur_u32(&c);
        ftl->block_programmed_ns[i] = v3 ? state_time_rebase(now_ns, state_cur_u64(&c))
                                         : now_ns;
    }
    int rc = 0;
    for (uint64_t i = 0; i < words && rc == 0; i++) {
        /* bad blocks follow from fault_seed: the file must agree with this build */
        if (state_cur_u64(&c) != ftl->bad_bits[i]) {
            rc = state_section_error(r, tag, err, errlen, "bad blocks %llu..%llu differ from "
                                     "those fault_seed gives", (unsigned long long)(i * 64),
                                     (unsigned long long)(i * 64 + 63));
        }
    }
    /* counts: any value is a count; the size was checked above */
    uint64_t hist = v3 ? retry_hist_bytes(ftl) / 8 : 0;
    for (uint64_t i = 0; i < hist; i++) {
        ftl->retry_hist[i] = state_cur_u64(&c);
    }
    state_cursor_free(&c);
    return rc;
}

/* ---- FLIN ---- */

static int save_lines(const struct ftl *ftl, struct state_writer *w, uint64_t now_ns,
                      char *err, size_t errlen)
{
    struct state_buf b = { 0 };
    state_buf_u32(&b, FTL_STATE_SECTION_VERSION);
    for (uint32_t i = 0; i < ftl->nunits; i++) {
        const struct line *l = &ftl->lines[i];
        state_buf_u32(&b, l->valid);
        state_buf_u32(&b, l->invalid);
        state_buf_u32(&b, l->heap_pos);
        state_buf_u32(&b, l->prev);
        state_buf_u32(&b, l->next);
        state_buf_u32(&b, l->capacity);
        state_buf_u64(&b, state_time_age(now_ns, l->written_ns));
        state_buf_u64(&b, l->close_seq);
        state_buf_u8(&b, l->state);
        state_buf_u8(&b, l->wp);
        state_buf_u8(&b, l->slc);
    }
    return state_buf_section(&b, w, STATE_TAG_FTL_LINE, err, errlen);
}

static int load_lines(struct ftl *ftl, struct state_reader *r, uint64_t now_ns, char *err,
                      size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_LINE;
    struct state_cursor c;
    uint32_t version;
    if (state_section_open_version(r, tag, 0, lines_bytes(ftl), &c, &version, err, errlen)) {
        return -1;
    }
    int rc = 0;
    uint32_t record = LINE_RECORD_BYTES - (version < 3);  /* version 2: no SLC mode */
    if (c.len != 4 + (uint64_t)ftl->nunits * record) {
        rc = state_section_error(r, tag, err, errlen, "%zu bytes, %u lines of version %u "
                                 "take %llu", c.len, ftl->nunits, version,
                                 (unsigned long long)(4 + (uint64_t)ftl->nunits * record));
    }
    uint32_t heap_room = ftl->pool_cap ? ftl->pool_cap : 1;
    for (uint32_t i = 0; i < ftl->nunits && rc == 0; i++) {
        struct line *l = &ftl->lines[i];
        uint32_t capacity = l->capacity;    /* from the bad blocks, at create */
        l->valid = state_cur_u32(&c);
        l->invalid = state_cur_u32(&c);
        l->heap_pos = state_cur_u32(&c);
        l->prev = state_cur_u32(&c);
        l->next = state_cur_u32(&c);
        l->capacity = state_cur_u32(&c);
        l->written_ns = state_time_rebase(now_ns, state_cur_u64(&c));
        l->close_seq = state_cur_u64(&c);
        l->state = state_cur_u8(&c);
        l->wp = state_cur_u8(&c);
        uint8_t slc = version >= 3 ? state_cur_u8(&c) : 0;
        l->slc = slc == 1;
        if (l->capacity != capacity) {
            rc = state_section_error(r, tag, err, errlen, "line %u capacity %u, its good "
                                     "blocks hold %u", i, l->capacity, capacity);
        } else if (l->state > LINE_MAPPED || (l->state == LINE_MAPPED && !ftl->hybrid) ||
                   l->wp > MAP_WP || l->heap_pos >= heap_room ||
                   !line_or_none(ftl, l->prev) || !line_or_none(ftl, l->next) || slc > 1 ||
                   (slc && !ftl->cfg.slc_cache)) {
            rc = state_section_error(r, tag, err, errlen, "line %u (state %u, write pointer "
                                     "%u, heap_pos %u, links %u/%u, SLC %u) out of range", i,
                                     l->state, l->wp, l->heap_pos, l->prev, l->next, slc);
        }
    }
    state_cursor_free(&c);
    /* the SLC units' valid pages follow from the lines (ftl_check holds them together) */
    ftl->slc_valid_pages = 0;
    for (uint32_t i = 0; rc == 0 && i < ftl->nunits; i++) {
        ftl->slc_valid_pages += ftl->lines[i].slc ? ftl->lines[i].valid : 0;
    }
    return rc;
}

/* ---- FQUE ---- */

static int save_queues(const struct ftl *ftl, struct state_writer *w, char *err,
                       size_t errlen)
{
    struct state_buf b = { 0 };
    state_buf_u32(&b, FTL_STATE_SECTION_VERSION);
    for (uint32_t p = 0; p < ftl->npools; p++) {
        const uint32_t *ring = ftl->free_queue + (size_t)p * ftl->pool_cap;
        state_buf_u32(&b, ftl->pool_count[p]);
        for (uint32_t i = 0; i < ftl->pool_count[p]; i++) {
            state_buf_u32(&b, ring[(ftl->pool_head[p] + (uint64_t)i) % ftl->pool_cap]);
        }
    }
    for (uint32_t p = 0; p < ftl->npools; p++) {
        const uint32_t *heap = ftl->victim_heap + (size_t)p * ftl->pool_cap;
        state_buf_u32(&b, ftl->heap_count[p]);
        for (uint32_t i = 0; i < ftl->heap_count[p]; i++) {
            state_buf_u32(&b, heap[i]);
        }
    }
    return state_buf_section(&b, w, STATE_TAG_FTL_QUES, err, errlen);
}

/* count entries of lines < nunits into out (room for pool_cap); -1 when out of range. */
static int load_line_list(struct ftl *ftl, struct state_cursor *c, uint32_t *out,
                          uint32_t *count)
{
    *count = state_cur_u32(c);
    if (c->overrun || *count > ftl->pool_cap) {
        return -1;
    }
    for (uint32_t i = 0; i < *count; i++) {
        out[i] = state_cur_u32(c);
        if (c->overrun || out[i] >= ftl->nunits) {
            return -1;
        }
    }
    return 0;
}

static int load_queues(struct ftl *ftl, struct state_reader *r, char *err, size_t errlen)
{
    const uint32_t tag = STATE_TAG_FTL_QUES;
    struct state_cursor c;
    if (state_section_open(r, tag, 0, queues_max_bytes(ftl), &c, err, errlen)) {
        return -1;
    }
    int rc = 0;
    for (uint32_t p = 0; p < ftl->npools && rc == 0; p++) {
        ftl->pool_head[p] = 0;
        if (load_line_list(ftl, &c, ftl->free_queue + (size_t)p * ftl->pool_cap,
                           &ftl->pool_count[p])) {
            rc = state_section_error(r, tag, err, errlen, "free pool %u out of range", p);
        }
    }
    for (uint32_t p = 0; p < ftl->npools && rc == 0; p++) {
        if (load_line_list(ftl, &c, ftl->victim_heap + (size_t)p * ftl->pool_cap,
                           &ftl->heap_count[p])) {
            rc = state_section_error(r, tag, err, errlen, "victim heap %u out of range", p);
        }
    }
    if (rc == 0 && c.pos != c.len) {
        rc = state_section_error(r, tag, err, errlen, "%zu bytes after the lists",
                                 c.len - c.pos);
    }
    state_cursor_free(&c);
    /* the victims' count by write pointer follows from the heaps and the lines */
    memset(ftl->victims_by_wp, 0, sizeof(ftl->victims_by_wp));
    for (uint32_t p = 0; rc == 0 && p < ftl->npools; p++) {
        for (uint32_t k = 0; k < ftl->heap_count[p]; k++) {
            ftl->victims_by_wp[ftl->lines[ftl->victim_heap[(size_t)p * ftl->pool_cap + k]].wp]++;
        }
    }
    return rc;
}

int ftl_state_save_core(const struct ftl *ftl, struct state_writer *w, uint64_t now_ns,
                        char *err, size_t errlen)
{
    if (save_scalars(ftl, w, now_ns, err, errlen) || save_blocks(ftl, w, now_ns, err, errlen) ||
        save_lines(ftl, w, now_ns, err, errlen) || save_queues(ftl, w, err, errlen)) {
        return -1;
    }
    return 0;
}

int ftl_state_load_core(struct ftl *ftl, struct state_reader *r, uint64_t now_ns,
                        uint32_t *layout, char *err, size_t errlen)
{
    if (load_scalars(ftl, r, now_ns, layout, err, errlen) || load_blocks(ftl, r, now_ns, err, errlen) ||
        load_lines(ftl, r, now_ns, err, errlen) || load_queues(ftl, r, err, errlen)) {
        return -1;
    }
    return 0;
}
