/*
 * Invariant checker: recomputes everything the FTL keeps incrementally and compares.
 * Maps agree both ways; block and line valid/invalid counts match the reverse map; every
 * line is in exactly the structure its state names (a line of bad blocks only in none);
 * write pointers point into their open lines with only erased pages ahead of them; the
 * victim heap is a heap; pages of bad blocks are never programmed; the wear figures match
 * the erase counts; dftl's directory and CMT and the write buffer are consistent; the
 * zone state machine is, and the zones' flash record stays within their capacity on
 * blocks that hold no conventional page; SLC units (slc_cache) hold exactly their SLC
 * pages when closed, sit in the SLC FIFO in close order, and none of the oldest one's
 * pages before the fold cursor is valid; the hybrid mappings' tables hold together
 * (ftl_check_hybrid.c). The read cache's tables agree, and it holds only mapped pages
 * (every unmapping drops them).
 */
#include "femu_ftl/ftl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/error.h"
#include "flash/debt.h"
#include "flash/erase.h"
#include "flash/geometry.h"
#include "flash/p2l.h"
#include "flash/slc.h"
#include "core/ftl_check_hybrid.h"
#include "map/dftl.h"
#include "map/page_map.h"
#include "place/heat.h"
#include "place/write_count.h"
#include "rcache/read_cache.h"
#include "wbuf/write_buffer.h"
#include "zns/zns.h"

static int check_maps(const struct ftl *ftl, char *err, size_t errlen)
{
    const struct ftl_geometry *g = &ftl->geo;
    uint64_t mapped = 0, max_lpn = 0;
    for (uint64_t lpn = 0; lpn < g->logical_pages; lpn++) {
        uint32_t ppa = l2p_get(ftl, lpn);
        bool bit = ftl->mapped_bits[lpn / 64] >> (lpn % 64) & 1;
        uint32_t writes = wc_get(ftl, (uint32_t)lpn);
        if (writes) {
            max_lpn = lpn + 1;
        }
        if (ftl->write_count16[lpn] == WC_OVERFLOW) {
            const struct wc_slot *s = wc_overflow_find(ftl, (uint32_t)lpn);
            if (!s || s->count < WC_OVERFLOW) {
                return ftl_error(err, errlen, "LPN %llu: write count overflows 16 bits but "
                           "the overflow table %s", (unsigned long long)lpn,
                           s ? "holds a smaller count" : "has no entry");
            }
        }
        if (bit != (ppa != L2P_UNMAPPED)) {
            return ftl_error(err, errlen, "LPN %llu: mapped bit %d but L2P %s",
                       (unsigned long long)lpn, bit, ppa == L2P_UNMAPPED ? "unmapped" : "mapped");
        }
        if (ppa == L2P_UNMAPPED) {
            continue;
        }
        if (ppa >= g->phys_pages || p2l_get(ftl, ppa) != lpn) {
            return ftl_error(err, errlen, "L2P[%llu] = %u but the reverse map disagrees",
                       (unsigned long long)lpn, ppa);
        }
        if (writes == 0) {
            return ftl_error(err, errlen, "LPN %llu is mapped but was never written",
                       (unsigned long long)lpn);
        }
        mapped++;
    }
    uint64_t tpages = ftl->dftl ? dftl_written_tpages(ftl) : 0;
    if (mapped + tpages != ftl->valid_pages) {
        return ftl_error(err, errlen, "%llu LPNs and %llu translation pages mapped but "
                   "valid_pages is %llu", (unsigned long long)mapped,
                   (unsigned long long)tpages, (unsigned long long)ftl->valid_pages);
    }
    if (max_lpn != ftl->max_lpn_plus_one) {
        return ftl_error(err, errlen, "highest written LPN + 1 is %llu, recorded %llu",
                   (unsigned long long)max_lpn, (unsigned long long)ftl->max_lpn_plus_one);
    }
    uint32_t used = 0;
    for (uint32_t i = 0; i < ftl->wc_nslots; i++) {
        uint32_t key = ftl->wc_slots[i].lpn_plus1;
        if (key && (key > g->logical_pages ||
                    wc_overflow_find(ftl, key - 1) != &ftl->wc_slots[i])) {
            return ftl_error(err, errlen, "write-count overflow slot %u (LPN + 1 = %u) is wrong",
                             i, key);
        }
        used += key != 0;
    }
    if (used != ftl->wc_used || (uint64_t)used * 2 > ftl->wc_nslots) {
        return ftl_error(err, errlen, "write-count overflow table: %u of %u slots used, "
                         "count says %u", used, ftl->wc_nslots, ftl->wc_used);
    }
    return 0;
}

/* Hot/cold's classifier: aged counts never above the exact ones (they count the same
 * writes and are halved), the halving tick short of its period, and hot_pages what the
 * rule says of the counts. */
static int check_heat(const struct ftl *ftl, char *err, size_t errlen)
{
    uint64_t hot = 0;
    bool classifying = ftl->cfg.placement == FTL_PLACEMENT_HOTCOLD;
    for (uint64_t lpn = 0; classifying && lpn < ftl->geo.logical_pages; lpn++) {
        if (ftl->heat && ftl->heat[lpn] > wc_get(ftl, (uint32_t)lpn)) {
            return ftl_error(err, errlen, "LPN %llu: aged count %u above its %u host writes",
                             (unsigned long long)lpn, ftl->heat[lpn],
                             wc_get(ftl, (uint32_t)lpn));
        }
        hot += heat_is_hot(ftl, (uint32_t)lpn);
    }
    if (ftl->heat && ftl->heat_ticks >= ftl->cfg.hot_decay) {
        return ftl_error(err, errlen, "%llu host writes since the last halving, hot_decay %llu",
                         (unsigned long long)ftl->heat_ticks,
                         (unsigned long long)ftl->cfg.hot_decay);
    }
    if (hot != ftl->hot_pages) {
        return ftl_error(err, errlen, "%llu pages are hot by their counts, hot_pages says %llu",
                         (unsigned long long)hot, (unsigned long long)ftl->hot_pages);
    }
    return 0;
}

/* A page on a factory bad block is never programmed; the block's counts stay 0. */
static int check_bad_page(uint32_t id, uint32_t off, uint32_t lpn,
                          char *err, size_t errlen)
{
    if (lpn != P2L_FREE) {
        return ftl_error(err, errlen, "line %u: page %u lies on a bad block but is programmed",
                         id, off);
    }
    return 0;
}

/*
 * Counts of one line recomputed from the reverse map, block by block. *programmed gets
 * the good pages programmed, *first_free the first good page still erased
 * (pgs_per_line when none is).
 */
static int check_line_pages(const struct ftl *ftl, uint32_t id, uint32_t *programmed,
                            uint32_t *first_free_out, char *err, size_t errlen)
{
    const struct ftl_geometry *g = &ftl->geo;
    uint32_t luns = ftl->line_luns;     /* the blocks of the unit */
    uint32_t valid = 0, invalid = 0, first_free = ftl->pgs_per_line;
    uint32_t *blk_valid = calloc(luns, sizeof(uint32_t));
    uint32_t *blk_invalid = calloc(luns, sizeof(uint32_t));
    if (!blk_valid || !blk_invalid) {
        free(blk_valid);
        free(blk_invalid);
        return ftl_error(err, errlen, "out of memory in the checker");
    }
    int rc = 0;
    for (uint32_t off = 0; off < ftl->pgs_per_line && rc == 0; off++) {
        uint32_t ppa = id * ftl->pgs_per_line + off;
        uint32_t lpn = p2l_get(ftl, ppa);
        if (page_is_bad(ftl, id, off)) {
            rc = check_bad_page(id, off, lpn, err, errlen);
            continue;
        }
        if (lpn == P2L_FREE) {
            if (first_free == ftl->pgs_per_line) {
                first_free = off;
            }
            continue;
        }
        if (first_free != ftl->pgs_per_line) {
            rc = ftl_error(err, errlen, "line %u: page %u programmed after erased page %u",
                     id, off, first_free);
        } else if (lpn == P2L_INVALID) {
            invalid++;
            blk_invalid[off % luns]++;
        } else if (lpn >= g->logical_pages + g->translation_pages ||
                   (lpn < g->logical_pages && l2p_get(ftl, lpn) != ppa)) {
            rc = ftl_error(err, errlen, "P2L[%u] = %u but the map disagrees", ppa, lpn);
        } else {
            valid++;
            blk_valid[off % luns]++;
        }
    }
    const struct line *l = &ftl->lines[id];
    if (rc == 0 && (l->valid != valid || l->invalid != invalid)) {
        rc = ftl_error(err, errlen, "line %u: counts %u valid / %u invalid, pages say %u / %u",
                 id, l->valid, l->invalid, valid, invalid);
    }
    for (uint32_t k = 0; k < luns && rc == 0; k++) {
        const struct block *b = &ftl->blocks[unit_block_index(ftl, id, k)];
        if (b->valid != blk_valid[k] || b->invalid != blk_invalid[k]) {
            rc = ftl_error(err, errlen, "block (line %u, lun %u): counts %u / %u, pages say %u / %u",
                     id, unit_block_lun(ftl, id, k), b->valid, b->invalid, blk_valid[k],
                     blk_invalid[k]);
        }
    }
    free(blk_valid);
    free(blk_invalid);
    *programmed = valid + invalid;
    *first_free_out = first_free;
    return rc;
}

/* Bad blocks: as many as the configuration says on every LUN, never erased, and each
 * line's capacity is the pages of its good blocks. */
static int check_bad_blocks(const struct ftl *ftl, char *err, size_t errlen)
{
    const struct ftl_geometry *g = &ftl->geo;
    uint64_t bad = 0;
    for (uint32_t id = 0; id < ftl->nunits; id++) {
        uint32_t good = 0;
        for (uint32_t k = 0; k < ftl->line_luns; k++) {
            uint64_t index = unit_block_index(ftl, id, k);
            if (!block_index_is_bad(ftl, index)) {
                good++;
            } else if (ftl->blocks[index].erase_count) {
                return ftl_error(err, errlen, "bad block (unit %u, lun %u) was erased", id,
                                 unit_block_lun(ftl, id, k));
            }
        }
        bad += ftl->line_luns - good;
        if (ftl->lines[id].capacity != good * ftl->cfg.pgs_per_blk) {
            return ftl_error(err, errlen, "line %u: capacity %u, its %u good blocks hold %llu",
                             id, ftl->lines[id].capacity, good,
                             (unsigned long long)(good * ftl->cfg.pgs_per_blk));
        }
        if ((good == 0) != (ftl->lines[id].state == LINE_DEAD)) {
            return ftl_error(err, errlen, "line %u: %u good blocks, state %u", id, good,
                             ftl->lines[id].state);
        }
    }
    if (bad != g->bad_blocks_per_lun * ftl->luns || bad != g->blocks - ftl->good_blocks) {
        return ftl_error(err, errlen, "%llu bad blocks, expected %llu",
                         (unsigned long long)bad,
                         (unsigned long long)(g->bad_blocks_per_lun * ftl->luns));
    }
    return 0;
}

/* The wear figures kept incrementally agree with the blocks' erase counts. */
static int check_wear(const struct ftl *ftl, char *err, size_t errlen)
{
    struct wear_figures w;

    wear_scan(ftl, &w);
    if (w.min != ftl->erase_min || w.at_min != ftl->erase_min_blocks ||
        w.max != ftl->erase_max || w.sum != ftl->erase_sum) {
        return ftl_error(err, errlen, "wear: erase min %u (%llu blocks) / max %u / sum %llu, "
                         "blocks say %u (%llu) / %u / %llu", ftl->erase_min,
                         (unsigned long long)ftl->erase_min_blocks, ftl->erase_max,
                         (unsigned long long)ftl->erase_sum, w.min,
                         (unsigned long long)w.at_min, w.max, (unsigned long long)w.sum);
    }
    return 0;
}

/* The i-th unit of free pool p. */
static uint32_t pool_entry(const struct ftl *ftl, uint32_t p, uint32_t i)
{
    return ftl->free_queue[p * ftl->pool_cap + (ftl->pool_head[p] + i) % ftl->pool_cap];
}

static int check_free_pools(const struct ftl *ftl, uint8_t *seen, char *err, size_t errlen)
{
    uint32_t nlines = ftl->nunits;
    uint64_t total = 0, free_pages = 0;
    for (uint32_t p = 0; p < ftl->npools; p++) {
        for (uint32_t i = 0; i < ftl->pool_count[p]; i++) {
            uint32_t id = pool_entry(ftl, p, i);
            if (id >= nlines || seen[id]++ || ftl->lines[id].state != LINE_FREE ||
                unit_pool(ftl, id) != p) {
                return ftl_error(err, errlen, "free pool %u entry %u (line %u) is wrong", p,
                                 i, id);
            }
            free_pages += ftl->lines[id].capacity;
        }
        total += ftl->pool_count[p];
    }
    if (total != ftl->free_count) {
        return ftl_error(err, errlen, "free pools hold %llu lines, count says %u",
                         (unsigned long long)total, ftl->free_count);
    }
    if (free_pages != ftl->free_pages) {
        return ftl_error(err, errlen, "free lines hold %llu pages, count says %llu",
                         (unsigned long long)free_pages, (unsigned long long)ftl->free_pages);
    }
    return 0;
}

/* The SLC cache: its write pointer's open unit, and the FIFO of closed SLC units in close
 * order, whose oldest has no valid page before the fold cursor (folding moved them). */
static int check_slc_structures(const struct ftl *ftl, uint8_t *seen, char *err,
                                size_t errlen)
{
    uint32_t nlines = ftl->nunits, id = ftl->slc_wp.line;
    if (!ftl->cfg.slc_cache && (id != NO_LINE || ftl->slc_head != NO_LINE ||
                                ftl->slc_count)) {
        return ftl_error(err, errlen, "SLC units with slc_cache=off");
    }
    if (id != NO_LINE && (id >= nlines || seen[id]++ || ftl->lines[id].state != LINE_OPEN ||
                          !ftl->lines[id].slc || ftl->slc_wp.offset >= ftl->slc_end)) {
        return ftl_error(err, errlen, "the SLC write pointer (line %u, offset %u) is wrong",
                         id, ftl->slc_wp.offset);
    }
    uint32_t count = 0, prev = NO_LINE;
    uint64_t seq = 0;
    for (id = ftl->slc_head; id != NO_LINE; id = ftl->lines[id].next) {
        const struct line *l = id < nlines ? &ftl->lines[id] : NULL;
        if (!l || seen[id]++ || l->state != LINE_SLC || !l->slc || l->prev != prev ||
            l->close_seq <= seq || ++count > nlines) {
            return ftl_error(err, errlen, "SLC FIFO broken at line %u", id);
        }
        seq = l->close_seq;
        prev = id;
    }
    if (count != ftl->slc_count || prev != ftl->slc_tail) {
        return ftl_error(err, errlen, "SLC FIFO holds %u units, count says %u", count,
                         ftl->slc_count);
    }
    uint64_t valid = 0;
    for (id = 0; id < nlines; id++) {
        valid += ftl->lines[id].slc ? ftl->lines[id].valid : 0;
    }
    if (valid != ftl->slc_valid_pages) {
        return ftl_error(err, errlen, "SLC units hold %llu valid pages, the gauge says %llu",
                         (unsigned long long)valid, (unsigned long long)ftl->slc_valid_pages);
    }
    if (ftl->slc_fold_off > ftl->slc_end || (ftl->slc_head == NO_LINE && ftl->slc_fold_off)) {
        return ftl_error(err, errlen, "SLC fold cursor %u is wrong", ftl->slc_fold_off);
    }
    for (uint32_t off = 0; off < ftl->slc_fold_off; off++) {
        if (p2l_get(ftl, (uint64_t)ftl->slc_head * ftl->pgs_per_line + off) < P2L_INVALID) {
            return ftl_error(err, errlen, "SLC unit %u: page %u is valid behind the fold "
                             "cursor %u", ftl->slc_head, off, ftl->slc_fold_off);
        }
    }
    return 0;
}

static int check_structures(const struct ftl *ftl, uint8_t *seen, char *err, size_t errlen)
{
    uint32_t nlines = ftl->nunits;
    if (check_free_pools(ftl, seen, err, errlen)) {
        return -1;
    }
    uint32_t count = 0, prev = NO_LINE;
    for (uint32_t id = ftl->full_head; id != NO_LINE; id = ftl->lines[id].next) {
        if (id >= nlines || seen[id]++ || ftl->lines[id].state != LINE_FULL ||
            ftl->lines[id].prev != prev || ++count > nlines) {
            return ftl_error(err, errlen, "full list broken at line %u", id);
        }
        if (ftl->lines[id].invalid != 0 || ftl->lines[id].valid != ftl->lines[id].capacity) {
            return ftl_error(err, errlen, "full line %u is not wholly valid", id);
        }
        prev = id;
    }
    if (count != ftl->full_count || prev != ftl->full_tail) {
        return ftl_error(err, errlen, "full list holds %u lines, count says %u", count,
                   ftl->full_count);
    }
    uint32_t victims = 0;
    for (uint32_t p = 0; p < ftl->npools; p++) {
        const uint32_t *heap = ftl->victim_heap + (size_t)p * ftl->pool_cap;
        for (uint32_t pos = 0; pos < ftl->heap_count[p]; pos++) {
            uint32_t id = heap[pos];
            if (id >= nlines || seen[id]++ || ftl->lines[id].state != LINE_VICTIM ||
                ftl->lines[id].heap_pos != pos || ftl->lines[id].invalid == 0 ||
                unit_pool(ftl, id) != p) {
                return ftl_error(err, errlen, "victim heap %u entry %u (line %u) is wrong", p,
                                 pos, id);
            }
            uint32_t parent = pos ? heap[(pos - 1) / 2] : id;
            if (ftl->lines[parent].valid > ftl->lines[id].valid) {
                return ftl_error(err, errlen, "victim heap %u order broken at entry %u", p, pos);
            }
        }
        victims += ftl->heap_count[p];
    }
    if (victims != ftl->victim_count) {
        return ftl_error(err, errlen, "victim heaps hold %u lines, count says %u", victims,
                         ftl->victim_count);
    }
    uint32_t by_wp[MAP_WP + 1] = { 0 };
    for (uint32_t p = 0; p < ftl->npools; p++) {
        for (uint32_t pos = 0; pos < ftl->heap_count[p]; pos++) {
            by_wp[ftl->lines[ftl->victim_heap[(size_t)p * ftl->pool_cap + pos]].wp]++;
        }
    }
    if (memcmp(by_wp, ftl->victims_by_wp, sizeof(by_wp)) != 0) {
        return ftl_error(err, errlen, "victim counts by write pointer are wrong");
    }
    for (uint32_t w = 0; w <= MAP_WP; w++) {
        uint32_t id = ftl->wps[w].line;
        if (id == NO_LINE) {
            continue;
        }
        if ((w >= ftl->nwps && !(w == MAP_WP && ftl->dftl)) || id >= nlines || seen[id]++ ||
            ftl->lines[id].state != LINE_OPEN || ftl->wps[w].offset >= ftl->pgs_per_line) {
            return ftl_error(err, errlen, "write pointer %u (line %u) is wrong", w, id);
        }
    }
    for (uint32_t k = 0; k < ftl->gc_debt_count; k++) {
        const struct gc_debt_op *op = &ftl->gc_debt[(ftl->gc_debt_head + k) %
                                                    debt_capacity(ftl)];
        if (op->dst == GC_DEBT_ERASE && (op->unit >= nlines || !ftl->lines[op->unit].erase_owed ||
                                         ftl->lines[op->unit].state != LINE_FREE)) {
            return ftl_error(err, errlen, "an owed erase of unit %u, not a free unit marked "
                             "owed", op->unit);
        }
    }
    if (check_slc_structures(ftl, seen, err, errlen)) {
        return -1;
    }
    for (uint32_t id = 0; id < nlines && ftl->hybrid; id++) {
        seen[id] += ftl->lines[id].state == LINE_MAPPED;    /* the hybrid map's */
    }
    uint32_t gc = ftl->gc_line;
    if (gc != NO_LINE && (gc >= nlines || seen[gc]++ || ftl->lines[gc].state != LINE_GC)) {
        return ftl_error(err, errlen, "the line under paced GC (%u) is wrong", gc);
    }
    for (uint32_t id = 0; id < nlines; id++) {
        if (seen[id] != (ftl->lines[id].state != LINE_DEAD)) {
            return ftl_error(err, errlen, "line %u (state %u) is in %u structures", id,
                       ftl->lines[id].state, seen[id]);
        }
    }
    return 0;
}

/* A line holds the pages its state says: none when free, up to the write pointer when
 * open, every good page when closed or under collection. */
static int check_line(const struct ftl *ftl, uint32_t id, char *err, size_t errlen)
{
    uint32_t programmed = 0, first_free = 0;
    if (check_line_pages(ftl, id, &programmed, &first_free, err, errlen)) {
        return -1;
    }
    const struct line *l = &ftl->lines[id];
    uint8_t state = l->state;
    bool slc_open = state == LINE_OPEN && id == ftl->slc_wp.line;
    if (l->slc != (state == LINE_SLC || slc_open)) {
        return ftl_error(err, errlen, "line %u (state %u): SLC mode %d", id, state, l->slc);
    }
    if (slc_open) {
        if (first_free != ftl->slc_wp.offset) {
            return ftl_error(err, errlen, "open SLC line %u: first erased good page %u, "
                             "write pointer at %u", id, first_free, ftl->slc_wp.offset);
        }
        return 0;
    }
    if (state == LINE_OPEN) {
        if (l->wp >= ftl->nwps && !(l->wp == MAP_WP && ftl->dftl)) {
            return ftl_error(err, errlen, "open line %u names write pointer %u", id, l->wp);
        }
        if (ftl->wps[l->wp].line != id) {
            return ftl_error(err, errlen, "open line %u is not its write pointer's line", id);
        }
        if (first_free != ftl->wps[l->wp].offset) {
            return ftl_error(err, errlen, "open line %u: first erased good page %u, write "
                             "pointer at %u", id, first_free, ftl->wps[l->wp].offset);
        }
        return 0;
    }
    if (state == LINE_MAPPED) {
        /* programmed up to the hybrid map's next offset: its own check's */
        return ftl->hybrid ? 0 : ftl_error(err, errlen, "line %u is a hybrid map's without "
                                           "one", id);
    }
    bool closed = state == LINE_FULL || state == LINE_VICTIM || state == LINE_SLC;
    if (closed && (l->close_seq == 0 || l->close_seq > ftl->close_seq_next)) {
        /* fifo GC orders victims by it: every closed line has one, given by line_close */
        return ftl_error(err, errlen, "closed line %u: close order %llu, last given %llu", id,
                         (unsigned long long)l->close_seq,
                         (unsigned long long)ftl->close_seq_next);
    }
    /* a closed SLC unit: every SLC page of its good blocks (the first ones) */
    uint32_t expected = state == LINE_FREE || state == LINE_DEAD ? 0 :
                        state == LINE_SLC ? slc_unit_capacity(ftl, id) : l->capacity;
    if (programmed != expected) {
        return ftl_error(err, errlen, "line %u (state %u): %u pages programmed, expected %u",
                   id, state, programmed, expected);
    }
    return 0;
}

struct cached_unmapped {
    const struct ftl *ftl;
    uint64_t found;     /* an unmapped LPN + 1, 0: none */
};

static void note_unmapped(void *ctx, uint32_t lpn)
{
    struct cached_unmapped *u = ctx;
    if (!u->found && l2p_get(u->ftl, lpn) == L2P_UNMAPPED) {
        u->found = (uint64_t)lpn + 1;
    }
}

static int check_read_cache(const struct ftl *ftl, char *err, size_t errlen)
{
    if (rcache_check(ftl->rcache, err, errlen)) {
        return -1;
    }
    struct cached_unmapped u = { ftl, 0 };
    rcache_for_each(ftl->rcache, note_unmapped, &u);
    return u.found ? ftl_error(err, errlen, "the read cache holds LPN %llu, which is not "
                               "mapped", (unsigned long long)(u.found - 1)) : 0;
}

int ftl_check(const struct ftl *ftl, char *err, size_t errlen)
{
    if (check_maps(ftl, err, errlen) || check_heat(ftl, err, errlen) ||
        check_bad_blocks(ftl, err, errlen) || check_wear(ftl, err, errlen) || (ftl->dftl && dftl_check(ftl, err, errlen)) ||
        (ftl->wbuf && wbuf_check(ftl, err, errlen)) ||
        (ftl->rcache && check_read_cache(ftl, err, errlen)) ||
        (ftl->zns && zns_check(ftl, err, errlen)) ||
        (ftl->hybrid && ftl_check_hybrid(ftl, err, errlen)) ||
        (ftl->kv_check && ftl->kv_check(ftl, err, errlen))) {   /* kv/ is above core */
        return -1;
    }
    /* switching the cache off drained it, and nothing buffers while it is off */
    if (ftl->write_cache_off && (!ftl->wbuf || wbuf_sectors(ftl))) {
        return ftl_error(err, errlen, "the write cache is off but %s",
                         ftl->wbuf ? "the buffer holds sectors" : "there is no buffer");
    }
    if (ftl->inflight_count > ftl->inflight_cap) {
        return ftl_error(err, errlen, "%u host programs in flight in a ring of %u",
                         ftl->inflight_count, ftl->inflight_cap);
    }
    uint32_t nlines = ftl->nunits;
    for (uint32_t id = 0; id < nlines; id++) {
        if (check_line(ftl, id, err, errlen)) {
            return -1;
        }
    }
    uint8_t *seen = calloc(nlines, 1);
    if (!seen) {
        return ftl_error(err, errlen, "out of memory in the checker");
    }
    int rc = check_structures(ftl, seen, err, errlen);
    free(seen);
    return rc;
}
