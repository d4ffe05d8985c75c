/*
 * Erasing lines, and the wear it leaves: per-block erase counts plus the minimum,
 * maximum and sum over good blocks, kept as blocks are erased so SMART and the OCP log
 * can ask for them on every read of the log without a scan.
 */
#include "flash/erase.h"

#include "base/max_u64.h"
#include "flash/geometry.h"
#include "flash/line_lists.h"
#include "flash/p2l.h"
#include "flash/slc.h"
#include "flash/timing.h"

void wear_scan(const struct ftl *ftl, struct wear_figures *out)
{
    *out = (struct wear_figures){ .min = UINT32_MAX };
    for (uint64_t i = 0; i < ftl->geo.blocks; i++) {
        uint32_t c = ftl->blocks[i].erase_count;
        if (block_index_is_bad(ftl, i)) {
            continue;
        }
        if (c < out->min) {
            out->min = c;
            out->at_min = 0;
        }
        out->at_min += c == out->min;
        out->max = c > out->max ? c : out->max;
        out->sum += c;
    }
    if (!out->at_min) {
        out->min = 0;           /* no good block at all */
    }
}

/* Find the lowest erase count again, and how many blocks hold it. O(blocks), but only
 * when the last block at the old minimum was erased: the minimum then rose by at least
 * one, so this runs at most (erases / good blocks) times. */
static void wear_rescan_min(struct ftl *ftl)
{
    struct wear_figures w;

    wear_scan(ftl, &w);
    ftl->erase_min = w.min;
    ftl->erase_min_blocks = w.at_min;
}

void wear_init(struct ftl *ftl)
{
    ftl->erase_min = ftl->erase_max = 0;
    ftl->erase_sum = 0;
    ftl->erase_min_blocks = ftl->good_blocks;
}

/* A good block's erase count went from before to before + 1. */
static void wear_block_erased(struct ftl *ftl, uint32_t before)
{
    uint32_t after = before + 1;

    ftl->erase_sum++;
    if (after > ftl->erase_max) {
        ftl->erase_max = after;
    }
    if (before == ftl->erase_min && --ftl->erase_min_blocks == 0) {
        wear_rescan_min(ftl);
    }
}

void block_erased(struct ftl *ftl, uint64_t index)
{
    struct block *blk = &ftl->blocks[index];
    uint32_t before = blk->erase_count;
    if (before < UINT32_MAX) {
        blk->erase_count = before + 1;
        wear_block_erased(ftl, before);     /* after the count moved: it may rescan */
    }
}

/* Block k of unit id is erased (a good one: true, its LUN in *lun). */
static bool unit_block_erased(struct ftl *ftl, uint32_t id, uint32_t k, uint32_t *lun)
{
    uint64_t index = unit_block_index(ftl, id, k);
    struct block *blk = &ftl->blocks[index];

    if (block_index_is_bad(ftl, index)) {
        return false;   /* never programmed, never erased */
    }
    *lun = unit_block_lun(ftl, id, k);
    blk->valid = 0;
    blk->invalid = 0;
    block_erased(ftl, index);
    ftl->ctr.nand_erases++;
    return true;
}

/* Every page of unit id is erased: it goes back to the free queue. */
static void unit_erased(struct ftl *ftl, uint32_t id)
{
    uint64_t base = (uint64_t)id * ftl->pgs_per_line;
    for (uint32_t off = 0; off < ftl->pgs_per_line; off++) {
        p2l_set(ftl, base + off, P2L_FREE);
    }
    ftl->lines[id].valid = 0;
    ftl->lines[id].invalid = 0;
    free_queue_push(ftl, id);
}

uint32_t line_erase_untimed(struct ftl *ftl, uint32_t id, uint32_t *luns)
{
    uint32_t erased = 0;

    for (uint32_t k = 0; k < ftl->line_luns; k++) {
        erased += unit_block_erased(ftl, id, k, &luns[erased]);
    }
    unit_erased(ftl, id);
    return erased;
}

uint64_t line_erase(struct ftl *ftl, uint32_t id, uint64_t now_ns, uint32_t *blocks)
{
    uint64_t done = now_ns;
    uint32_t erased = 0, lun;

    for (uint32_t k = 0; k < ftl->line_luns; k++) {
        if (unit_block_erased(ftl, id, k, &lun)) {
            done = max_u64(done, nand_erase_lat(ftl, lun, now_ns, unit_erase_lat(ftl, id)));
            erased++;
        }
    }
    unit_erased(ftl, id);
    *blocks = erased;
    return done;
}

uint32_t ftl_block_erase_count(const struct ftl *ftl, uint64_t line, uint32_t lun)
{
    if (line >= ftl->geo.blks_per_lun || lun >= ftl->luns) {
        return 0;       /* zone blocks are the rows from geo.lines on */
    }
    return ftl->blocks[line * ftl->luns + lun].erase_count;
}

bool ftl_block_is_bad(const struct ftl *ftl, uint64_t line, uint32_t lun)
{
    return line < ftl->geo.blks_per_lun && lun < ftl->luns &&
           block_index_is_bad(ftl, line * ftl->luns + lun);
}
