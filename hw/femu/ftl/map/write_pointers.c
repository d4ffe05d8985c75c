/*
 * Write pointers: N of them for data (placement.c chooses one per page) and MAP_WP for
 * translation pages, each owning its own open line. A page goes to the next good page
 * of its write pointer's line (FEMU's striping: channel first, then LUN, then page); a
 * line that fills up is closed, and a write pointer without a line opens a free one.
 */
#include "map/write_pointers.h"

#include "flash/debt.h"
#include "flash/geometry.h"
#include "flash/line_lists.h"
#include "flash/p2l.h"
#include "flash/read_retry.h"
#include "flash/unit_events.h"
#include "map/page_map.h"

/* Open a free line for write pointer w (number wp: the line records it); with
 * gc_unit=block a block from the LUN after the one it filled last, so a write pointer
 * moves bank by bank. */
static bool open_line(struct ftl *ftl, struct write_pointer *w, uint32_t wp, uint64_t now_ns)
{
    uint32_t line = free_queue_pop(ftl, w->next_pool);
    if (line == NO_LINE) {
        return false;
    }
    /* free in the maps, but paced GC may still owe its erase (and the moves before it) */
    debt_settle_through(ftl, line, now_ns);
    uint32_t next_pool = unit_pool(ftl, line) + 1;
    ftl->lines[line].state = LINE_OPEN;
    ftl->lines[line].wp = (uint8_t)wp;
    /* A free line has a good block (lines of bad blocks only are never freed). */
    *w = (struct write_pointer){ .line = line, .offset = line_next_good(ftl, line, 0),
                                 .next_pool = next_pool == ftl->npools ? 0 : next_pool,
                                 .opened_ns = now_ns };
    unit_event(ftl, FTL_UNIT_OPENED, line, now_ns);
    return true;
}

static bool wp_open_line(struct ftl *ftl, uint32_t wp, uint64_t now_ns)
{
    return open_line(ftl, &ftl->wps[wp], wp, now_ns);
}

bool wp_place(struct ftl *ftl, uint32_t wp, bool fallback, uint32_t lpn, uint32_t *ppa,
              uint64_t now_ns)
{
    if (ftl->wps[wp].line == NO_LINE && !wp_open_line(ftl, wp, now_ns)) {
        if (!fallback) {
            return false;
        }
        /* No free line: GC may borrow any open line; a valid geometry guarantees room. */
        uint32_t other = 0;
        while (other < ftl->nwps && ftl->wps[other].line == NO_LINE) {
            other++;
        }
        if (other == ftl->nwps) {
            return false;
        }
        wp = other;
    }
    struct write_pointer *w = &ftl->wps[wp];
    *ppa = w->line * ftl->pgs_per_line + w->offset;
    retry_note_program(ftl, *ppa, now_ns);
    map_bind(ftl, lpn, *ppa);  /* before a close, so the line is filed with its final count */
    w->offset = line_next_good(ftl, w->line, w->offset + 1);    /* past bad blocks */
    if (w->offset == ftl->pgs_per_line) {
        line_close(ftl, w->line, now_ns);
        w->line = NO_LINE;
    }
    return true;
}

uint64_t wp_close_early(struct ftl *ftl, uint32_t wp, uint64_t now_ns)
{
    struct write_pointer *w = &ftl->wps[wp];
    uint64_t unwritten = 0;

    if (w->line == NO_LINE) {
        return 0;
    }
    struct line *l = &ftl->lines[w->line];
    for (uint32_t off = w->offset; off < ftl->pgs_per_line;
         off = line_next_good(ftl, w->line, off + 1)) {
        uint32_t ppa = w->line * ftl->pgs_per_line + off;
        p2l_set(ftl, ppa, P2L_INVALID);
        ppa_block(ftl, ppa)->invalid++;
        l->invalid++;
        unwritten++;
    }
    line_close(ftl, w->line, now_ns);
    w->line = NO_LINE;
    return unwritten;
}

bool slc_place(struct ftl *ftl, uint32_t lpn, uint32_t *ppa, uint64_t now_ns)
{
    struct write_pointer *w = &ftl->slc_wp;

    /* its pages count for write pointer 0 (placement's for GC moves, its wp field) */
    if (w->line == NO_LINE) {
        if (!open_line(ftl, w, 0, now_ns)) {
            return false;
        }
        ftl->lines[w->line].slc = true;
    }
    *ppa = w->line * ftl->pgs_per_line + w->offset;
    retry_note_program(ftl, *ppa, now_ns);
    map_bind(ftl, lpn, *ppa);
    /* the first good page of a block is an SLC page, so an open unit has one ahead */
    w->offset = line_next_good(ftl, w->line, w->offset + 1);
    if (w->offset >= ftl->slc_end) {
        slc_line_close(ftl, w->line, now_ns);
        w->line = NO_LINE;
    }
    return true;
}
