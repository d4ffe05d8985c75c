/*
 * mapping=block and mapping=bast, pinned by hand-computed cases on the tiny geometry of
 * hybrid_test_util.h: which merges a sequence of writes causes (type, pages copied, blocks
 * erased) and when the write that caused one completes. Block mapping's closed form (each
 * random overwrite of a full drive copies the rest of its block: WAF = pages per block)
 * and BAST's sequential rewrite (switch merges only) on the same geometry.
 */
#include "hybrid_test_util.h"

static uint64_t max2(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* An overwrite copies the block: the page in place, the rest copied, the old block erased. */
static void test_block_copy(void)
{
    struct ftl_config cfg = hybrid_config(FTL_MAPPING_BLOCK, 1);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t t = 0;
    write_seq(ftl, &t, (const uint64_t[]){ 0, 1, 2, 3 }, 4);    /* LBN 0 in unit 0, LUN 0 */
    struct ftl_counters a = counters(ftl);
    uint64_t T = t + SEC;
    uint64_t done = write1(ftl, T, 1);
    struct ftl_counters b = counters(ftl);
    check_merges(&a, &b, 0, 0, 1, 3, 1);
    /* The copy goes to unit 1 (LUN 1). LUN 0 reads pages 0, 2, 3 back to back from T, then
     * erases unit 0; LUN 1 programs each once read, then the host page (its program is
     * charged after the copies). */
    uint64_t lun0_end = T + 3 * RD + ER;
    uint64_t lun1_end = T + RD + 4 * WR;
    CHECK_EQ_U64(done, max2(lun0_end, lun1_end));
    CHECK_EQ_U64(b.nand_user_programs - a.nand_user_programs, 1);
    CHECK(ftl_lpn_is_mapped(ftl, 1));
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* 4 KiB random overwrites of a full drive: each copies the 3 other pages of its block. */
static void test_block_closed_form(void)
{
    struct ftl_config cfg = hybrid_config(FTL_MAPPING_BLOCK, 1);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t t = 0, state = 12345;
    for (uint64_t lpn = 0; lpn < 16; lpn++) {
        write1(ftl, t += SEC, lpn);
    }
    struct ftl_counters a = counters(ftl);
    const uint64_t n = 200;
    for (uint64_t i = 0; i < n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        write1(ftl, t += SEC, (state >> 33) % 16);
    }
    struct ftl_counters b = counters(ftl);
    check_merges(&a, &b, 0, 0, n, 3 * n, n);
    CHECK_NEAR(counters_waf(&a, &b), (double)cfg.pgs_per_blk, 1e-12);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* A log block written whole in order replaces the data block: one erase, no copy. */
static void test_bast_switch(void)
{
    struct ftl_config cfg = hybrid_config(FTL_MAPPING_BAST, 2);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t t = 0;
    /* data block unit 0 (LUN 0), then its log block unit 1 (LUN 1) written 0..3 */
    write_seq(ftl, &t, (const uint64_t[]){ 0, 1, 2, 3, 0, 1, 2, 3 }, 8);
    struct ftl_counters a = counters(ftl);
    CHECK_EQ_U64(a.merge_switch + a.merge_partial + a.merge_full, 0);  /* full, not merged */
    uint64_t T = t + SEC;
    uint64_t done = write1(ftl, T, 0);
    struct ftl_counters b = counters(ftl);
    check_merges(&a, &b, 1, 0, 0, 0, 1);
    /* LUN 0 erases unit 0 from T; the new log block is unit 2 (LUN 0's next free), whose
     * program waits for that erase. */
    CHECK_EQ_U64(done, T + ER + WR);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* A log block written in order 0..k-1: the data block's pages from k on are copied in. */
static void test_bast_partial(void)
{
    struct ftl_config cfg = hybrid_config(FTL_MAPPING_BAST, 1);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t t = 0;
    /* LBN 0: data unit 0 (LUN 0), log unit 1 (LUN 1) with offsets 0, 1; LBN 1: data
     * unit 2 (LUN 0) */
    write_seq(ftl, &t, (const uint64_t[]){ 0, 1, 2, 3, 0, 1, 4 }, 7);
    struct ftl_counters a = counters(ftl);
    uint64_t T = t + SEC;
    uint64_t done = write1(ftl, T, 4);     /* LBN 1 needs the only log block */
    struct ftl_counters b = counters(ftl);
    check_merges(&a, &b, 0, 1, 0, 2, 1);
    /* LUN 0 reads pages 2 and 3 of unit 0 from T, then erases it; LUN 1 programs them into
     * unit 1 at offsets 2 and 3, then the host page into LBN 1's new log block, unit 3. */
    uint64_t lun0 = T, lun1 = T;
    fifo(&lun1, fifo(&lun0, T, RD), WR);
    fifo(&lun1, fifo(&lun0, T, RD), WR);
    fifo(&lun0, T, ER);
    fifo(&lun1, T, WR);
    CHECK_EQ_U64(lun0, T + 2 * RD + ER);
    CHECK_EQ_U64(lun1, T + RD + 3 * WR);
    CHECK_EQ_U64(done, max2(lun0, lun1));
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* A log block written out of order: a new block gets every valid page, both erased. */
static void test_bast_full(void)
{
    struct ftl_config cfg = hybrid_config(FTL_MAPPING_BAST, 1);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t t = 0;
    /* LBN 0: data unit 0 (LUN 0), log unit 1 (LUN 1) holding offset 1 first; LBN 1: data
     * unit 2 (LUN 0) */
    write_seq(ftl, &t, (const uint64_t[]){ 0, 1, 2, 3, 1, 4 }, 6);
    struct ftl_counters a = counters(ftl);
    uint64_t T = t + SEC;
    uint64_t done = write1(ftl, T, 4);
    struct ftl_counters b = counters(ftl);
    check_merges(&a, &b, 0, 0, 1, 4, 2);
    /* The new data block is unit 3 (LUN 1): page 0 from unit 0, page 1 from the log
     * (LUN 1 itself), pages 2, 3 from unit 0; then unit 0 and the log are erased, and the
     * host page goes to LBN 1's new log block, unit 4 (LUN 0). */
    uint64_t lun0 = T, lun1 = T;
    fifo(&lun1, fifo(&lun0, T, RD), WR);   /* page 0 */
    fifo(&lun1, fifo(&lun1, T, RD), WR);   /* page 1 */
    fifo(&lun1, fifo(&lun0, T, RD), WR);   /* page 2 */
    fifo(&lun1, fifo(&lun0, T, RD), WR);   /* page 3 */
    fifo(&lun0, T, ER);                    /* old data block */
    fifo(&lun1, T, ER);                    /* log block */
    fifo(&lun0, T, WR);                    /* the host page */
    CHECK_EQ_U64(lun0, T + 3 * RD + ER + WR);
    CHECK_EQ_U64(lun1, T + 2 * RD + 4 * WR + ER);
    CHECK_EQ_U64(done, max2(lun0, lun1));
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* Rewriting the drive sequentially: every merge is a switch. */
static void test_bast_sequential(void)
{
    struct ftl_config cfg = hybrid_config(FTL_MAPPING_BAST, 2);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t t = 0;
    for (uint64_t pass = 0; pass < 3; pass++) {
        for (uint64_t lpn = 0; lpn < 16; lpn++) {
            write1(ftl, t += SEC, lpn);
        }
    }
    struct ftl_counters c = counters(ftl);
    /* passes 2 and 3 fill 8 log blocks; all but the last 2 were merged */
    CHECK_EQ_U64(c.merge_switch, 6);
    CHECK_EQ_U64(c.merge_partial + c.merge_full + c.merge_copied_pages, 0);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

int main(void)
{
    test_block_copy();
    test_block_closed_form();
    test_bast_switch();
    test_bast_partial();
    test_bast_full();
    test_bast_sequential();
    return check_summary();
}
