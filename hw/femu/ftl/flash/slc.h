/*
 * Units used in SLC mode (slc_cache=on): one bit per cell, so a unit holds only the first
 * slc_pgs_per_blk = pgs_per_blk / cell_bits pages of each of its blocks (page offsets
 * below slc_end in FEMU's striping), and its pages program, read and erase at the slc_*
 * latencies. The cache's policy (when a host page goes there, folding) is gc/slc_fold.c.
 */
#ifndef FEMU_FTL_FLASH_SLC_H
#define FEMU_FTL_FLASH_SLC_H

#include "flash/geometry.h"

/* Pages of unit `unit`'s good blocks in SLC mode. */
static inline uint32_t slc_unit_capacity(const struct ftl *ftl, uint32_t unit)
{
    return (uint32_t)(ftl->lines[unit].capacity / ftl->cfg.pgs_per_blk *
                      ftl->geo.slc_pgs_per_blk);
}

/* The read latency of the page at ppa: its unit's mode decides. */
static inline uint64_t page_read_lat(const struct ftl *ftl, uint32_t ppa)
{
    /* slc_end is 0 with slc_cache=off: the hot read path skips the line lookup */
    return ftl->slc_end && ftl->lines[ppa_line(ftl, ppa)].slc ? ftl->cfg.slc_pg_rd_lat
                                                             : ftl->cfg.pg_rd_lat;
}

/* The erase latency of unit `unit`'s blocks. */
static inline uint64_t unit_erase_lat(const struct ftl *ftl, uint32_t unit)
{
    return ftl->lines[unit].slc ? ftl->cfg.slc_blk_er_lat : ftl->cfg.blk_er_lat;
}

#endif
