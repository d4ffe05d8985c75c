/*
 * The hybrid mappings' tables (mapping=block|bast|fast: map/hybrid.c, hybrid_bast.c,
 * hybrid_fast.c), shared only with their state section (state/ftl_state_hybrid.c) and
 * ftl_check's hybrid invariants; everything else goes through map/hybrid.h.
 *
 * The page map (l2p/p2l, block and line counts) stays the truth of where each LPN's
 * current copy is. These tables add what the schemes decide with: per logical block
 * (LBN = lpn / pgs_per_blk, offset o = lpn % pgs_per_blk) its data block, and per unit
 * (a block: hybrid mappings need gc_unit=block) its role, owner and next program offset.
 * A unit owned by a hybrid map has line state LINE_MAPPED (in no list, never a victim);
 * any other unit has role HYBRID_NONE.
 */
#ifndef FEMU_FTL_MAP_HYBRID_TABLES_H
#define FEMU_FTL_MAP_HYBRID_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/lru_list.h"
#include "femu_ftl/config.h"

/* No logical block: a unit without an owner (a FAST random log, a free unit). */
#define NO_LBN UINT32_MAX

enum hybrid_role {
    HYBRID_NONE,        /* not the hybrid map's: free, dead */
    HYBRID_DATA,        /* the data block of owner: page o at offset o */
    HYBRID_BAST_LOG,    /* bast: owner's log block, pages appended in write order */
    HYBRID_FAST_SW,     /* fast: the sequential log, owner's pages o = 0, 1, ... in order */
    HYBRID_FAST_RW,     /* fast: a random log, any LBN's pages appended in write order */
};

struct hybrid_unit {
    struct lru_link link;   /* bast: in the log blocks' LRU order (newest write first) */
    uint32_t owner;         /* LBN of a data block, BAST log or FAST SW; else NO_LBN */
    uint32_t next;          /* next program offset; pages below it are programmed (or
                             * skipped: never programmed, counted invalid), none above */
    uint8_t role;           /* enum hybrid_role */
    bool in_order;          /* BAST log / FAST SW: page k holds offset k of owner for
                             * every k < next (written in order from offset 0 so far) */
};

/* Whether scheme (enum ftl_mapping) uses role (HYBRID_NONE always). */
static inline bool hybrid_role_allowed(uint8_t scheme, uint8_t role)
{
    switch (role) {
    case HYBRID_NONE:
    case HYBRID_DATA: return true;
    case HYBRID_BAST_LOG: return scheme == FTL_MAPPING_BAST;
    case HYBRID_FAST_SW:
    case HYBRID_FAST_RW: return scheme == FTL_MAPPING_FAST;
    default: return false;
    }
}

/* Whether a unit of role has an owner LBN (else its owner is NO_LBN). */
static inline bool hybrid_role_has_owner(uint8_t role)
{
    return role == HYBRID_DATA || role == HYBRID_BAST_LOG || role == HYBRID_FAST_SW;
}

struct hybrid {
    uint8_t scheme;         /* FTL_MAPPING_BLOCK, _BAST or _FAST (femu_ftl/config.h) */
    uint32_t ppb;           /* pages per block (= pages per unit) */
    uint32_t nlbn;          /* logical blocks: ceil(logical pages / ppb) */
    uint32_t nunits;        /* units (blocks), as ftl->nunits */
    uint32_t log_blocks;    /* bast, fast: the log-block budget (cfg.log_blocks); block: 0 */
    uint32_t next_pool;     /* the LUN pool the next allocation starts from (round robin) */
    uint32_t *data;         /* [nlbn] data unit of each LBN, NO_LINE: none yet */
    struct hybrid_unit *units;  /* [nunits] */

    /* bast: each LBN's log block (NO_LINE: none), the log blocks in use in LRU order of
     * their last write (lru: the next merge victim), and how many */
    uint32_t *log;          /* [nlbn] bast only, else NULL */
    struct lru_list log_lru;
    uint32_t logs_used;

    /* fast: the sequential log (NO_LINE: none; its LBN is units[sw].owner) and the random
     * logs in use, oldest first: a ring of rw_cap = log_blocks - 1 slots from rw_head */
    uint32_t sw;
    uint32_t *rw;           /* [rw_cap] fast only, else NULL */
    uint32_t rw_head, rw_count, rw_cap;
};

/* How many units have role: O(units), for the checker and the state loader. */
static inline uint32_t hybrid_units_with_role(const struct hybrid *h, uint8_t role)
{
    uint32_t n = 0;
    for (uint32_t u = 0; u < h->nunits; u++) {
        n += h->units[u].role == role;
    }
    return n;
}

#endif
