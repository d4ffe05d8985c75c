/*
 * Shared by the hybrid mapping tests (test_hybrid*.c): the tiny geometry every
 * hand-computed case uses, and the FIFO rule of a LUN the arithmetic follows.
 *
 * 1 channel x 2 LUNs x 8 blocks of 4 pages: 16 blocks, unit u on LUN u % 2. 64 KiB pages,
 * so the 1 MiB device is 16 logical pages, 4 logical blocks. The free queue starts as
 * units 0, 2, 4, ... (LUN 0) and 1, 3, 5, ... (LUN 1); blocks are taken LUN by LUN in
 * turn (0, 1, 2, 3, ...), an erased block joins the tail of its LUN's queue.
 */
#ifndef HYBRID_TEST_UTIL_H
#define HYBRID_TEST_UTIL_H

#include <stdint.h>

#include "ftl_test_util.h"

#define SEC 1000000000ull
#define RD 10ull      /* pg_rd_lat */
#define WR 100ull     /* pg_wr_lat */
#define ER 1000ull    /* blk_er_lat */

static inline struct ftl_config hybrid_config(enum ftl_mapping mapping, uint64_t log_blocks)
{
    struct ftl_config cfg;
    ftl_config_defaults(&cfg);
    cfg.nchs = 1;
    cfg.luns_per_ch = 2;
    cfg.blks_per_pl = 8;
    cfg.pls_per_lun = 1;
    cfg.pgs_per_blk = 4;
    cfg.secs_per_pg = 128;
    cfg.devsz_mb = 1;
    cfg.gc_unit = FTL_GC_UNIT_BLOCK;
    cfg.gc_mode = FTL_GC_LINE;
    cfg.gc_thres_pcent = 50;        /* page GC's thresholds: checked, never used */
    cfg.gc_thres_pcent_high = 75;
    cfg.mapping = mapping;
    cfg.log_blocks = log_blocks;
    cfg.pg_rd_lat = RD;
    cfg.pg_wr_lat = WR;
    cfg.blk_er_lat = ER;
    cfg.ch_xfer_lat = 0;
    return cfg;
}

/* One page written at t (far apart: every LUN idle); returns its completion. */
static inline uint64_t write1(struct ftl *ftl, uint64_t t, uint64_t lpn)
{
    uint64_t done = 0;
    CHECK(write_pages(ftl, t, lpn, 1, &done) == FTL_OK);
    return done;
}

/* Pages written one by one, a second apart from *t on. */
static inline void write_seq(struct ftl *ftl, uint64_t *t, const uint64_t *lpns, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        *t += SEC;
        write1(ftl, *t, lpns[i]);
    }
}

/* A LUN runs its operations in the order asked, each from max(asked, idle): returns
 * the end, which is the LUN's new idle time. */
static inline uint64_t fifo(uint64_t *idle, uint64_t start, uint64_t lat)
{
    *idle = (*idle > start ? *idle : start) + lat;
    return *idle;
}

/* The merge counters between two snapshots, and the GC counters they also go to. */
static inline void check_merges(const struct ftl_counters *a, const struct ftl_counters *b,
                                uint64_t sw, uint64_t partial, uint64_t full, uint64_t copied,
                                uint64_t erased)
{
    CHECK_EQ_U64(b->merge_switch - a->merge_switch, sw);
    CHECK_EQ_U64(b->merge_partial - a->merge_partial, partial);
    CHECK_EQ_U64(b->merge_full - a->merge_full, full);
    CHECK_EQ_U64(b->merge_copied_pages - a->merge_copied_pages, copied);
    CHECK_EQ_U64(b->merge_erased_blocks - a->merge_erased_blocks, erased);
    CHECK_EQ_U64(b->gc_runs - a->gc_runs, sw + partial + full);
    CHECK_EQ_U64(b->gc_moved_pages - a->gc_moved_pages, copied);
    CHECK_EQ_U64(b->nand_gc_programs - a->nand_gc_programs, copied);
    CHECK_EQ_U64(b->nand_gc_reads - a->nand_gc_reads, copied);
    CHECK_EQ_U64(b->gc_erased_blocks - a->gc_erased_blocks, erased);
    CHECK_EQ_U64(b->nand_erases - a->nand_erases, erased);
}

#endif
