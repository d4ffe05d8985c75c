/*
 * Simple Copy (NVMe Copy, source range format 0): data moves inside the device from the
 * source ranges, concatenated, to a destination at dest. Each destination page programmed
 * takes its data from the source page holding the sector that lands at the page's first
 * sector of the copy:
 *
 *  - that page on flash on the destination page's LUN: copyback (sense into the LUN's
 *    register, program from it: no channel transfer; nand_copybacks);
 *  - on flash elsewhere: a read on its LUN, then a program on the destination's LUN from
 *    the read's end (two channel transfers; nand_copy_reads, nand_copy_programs);
 *  - not on flash (in a buffer, or never written): a program only (nand_copy_programs).
 *
 * Zoned (the destination admitted like a write): the destination pages are the zone pages
 * the copy completes, on their zone LUNs, as for a zone write. Conventional: every
 * destination page goes through the FTL like a host write (foreground GC, placement and
 * the write pointer, per-LPN write counts and hot/cold, the map), so copyback happens
 * where placement put the new page on the source's LUN; under mapping=block|bast|fast
 * the scheme places it, after the merges it needs (map/hybrid.h). With mapping=dftl the
 * source and destination entries are looked up as a read and a write would; with a
 * write buffer the copy bypasses it: buffered destination pages are dropped (the copy
 * replaces them) and a wholly buffered source page is programmed from DRAM.
 *
 * A destination page the copy covers only in part is priced as a whole page.
 *
 * Timing: the pages are priced together once all are placed (flash/page_moves.c): every
 * source read issued at the arrival across the source LUNs, each program once its data is
 * read and its LUN free, in page order on each LUN, so the programs pipeline over the
 * destination LUNs as a zone write's do. The copy completes by a zone write's rule: when
 * its last program ends (no page completed: at the buffer's latency).
 */
#include "core/copy.h"

#include "base/max_u64.h"
#include "flash/geometry.h"
#include "flash/page_moves.h"
#include "gc/gc.h"
#include "map/dftl.h"
#include "map/hybrid_write.h"
#include "map/page_map.h"
#include "map/write_pointers.h"
#include "place/placement.h"
#include "place/heat.h"
#include "place/write_count.h"
#include "wbuf/write_buffer.h"
#include "zns/zns.h"

/* Walks the concatenated sources at increasing offsets. */
struct source_cursor {
    const struct ftl_range *src;
    uint32_t nsrc, i;
    uint64_t base;      /* offset of src[i]'s first sector */
};

static uint64_t source_sector(struct source_cursor *c, uint64_t offset)
{
    while (c->i + 1 < c->nsrc && offset >= c->base + c->src[c->i].nlb) {
        c->base += c->src[c->i].nlb;
        c->i++;
    }
    return c->src[c->i].slba + (offset - c->base);
}

/* One destination page's data onto LUN dlun, added to the batch the copy prices at its
 * end (flash/page_moves.c); the read (or copyback) may start at src_ready_ns. */
static void add_move(struct ftl *ftl, struct page_moves *b, bool on_flash, uint32_t slun,
                     uint32_t dlun, uint64_t src_ready_ns, uint64_t now_ns)
{
    if (on_flash && slun == dlun) {
        ftl->ctr.nand_copybacks++;
        page_moves_add(b, PAGE_MOVE_COPYBACK, slun, dlun, src_ready_ns);
        return;
    }
    if (on_flash) {
        ftl->ctr.nand_copy_reads++;
    }
    ftl->ctr.nand_copy_programs++;
    page_moves_add(b, on_flash ? PAGE_MOVE_READ_PROGRAM : PAGE_MOVE_PROGRAM, slun, dlun,
                   on_flash ? src_ready_ns : now_ns);
}

/* Every source range lies inside [0, limit). */
static bool sources_inside(const struct ftl_range *src, uint32_t nsrc, uint64_t limit)
{
    for (uint32_t i = 0; i < nsrc; i++) {
        if (src[i].nlb > limit || src[i].slba > limit - src[i].nlb) {
            return false;
        }
    }
    return true;
}

static int copy_zoned(struct ftl *ftl, const struct ftl_range *src, uint32_t nsrc,
                      uint64_t dest, uint64_t total, uint64_t now_ns, uint64_t *done_ns)
{
    const struct ftl_geometry *g = &ftl->geo;
    if (!ftl->zns || !sources_inside(src, nsrc, g->zoned_sectors) ||
        total > g->zone_cap_sectors) {
        return FTL_E_INVAL;
    }
    uint64_t zone = dest / g->zone_sectors, zone_start = zone * g->zone_sectors;
    uint64_t spp = ftl->secs_per_pg;
    struct page_moves moves;
    int rc = page_moves_init(&moves, ftl, total / spp + 2);
    if (rc != FTL_OK) {
        return rc;
    }
    /* Sources in the destination zone are judged by what was on flash before the copy:
     * a page it completes holds no source data on flash yet. */
    uint64_t dest_zone_programmed = zns_programmed_pages(ftl, zone);
    uint64_t first, end;
    rc = zns_write_pages(ftl, dest, total, &first, &end);
    if (rc != FTL_OK) {
        page_moves_free(&moves);
        return rc;
    }
    struct source_cursor c = { .src = src, .nsrc = nsrc };
    uint64_t done = end > first ? now_ns : now_ns + ftl->cfg.buf_wr_lat;
    for (uint64_t p = first; p < end; p++) {
        uint64_t page_start = zone_start + p * spp;
        uint64_t from = source_sector(&c, (page_start > dest ? page_start : dest) - dest);
        uint64_t szone = from / g->zone_sectors;
        uint64_t spage = (from - szone * g->zone_sectors) / spp;
        uint64_t programmed = szone == zone ? dest_zone_programmed
                                            : zns_programmed_pages(ftl, szone);
        uint32_t slun = 0, dlun;
        bool on_flash = spage < programmed;
        if (on_flash) {
            zns_page_place(ftl, szone, spage, &slun, NULL);
        }
        zns_page_place(ftl, zone, p, &dlun, NULL);
        add_move(ftl, &moves, on_flash, slun, dlun, now_ns, now_ns);
    }
    ftl->ctr.copy_pages += end - first;
    *done_ns = page_moves_price(ftl, &moves, done);
    page_moves_free(&moves);
    return FTL_OK;
}

/* One destination page lpn of a conventional copy from source page slpn. */
static int copy_page(struct ftl *ftl, struct page_moves *moves, uint32_t lpn, uint32_t slpn,
                     uint64_t now_ns, uint64_t *done)
{
    if (ftl->free_count <= ftl->geo.gc_thres_lines_high) {
        int rc = gc_foreground(ftl, now_ns, 0);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    uint64_t src_ready = ftl->dftl ? dftl_lookup(ftl, slpn, false, now_ns) : now_ns;
    uint32_t sppa = l2p_get(ftl, slpn);
    bool on_flash = sppa != L2P_UNMAPPED &&
                    !(ftl->wbuf && wbuf_covers(ftl, slpn, UINT64_MAX >> (64 - ftl->secs_per_pg)));
    uint32_t slun = on_flash ? ppa_lun(ftl, sppa) : 0;
    uint64_t mapped = ftl->dftl ? dftl_lookup(ftl, lpn, true, now_ns) : now_ns;
    uint32_t count_before;
    if (!wc_increment(ftl, lpn, &count_before)) {
        return FTL_E_NOMEM;
    }
    struct heat_undo heat;
    heat_write(ftl, lpn, count_before, &heat);
    uint32_t old = l2p_get(ftl, lpn);
    uint32_t ppa;
    uint64_t merged = now_ns;
    /* a hybrid mapping places the page itself (merging first, in the foreground) */
    int rc = ftl->hybrid ? hybrid_place(ftl, lpn, now_ns, &ppa, &merged)
             : wp_place(ftl, placement_for_host(ftl, lpn, 0), true, lpn, &ppa, now_ns)
             ? FTL_OK : FTL_E_NOSPC;
    if (rc != FTL_OK) {
        wc_set(ftl, lpn, count_before);
        heat_unwrite(ftl, lpn, count_before, &heat);
        return rc;
    }
    if (old != L2P_UNMAPPED && !ftl->hybrid) {
        map_invalidate(ftl, old);
    }
    *done = max_u64(*done, merged);
    if (lpn + 1 > ftl->max_lpn_plus_one) {
        ftl->max_lpn_plus_one = lpn + 1;
    }
    add_move(ftl, moves, on_flash, slun, ppa_lun(ftl, ppa), src_ready, now_ns);
    *done = max_u64(*done, mapped);
    gc_host_page_written(ftl);
    ftl->ctr.copy_pages++;
    return FTL_OK;
}

static int copy_conventional(struct ftl *ftl, const struct ftl_range *src, uint32_t nsrc,
                             uint64_t dest, uint64_t total, uint64_t now_ns,
                             uint64_t *done_ns)
{
    const struct ftl_geometry *g = &ftl->geo;
    if (!sources_inside(src, nsrc, g->logical_sectors) || total > g->logical_sectors ||
        dest > g->logical_sectors - total) {
        return FTL_E_RANGE;
    }
    uint64_t spp = ftl->secs_per_pg;
    uint64_t first = dest / spp, last = (dest + total - 1) / spp;
    struct page_moves moves;
    int rc = page_moves_init(&moves, ftl, last - first + 1);
    if (rc != FTL_OK) {
        return rc;
    }
    if (ftl->wbuf) {
        wbuf_drop(ftl, first, last + 1);    /* the copy replaces them */
    }
    struct source_cursor c = { .src = src, .nsrc = nsrc };
    uint64_t done = now_ns;
    for (uint64_t lpn = first; lpn <= last && rc == FTL_OK; lpn++) {
        uint64_t page_start = lpn * spp;
        uint64_t from = source_sector(&c, (page_start > dest ? page_start : dest) - dest);
        rc = copy_page(ftl, &moves, (uint32_t)lpn, (uint32_t)(from / spp), now_ns, &done);
    }
    *done_ns = page_moves_price(ftl, &moves, done);    /* the pages placed, on a failure too */
    page_moves_free(&moves);
    return rc;
}

int ftl_copy(struct ftl *ftl, const struct ftl_range *src, uint32_t nsrc, uint64_t dest,
             bool zoned, uint64_t now_ns, uint64_t *done_ns)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < nsrc; i++) {
        if (__builtin_add_overflow(total, src[i].nlb, &total)) {
            return FTL_E_INVAL;
        }
    }
    if (total == 0) {
        return FTL_E_INVAL;
    }
    int rc = zoned ? copy_zoned(ftl, src, nsrc, dest, total, now_ns, done_ns)
                   : copy_conventional(ftl, src, nsrc, dest, total, now_ns, done_ns);
    if (rc == FTL_OK) {
        ftl->ctr.copy_cmds++;
    }
    return rc;
}
