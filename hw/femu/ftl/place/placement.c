/*
 * Write placement: one classifier per policy that picks the write pointer for a page
 * (write_pointers.c programs it there). single = FEMU's one stream;
 * hotcold = hot (0) when the LPN's host write count (aged with hot_decay: heat.h) exceeds
 * hot_threshold, else cold (1), for host writes and GC moves alike;
 * stream = the host's stream id, and GC keeps a page in the stream of the line it leaves;
 * fdp = the host's reclaim unit handle, GC as stream for persistently isolated handles,
 * and into the one GC write pointer after the handles for initially isolated ones.
 * Translation pages (mapping=dftl) have their own write pointer, MAP_WP, and lines.
 */
#include "place/placement.h"

#include "place/heat.h"

uint32_t placement_host_handles(const struct ftl *ftl)
{
    switch (ftl->cfg.placement) {
    case FTL_PLACEMENT_STREAM:
        return ftl->nwps;
    case FTL_PLACEMENT_FDP:
        return (uint32_t)ftl->cfg.fdp_ruhs;
    default:
        return 0;
    }
}

uint32_t placement_for_host(const struct ftl *ftl, uint32_t lpn, uint32_t stream)
{
    switch (ftl->cfg.placement) {
    case FTL_PLACEMENT_HOTCOLD:
        return heat_is_hot(ftl, lpn) ? 0 : 1;
    case FTL_PLACEMENT_STREAM:
    case FTL_PLACEMENT_FDP:
        return stream;  /* checked against the handles by the caller */
    case FTL_PLACEMENT_SINGLE:
    default:
        return 0;
    }
}

uint32_t placement_for_gc(const struct ftl *ftl, uint32_t lpn, uint32_t victim_line)
{
    if (lpn >= ftl->geo.logical_pages) {
        return MAP_WP;  /* a translation page stays among translation pages */
    }
    switch (ftl->cfg.placement) {
    case FTL_PLACEMENT_HOTCOLD:
        return heat_is_hot(ftl, lpn) ? 0 : 1;
    case FTL_PLACEMENT_FDP:
        if (ftl->cfg.fdp_ruh_type == FTL_RUH_INITIAL) {
            return ftl->nwps - 1;   /* GC mixes the handles' pages */
        }
        /* persistently isolated: as streams */
        /* fall through */
    case FTL_PLACEMENT_STREAM:
        /* a data page a map line borrowed (no free line left) goes to stream 0 */
        return ftl->lines[victim_line].wp == MAP_WP ? 0 : ftl->lines[victim_line].wp;
    case FTL_PLACEMENT_SINGLE:
    default:
        return 0;
    }
}
