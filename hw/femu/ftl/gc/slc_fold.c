/*
 * The pseudo-SLC write cache (docs/ftl.md). Host pages go to the SLC write pointer
 * (map/write_pointers.c slc_place) while the cache has room; full SLC units wait in a FIFO
 * (flash/line_lists.c), outside GC's heap and full list, until they are folded: their
 * valid pages are read in SLC mode and re-written where placement puts GC's moves (never
 * the cache), and the unit is erased in SLC mode and freed. Each page is folded once; GC
 * never moves a cache page, since it never sees an SLC unit.
 *
 * Folding runs in the foreground when a host write needs it (free units at the
 * foreground GC threshold, before GC of normal victims; slc_when_full=fold with the cache
 * full) and in the background on idle flash time: an operation may start only if its
 * LUNs were idle before now, and starts at their idle time, so the work lands in the idle
 * gap the host left, as on a drive folding while the host is quiet.
 */
#include "gc/slc_fold.h"

#include "flash/erase.h"
#include "flash/geometry.h"
#include "flash/line_lists.h"
#include "flash/p2l.h"
#include "flash/slc.h"
#include "flash/timing.h"
#include "map/page_map.h"
#include "map/write_pointers.h"
#include "place/placement.h"

uint64_t slc_max_units(const struct ftl *ftl)
{
    uint64_t logical = ftl->geo.logical_pages;
    uint64_t valid = ftl->valid_pages < logical ? ftl->valid_pages : logical;
    /* the dynamic part is free user space, taken in whole units */
    return ftl->cfg.slc_static_units +
           ftl->cfg.slc_dynamic_pcent * (logical - valid) / (100 * ftl->geo.pgs_per_unit);
}

uint64_t slc_capacity_pages(const struct ftl *ftl)
{
    return slc_max_units(ftl) * ftl->geo.slc_pgs_per_unit;
}

uint64_t slc_used_pages(const struct ftl *ftl)
{
    return ftl->slc_valid_pages;
}

/* A new SLC unit may be opened: the rule allows one more, and a free unit is left above
 * the foreground GC threshold. */
static bool slc_may_open(const struct ftl *ftl)
{
    return ftl->slc_count < slc_max_units(ftl) &&
           ftl->free_count > ftl->geo.gc_thres_lines_high;
}

/* The next valid page of the oldest SLC unit at or after the fold cursor (moving the
 * cursor there); false when it has none left. */
static bool next_fold_page(struct ftl *ftl, uint32_t *ppa)
{
    uint32_t base = ftl->slc_head * ftl->pgs_per_line;

    if (ftl->lines[ftl->slc_head].valid == 0) {
        return false;
    }
    while (ftl->slc_fold_off < ftl->slc_end &&
           p2l_get(ftl, base + ftl->slc_fold_off) >= P2L_INVALID) {
        ftl->slc_fold_off++;
    }
    *ppa = base + ftl->slc_fold_off;
    return ftl->slc_fold_off < ftl->slc_end;
}

/* Fold the page at ppa of the oldest SLC unit: read it in SLC mode from start_ns (0: when
 * its LUN is idle), program it where placement puts a GC move. */
static int fold_page(struct ftl *ftl, uint32_t ppa, uint64_t start_ns, uint64_t now_ns)
{
    uint32_t lpn = p2l_get(ftl, ppa), new_ppa;
    uint32_t wp = placement_for_gc(ftl, lpn, ftl->slc_head);

    if (!wp_place(ftl, wp, true, lpn, &new_ppa, now_ns)) {
        return FTL_E_NOSPC;     /* only on an inconsistent geometry */
    }
    uint64_t read = nand_read_lat(ftl, ppa_lun(ftl, ppa), start_ns, ftl->cfg.slc_pg_rd_lat);
    nand_program(ftl, ppa_lun(ftl, new_ppa), read);
    map_invalidate(ftl, ppa);
    ftl->ctr.slc_folded_pages++;
    if (wp < FTL_MAX_WRITE_POINTERS) {
        ftl->ctr.wp_fold_pages[wp]++;
    }
    return FTL_OK;
}

/* The oldest SLC unit holds no valid page: erase it in SLC mode from start_ns (0: when
 * each LUN is idle) and free it as a normal unit. */
static void fold_erase(struct ftl *ftl, uint64_t start_ns)
{
    uint32_t unit = slc_pop_oldest(ftl), blocks;

    line_erase(ftl, unit, start_ns, &blocks);   /* at slc_blk_er_lat: still in SLC mode */
    ftl->lines[unit].slc = false;
    ftl->ctr.slc_fold_erases += blocks;
}

/* Fold the oldest SLC unit whole, its flash work from now_ns (the foreground). */
static int fold_oldest(struct ftl *ftl, uint64_t now_ns)
{
    uint32_t ppa;

    while (next_fold_page(ftl, &ppa)) {
        int rc = fold_page(ftl, ppa, now_ns, now_ns);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    fold_erase(ftl, now_ns);
    ftl->ctr.slc_fg_fold_units++;
    return FTL_OK;
}

int slc_relieve(struct ftl *ftl, uint64_t now_ns)
{
    while (ftl->free_count <= ftl->geo.gc_thres_lines_high && ftl->slc_count) {
        int rc = fold_oldest(ftl, now_ns);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    return FTL_OK;
}

bool slc_admit(struct ftl *ftl, uint64_t now_ns, int *rc)
{
    *rc = FTL_OK;
    if (ftl->slc_wp.line != NO_LINE) {
        return true;
    }
    while (!slc_may_open(ftl)) {
        if (ftl->cfg.slc_when_full != FTL_SLC_FOLD || ftl->slc_count == 0) {
            return false;
        }
        *rc = fold_oldest(ftl, now_ns);
        if (*rc != FTL_OK) {
            return false;
        }
    }
    return true;
}

/* The LUN a page placed into write pointer wp is programmed on; false when it would need
 * a free unit and none is left. */
static bool wp_program_lun(const struct ftl *ftl, uint32_t wp, uint32_t *lun)
{
    const struct write_pointer *w = &ftl->wps[wp];
    uint32_t line = w->line, off = w->offset;

    if (line == NO_LINE) {
        line = free_queue_peek(ftl, w->next_pool);
        if (line == NO_LINE) {
            return false;
        }
        off = line_next_good(ftl, line, 0);
    }
    *lun = ppa_lun(ftl, line * ftl->pgs_per_line + off);
    return true;
}

/* Whether every good block of the oldest SLC unit sits on a LUN idle before now_ns. */
static bool oldest_luns_idle(const struct ftl *ftl, uint64_t now_ns)
{
    for (uint32_t k = 0; k < ftl->line_luns; k++) {
        uint32_t lun = unit_block_lun(ftl, ftl->slc_head, k);
        if (!block_index_is_bad(ftl, unit_block_index(ftl, ftl->slc_head, k)) &&
            ftl->lun_avail_ns[lun] >= now_ns) {
            return false;
        }
    }
    return true;
}

/* One step of background folding: true when it did something. */
static bool fold_idle_step(struct ftl *ftl, uint64_t now_ns, int *folded)
{
    uint32_t ppa, dst;

    if (!next_fold_page(ftl, &ppa)) {
        if (!oldest_luns_idle(ftl, now_ns)) {
            return false;
        }
        fold_erase(ftl, 0);
        return true;
    }
    uint32_t wp = placement_for_gc(ftl, p2l_get(ftl, ppa), ftl->slc_head);
    if (!wp_program_lun(ftl, wp, &dst) || ftl->lun_avail_ns[ppa_lun(ftl, ppa)] >= now_ns ||
        ftl->lun_avail_ns[dst] >= now_ns) {
        return false;
    }
    if (fold_page(ftl, ppa, 0, now_ns) != FTL_OK) {
        return false;
    }
    (*folded)++;
    return true;
}

int ftl_background_fold(struct ftl *ftl, uint64_t now_ns)
{
    int folded = 0;

    ftl_note_time(ftl, now_ns);     /* the engine calls this at every request's arrival */
    while (ftl->cfg.slc_cache && ftl->slc_count && fold_idle_step(ftl, now_ns, &folded)) {
    }
    return folded;
}
