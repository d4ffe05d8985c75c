/* Format NVM (with and without erase), verify, the engine's VERIFY and FORMAT, and the
 * wear figures kept incrementally against a brute-force scan. */
#include "femu_ftl/engine.h"
#include "flash/geometry.h"
#include "map/page_map.h"
#include "place/write_count.h"
#include "ftl_test_util.h"
#include "rng.h"

enum { RD = 40000, WR = 200000, ER = 2000000, LATER = 1000000000 };

/* 2 channels x 2 LUNs, 32 lines of 4 pages per block: 16 pages per line. */
static struct ftl_config tiny(void)
{
    return small_config(2, 2, 32, 4, 8);
}

static int format_pages(struct ftl *ftl, uint64_t now, uint64_t lpn, uint64_t npages,
                        bool erase, uint64_t *done)
{
    struct ftl_io io = page_io(ftl, now, lpn, npages, 0);
    return ftl_format(ftl, &io, erase, done);
}

static void test_format_unmaps_range(void)
{
    struct ftl_config cfg = tiny();
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t done;
    CHECK(write_pages(ftl, 0, 0, 40, NULL) == FTL_OK);
    struct ftl_counters before, after;
    ftl_get_counters(ftl, &before);
    CHECK(format_pages(ftl, LATER, 10, 20, false, &done) == FTL_OK);
    CHECK_EQ_U64(done, LATER);      /* no erase: no flash time */
    for (uint64_t lpn = 0; lpn < 40; lpn++) {
        bool inside = lpn >= 10 && lpn < 30;
        CHECK(ftl_lpn_is_mapped(ftl, lpn) == !inside);
        CHECK_EQ_U64(ftl_lpn_write_count(ftl, lpn), 1);   /* counts stay without erase */
    }
    ftl_get_counters(ftl, &after);
    CHECK_EQ_U64(after.format_cmds, 1);
    CHECK_EQ_U64(after.format_erased_blocks, 0);
    CHECK_EQ_U64(after.nand_erases, before.nand_erases);
    CHECK_EQ_U64(after.host_trim_cmds, 0);
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(g.valid_pages, 20);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

static void test_format_rejects(void)
{
    struct ftl_config cfg = tiny();
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t cap = ftl_geometry_of(ftl)->logical_sectors, done = 77;
    CHECK(write_pages(ftl, 0, 0, 4, NULL) == FTL_OK);
    struct ftl_io io = { .slba = 1, .nlb = 8 };
    CHECK(ftl_format(ftl, &io, true, &done) == FTL_E_INVAL);
    io = (struct ftl_io){ .slba = 0, .nlb = 12 };
    CHECK(ftl_format(ftl, &io, false, &done) == FTL_E_INVAL);
    io = (struct ftl_io){ .slba = 0, .nlb = 0 };
    CHECK(ftl_format(ftl, &io, false, &done) == FTL_E_INVAL);
    io = (struct ftl_io){ .slba = cap - 8, .nlb = 16 };
    CHECK(ftl_format(ftl, &io, false, &done) == FTL_E_RANGE);
    CHECK_EQ_U64(done, 77);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.format_cmds, 0);     /* rejected commands change nothing */
    for (uint64_t lpn = 0; lpn < 4; lpn++) {
        CHECK(ftl_lpn_is_mapped(ftl, lpn));
    }
    ftl_destroy(ftl);
}

static void test_format_erase(void)
{
    struct ftl_config cfg = tiny();
    struct ftl *ftl = make_ftl(&cfg);
    uint32_t ppl = ftl->pgs_per_line, luns = ftl->luns;
    uint64_t done;
    /* lines 0..2 full with LPNs 0..47, then 4 pages in an open line, one LPN twice */
    CHECK(write_pages(ftl, 0, 0, 3 * ppl, NULL) == FTL_OK);
    CHECK(write_pages(ftl, 0, 100, 4, NULL) == FTL_OK);
    CHECK(write_pages(ftl, 0, 5, 1, NULL) == FTL_OK);
    uint32_t line0 = ppa_line(ftl, l2p_get(ftl, 0));
    uint32_t line1 = ppa_line(ftl, l2p_get(ftl, ppl));
    uint32_t line2 = ppa_line(ftl, l2p_get(ftl, 2 * ppl));
    struct ftl_gauges g0, g1;
    ftl_get_gauges(ftl, &g0);

    /* LPNs 0..2*ppl-1 and 100..103: lines 0 and 1 empty, the open line keeps its pages */
    CHECK(format_pages(ftl, LATER, 0, 2 * ppl, true, &done) == FTL_OK);
    CHECK_EQ_U64(done, LATER + 2 * ER);     /* two erases queue on every LUN */
    CHECK_EQ_U64(ftl->lines[line0].state, LINE_FREE);
    CHECK_EQ_U64(ftl->lines[line1].state, LINE_FREE);
    CHECK_EQ_U64(ftl->lines[line2].state, LINE_FULL);
    ftl_get_gauges(ftl, &g1);
    CHECK_EQ_U64(g1.free_lines, g0.free_lines + 2);
    CHECK_EQ_U64(g1.valid_pages, ppl + 4);
    for (uint64_t lpn = 0; lpn < 2 * ppl; lpn++) {
        CHECK(!ftl_lpn_is_mapped(ftl, lpn));
        CHECK_EQ_U64(ftl_lpn_write_count(ftl, lpn), 0);
    }
    CHECK_EQ_U64(ftl_lpn_write_count(ftl, 2 * ppl), 1);
    CHECK_EQ_U64(ftl_lpn_write_count(ftl, 100), 1);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.format_cmds, 1);
    CHECK_EQ_U64(c.format_erased_blocks, 2 * luns);
    CHECK_EQ_U64(c.nand_erases, 2 * luns);
    CHECK_EQ_U64(c.gc_erased_blocks, 0);
    for (uint32_t lun = 0; lun < luns; lun++) {
        CHECK_EQ_U64(ftl_block_erase_count(ftl, line0, lun), 1);
        CHECK_EQ_U64(ftl_block_erase_count(ftl, line2, lun), 0);
        CHECK(!ftl_block_is_bad(ftl, line0, lun));
    }
    struct ftl_wear w;
    ftl_get_wear(ftl, &w);
    CHECK_EQ_U64(w.erase_sum, 2 * luns);
    CHECK_EQ_U64(w.erase_max, 1);
    CHECK_EQ_U64(w.erase_min, 0);
    CHECK_EQ_U64(w.blocks, 32 * luns);
    CHECK_EQ_U64(w.bad_blocks, 0);
    CHECK_EQ_U64(w.pe_cycles, 3000);
    CHECK_CONSISTENT(ftl);

    /* the highest written LPN is found again when the format takes the top of it */
    CHECK(format_pages(ftl, LATER, 64, 64, true, &done) == FTL_OK);
    ftl_get_gauges(ftl, &g1);
    CHECK_EQ_U64(g1.max_written_lpn_plus_one, 3 * ppl);
    CHECK_CONSISTENT(ftl);
    /* formatting everything leaves nothing written */
    CHECK(format_pages(ftl, LATER, 0, ftl_geometry_of(ftl)->logical_pages, true, &done) ==
          FTL_OK);
    ftl_get_gauges(ftl, &g1);
    CHECK_EQ_U64(g1.max_written_lpn_plus_one, 0);
    CHECK_EQ_U64(g1.valid_pages, 0);
    CHECK_EQ_U64(g1.free_lines + g1.open_lines, 32);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* The highest written LPN is found again across long unwritten stretches, and counts
 * scattered through a long range all go back to 0. */
static void test_format_erase_scattered_counts(void)
{
    struct ftl_config cfg = tiny();
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t pages = ftl_geometry_of(ftl)->logical_pages, done;
    static const uint64_t marks[] = { 5, 16, 31, 47, 48, 200, 215, 250 };
    for (unsigned i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
        CHECK(write_pages(ftl, 0, marks[i], 1, NULL) == FTL_OK);
    }
    struct ftl_gauges g;
    CHECK(format_pages(ftl, 0, 49, pages - 49, true, &done) == FTL_OK);
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(g.max_written_lpn_plus_one, 49);
    CHECK_EQ_U64(ftl_lpn_write_count(ftl, 200), 0);
    CHECK_EQ_U64(ftl_lpn_write_count(ftl, 215), 0);
    CHECK_CONSISTENT(ftl);
    CHECK(format_pages(ftl, 0, 17, 32, true, &done) == FTL_OK);
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(g.max_written_lpn_plus_one, 17);
    CHECK_EQ_U64(ftl_lpn_write_count(ftl, 16), 1);
    CHECK_EQ_U64(ftl_lpn_write_count(ftl, 31), 0);
    CHECK_CONSISTENT(ftl);
    CHECK(format_pages(ftl, 0, 6, 11, true, &done) == FTL_OK);
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(g.max_written_lpn_plus_one, 6);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* Counts past 16 bits live in the overflow table; a format brings them back to 0. */
static void test_format_erase_overflow_count(void)
{
    struct ftl_config cfg = tiny();
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t done;
    CHECK(wc_set(ftl, 3, 70000));
    CHECK(write_pages(ftl, 0, 3, 1, NULL) == FTL_OK);
    CHECK_EQ_U64(ftl_lpn_write_count(ftl, 3), 70001);
    CHECK(format_pages(ftl, 0, 0, 4, true, &done) == FTL_OK);
    CHECK_EQ_U64(ftl_lpn_write_count(ftl, 3), 0);
    CHECK_CONSISTENT(ftl);
    CHECK(write_pages(ftl, 0, 3, 1, NULL) == FTL_OK);
    CHECK_EQ_U64(ftl_lpn_write_count(ftl, 3), 1);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* Paced GC may owe the flash a collection's moves when a format comes: the format needs
 * nothing of it (the collection is done in the maps), erases every emptied line, and GC
 * carries on, charging what it owed. */
static void test_format_with_paced_debt(void)
{
    struct ftl_config cfg = small_config(1, 2, 512, 4, 1);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t pages = ftl_geometry_of(ftl)->logical_pages, now = 0, done;
    struct rng r;
    rng_seed(&r, 7);
    CHECK(write_pages(ftl, 0, 0, pages, NULL) == FTL_OK);
    for (int i = 0; i < 100000 && ftl->gc_debt_moves == 0; i++) {
        CHECK(write_pages(ftl, now, rng_below(&r, pages), 1, &done) == FTL_OK);
        ftl_background_gc(ftl, now);
        now += 1000;
    }
    CHECK(ftl->gc_debt_moves > 0);
    CHECK_EQ_U64(ftl->gc_line, NO_LINE);
    CHECK_CONSISTENT(ftl);
    CHECK(format_pages(ftl, now, 0, pages, true, &done) == FTL_OK);
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(g.free_lines + g.open_lines, 512);
    CHECK_CONSISTENT(ftl);
    /* and GC carries on normally afterwards */
    for (int i = 0; i < 20000; i++) {
        CHECK(write_pages(ftl, now, rng_below(&r, pages), 1, &done) == FTL_OK);
        ftl_background_gc(ftl, now);
        now += 1000;
    }
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

static void test_verify_like_read(void)
{
    struct ftl_config cfg = tiny();
    struct ftl *a = make_ftl(&cfg), *b = make_ftl(&cfg);
    uint64_t da, db;
    CHECK(write_pages(a, 0, 0, 8, NULL) == FTL_OK);
    CHECK(write_pages(b, 0, 0, 8, NULL) == FTL_OK);
    /* pages 0..9: 8 mapped (two per LUN, queued behind the programs), 2 never written */
    struct ftl_io io = page_io(a, 1000, 0, 10, 0);
    CHECK(ftl_read(a, &io, &da) == FTL_OK);
    CHECK(ftl_verify(b, &io, &db) == FTL_OK);
    CHECK_EQ_U64(da, db);
    CHECK_EQ_U64(db, 2 * WR + 2 * RD);
    struct ftl_counters ca, cb;
    ftl_get_counters(a, &ca);
    ftl_get_counters(b, &cb);
    CHECK_EQ_U64(cb.host_verify_cmds, 1);
    CHECK_EQ_U64(cb.host_read_cmds, 0);
    CHECK_EQ_U64(cb.host_read_pages, 0);
    CHECK_EQ_U64(cb.host_read_bytes, 0);
    CHECK_EQ_U64(cb.nand_user_reads, ca.nand_user_reads);
    CHECK_EQ_U64(cb.nand_user_reads, 8);
    CHECK_EQ_U64(cb.read_errors, 0);
    /* the same range errors */
    io.nlb = 0;
    CHECK(ftl_verify(b, &io, &db) == FTL_E_INVAL);
    io = (struct ftl_io){ .slba = ftl_geometry_of(b)->logical_sectors, .nlb = 1 };
    CHECK(ftl_verify(b, &io, &db) == FTL_E_RANGE);
    ftl_destroy(a);
    ftl_destroy(b);
}

static void test_engine_ops(void)
{
    struct ftl_config cfg = tiny();
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_served done;
    CHECK(e != NULL);
    struct ftl_request w = { .op = FTL_OP_WRITE, .arrival_ns = 0, .slba = 0,
                             .nlb = 16 * 8 * 2 };
    CHECK(ftl_engine_serve(e, &w, &done) == FTL_OK);
    struct ftl_request v = { .op = FTL_OP_VERIFY, .arrival_ns = LATER, .slba = 0, .nlb = 8 };
    CHECK(ftl_engine_serve(e, &v, &done) == FTL_OK);
    CHECK_EQ_U64(done.done_ns, LATER + RD);
    struct ftl_request f = { .op = FTL_OP_FORMAT, .arrival_ns = 2ull * LATER, .slba = 0,
                             .nlb = 16 * 8, .flags = FTL_REQ_ERASE };
    CHECK(ftl_engine_serve(e, &f, &done) == FTL_OK);
    CHECK_EQ_U64(done.done_ns, 2ull * LATER + ER);
    f.flags = 0;
    f.slba = 16 * 8;
    CHECK(ftl_engine_serve(e, &f, &done) == FTL_OK);
    CHECK_EQ_U64(done.done_ns, 2ull * LATER);
    f.slba = 3;
    CHECK(ftl_engine_serve(e, &f, &done) == FTL_E_INVAL);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.host_verify_cmds, 1);
    CHECK_EQ_U64(c.format_cmds, 2);
    CHECK_EQ_U64(c.format_erased_blocks, 4);
    CHECK_CONSISTENT(ftl);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/* ftl_get_wear against a scan of every block. */
static void check_wear_scan(const struct ftl *ftl)
{
    const struct ftl_geometry *g = ftl_geometry_of(ftl);
    uint32_t min = UINT32_MAX, max = 0;
    uint64_t sum = 0, bad = 0;
    for (uint64_t line = 0; line < g->lines; line++) {
        for (uint32_t lun = 0; lun < g->luns; lun++) {
            uint32_t c = ftl_block_erase_count(ftl, line, lun);
            if (ftl_block_is_bad(ftl, line, lun)) {
                bad++;
                continue;
            }
            min = c < min ? c : min;
            max = c > max ? c : max;
            sum += c;
        }
    }
    struct ftl_wear w;
    ftl_get_wear(ftl, &w);
    CHECK_EQ_U64(w.erase_min, min);
    CHECK_EQ_U64(w.erase_max, max);
    CHECK_EQ_U64(w.erase_sum, sum);
    CHECK_EQ_U64(w.bad_blocks, bad);
    CHECK_EQ_U64(w.blocks, g->blocks);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(w.erase_sum, c.nand_erases);
}

static void wear_workload(enum ftl_gc_mode mode, uint64_t seed)
{
    struct ftl_config cfg = small_config(2, 2, 48, 8, 8);
    cfg.gc_mode = mode;
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t pages = ftl_geometry_of(ftl)->logical_pages, now = 0, done;
    struct rng r;
    rng_seed(&r, seed);
    check_wear_scan(ftl);
    for (int round = 0; round < 6; round++) {
        for (int i = 0; i < 20000; i++) {
            /* hot first quarter: uneven wear, so the minimum lags */
            uint64_t lpn = rng_below(&r, 4) ? rng_below(&r, pages / 4) : rng_below(&r, pages);
            CHECK(write_pages(ftl, now, lpn, 1, &done) == FTL_OK);
            ftl_background_gc(ftl, now);
            now += 20000;
        }
        check_wear_scan(ftl);
        if (round == 3) {
            CHECK(format_pages(ftl, now, 0, pages / 2, true, &done) == FTL_OK);
            check_wear_scan(ftl);
        }
    }
    struct ftl_wear w;
    ftl_get_wear(ftl, &w);
    CHECK(w.erase_min > 0);     /* the minimum did move */
    CHECK(w.erase_max > w.erase_min);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

static void test_wear_matches_scan(void)
{
    wear_workload(FTL_GC_PACED, 1);
    wear_workload(FTL_GC_LINE, 2);
}

static void test_wear_spares(void)
{
    struct ftl_config cfg;
    ftl_config_defaults(&cfg);
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_wear w;
    ftl_get_wear(ftl, &w);
    /* 16384 blocks of 1 MiB raw, 12288 MiB logical */
    CHECK_EQ_U64(w.blocks, 16384);
    CHECK_EQ_U64(w.spare_blocks_total, 16384 - 12288);
    CHECK_EQ_U64(w.spare_blocks, 16384 - 12288);
    CHECK_EQ_U64(w.erase_min, 0);
    CHECK_EQ_U64(w.erase_max, 0);
    CHECK_EQ_U64(ftl_block_erase_count(ftl, 256, 0), 0);    /* out of range */
    CHECK(!ftl_block_is_bad(ftl, 0, 64));
    ftl_destroy(ftl);
}

int main(void)
{
    test_format_unmaps_range();
    test_format_rejects();
    test_format_erase();
    test_format_erase_scattered_counts();
    test_format_erase_overflow_count();
    test_format_with_paced_debt();
    test_verify_like_read();
    test_engine_ops();
    test_wear_matches_scan();
    test_wear_spares();
    return check_summary();
}
