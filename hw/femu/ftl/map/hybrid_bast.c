/*
 * BAST (Kim et al., "A space-efficient flash translation layer for CompactFlash
 * systems", IEEE TCE 2002): a page its data block cannot take goes to its LBN's own log
 * block, appended in write order. log_blocks of them at most: an LBN without one when all
 * are in use first merges the least recently written one; a full log block is merged
 * before the write. A merge is a switch when the log block was written in order
 * 0..ppb-1 (it becomes the data block: one erase, no copy), partial when written in order
 * 0..k-1 (the data block's valid pages from k on are copied in, then the same), and full
 * otherwise (a new block with the LBN's valid pages; data and log block erased).
 */
#include "map/hybrid_bast.h"

#include "femu_ftl/error.h"
#include "base/max_u64.h"
#include "map/hybrid_ops.h"
#include "map/hybrid_tables.h"

/* Merge lbn's log block into its data block (the log leaves the LRU order). */
static uint64_t bast_merge(struct ftl *ftl, uint32_t lbn, uint64_t start_ns)
{
    struct hybrid *h = ftl->hybrid;
    uint32_t log = h->log[lbn];
    uint64_t done;

    bast_forget_log(ftl, log);
    if (hyb_log_becomes_data(ftl, lbn, log, start_ns, &done)) {
        return done;
    }
    done = hyb_full_merge(ftl, lbn, HYB_NO_LPN, start_ns, NULL);
    return max_u64(done, hyb_erase(ftl, log, start_ns));
}

void bast_forget_log(struct ftl *ftl, uint32_t unit)
{
    struct hybrid *h = ftl->hybrid;
    lru_unlink(&h->log_lru, unit);
    h->log[h->units[unit].owner] = NO_LINE;
    h->logs_used--;
}

int bast_place(struct ftl *ftl, uint32_t lpn, uint64_t now_ns, uint32_t *ppa, uint64_t *done)
{
    struct hybrid *h = ftl->hybrid;
    uint32_t lbn = lpn / h->ppb, off = lpn % h->ppb;
    uint32_t log = h->log[lbn];

    if (!hyb_data_takes(ftl, lbn, off) && log != NO_LINE && h->units[log].next == h->ppb) {
        *done = bast_merge(ftl, lbn, now_ns);     /* full: merged before the write */
        log = NO_LINE;
    }
    if (hyb_data_takes(ftl, lbn, off)) {
        return hyb_data_write(ftl, lpn, now_ns, ppa) ? FTL_OK : FTL_E_NOSPC;
    }
    if (log == NO_LINE) {
        if (h->logs_used == h->log_blocks) {
            uint32_t victim = h->log_lru.lru;
            *done = max_u64(*done, bast_merge(ftl, h->units[victim].owner, now_ns));
        }
        log = hyb_alloc(ftl, HYBRID_BAST_LOG, lbn);
        if (log == NO_LINE) {
            return FTL_E_NOSPC;
        }
        h->log[lbn] = log;
        h->logs_used++;
        lru_push_mru(&h->log_lru, log);
    }
    struct hybrid_unit *u = &h->units[log];
    u->in_order = u->in_order && u->next == off;
    *ppa = hyb_program(ftl, log, u->next, lpn, now_ns);
    lru_touch(&h->log_lru, log);
    return FTL_OK;
}
