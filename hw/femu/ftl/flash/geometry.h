/*
 * Where a physical page is. Physical page addresses (ppa) are flat 32-bit indices laid out
 * in write-pointer order:
 *
 *     ppa = line * pgs_per_line + offset,   offset = page * luns + lun,   lun = l * nchs + ch
 *
 * so FEMU's striping (channel first, then LUN, then page) is just offset + 1, and the block
 * holding a page is (line, lun). A line's block on every LUN is block index `line` there
 * (plane line / blks_per_pl, block line % blks_per_pl).
 *
 * With gc_unit=block the unit GC and allocation work on is one block, and the layout is
 *
 *     ppa = unit * pgs_per_blk + page,   unit = line * luns + lun
 *
 * so a unit is the block (line, lun) with the same index as in line mode, its pages are
 * consecutive, and the "lines" (struct line, the lists) are blocks.
 */
#ifndef FEMU_FTL_FLASH_GEOMETRY_H
#define FEMU_FTL_FLASH_GEOMETRY_H

#include "flash/ftl_handle.h"

static inline bool block_index_is_bad(const struct ftl *ftl, uint64_t index)
{
    return ftl->bad_bits[index / 64] >> (index % 64) & 1;
}

static inline uint32_t ppa_line(const struct ftl *ftl, uint32_t ppa)
{
    return ftl->line_shift ? ppa >> ftl->line_shift : ppa / ftl->pgs_per_line;
}

/* luns divides pgs_per_line, so the LUN is the page address modulo luns; with
 * gc_unit=block it is the unit modulo luns. */
static inline uint32_t ppa_lun(const struct ftl *ftl, uint32_t ppa)
{
    uint32_t x = ftl->block_mode ? ppa_line(ftl, ppa) : ppa;
    return ftl->lun_mask ? x & ftl->lun_mask : x % ftl->luns;
}

/* The index (line * luns + lun) of block k < line_luns of unit `unit`. */
static inline uint64_t unit_block_index(const struct ftl *ftl, uint32_t unit, uint32_t k)
{
    return ftl->block_mode ? unit : (uint64_t)unit * ftl->luns + k;
}

/* The LUN of block k of a unit. */
static inline uint32_t unit_block_lun(const struct ftl *ftl, uint32_t unit, uint32_t k)
{
    return ftl->block_mode ? unit % ftl->luns : k;
}

static inline struct block *ppa_block(struct ftl *ftl, uint32_t ppa)
{
    uint32_t unit = ppa_line(ftl, ppa);
    return &ftl->blocks[unit_block_index(ftl, unit, ppa_lun(ftl, ppa))];
}

/* The free pool a unit returns to: its LUN's with gc_unit=block, else the one. */
static inline uint32_t unit_pool(const struct ftl *ftl, uint32_t unit)
{
    return ftl->block_mode ? unit % ftl->luns : 0;
}

/* Whether page offset `off` of line `line` lies on a factory bad block. */
static inline bool page_is_bad(const struct ftl *ftl, uint32_t line, uint32_t off)
{
    return block_index_is_bad(ftl, unit_block_index(ftl, line, off % ftl->line_luns));
}

/* The first page offset at or after off on a good block of line (pgs_per_line if none).
 * A line without bad blocks answers at once, so the hot paths pay one compare. */
static inline uint32_t line_next_good(const struct ftl *ftl, uint32_t line, uint32_t off)
{
    if (ftl->lines[line].capacity == ftl->pgs_per_line) {
        return off;
    }
    while (off < ftl->pgs_per_line && page_is_bad(ftl, line, off)) {
        off++;
    }
    return off;
}

#endif
