/*
 * The read cache's tables, shared by read_cache.c (creation, lookups, drops, checks),
 * read_cache_slots.c (the entries and lists) and the policies (read_cache_lru_clock.c,
 * read_cache_2q.c, read_cache_arc.c).
 *
 * Every page the cache knows is an entry of one array: resident, or a ghost (2q, arc: a
 * key without data). Entries sit on up to four lists, named after ARC's:
 *   lru:   T1 (least recently used at its lru end);
 *   clock: T1 unused: entries 0..c-1 are the clock's frames, in ring order;
 *   2q:    T1 = A1in (FIFO), T2 = Am (LRU), B1 = A1out (ghost FIFO);
 *   arc:   T1, T2 resident, B1, B2 ghosts (Megiddo and Modha's names).
 */
#ifndef FEMU_FTL_RCACHE_READ_CACHE_ENTRIES_H
#define FEMU_FTL_RCACHE_READ_CACHE_ENTRIES_H

#include "base/lpn_table.h"
#include "base/lru_list.h"
#include "femu_ftl/config.h"

enum rc_list { RC_T1, RC_T2, RC_B1, RC_B2, RC_LISTS, RC_FREE = RC_LISTS };

struct rc_entry {
    uint32_t lpn;
    struct lru_link link;
    uint8_t list;           /* enum rc_list; RC_FREE when the slot is free */
    uint8_t ref;            /* clock: referenced since the hand last passed */
};

struct rcache {
    enum ftl_read_cache_policy policy;
    uint32_t c;             /* resident pages at most (read_cache_pages) */
    uint32_t slots;         /* entries: c, + Kout ghosts (2q), + c ghosts (arc) */
    struct rc_entry *e;     /* [slots] */
    uint32_t *free;         /* [slots] a stack of free entry indices */
    uint32_t nfree;
    struct lpn_table where; /* lpn -> entry index, resident or ghost */
    struct lru_list list[RC_LISTS];
    uint32_t count[RC_LISTS];
    uint32_t resident;      /* resident entries (all lists but the ghosts) */
    uint32_t kin, kout;     /* 2q: A1in's target and A1out's size */
    uint32_t p;             /* arc: T1's target size, 0..c */
    uint32_t hand;          /* clock: the next frame the hand looks at */
};

/* The pool and lists (read_cache_slots.c), for the policies. */
uint32_t rc_alloc(struct rcache *rc, uint32_t lpn);         /* a free entry, in no list */
void rc_release(struct rcache *rc, uint32_t i);             /* out of its list, freed */
void rc_move(struct rcache *rc, uint32_t i, enum rc_list to); /* to `to`'s MRU end */
/* The entry at the LRU end of list l, taken out of it and freed: its LPN. */
uint32_t rc_release_lru(struct rcache *rc, enum rc_list l);

static inline bool rc_is_resident(const struct rc_entry *x)
{
    return x->list == RC_T1 || x->list == RC_T2;
}

/* The policies: a hit on resident entry i, and a miss's insert of lpn (resident nowhere;
 * ghost entry g or LPN_TABLE_NONE) returning the LPN evicted or RCACHE_NONE
 * (read_cache.h). */
void rc_lru_hit(struct rcache *rc, uint32_t i);
uint32_t rc_lru_insert(struct rcache *rc, uint32_t lpn);
void rc_clock_hit(struct rcache *rc, uint32_t i);
uint32_t rc_clock_insert(struct rcache *rc, uint32_t lpn);
void rc_2q_hit(struct rcache *rc, uint32_t i);
uint32_t rc_2q_insert(struct rcache *rc, uint32_t lpn, uint32_t g);
void rc_arc_hit(struct rcache *rc, uint32_t i);
uint32_t rc_arc_insert(struct rcache *rc, uint32_t lpn, uint32_t g);

#endif
