/*
 * FAST (Lee et al., "A Log Buffer-Based Flash Translation Layer Using Fully-Associative
 * Sector Translation", ACM TECS 2007): one sequential log block (SW) and log_blocks - 1
 * random log blocks (RW) shared by every logical block. A page its data block cannot take
 * goes:
 *  - at offset 0: to a new SW for its LBN, after the current SW is merged (a switch when
 *    it was written whole, in order; else partial);
 *  - at the SW's next offset, for the SW's LBN: appended to the SW;
 *  - otherwise to the newest RW, appended. When every RW is full the oldest is the
 *    victim: every LBN with a valid page in it is full-merged (a new block with the LBN's
 *    valid pages from the data block, any RW and the SW; the old data block erased, and
 *    the SW too when it was that LBN's), then the victim is erased.
 */
#include "map/hybrid_fast.h"

#include "femu_ftl/error.h"
#include "base/max_u64.h"
#include "flash/p2l.h"
#include "map/hybrid_ops.h"
#include "map/hybrid_tables.h"

/* Merge the SW into its LBN's data block (switch or partial; full if it cannot be). */
static uint64_t merge_sw(struct ftl *ftl, uint64_t start_ns)
{
    struct hybrid *h = ftl->hybrid;
    uint32_t sw = h->sw, lbn = h->units[sw].owner;
    uint64_t done;

    h->sw = NO_LINE;
    if (hyb_log_becomes_data(ftl, lbn, sw, start_ns, &done)) {
        return done;
    }
    done = hyb_full_merge(ftl, lbn, HYB_NO_LPN, start_ns, NULL);
    return max_u64(done, hyb_erase(ftl, sw, start_ns));
}

/* Full merge of every LBN with a valid page in the oldest RW, then its erase. */
static uint64_t merge_victim(struct ftl *ftl, uint64_t start_ns)
{
    struct hybrid *h = ftl->hybrid;
    uint32_t victim = h->rw[h->rw_head];
    uint64_t done = start_ns, base = (uint64_t)victim * h->ppb;

    h->rw_head = h->rw_head + 1 == h->rw_cap ? 0 : h->rw_head + 1;
    h->rw_count--;
    for (uint32_t k = 0; k < h->units[victim].next; k++) {
        uint32_t lpn = p2l_get(ftl, base + k);
        if (lpn >= ftl->geo.logical_pages) {
            continue;   /* superseded, trimmed, skipped, or merged with an earlier LBN */
        }
        uint32_t lbn = lpn / h->ppb;
        done = max_u64(done, hyb_full_merge(ftl, lbn, HYB_NO_LPN, start_ns, NULL));
        if (h->sw != NO_LINE && h->units[h->sw].owner == lbn) {
            done = max_u64(done, hyb_erase(ftl, h->sw, start_ns));    /* copied out */
            h->sw = NO_LINE;
        }
    }
    return max_u64(done, hyb_erase(ftl, victim, start_ns));
}

/* The newest RW, NO_LINE if none. */
static uint32_t rw_newest(const struct hybrid *h)
{
    if (h->rw_count == 0) {
        return NO_LINE;
    }
    uint32_t at = h->rw_head + h->rw_count - 1;
    return h->rw[at >= h->rw_cap ? at - h->rw_cap : at];
}

/* A random page needs a new RW and every RW slot is taken. */
static bool rw_needs_victim(const struct hybrid *h)
{
    uint32_t newest = rw_newest(h);
    return h->rw_count == h->rw_cap && (newest == NO_LINE || h->units[newest].next == h->ppb);
}

/* The RW that takes the next random page: the newest with room, else a new one (a slot
 * is free: rw_needs_victim was answered first). */
static uint32_t rw_with_room(struct ftl *ftl)
{
    struct hybrid *h = ftl->hybrid;
    uint32_t newest = rw_newest(h);
    if (newest != NO_LINE && h->units[newest].next < h->ppb) {
        return newest;
    }
    uint32_t rw = hyb_alloc(ftl, HYBRID_FAST_RW, NO_LBN);
    if (rw != NO_LINE) {
        uint32_t at = h->rw_head + h->rw_count;
        h->rw[at >= h->rw_cap ? at - h->rw_cap : at] = rw;
        h->rw_count++;
    }
    return rw;
}

void fast_forget_log(struct ftl *ftl, uint32_t unit)
{
    struct hybrid *h = ftl->hybrid;
    if (unit == h->sw) {
        h->sw = NO_LINE;
        return;
    }
    /* an RW leaves the FIFO; the younger ones move up a slot */
    uint32_t k = 0;
    while (k < h->rw_count && h->rw[(h->rw_head + k) % h->rw_cap] != unit) {
        k++;
    }
    for (; k + 1 < h->rw_count; k++) {
        h->rw[(h->rw_head + k) % h->rw_cap] = h->rw[(h->rw_head + k + 1) % h->rw_cap];
    }
    h->rw_count--;
}

int fast_place(struct ftl *ftl, uint32_t lpn, uint64_t now_ns, uint32_t *ppa, uint64_t *done)
{
    struct hybrid *h = ftl->hybrid;
    uint32_t lbn = lpn / h->ppb, off = lpn % h->ppb;

    if (off == 0 && !hyb_data_takes(ftl, lbn, off) && h->sw != NO_LINE) {
        *done = merge_sw(ftl, now_ns);
    }
    if (hyb_data_takes(ftl, lbn, off)) {
        return hyb_data_write(ftl, lpn, now_ns, ppa) ? FTL_OK : FTL_E_NOSPC;
    }
    uint32_t log;
    if (off == 0) {
        log = h->sw = hyb_alloc(ftl, HYBRID_FAST_SW, lbn);
    } else if (h->sw != NO_LINE && h->units[h->sw].owner == lbn &&
               h->units[h->sw].next == off) {
        log = h->sw;
    } else {
        if (rw_needs_victim(h)) {
            *done = max_u64(*done, merge_victim(ftl, now_ns));
            if (hyb_data_takes(ftl, lbn, off)) {   /* its LBN may have been merged */
                return hyb_data_write(ftl, lpn, now_ns, ppa) ? FTL_OK : FTL_E_NOSPC;
            }
        }
        log = rw_with_room(ftl);
    }
    if (log == NO_LINE) {
        return FTL_E_NOSPC;
    }
    if (h->units[log].role == HYBRID_FAST_RW) {
        h->units[log].in_order = false;
    }
    *ppa = hyb_program(ftl, log, h->units[log].next, lpn, now_ns);
    return FTL_OK;
}
