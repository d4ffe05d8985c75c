/* The read cache's entries and lists (read_cache_entries.h), which the policies work
 * with: taking a free entry, moving one between lists, freeing one. */
#include "rcache/read_cache_entries.h"

uint32_t rc_alloc(struct rcache *rc, uint32_t lpn)
{
    uint32_t i = rc->free[--rc->nfree];     /* the policies never ask past `slots` */
    rc->e[i] = (struct rc_entry){ .lpn = lpn, .list = RC_FREE };
    lpn_table_put(&rc->where, lpn, i);
    return i;
}

/* Out of its list (clock's frames are on none). */
static void unlink_entry(struct rcache *rc, uint32_t i)
{
    struct rc_entry *x = &rc->e[i];
    if (x->list == RC_FREE) {
        return;
    }
    if (rc->policy != FTL_RCACHE_CLOCK) {
        lru_unlink(&rc->list[x->list], i);
    }
    rc->count[x->list]--;
    rc->resident -= rc_is_resident(x);
    x->list = RC_FREE;
}

void rc_release(struct rcache *rc, uint32_t i)
{
    unlink_entry(rc, i);
    lpn_table_del(&rc->where, rc->e[i].lpn);
    rc->e[i].ref = 0;
    rc->free[rc->nfree++] = i;
}

void rc_move(struct rcache *rc, uint32_t i, enum rc_list to)
{
    unlink_entry(rc, i);
    struct rc_entry *x = &rc->e[i];
    x->list = (uint8_t)to;
    rc->count[to]++;
    rc->resident += rc_is_resident(x);
    if (rc->policy != FTL_RCACHE_CLOCK) {
        lru_push_mru(&rc->list[to], i);
    }
}

uint32_t rc_release_lru(struct rcache *rc, enum rc_list l)
{
    uint32_t i = rc->list[l].lru;
    uint32_t lpn = rc->e[i].lpn;
    rc_release(rc, i);
    return lpn;
}
