/*
 * The read cache's entries, hash table and lists, and what every policy shares: lookup,
 * drops, clearing, checks. The policies' own rules are in read_cache_lru_clock.c,
 * read_cache_2q.c and read_cache_arc.c.
 */
#include "rcache/read_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/error.h"
#include "rcache/read_cache_entries.h"

/* 2q's list sizes, Johnson and Shasha's recommendation (VLDB'94, section 3.3): A1in holds
 * 25 % of the pages, A1out remembers the keys of 50 % as many. */
#define TWOQ_KIN_PCENT 25
#define TWOQ_KOUT_PCENT 50

static uint32_t at_least_one(uint64_t n)
{
    return n ? (uint32_t)n : 1;
}

struct rcache *rcache_create(enum ftl_read_cache_policy policy, uint32_t pages)
{
    struct rcache *rc = calloc(1, sizeof(*rc));
    if (!rc) {
        return NULL;
    }
    rc->policy = policy;
    rc->c = pages;
    rc->kin = at_least_one((uint64_t)pages * TWOQ_KIN_PCENT / 100);
    rc->kout = at_least_one((uint64_t)pages * TWOQ_KOUT_PCENT / 100);
    uint64_t slots = pages;
    if (policy == FTL_RCACHE_2Q) {
        slots += rc->kout;
    } else if (policy == FTL_RCACHE_ARC) {
        slots += pages;     /* |B1| + |B2| <= c (read_cache_arc.c) */
    }
    rc->slots = (uint32_t)slots;
    rc->e = calloc(slots, sizeof(*rc->e));
    rc->free = calloc(slots, sizeof(*rc->free));
    bool table = lpn_table_init(&rc->where, rc->slots);
    if (!rc->e || !rc->free || !table) {
        rcache_destroy(rc);
        return NULL;
    }
    rcache_clear(rc);
    return rc;
}

void rcache_destroy(struct rcache *rc)
{
    if (!rc) {
        return;
    }
    lpn_table_free(&rc->where);
    free(rc->e);
    free(rc->free);
    free(rc);
}

size_t rcache_bytes(const struct rcache *rc)
{
    return sizeof(*rc) + lpn_table_bytes(&rc->where) +
           (size_t)rc->slots * (sizeof(*rc->e) + sizeof(*rc->free));
}

void rcache_clear(struct rcache *rc)
{
    for (uint32_t i = 0; i < rc->slots; i++) {
        rc->e[i] = (struct rc_entry){ .list = RC_FREE };
    }
    memset(rc->where.keys, 0, ((size_t)rc->where.mask + 1) * sizeof(*rc->where.keys));
    rc->where.count = 0;
    /* the lowest index on top: clock fills its frames in ring order */
    for (uint32_t i = 0; i < rc->slots; i++) {
        rc->free[i] = rc->slots - 1 - i;
    }
    rc->nfree = rc->slots;
    for (int l = 0; l < RC_LISTS; l++) {
        lru_init(&rc->list[l], rc->e, sizeof(*rc->e), offsetof(struct rc_entry, link));
        rc->count[l] = 0;
    }
    rc->resident = 0;
    rc->p = 0;
    rc->hand = 0;
}

/* ---- what every policy shares ---- */

bool rcache_lookup(struct rcache *rc, uint32_t lpn)
{
    uint32_t i = lpn_table_get(&rc->where, lpn);
    if (i == LPN_TABLE_NONE || !rc_is_resident(&rc->e[i])) {
        return false;
    }
    switch (rc->policy) {
    case FTL_RCACHE_LRU: rc_lru_hit(rc, i); break;
    case FTL_RCACHE_CLOCK: rc_clock_hit(rc, i); break;
    case FTL_RCACHE_2Q: rc_2q_hit(rc, i); break;
    case FTL_RCACHE_ARC: rc_arc_hit(rc, i); break;
    }
    return true;
}

uint32_t rcache_insert(struct rcache *rc, uint32_t lpn)
{
    uint32_t g = lpn_table_get(&rc->where, lpn);   /* a ghost, or none */
    if (g != LPN_TABLE_NONE && rc_is_resident(&rc->e[g])) {
        return RCACHE_NONE;     /* resident already: the caller looked it up first */
    }
    switch (rc->policy) {
    case FTL_RCACHE_LRU: return rc_lru_insert(rc, lpn);
    case FTL_RCACHE_CLOCK: return rc_clock_insert(rc, lpn);
    case FTL_RCACHE_2Q: return rc_2q_insert(rc, lpn, g);
    case FTL_RCACHE_ARC: return rc_arc_insert(rc, lpn, g);
    }
    return RCACHE_NONE;
}

void rcache_drop(struct rcache *rc, uint32_t lpn)
{
    uint32_t i = lpn_table_get(&rc->where, lpn);
    if (i != LPN_TABLE_NONE && rc_is_resident(&rc->e[i])) {
        rc_release(rc, i);
    }
}

void rcache_drop_range(struct rcache *rc, uint64_t start, uint64_t end)
{
    if (start >= end || rc->resident == 0) {
        return;
    }
    if (end - start <= rc->slots) {
        for (uint64_t lpn = start; lpn < end; lpn++) {
            rcache_drop(rc, (uint32_t)lpn);
        }
        return;
    }
    /* a range wider than the cache: look at the entries instead of the LPNs */
    for (uint32_t i = 0; i < rc->slots; i++) {
        struct rc_entry *x = &rc->e[i];
        if (rc_is_resident(x) && x->lpn >= start && x->lpn < end) {
            rc_release(rc, i);
        }
    }
}

bool rcache_holds(const struct rcache *rc, uint32_t lpn)
{
    uint32_t i = lpn_table_get(&rc->where, lpn);
    return i != LPN_TABLE_NONE && rc_is_resident(&rc->e[i]);
}

uint32_t rcache_resident(const struct rcache *rc)
{
    return rc->resident;
}

uint32_t rcache_arc_target(const struct rcache *rc)
{
    return rc->policy == FTL_RCACHE_ARC ? rc->p : 0;
}

void rcache_for_each(const struct rcache *rc, void (*fn)(void *ctx, uint32_t lpn), void *ctx)
{
    for (uint32_t i = 0; i < rc->slots; i++) {
        if (rc_is_resident(&rc->e[i])) {
            fn(ctx, rc->e[i].lpn);
        }
    }
}

/* Each list walked from its MRU end holds count[l] entries marked l. */
static int check_lists(const struct rcache *rc, char *err, size_t errlen)
{
    if (rc->policy == FTL_RCACHE_CLOCK) {
        return 0;   /* frames, not lists */
    }
    for (int l = 0; l < RC_LISTS; l++) {
        uint32_t n = 0;
        for (uint32_t i = rc->list[l].mru; i != LRU_NONE; i = rc->e[i].link.older) {
            if (rc->e[i].list != l || ++n > rc->count[l]) {
                return ftl_error(err, errlen, "read cache: list %d holds entry %u of list "
                                 "%u or more than its count %u", l, i, rc->e[i].list,
                                 rc->count[l]);
            }
        }
        if (n != rc->count[l]) {
            return ftl_error(err, errlen, "read cache: list %d holds %u entries, its count "
                             "says %u", l, n, rc->count[l]);
        }
    }
    return 0;
}

/* The bounds each policy keeps: c resident; 2q's Kout ghosts; arc's |T1|+|B1| <= c and
 * |T1|+|T2|+|B1|+|B2| <= 2c. */
static int check_bounds(const struct rcache *rc, char *err, size_t errlen)
{
    const uint32_t *n = rc->count;
    if (rc->resident != n[RC_T1] + n[RC_T2] || rc->resident > rc->c) {
        return ftl_error(err, errlen, "read cache: %u resident pages (T1 %u, T2 %u) in a "
                         "cache of %u", rc->resident, n[RC_T1], n[RC_T2], rc->c);
    }
    if (rc->policy == FTL_RCACHE_2Q && n[RC_B1] > rc->kout) {
        return ftl_error(err, errlen, "read cache: A1out holds %u keys, Kout is %u",
                         n[RC_B1], rc->kout);
    }
    if (rc->policy == FTL_RCACHE_ARC &&
        (n[RC_T1] + n[RC_B1] > rc->c || rc->slots - rc->nfree > 2 * rc->c || rc->p > rc->c)) {
        return ftl_error(err, errlen, "read cache: arc's T1 %u + B1 %u, all %u, p %u out of "
                         "bounds for c = %u", n[RC_T1], n[RC_B1], rc->slots - rc->nfree,
                         rc->p, rc->c);
    }
    return 0;
}

int rcache_check(const struct rcache *rc, char *err, size_t errlen)
{
    uint32_t used = 0;
    for (uint32_t i = 0; i < rc->slots; i++) {
        if (rc->e[i].list == RC_FREE) {
            continue;
        }
        used++;
        if (lpn_table_get(&rc->where, rc->e[i].lpn) != i) {
            return ftl_error(err, errlen, "read cache: LPN %u of entry %u is not found there",
                             rc->e[i].lpn, i);
        }
    }
    if (used != rc->slots - rc->nfree || used != rc->where.count) {
        return ftl_error(err, errlen, "read cache: %u entries in use, %u free of %u, %u "
                         "keys hashed", used, rc->nfree, rc->slots, rc->where.count);
    }
    return check_lists(rc, err, errlen) ? -1 : check_bounds(rc, err, errlen);
}
