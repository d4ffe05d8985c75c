/* Helpers of the tests of the hybrid mappings' tables (ftl_check's invariants, state
 * files): a geometry with room for busy workloads (tests/ftl/hybrid_test_util.h has the
 * tiny one of the hand-computed cases), and finding a unit of a role in the tables
 * (map/hybrid_tables.h). */
#ifndef HYBRID_TABLES_TEST_UTIL_H
#define HYBRID_TABLES_TEST_UTIL_H

#include "flash/ftl_handle.h"
#include "map/hybrid_tables.h"
#include "ftl_test_util.h"

/* 2 channels x 2 LUNs x 32 blocks x 16 pages of 4 KiB (128 blocks), 4 MiB logical: 64
 * logical blocks, the rest for log blocks and the spare. */
static inline struct ftl_config hybrid_small_config(enum ftl_mapping mapping,
                                                   uint64_t log_blocks)
{
    struct ftl_config cfg = small_config(2, 2, 32, 16, 8);
    cfg.read_uncor_ppm = 0;
    cfg.gc_unit = FTL_GC_UNIT_BLOCK;
    cfg.gc_mode = FTL_GC_LINE;         /* gc_unit=block needs it (merges ignore it) */
    cfg.mapping = mapping;
    cfg.log_blocks = log_blocks;
    cfg.devsz_mb = 4;
    return cfg;
}

/* The k-th unit (from 0, in unit order) of role, optionally owned by lbn (NO_LBN: any);
 * NO_LINE when there is none. */
static inline uint32_t hybrid_unit_of(const struct ftl *ftl, uint8_t role, uint32_t lbn,
                                      uint32_t k)
{
    const struct hybrid *h = ftl->hybrid;
    for (uint32_t u = 0; u < h->nunits; u++) {
        if (h->units[u].role == role && (lbn == NO_LBN || h->units[u].owner == lbn) &&
            k-- == 0) {
            return u;
        }
    }
    return NO_LINE;
}

#endif
