/*
 * 2q, the full version of Johnson and Shasha (VLDB'94, "2Q: A Low Overhead High
 * Performance Buffer Management Replacement Algorithm", figure "full version"): A1in is a
 * FIFO of pages read once lately, Am an LRU of pages read again, A1out a FIFO of the keys
 * of pages A1in let go (ghosts, no data). Kin = 25 % and Kout = 50 % of the cache's pages
 * (the paper's recommendation; at least one each: read_cache.c).
 *
 *   a hit in Am:    to Am's MRU end;
 *   a hit in A1in:  nothing (a correlated reference: the page stays in the FIFO);
 *   a miss whose key is in A1out: reclaimfor, then the page to Am's MRU end;
 *   any other miss: reclaimfor, then the page to A1in's tail.
 *   reclaimfor: a free slot if there is one (none resident, or a page dropped by a write);
 *   else if |A1in| > Kin, A1in's head leaves to A1out's tail (A1out's head forgotten past
 *   Kout keys); else Am's LRU page is evicted, with no key kept.
 * With c = 1, or every resident page in A1in, A1in gives the page even when |A1in| <= Kin
 * (Am is empty: the paper's Kin < c never meets this).
 */
#include "rcache/read_cache.h"
#include "rcache/read_cache_entries.h"

#define A1IN RC_T1
#define AM RC_T2
#define A1OUT RC_B1

void rc_2q_hit(struct rcache *rc, uint32_t i)
{
    if (rc->e[i].list == AM) {
        lru_touch(&rc->list[AM], i);
    }
}

/* Room for one more resident page: the LPN evicted, or RCACHE_NONE. */
static uint32_t reclaim_for(struct rcache *rc)
{
    if (rc->resident < rc->c) {
        return RCACHE_NONE;
    }
    if (rc->count[A1IN] > rc->kin || rc->count[AM] == 0) {
        uint32_t y = rc->list[A1IN].lru;    /* the FIFO's head: in longest */
        uint32_t lpn = rc->e[y].lpn;
        rc_move(rc, y, A1OUT);              /* its key, at A1out's tail */
        if (rc->count[A1OUT] > rc->kout) {
            rc_release_lru(rc, A1OUT);
        }
        return lpn;
    }
    return rc_release_lru(rc, AM);
}

uint32_t rc_2q_insert(struct rcache *rc, uint32_t lpn, uint32_t g)
{
    bool was_out = g != LPN_TABLE_NONE;    /* its key in A1out: read again, to Am */
    uint32_t evicted = reclaim_for(rc);
    /* reclaim_for may have forgotten the oldest key, lpn's own: it still goes to Am */
    g = lpn_table_get(&rc->where, lpn);
    if (g == LPN_TABLE_NONE) {
        g = rc_alloc(rc, lpn);
    }
    rc_move(rc, g, was_out ? AM : A1IN);
    return evicted;
}
