/*
 * arc, as Megiddo and Modha define it (FAST'03, "ARC: A Self-Tuning, Low Overhead
 * Replacement Cache", figure 4), with c = read_cache_pages: T1 and T2 hold the resident
 * pages seen once and at least twice lately, B1 and B2 the keys of pages they evicted
 * (ghosts); p is the target size of T1, adapted on every ghost hit.
 *
 *   I   a hit in T1 or T2: to T2's MRU end.
 *   II  a miss in B1: p = min(p + d1, c), d1 = 1 if |B1| >= |B2| else |B2| / |B1|;
 *       REPLACE; the page to T2's MRU end.
 *   III a miss in B2: p = max(p - d2, 0), d2 = 1 if |B2| >= |B1| else |B1| / |B2|;
 *       REPLACE; the page to T2's MRU end.
 *   IV  any other miss: (A) if |T1| + |B1| = c: if |T1| < c, B1's LRU key is forgotten
 *       and REPLACE, else T1's LRU page is evicted with no key kept; (B) else if
 *       |T1| + |T2| + |B1| + |B2| >= c: B2's LRU key is forgotten if that sum is 2c, and
 *       REPLACE. Then the page to T1's MRU end.
 *   REPLACE: if T1 is not empty and (|T1| > p, or the page is in B2 and |T1| = p), T1's
 *       LRU page leaves to B1's MRU end; else T2's LRU page to B2's.
 *
 * Integers throughout: p is a page count and d1, d2 take the quotient rounded down.
 * Writes remove resident pages, which the paper does not: a removed page leaves a free
 * slot, and REPLACE runs only when c pages are resident (in the paper it is never called
 * otherwise, so sequences without removals are exactly the paper's). Its bounds hold
 * still: |T1| + |B1| <= c, all four <= 2c, and |B1| + |B2| <= c (the ghosts' slots).
 */
#include "rcache/read_cache.h"
#include "rcache/read_cache_entries.h"

void rc_arc_hit(struct rcache *rc, uint32_t i)
{
    rc_move(rc, i, RC_T2);
}

/* REPLACE(x, p), when the cache is full: the LPN evicted, or RCACHE_NONE. */
static uint32_t replace(struct rcache *rc, bool x_in_b2)
{
    if (rc->resident < rc->c) {
        return RCACHE_NONE;     /* a slot a write freed */
    }
    uint32_t t1 = rc->count[RC_T1];
    bool from_t1 = t1 > 0 && (t1 > rc->p || (x_in_b2 && t1 == rc->p));
    enum rc_list from = from_t1 ? RC_T1 : RC_T2;
    uint32_t i = rc->list[from].lru;
    uint32_t lpn = rc->e[i].lpn;
    rc_move(rc, i, from_t1 ? RC_B1 : RC_B2);
    return lpn;
}

static uint32_t quotient_at_least_one(uint32_t num, uint32_t den)
{
    return den >= num ? 1 : num / den;
}

/* Cases II and III: lpn's key is ghost g. */
static uint32_t ghost_hit(struct rcache *rc, uint32_t g)
{
    uint32_t b1 = rc->count[RC_B1], b2 = rc->count[RC_B2];
    bool in_b2 = rc->e[g].list == RC_B2;
    if (!in_b2) {
        uint32_t d1 = quotient_at_least_one(b2, b1);
        rc->p = rc->p + d1 < rc->c ? rc->p + d1 : rc->c;
    } else {
        uint32_t d2 = quotient_at_least_one(b1, b2);
        rc->p = rc->p > d2 ? rc->p - d2 : 0;
    }
    uint32_t evicted = replace(rc, in_b2);
    rc_move(rc, g, RC_T2);
    return evicted;
}

/* Case IV: lpn is nowhere. */
static uint32_t miss(struct rcache *rc, uint32_t lpn)
{
    uint32_t evicted = RCACHE_NONE;
    uint32_t t1 = rc->count[RC_T1], b1 = rc->count[RC_B1];
    uint32_t all = rc->resident + b1 + rc->count[RC_B2];
    if (t1 + b1 == rc->c) {
        if (t1 < rc->c) {
            rc_release_lru(rc, RC_B1);
            evicted = replace(rc, false);
        } else {
            evicted = rc_release_lru(rc, RC_T1);    /* B1 is empty */
        }
    } else if (all >= rc->c) {
        if (all == 2 * rc->c) {
            rc_release_lru(rc, RC_B2);
        }
        evicted = replace(rc, false);
    }
    rc_move(rc, rc_alloc(rc, lpn), RC_T1);
    return evicted;
}

uint32_t rc_arc_insert(struct rcache *rc, uint32_t lpn, uint32_t g)
{
    return g != LPN_TABLE_NONE ? ghost_hit(rc, g) : miss(rc, lpn);
}
