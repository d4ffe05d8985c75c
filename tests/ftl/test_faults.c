/* Fault injection: factory bad blocks (placement, GC, capacity, wear figures) and
 * unrecovered read errors (which reads fail, how often, and that a seed replays them). */
#include <stdbool.h>

#include "femu_ftl/engine.h"
#include "flash/geometry.h"
#include "flash/line_lists.h"
#include "flash/p2l.h"
#include "map/page_map.h"
#include "ftl_test_util.h"
#include "rng.h"

enum { RD = 40000, LATER = 1000000000 };

static struct ftl_config with_bad_blocks(struct ftl_config cfg, uint64_t pcent)
{
    cfg.bad_blk_pcent = pcent;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    return cfg;
}

/* Every programmed page lies on a good block, and lines with bad blocks were used. */
static void check_no_page_on_bad_block(const struct ftl *ftl)
{
    uint64_t on_bad = 0, beside_bad = 0;
    for (uint64_t ppa = 0; ppa < ftl->geo.phys_pages; ppa++) {
        uint32_t line = ppa_line(ftl, (uint32_t)ppa), lun = ppa_lun(ftl, (uint32_t)ppa);
        if (p2l_get(ftl, ppa) == P2L_FREE) {
            continue;
        }
        on_bad += ftl_block_is_bad(ftl, line, lun);
        beside_bad += ftl->lines[line].capacity < ftl->pgs_per_line;
    }
    CHECK_EQ_U64(on_bad, 0);
    CHECK(beside_bad > 0 || ftl->luns == 1);   /* one LUN: a line is all good or all bad */
}

static void test_bad_block_layout(void)
{
    struct ftl_config cfg = with_bad_blocks(small_config(2, 4, 100, 8, 8), 10);
    struct ftl *a = make_ftl(&cfg), *b = make_ftl(&cfg);
    const struct ftl_geometry *g = ftl_geometry_of(a);
    CHECK_EQ_U64(g->bad_blocks_per_lun, 10);
    bool same = true;
    for (uint32_t lun = 0; lun < g->luns; lun++) {
        uint64_t bad = 0;
        for (uint64_t line = 0; line < g->lines; line++) {
            bad += ftl_block_is_bad(a, line, lun);
            same = same && ftl_block_is_bad(a, line, lun) == ftl_block_is_bad(b, line, lun);
        }
        CHECK_EQ_U64(bad, 10);  /* exactly floor(100 * 10 / 100) on every LUN */
    }
    CHECK(same);                /* the same seed chooses the same blocks */
    struct ftl_wear w;
    ftl_get_wear(a, &w);
    uint64_t needed = (g->logical_pages + 7) / 8;
    CHECK_EQ_U64(w.blocks, 800);
    CHECK_EQ_U64(w.bad_blocks, 80);
    CHECK_EQ_U64(w.spare_blocks_total, 800 - needed);
    CHECK_EQ_U64(w.spare_blocks, 800 - needed - 80);
    struct ftl_gauges gg;
    ftl_get_gauges(a, &gg);
    CHECK_EQ_U64(gg.free_pages, g->good_pages);
    CHECK_EQ_U64(g->good_pages, g->phys_pages - 80 * 8);
    CHECK_CONSISTENT(a);

    /* another seed, other blocks */
    cfg.fault_seed = 2;
    struct ftl *c = make_ftl(&cfg);
    same = true;
    for (uint64_t line = 0; line < g->lines; line++) {
        same = same && ftl_block_is_bad(a, line, 0) == ftl_block_is_bad(c, line, 0);
    }
    CHECK(!same);
    ftl_destroy(a);
    ftl_destroy(b);
    ftl_destroy(c);
}

/* Mixed writes, trims, formats and reads against a model of the mapped LPNs. */
static void random_workload(struct ftl_config cfg, uint64_t ops, uint64_t seed)
{
    struct ftl *ftl = make_ftl(&cfg);
    const struct ftl_geometry *g = ftl_geometry_of(ftl);
    uint64_t pages = g->logical_pages, now = 0, done;
    bool *mapped = calloc(pages, sizeof(bool));
    struct rng r;
    rng_seed(&r, seed);
    for (uint64_t i = 0; i < ops; i++) {
        uint64_t kind = rng_below(&r, 1000), n = 1 + rng_below(&r, 8);
        uint64_t lpn = rng_below(&r, 2) ? rng_below(&r, pages / 8) : rng_below(&r, pages);
        lpn = lpn + n <= pages ? lpn : pages - n;
        struct ftl_io io = page_io(ftl, now, lpn, n,
                                   (uint32_t)rng_below(&r, g->write_pointers));
        int rc;
        if (kind < 700) {
            rc = ftl_write(ftl, &io, &done);
            for (uint64_t p = lpn; p < lpn + n; p++) {
                mapped[p] = true;
            }
        } else if (kind < 850) {
            rc = ftl_read(ftl, &io, &done);
        } else if (kind < 990) {
            rc = ftl_trim(ftl, &io, &done);
            for (uint64_t p = lpn; p < lpn + n; p++) {
                mapped[p] = false;
            }
        } else {
            io = page_io(ftl, now, lpn, n * 16 <= pages - lpn ? n * 16 : pages - lpn, 0);
            rc = ftl_format(ftl, &io, kind & 1, &done);
            for (uint64_t p = lpn; p < lpn + io.nlb / cfg.secs_per_pg; p++) {
                mapped[p] = false;
            }
        }
        if (!check_record(rc == FTL_OK, __FILE__, __LINE__, "request succeeds")) {
            fprintf(stderr, "    op %llu (kind %llu): %s\n", (unsigned long long)i,
                    (unsigned long long)kind, ftl_status_str(rc));
            break;
        }
        ftl_background_gc(ftl, now);
        now += rng_below(&r, 200000);
        if (i % (ops / 8) == 0) {
            CHECK_CONSISTENT(ftl);
        }
    }
    uint64_t wrong = 0;
    for (uint64_t p = 0; p < pages; p++) {
        wrong += ftl_lpn_is_mapped(ftl, p) != mapped[p];
    }
    CHECK_EQ_U64(wrong, 0);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK(c.gc_runs > 0);
    check_no_page_on_bad_block(ftl);
    CHECK_CONSISTENT(ftl);
    free(mapped);
    ftl_destroy(ftl);
}

static void test_bad_blocks_workload(void)
{
    static const enum ftl_gc_mode modes[] = { FTL_GC_PACED, FTL_GC_LINE };
    static const enum ftl_placement placements[] = { FTL_PLACEMENT_SINGLE,
                                                     FTL_PLACEMENT_HOTCOLD,
                                                     FTL_PLACEMENT_STREAM };
    for (int m = 0; m < 2; m++) {
        for (int p = 0; p < 3; p++) {
            struct ftl_config cfg = small_config(2, 2, 64, 8, 8);
            cfg.gc_mode = modes[m];
            cfg.placement = placements[p];
            cfg = with_bad_blocks(cfg, 10);
            random_workload(cfg, 150000, 10 + 3 * m + p);
        }
    }
    /* one LUN at 50%: half the lines are bad blocks only and never used */
    struct ftl_config one = with_bad_blocks(small_config(1, 1, 128, 16, 8), 50);
    struct ftl *ftl = make_ftl(&one);
    struct ftl_gauges gg;
    ftl_get_gauges(ftl, &gg);
    CHECK_EQ_U64(gg.free_lines, 64);
    ftl_destroy(ftl);
    one.gc_mode = FTL_GC_LINE;
    random_workload(one, 60000, 21);
    one.gc_mode = FTL_GC_PACED;
    random_workload(one, 60000, 22);
}

/* Background GC takes a victim with 1/8 of its good pages invalid, not of the line's. */
static void test_victim_rule_uses_capacity(void)
{
    struct ftl_config cfg = with_bad_blocks(small_config(1, 2, 256, 16, 1), 50);
    cfg.gc_mode = FTL_GC_LINE;
    struct ftl *ftl = make_ftl(&cfg);
    /* the first line in the free queue with one good block (16 of 32 pages) */
    uint32_t half = NO_LINE;
    for (uint32_t i = 0; i < ftl->free_count && half == NO_LINE; i++) {
        uint32_t id = ftl->free_queue[(ftl->pool_head[0] + i) % ftl->pool_cap];
        half = ftl->lines[id].capacity == 16 ? id : NO_LINE;
    }
    CHECK(half != NO_LINE);
    uint64_t lpn = 0;
    while (ftl->lines[half].state != LINE_FULL) {
        CHECK(write_pages(ftl, 0, lpn++, 1, NULL) == FTL_OK);
    }
    /* 2 pages invalid: 1/8 of 16, under 1/8 of 32 */
    uint32_t first = NO_LINE;
    for (uint64_t p = 0; p < lpn && first == NO_LINE; p++) {
        first = ppa_line(ftl, l2p_get(ftl, p)) == half ? (uint32_t)p : NO_LINE;
    }
    CHECK(write_pages(ftl, 0, first, 2, NULL) == FTL_OK);
    CHECK_EQ_U64(ftl->lines[half].invalid, 2);
    CHECK_EQ_U64(victim_peek(ftl), half);
    ftl->geo.gc_thres_lines = ftl->free_count;
    CHECK_EQ_U64(ftl_background_gc(ftl, 0), 1);
    CHECK_EQ_U64(ftl->lines[half].state, LINE_FREE);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

static int read_range(struct ftl *ftl, uint64_t now, uint64_t lpn, uint64_t n, bool verify,
                      uint64_t *done)
{
    struct ftl_io io = page_io(ftl, now, lpn, n, 0);
    return verify ? ftl_verify(ftl, &io, done) : ftl_read(ftl, &io, done);
}

static void test_read_always_fails(void)
{
    struct ftl_config cfg = small_config(2, 2, 32, 4, 8);
    struct ftl *clean = make_ftl(&cfg);
    cfg.read_uncor_ppm = 1000000;
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t done, clean_done;
    CHECK(write_pages(ftl, 0, 4, 4, NULL) == FTL_OK);
    CHECK(write_pages(clean, 0, 4, 4, NULL) == FTL_OK);
    /* unmapped pages: no flash read, nothing fails */
    CHECK(read_range(ftl, LATER, 0, 4, false, &done) == FTL_OK);
    CHECK(read_range(ftl, LATER, 8, 4, true, &done) == FTL_OK);
    CHECK_EQ_U64(done, LATER);
    /* pages 2..5: 4 and 5 are mapped, both fail; the first names the command's error */
    CHECK(read_range(ftl, LATER, 2, 4, false, &done) == FTL_E_UNCORRECTABLE);
    CHECK(read_range(clean, LATER, 2, 4, false, &clean_done) == FTL_OK);
    CHECK_EQ_U64(done, clean_done);     /* the flash time was spent */
    CHECK_EQ_U64(ftl_read_error_lpn(ftl), 4);
    CHECK(read_range(ftl, 2ull * LATER, 5, 3, true, &done) == FTL_E_UNCORRECTABLE);
    CHECK_EQ_U64(done, 2ull * LATER + RD);
    CHECK_EQ_U64(ftl_read_error_lpn(ftl), 5);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.read_errors, 5);
    CHECK_EQ_U64(c.nand_user_reads, 5);
    CHECK_EQ_U64(c.host_read_cmds, 2);
    CHECK_EQ_U64(c.host_verify_cmds, 2);

    /* GC reads never fail: a write workload with GC counts no error */
    uint64_t pages = ftl_geometry_of(ftl)->logical_pages;
    struct rng r;
    rng_seed(&r, 3);
    for (int i = 0; i < 20000; i++) {
        CHECK(write_pages(ftl, 0, rng_below(&r, pages), 1, NULL) == FTL_OK);
        ftl_background_gc(ftl, 0);
    }
    ftl_get_counters(ftl, &c);
    CHECK(c.nand_gc_reads > 0);
    CHECK_EQ_U64(c.read_errors, 5);
    CHECK_CONSISTENT(ftl);

    /* the engine serves a failed read: its flash time, and the status */
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    struct ftl_request rq = { .op = FTL_OP_READ, .arrival_ns = 10ull * LATER, .slba = 0,
                              .nlb = 8 };
    int tag;
    struct ftl_served served;
    CHECK(ftl_engine_submit(e, &rq, &tag, &served) == FTL_E_UNCORRECTABLE);
    CHECK_EQ_U64(served.done_ns, 10ull * LATER + RD);
    uint64_t due = 0;
    CHECK(ftl_engine_next_due(e, &due) && due == served.done_ns);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
    ftl_destroy(clean);
}

/* Page reads of a preconditioned device; returns read_errors. */
static uint64_t read_errors_at(uint64_t ppm, uint64_t seed, uint64_t reads, uint64_t *first)
{
    struct ftl_config cfg = small_config(2, 2, 32, 4, 8);
    cfg.read_uncor_ppm = ppm;
    cfg.fault_seed = seed;
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t pages = ftl_geometry_of(ftl)->logical_pages, done, failed_cmds = 0;
    CHECK(write_pages(ftl, 0, 0, pages, NULL) == FTL_OK);
    *first = UINT64_MAX;
    for (uint64_t i = 0; i < reads / 4; i++) {
        int rc = read_range(ftl, 0, (i * 4) % (pages - 4), 4, i & 1, &done);
        if (rc == FTL_E_UNCORRECTABLE) {
            failed_cmds++;
            if (*first == UINT64_MAX) {
                *first = i;
            }
        } else {
            CHECK(rc == FTL_OK);
        }
    }
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK(failed_cmds <= c.read_errors);
    ftl_destroy(ftl);
    return c.read_errors;
}

static void test_read_error_rate(void)
{
    const uint64_t reads = 400000;     /* 400 failures expected at 1000 ppm */
    uint64_t first_a, first_b, first_c;
    uint64_t a = read_errors_at(1000, 1, reads, &first_a);
    uint64_t b = read_errors_at(1000, 1, reads, &first_b);
    CHECK_EQ_U64(a, b);                 /* deterministic for a seed */
    CHECK_EQ_U64(first_a, first_b);
    CHECK(a >= 300 && a <= 500);        /* 400 +- 5 sigma */
    uint64_t c = read_errors_at(1000, 99, reads, &first_c);
    CHECK(c >= 300 && c <= 500);
    CHECK(first_c != first_a || c != a);
    CHECK_EQ_U64(read_errors_at(0, 1, 4000, &first_c), 0);
}

int main(void)
{
    test_bad_block_layout();
    test_bad_blocks_workload();
    test_victim_rule_uses_capacity();
    test_read_always_fails();
    test_read_error_rate();
    return check_summary();
}
