/*
 * mapping=fast, pinned by hand-computed cases on the tiny geometry of hybrid_test_util.h
 * with log_blocks=3 (one sequential log, SW, and two random ones, RW): the SW's switch and
 * partial merges, and an RW victim whose pages belong to three logical blocks, each fully
 * merged (FAST's rule: every data block the victim touches), with their times.
 */
#include "hybrid_test_util.h"

#include "flash/ftl_handle.h"
#include "map/page_map.h"

/* The SW written whole, in order, becomes the data block when the next SW starts. */
static void test_sw_switch(void)
{
    struct ftl_config cfg = hybrid_config(FTL_MAPPING_FAST, 3);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t t = 0;
    /* LBN 0: data unit 0 (LUN 0), SW unit 1 (LUN 1) with 0..3; LBN 1: data unit 2 */
    write_seq(ftl, &t, (const uint64_t[]){ 0, 1, 2, 3, 0, 1, 2, 3, 4 }, 9);
    struct ftl_counters a = counters(ftl);
    uint64_t T = t + SEC;
    uint64_t done = write1(ftl, T, 4);     /* offset 0 of LBN 1: a new SW */
    struct ftl_counters b = counters(ftl);
    check_merges(&a, &b, 1, 0, 0, 0, 1);
    /* LUN 0 erases unit 0 from T; the new SW is unit 3 (LUN 1), programmed from T */
    CHECK_EQ_U64(done, T + ER);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* The SW written in order 0..1: pages 2, 3 of the data block are copied in. */
static void test_sw_partial(void)
{
    struct ftl_config cfg = hybrid_config(FTL_MAPPING_FAST, 3);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t t = 0;
    write_seq(ftl, &t, (const uint64_t[]){ 0, 1, 2, 3, 0, 1, 4 }, 7);
    struct ftl_counters a = counters(ftl);
    uint64_t T = t + SEC;
    uint64_t done = write1(ftl, T, 4);
    struct ftl_counters b = counters(ftl);
    check_merges(&a, &b, 0, 1, 0, 2, 1);
    /* LUN 0 reads pages 2, 3 of unit 0, then erases it; LUN 1 programs them into the SW
     * (unit 1), then the host page into the new SW, unit 3 */
    uint64_t lun0 = T, lun1 = T;
    fifo(&lun1, fifo(&lun0, T, RD), WR);
    fifo(&lun1, fifo(&lun0, T, RD), WR);
    fifo(&lun0, T, ER);
    fifo(&lun1, T, WR);
    CHECK_EQ_U64(done, lun0 > lun1 ? lun0 : lun1);
    CHECK_EQ_U64(done, T + 2 * RD + ER);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* Both RWs full: the oldest is the victim, and each of the three LBNs with a valid page in
 * it is merged in full, taking its pages from its data block and both RWs. */
static void test_rw_victim(void)
{
    struct ftl_config cfg = hybrid_config(FTL_MAPPING_FAST, 3);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t t = 0;
    /* data units 0 (LBN 0, LUN 0), 1 (LBN 1, LUN 1), 2 (LBN 2, LUN 0); RW1 = unit 3
     * (LUN 1) holds 1, 5, 9, 2; RW2 = unit 4 (LUN 0) holds 6, 10, 3, 7 */
    write_seq(ftl, &t, (const uint64_t[]){ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 }, 12);
    write_seq(ftl, &t, (const uint64_t[]){ 1, 5, 9, 2, 6, 10, 3, 7 }, 8);
    struct ftl_counters a = counters(ftl);
    CHECK_EQ_U64(a.merge_switch + a.merge_partial + a.merge_full, 0);
    uint64_t T = t + SEC;
    uint64_t done = write1(ftl, T, 11);
    struct ftl_counters b = counters(ftl);
    /* LBN 0: 4 pages; LBN 1: 4; LBN 2: 8, 9, 10 (11 is the page being written) */
    check_merges(&a, &b, 0, 0, 3, 11, 4);
    uint64_t lun[2] = { T, T };
    /* LBN 0 into unit 5 (LUN 1): 0 from unit 0, 1, 2 from RW1, 3 from RW2; unit 0 erased */
    fifo(&lun[1], fifo(&lun[0], T, RD), WR);
    fifo(&lun[1], fifo(&lun[1], T, RD), WR);
    fifo(&lun[1], fifo(&lun[1], T, RD), WR);
    fifo(&lun[1], fifo(&lun[0], T, RD), WR);
    fifo(&lun[0], T, ER);
    /* LBN 1 into unit 6 (LUN 0): 4 from unit 1, 5 from RW1, 6, 7 from RW2; unit 1 erased */
    fifo(&lun[0], fifo(&lun[1], T, RD), WR);
    fifo(&lun[0], fifo(&lun[1], T, RD), WR);
    fifo(&lun[0], fifo(&lun[0], T, RD), WR);
    fifo(&lun[0], fifo(&lun[0], T, RD), WR);
    fifo(&lun[1], T, ER);
    /* LBN 2 into unit 7 (LUN 1): 8 from unit 2, 9 from RW1, 10 from RW2; unit 2 erased */
    fifo(&lun[1], fifo(&lun[0], T, RD), WR);
    fifo(&lun[1], fifo(&lun[1], T, RD), WR);
    fifo(&lun[1], fifo(&lun[0], T, RD), WR);
    fifo(&lun[0], T, ER);
    fifo(&lun[1], T, ER);       /* the victim, RW1 */
    /* page 11 now fits LBN 2's new data block at offset 3 (unit 7, LUN 1) */
    fifo(&lun[1], T, WR);
    CHECK_EQ_U64(done, lun[0] > lun[1] ? lun[0] : lun[1]);
    CHECK_EQ_U64(l2p_get(ftl, 11), 7 * 4 + 3);
    CHECK_EQ_U64(b.nand_user_programs - a.nand_user_programs, 1);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

int main(void)
{
    test_sw_switch();
    test_sw_partial();
    test_rw_victim();
    return check_summary();
}
