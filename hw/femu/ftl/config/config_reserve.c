/* The GC reserve: how many logical pages the flash holds beside it, the bound every
 * capacity check and ftl_config_max_devsz_mb take. */
#include "config/config_checks.h"

/*
 * GC can always make progress while some closed line holds an invalid page. With free
 * lines <= h (foreground GC), at most one open line per write pointer (k) and N logical
 * pages, the closed lines number >= L - h - k; if N < (L - h - k) * P one of them has
 * fewer than P valid pages, and moving them fits in the >= 1 free line kept back. With
 * factory bad blocks the closed lines hold at least the good pages less h + k whole
 * lines, so the same bound is taken over good pages (`good`, the geometry's or
 * phys_pages to ask what it would be without bad blocks). With slc_cache=on its open
 * unit and its static units are kept back too (slc_reserved_units): closed SLC units are
 * no victims, but foreground writes fold them before GC runs, so only those stay.
 */
uint64_t config_max_logical_pages(const struct ftl_geometry *g, uint64_t good)
{
    /* the SLC cache's open unit and static units count as more open units */
    uint64_t open = g->write_pointers + g->map_write_pointers + g->slc_reserved_units;
    uint64_t reserved = (g->gc_thres_lines_high + open) * g->pgs_per_unit;
    if (g->units <= g->gc_thres_lines_high + open || good <= reserved) {
        return 0;
    }
    return good - reserved - 1;
}
