/*
 * Greedy garbage collection over lines, with FEMU's semantics: the victim is the closed
 * line with the fewest valid pages; its valid pages are read and re-written through the
 * write pointers (classified like host writes), its blocks erased, and the line returns
 * to the free queue. Foreground GC (before a host page write, free lines <= the high
 * threshold) takes any victim; background GC (free lines <= the low threshold) only one
 * with at least 1/8 of its pages invalid.
 */
#include "ftl_internal.h"

static void line_erase(struct ftl *ftl, uint32_t id, uint64_t now_ns)
{
    uint32_t luns = ftl->luns;
    for (uint32_t lun = 0; lun < luns; lun++) {
        struct block *blk = &ftl->blocks[(uint64_t)id * luns + lun];
        nand_erase(ftl, lun, now_ns);
        blk->valid = 0;
        blk->invalid = 0;
        blk->erase_count++;
    }
    uint64_t base = (uint64_t)id * ftl->pgs_per_line;
    for (uint32_t off = 0; off < ftl->pgs_per_line; off++) {
        ftl->p2l[base + off] = P2L_FREE;
    }
    ftl->lines[id].valid = 0;
    ftl->lines[id].invalid = 0;
    ftl->ctr.nand_erases += luns;
    ftl->ctr.gc_erased_blocks += luns;
    free_queue_push(ftl, id);
}

int gc_collect_line(struct ftl *ftl, uint32_t victim, uint64_t now_ns)
{
    victim_remove(ftl, victim);
    ftl->lines[victim].state = LINE_GC;
    uint32_t base = victim * ftl->pgs_per_line;

    for (uint32_t off = 0; off < ftl->pgs_per_line; off++) {
        uint32_t old = base + off;
        uint32_t lpn = ftl->p2l[old];
        if (lpn >= P2L_INVALID) {
            continue;
        }
        uint64_t read_done = nand_read(ftl, ppa_lun(ftl, old), now_ns);
        ftl->ctr.nand_gc_reads++;
        uint32_t wp = placement_for_gc(ftl, lpn, victim);
        uint32_t new_ppa;
        if (!wp_place(ftl, wp, true, lpn, &new_ppa)) {
            /* Only reachable on an inconsistent geometry: file the line back, report. */
            line_close(ftl, victim);
            return FTL_E_NOSPC;
        }
        map_invalidate(ftl, old);
        nand_program(ftl, ppa_lun(ftl, new_ppa), read_done);
        ftl->ctr.nand_gc_programs++;
        ftl->ctr.gc_moved_pages++;
        ftl->ctr.wp_gc_pages[ftl->lines[ppa_line(ftl, new_ppa)].wp]++;
    }
    line_erase(ftl, victim, now_ns);
    ftl->ctr.gc_runs++;
    return FTL_OK;
}

int gc_foreground(struct ftl *ftl, uint64_t now_ns)
{
    /* Each round gains at least one free page, so the loop ends; the bound only guards
     * against a broken invariant turning into a hang. */
    uint64_t rounds = 0;
    while (ftl->free_count <= ftl->geo.gc_thres_lines_high) {
        uint32_t victim = victim_peek(ftl);
        if (victim == NO_LINE || ++rounds > ftl->geo.phys_pages) {
            return FTL_E_NOSPC;
        }
        int rc = gc_collect_line(ftl, victim, now_ns);
        if (rc != FTL_OK) {
            return rc;
        }
    }
    return FTL_OK;
}

int ftl_background_gc(struct ftl *ftl, uint64_t now_ns)
{
    if (ftl->free_count > ftl->geo.gc_thres_lines) {
        return 0;
    }
    uint32_t victim = victim_peek(ftl);
    if (victim == NO_LINE || ftl->lines[victim].invalid < ftl->pgs_per_line / 8) {
        return 0;
    }
    int rc = gc_collect_line(ftl, victim, now_ns);
    return rc == FTL_OK ? 1 : rc;
}
