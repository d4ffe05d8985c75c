/*
 * Where a zone's pages live and their programs: the flash placement of zoned pages
 * (zns.c's header has the layout) and programming a run of them, shared by the zone
 * writes (zns.c) and the ZRWA commits (zns_zrwa.c) below both.
 */
#include "zns/zns.h"

#include "base/max_u64.h"
#include "flash/timing.h"
#include "zns/zns_tables.h"

/* Where zone page p lives: its LUN and its block (index row * luns + lun). */
void zns_page_place(const struct ftl *ftl, uint64_t zone, uint64_t page, uint32_t *lun,
                    uint64_t *block)
{
    const struct ftl_geometry *g = &ftl->geo;
    uint64_t group = zone % g->zone_groups;
    uint64_t row = g->lines + zone / g->zone_groups * g->zone_blocks_per_lun +
                   page / g->zone_luns / ftl->cfg.pgs_per_blk;
    *lun = (uint32_t)(group * g->zone_luns + page % g->zone_luns);
    if (block) {
        *block = row * ftl->luns + *lun;
    }
}

uint64_t zns_program_pages(struct ftl *ftl, uint64_t zone, uint64_t first, uint64_t end,
                           uint64_t now_ns)
{
    uint64_t done = now_ns;
    for (uint64_t p = first; p < end; p++) {
        uint32_t lun;
        zns_page_place(ftl, zone, p, &lun, NULL);
        done = max_u64(done, nand_program(ftl, lun, now_ns));
    }
    ftl->ctr.zone_programs += end - first;
    return done;
}
