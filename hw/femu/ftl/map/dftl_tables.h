/*
 * DFTL's tables (dftl.c), shared only with its state section (state/ftl_state_dftl.c),
 * which saves and restores them; everything else goes through the dftl_* calls in
 * map/dftl.h.
 */
#ifndef FEMU_FTL_MAP_DFTL_TABLES_H
#define FEMU_FTL_MAP_DFTL_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/lpn_table.h"
#include "base/lru_list.h"

struct cmt_slot {
    struct lru_link link;   /* in the CMT's LRU order */
    uint32_t lpn;
    uint32_t gen;           /* the translation page's generation when it turned dirty */
    bool dirty;
};

struct dftl {
    uint32_t ept;               /* entries per translation page */
    uint32_t ntp;               /* translation pages */
    uint32_t *gtd_plus1;        /* [ntp] ppa + 1 of each translation page, 0: never written */
    uint32_t *tp_gen;           /* [ntp] write-back generation */
    struct lpn_table where;     /* LPN -> CMT slot of its entry */
    struct cmt_slot *slots;     /* [nslots] */
    uint32_t nslots, used;
    struct lru_list order;      /* of the used slots */
    uint32_t *pending;          /* [ntp] translation pages queued for a rewrite */
    uint32_t npending;
    uint64_t *pending_bits;     /* [ntp / 64] queued or not */
};

#endif
