/*
 * lru and clock, the read cache's two single-list policies.
 *
 * lru: a hit moves the page to the MRU end; a miss evicts the LRU end when c pages are
 * resident.
 *
 * clock (second chance): the c frames form a ring with a hand. A hit sets the frame's
 * reference bit; a page read in starts with it clear (the bit records a read since the
 * page came in or the hand last passed). A miss takes a free frame when there is one;
 * otherwise the hand clears set bits as it advances and evicts the first frame whose bit
 * was clear, the new page takes that frame and the hand moves past it, so the new page is
 * the last the hand reaches. The hand's advance is amortized O(1): every step but the
 * last of an eviction clears a bit, and only hits set them, at most one each.
 */
#include "rcache/read_cache.h"
#include "rcache/read_cache_entries.h"

void rc_lru_hit(struct rcache *rc, uint32_t i)
{
    lru_touch(&rc->list[RC_T1], i);
}

uint32_t rc_lru_insert(struct rcache *rc, uint32_t lpn)
{
    uint32_t evicted = RCACHE_NONE;
    if (rc->resident == rc->c) {
        evicted = rc_release_lru(rc, RC_T1);
    }
    rc_move(rc, rc_alloc(rc, lpn), RC_T1);
    return evicted;
}

void rc_clock_hit(struct rcache *rc, uint32_t i)
{
    rc->e[i].ref = 1;
}

uint32_t rc_clock_insert(struct rcache *rc, uint32_t lpn)
{
    uint32_t evicted = RCACHE_NONE;
    if (rc->resident == rc->c) {
        while (rc->e[rc->hand].ref) {
            rc->e[rc->hand].ref = 0;    /* its second chance */
            rc->hand = rc->hand + 1 == rc->c ? 0 : rc->hand + 1;
        }
        evicted = rc->e[rc->hand].lpn;
        rc_release(rc, rc->hand);       /* on top of the free stack: taken next */
        rc->hand = rc->hand + 1 == rc->c ? 0 : rc->hand + 1;
    }
    rc_move(rc, rc_alloc(rc, lpn), RC_T1);
    return evicted;
}
