/*
 * Block-level mappings (map/hybrid.h): their tables, and the steps every scheme is made
 * of (map/hybrid_ops.h): blocks taken from and given back to the free queue, programs in
 * offset order, page copies, full and log-to-data merges and their counters. The write
 * paths that use them are hybrid_write.c (block mapping), hybrid_bast.c and
 * hybrid_fast.c.
 *
 * Merges run in the foreground, as the papers model them: the write that needs one waits
 * for its flash work (each copy a read on its LUN and a program on the new block's LUN,
 * once read; each erase on its LUN); gc_mode does not apply, and page GC never runs.
 */
#include "map/hybrid.h"

#include <stddef.h>
#include <stdlib.h>

#include "femu_ftl/error.h"
#include "base/max_u64.h"
#include "flash/erase.h"
#include "flash/geometry.h"
#include "flash/line_lists.h"
#include "flash/p2l.h"
#include "flash/read_retry.h"
#include "flash/timing.h"
#include "map/hybrid_ops.h"
#include "map/hybrid_tables.h"
#include "map/page_map.h"

int hybrid_init(struct ftl *ftl)
{
    struct hybrid *h = calloc(1, sizeof(*h));
    if (!h) {
        return FTL_E_NOMEM;
    }
    ftl->hybrid = h;
    h->scheme = (uint8_t)ftl->cfg.mapping;
    h->ppb = ftl->pgs_per_line;
    h->nlbn = (uint32_t)((ftl->geo.logical_pages + h->ppb - 1) / h->ppb);
    h->nunits = ftl->nunits;
    h->log_blocks = h->scheme == FTL_MAPPING_BLOCK ? 0 : (uint32_t)ftl->cfg.log_blocks;
    h->sw = NO_LINE;
    h->data = malloc((size_t)h->nlbn * sizeof(uint32_t));
    h->units = calloc(h->nunits, sizeof(struct hybrid_unit));
    if (h->scheme == FTL_MAPPING_BAST) {
        h->log = malloc((size_t)h->nlbn * sizeof(uint32_t));
    }
    if (h->scheme == FTL_MAPPING_FAST) {
        h->rw_cap = h->log_blocks - 1;
        h->rw = calloc(h->rw_cap, sizeof(uint32_t));
    }
    if (!h->data || !h->units || (h->scheme == FTL_MAPPING_BAST && !h->log) ||
        (h->scheme == FTL_MAPPING_FAST && !h->rw)) {
        return FTL_E_NOMEM;     /* ftl_destroy frees the rest */
    }
    for (uint32_t i = 0; i < h->nlbn; i++) {
        h->data[i] = NO_LINE;
        if (h->log) {
            h->log[i] = NO_LINE;
        }
    }
    for (uint32_t u = 0; u < h->nunits; u++) {
        h->units[u].owner = NO_LBN;
    }
    lru_init(&h->log_lru, h->units, sizeof(struct hybrid_unit),
             offsetof(struct hybrid_unit, link));
    return FTL_OK;
}

void hybrid_free(struct ftl *ftl)
{
    struct hybrid *h = ftl->hybrid;
    if (h) {
        free(h->data);
        free(h->units);
        free(h->log);
        free(h->rw);
        free(h);
        ftl->hybrid = NULL;
    }
}

uint32_t hyb_alloc(struct ftl *ftl, uint8_t role, uint32_t owner)
{
    struct hybrid *h = ftl->hybrid;
    uint32_t unit = free_queue_pop(ftl, h->next_pool);
    if (unit == NO_LINE) {
        return NO_LINE;
    }
    uint32_t next_pool = unit_pool(ftl, unit) + 1;
    h->next_pool = next_pool == ftl->npools ? 0 : next_pool;
    ftl->lines[unit].state = LINE_MAPPED;
    ftl->lines[unit].wp = 0;
    h->units[unit] = (struct hybrid_unit){ .owner = owner, .next = 0, .role = role,
                                           .in_order = true };
    return unit;
}

uint32_t hyb_program(struct ftl *ftl, uint32_t unit, uint32_t off, uint32_t lpn,
                     uint64_t now_ns)
{
    struct hybrid_unit *u = &ftl->hybrid->units[unit];
    uint32_t base = unit * ftl->pgs_per_line;
    for (uint32_t k = u->next; k < off; k++) {
        /* skipped: never programmed, so never valid again until the erase */
        p2l_set(ftl, base + k, P2L_INVALID);
        ppa_block(ftl, base + k)->invalid++;
        ftl->lines[unit].invalid++;
    }
    uint32_t ppa = base + off;
    retry_note_program(ftl, ppa, now_ns);
    map_bind(ftl, lpn, ppa);
    u->next = off + 1;
    return ppa;
}

uint64_t hyb_copy(struct ftl *ftl, uint32_t lpn, uint32_t unit, uint32_t off, uint64_t start_ns)
{
    uint32_t src = l2p_get(ftl, lpn);
    uint64_t read = nand_read(ftl, ppa_lun(ftl, src), start_ns);
    uint64_t programmed = nand_program(ftl, unit % ftl->luns, read);
    map_invalidate(ftl, src);
    hyb_program(ftl, unit, off, lpn, start_ns);
    ftl->ctr.gc_moved_pages++;
    ftl->ctr.nand_gc_reads++;
    ftl->ctr.nand_gc_programs++;
    ftl->ctr.merge_copied_pages++;
    ftl->ctr.wp_gc_pages[0]++;      /* the one write pointer's media pages hold them too */
    return programmed;
}

uint64_t hyb_erase_unit(struct ftl *ftl, uint32_t unit, uint64_t start_ns, uint32_t *blocks)
{
    ftl->hybrid->units[unit] = (struct hybrid_unit){ .owner = NO_LBN };
    return line_erase(ftl, unit, start_ns, blocks);
}

uint64_t hyb_erase(struct ftl *ftl, uint32_t unit, uint64_t start_ns)
{
    uint32_t blocks;
    uint64_t done = hyb_erase_unit(ftl, unit, start_ns, &blocks);
    ftl->ctr.gc_erased_blocks += blocks;
    ftl->ctr.merge_erased_blocks += blocks;
    return done;
}

bool hyb_data_takes(const struct ftl *ftl, uint32_t lbn, uint32_t off)
{
    const struct hybrid *h = ftl->hybrid;
    uint32_t d = h->data[lbn];
    return d == NO_LINE || h->units[d].next <= off;
}

bool hyb_data_write(struct ftl *ftl, uint32_t lpn, uint64_t now_ns, uint32_t *ppa)
{
    struct hybrid *h = ftl->hybrid;
    uint32_t lbn = lpn / h->ppb;
    if (h->data[lbn] == NO_LINE) {
        uint32_t d = hyb_alloc(ftl, HYBRID_DATA, lbn);
        if (d == NO_LINE) {
            return false;
        }
        h->data[lbn] = d;
    }
    *ppa = hyb_program(ftl, h->data[lbn], lpn % h->ppb, lpn, now_ns);
    return true;
}

/* Whether lbn has a valid page, or the page being inserted. */
static bool lbn_has_pages(const struct ftl *ftl, uint32_t lbn, uint32_t ins)
{
    uint32_t ppb = ftl->hybrid->ppb;
    for (uint64_t lpn = (uint64_t)lbn * ppb;
         lpn < (uint64_t)(lbn + 1) * ppb && lpn < ftl->geo.logical_pages; lpn++) {
        if (lpn == ins || l2p_get(ftl, lpn) != L2P_UNMAPPED) {
            return true;
        }
    }
    return false;
}

uint64_t hyb_full_merge(struct ftl *ftl, uint32_t lbn, uint32_t ins, uint64_t start_ns,
                        uint32_t *ppa)
{
    struct hybrid *h = ftl->hybrid;
    uint64_t done = start_ns;
    uint32_t old = h->data[lbn], fresh = NO_LINE;

    /* a valid geometry keeps a spare block for this (config_check_hybrid_room) */
    if (lbn_has_pages(ftl, lbn, ins)) {
        fresh = hyb_alloc(ftl, HYBRID_DATA, lbn);
        if (fresh == NO_LINE) {
            return start_ns;    /* nothing changed; block_place reports it */
        }
    }
    for (uint32_t o = 0; fresh != NO_LINE && o < h->ppb; o++) {
        uint64_t lpn = (uint64_t)lbn * h->ppb + o;
        if (lpn >= ftl->geo.logical_pages) {
            break;
        }
        if (lpn == ins) {
            *ppa = hyb_program(ftl, fresh, o, ins, start_ns);
        } else if (l2p_get(ftl, lpn) != L2P_UNMAPPED) {
            done = max_u64(done, hyb_copy(ftl, (uint32_t)lpn, fresh, o, start_ns));
        }
    }
    h->data[lbn] = fresh;
    if (old != NO_LINE) {
        done = max_u64(done, hyb_erase(ftl, old, start_ns));
    }
    hyb_count_merge(ftl, HYB_MERGE_FULL);
    return done;
}

bool hyb_log_becomes_data(struct ftl *ftl, uint32_t lbn, uint32_t log, uint64_t start_ns,
                          uint64_t *done)
{
    struct hybrid *h = ftl->hybrid;
    uint32_t k = h->units[log].next, old = h->data[lbn];
    uint64_t first = (uint64_t)lbn * h->ppb;
    uint32_t end = (uint32_t)(ftl->geo.logical_pages - first < h->ppb ?
                              ftl->geo.logical_pages - first : h->ppb);

    if (!h->units[log].in_order) {
        return false;
    }
    for (uint32_t o = 0; o < k && o < end && old != NO_LINE; o++) {
        uint32_t ppa = l2p_get(ftl, first + o);
        if (ppa != L2P_UNMAPPED && ppa_line(ftl, ppa) == old) {
            return false;
        }
    }
    uint64_t t = start_ns;
    for (uint32_t o = k; o < end && old != NO_LINE; o++) {
        uint32_t ppa = l2p_get(ftl, first + o);
        if (ppa != L2P_UNMAPPED && ppa_line(ftl, ppa) == old) {
            t = max_u64(t, hyb_copy(ftl, (uint32_t)(first + o), log, o, start_ns));
        }
    }
    hyb_count_merge(ftl, k == h->ppb ? HYB_MERGE_SWITCH : HYB_MERGE_PARTIAL);
    h->units[log].role = HYBRID_DATA;
    h->units[log].owner = lbn;
    h->data[lbn] = log;
    if (old != NO_LINE) {
        t = max_u64(t, hyb_erase(ftl, old, start_ns));
    }
    *done = t;
    return true;
}

void hyb_count_merge(struct ftl *ftl, enum hyb_merge type)
{
    ftl->ctr.gc_runs++;
    switch (type) {
    case HYB_MERGE_SWITCH:
        ftl->ctr.merge_switch++;
        break;
    case HYB_MERGE_PARTIAL:
        ftl->ctr.merge_partial++;
        break;
    case HYB_MERGE_FULL:
        ftl->ctr.merge_full++;
        break;
    }
}


size_t hybrid_metadata_bytes(const struct ftl *ftl)
{
    const struct hybrid *h = ftl->hybrid;
    return sizeof(*h) + (size_t)h->nlbn * sizeof(uint32_t) * (h->log ? 2 : 1) +
           (size_t)h->nunits * sizeof(struct hybrid_unit) + (size_t)h->rw_cap * sizeof(uint32_t);
}

uint64_t hybrid_device_map_bytes(const struct ftl *ftl)
{
    const struct hybrid *h = ftl->hybrid;
    return (uint64_t)h->nlbn * 4 + (uint64_t)h->log_blocks * h->ppb * 4;
}
