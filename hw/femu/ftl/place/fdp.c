/*
 * Flexible Data Placement's reclaim unit handles (femu_ftl/fdp.h): with placement=fdp
 * they are the data write pointers, so a handle's reclaim unit is its write pointer's
 * open GC unit. This file answers what the device's logs and commands ask of a handle,
 * closes a unit early when the host or the time limit says so, and keeps the events
 * that raises until the host takes them.
 */
#include "place/fdp.h"

#include "map/write_pointers.h"

uint32_t ftl_fdp_ruhs(const struct ftl *ftl)
{
    return ftl->cfg.placement == FTL_PLACEMENT_FDP ? (uint32_t)ftl->cfg.fdp_ruhs : 0;
}

uint64_t ftl_fdp_ru_pages(const struct ftl *ftl)
{
    return ftl->pgs_per_line;
}

int ftl_fdp_ruh_status(const struct ftl *ftl, uint32_t ruh, struct ftl_ruh_status *out)
{
    if (ruh >= ftl_fdp_ruhs(ftl)) {
        return FTL_E_INVAL;
    }
    const struct write_pointer *w = &ftl->wps[ruh];
    if (w->line == NO_LINE) {
        /* the next write opens a free unit: a whole one of good pages, as far as the
         * host can tell (which unit, and so its bad blocks, is not chosen yet) */
        *out = (struct ftl_ruh_status){ .ru = UINT32_MAX, .available_pages = ftl->pgs_per_line };
        return FTL_OK;
    }
    /* an open line's programmed pages are its valid and invalid ones: O(1) */
    const struct line *l = &ftl->lines[w->line];
    uint64_t left = l->capacity - l->valid - l->invalid;
    *out = (struct ftl_ruh_status){ .ru = w->line, .available_pages = left,
                                    .opened_ns = w->opened_ns };
    return FTL_OK;
}

static void fdp_event(struct ftl *ftl, uint8_t type, uint32_t ruh, uint32_t ru,
                      uint64_t unwritten, uint64_t now_ns)
{
    if (ftl->fdp_event_count == FTL_FDP_EVENT_RING) {
        ftl->fdp_event_head = (ftl->fdp_event_head + 1) % FTL_FDP_EVENT_RING;
        ftl->fdp_event_count--;
        ftl->fdp_events_lost++;
    }
    uint32_t at = (ftl->fdp_event_head + ftl->fdp_event_count) % FTL_FDP_EVENT_RING;
    ftl->fdp_events[at] = (struct ftl_fdp_event){ .time_ns = now_ns,
                                                  .unwritten_pages = unwritten,
                                                  .ruh = ruh, .ru = ru, .type = type };
    ftl->fdp_event_count++;
}

/* Close ruh's reclaim unit as it is and say why; the pages left unwritten. */
static uint64_t fdp_close_ru(struct ftl *ftl, uint32_t ruh, uint8_t why, uint64_t now_ns)
{
    uint32_t ru = ftl->wps[ruh].line;
    uint64_t unwritten = wp_close_early(ftl, ruh, now_ns);

    if (ru == NO_LINE) {
        return 0;
    }
    ftl->ctr.fdp_unwritten_pages += unwritten;
    if (why == FTL_FDP_EVENT_RU_TIME_LIMIT) {
        ftl->ctr.fdp_ru_time_limits++;
    } else {
        ftl->ctr.fdp_ru_updates++;
    }
    fdp_event(ftl, why, ruh, ru, unwritten, now_ns);
    return unwritten;
}

int ftl_fdp_ruh_update(struct ftl *ftl, uint32_t ruh, uint64_t now_ns,
                       uint64_t *unwritten_pages)
{
    if (ruh >= ftl_fdp_ruhs(ftl)) {
        return FTL_E_INVAL;
    }
    /* An open unit always holds a page (wp_place opens one only to program it), so any
     * open unit is closed; a handle without one already starts on a fresh unit. */
    uint64_t unwritten = fdp_close_ru(ftl, ruh, FTL_FDP_EVENT_RU_NOT_FULLY_WRITTEN, now_ns);
    if (unwritten_pages) {
        *unwritten_pages = unwritten;
    }
    return FTL_OK;
}

void fdp_before_host_page(struct ftl *ftl, uint32_t ruh, uint64_t now_ns)
{
    const struct write_pointer *w = &ftl->wps[ruh];
    uint64_t limit_ns = ftl->cfg.fdp_ru_time_limit_s * UINT64_C(1000000000);

    /* the signed difference: a restored unit may have opened before the clock's 0 */
    if (limit_ns && w->line != NO_LINE && (int64_t)(now_ns - w->opened_ns) > 0 &&
        now_ns - w->opened_ns > limit_ns) {
        fdp_close_ru(ftl, ruh, FTL_FDP_EVENT_RU_TIME_LIMIT, now_ns);
    }
}

size_t ftl_fdp_take_events(struct ftl *ftl, struct ftl_fdp_event *out, size_t max,
                           uint64_t *lost)
{
    size_t n = 0;

    while (n < max && ftl->fdp_event_count) {
        out[n++] = ftl->fdp_events[ftl->fdp_event_head];
        ftl->fdp_event_head = (ftl->fdp_event_head + 1) % FTL_FDP_EVENT_RING;
        ftl->fdp_event_count--;
    }
    if (lost) {
        *lost = ftl->fdp_events_lost;
        ftl->fdp_events_lost = 0;
    }
    return n;
}
