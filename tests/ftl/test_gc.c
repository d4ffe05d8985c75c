/* Greedy GC: victim choice, thresholds, timing, and progress at 100% logical utilization. */
#include "ftl_internal.h"
#include "ftl_test_util.h"
#include "rng.h"

/* 1 channel x 2 LUNs x 4 pages per block: 8 pages of 512 bytes per line, 512 lines. */
static struct ftl_config lines8(void)
{
    return small_config(1, 2, 512, 4, 1);
}

static void test_greedy_victim(void)
{
    struct ftl_config cfg = lines8();
    struct ftl *ftl = make_ftl(&cfg);
    /* fill lines 0..3 (8 pages each) with lpn 0..31 */
    CHECK(write_pages(ftl, 0, 0, 32, NULL) == FTL_OK);
    uint32_t line_of[4];
    for (int l = 0; l < 4; l++) {
        line_of[l] = ppa_line(ftl, ftl->l2p[l * 8]);
    }
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(g.full_lines, 4);
    /* invalidate 2 pages of line 1, 4 of line 2, 1 of line 3 (7: line 4 stays open) */
    CHECK(write_pages(ftl, 0, 8, 2, NULL) == FTL_OK);
    CHECK(write_pages(ftl, 0, 16, 4, NULL) == FTL_OK);
    CHECK(write_pages(ftl, 0, 24, 1, NULL) == FTL_OK);
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(g.full_lines, 1);
    CHECK_EQ_U64(g.victim_lines, 3);
    CHECK_EQ_U64(victim_peek(ftl), line_of[2]);  /* fewest valid pages: 4 */
    CHECK_CONSISTENT(ftl);

    /* background GC only runs at or below its free-line threshold */
    CHECK_EQ_U64(ftl_background_gc(ftl, 0), 0);
    ftl->geo.gc_thres_lines = ftl->free_count;
    CHECK_EQ_U64(ftl_background_gc(ftl, 0), 1);
    CHECK_EQ_U64(ftl->lines[line_of[2]].state, LINE_FREE);
    CHECK_EQ_U64(victim_peek(ftl), line_of[1]);
    for (uint64_t lpn = 16; lpn < 24; lpn++) {
        CHECK(ftl_lpn_is_mapped(ftl, lpn));  /* moved, not lost */
    }
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.gc_runs, 1);
    CHECK_EQ_U64(c.gc_moved_pages, 4);
    CHECK_EQ_U64(c.nand_gc_reads, 4);
    CHECK_EQ_U64(c.gc_erased_blocks, 2);
    CHECK_EQ_U64(c.nand_erases, 2);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);

    /* background GC declines a best victim with less than 1/8 of its pages invalid */
    cfg.pgs_per_blk = 16;  /* 32 pages per line: 1/8 is 4 pages */
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    ftl = make_ftl(&cfg);
    CHECK(write_pages(ftl, 0, 0, 32, NULL) == FTL_OK);
    CHECK(write_pages(ftl, 0, 0, 3, NULL) == FTL_OK);
    ftl->geo.gc_thres_lines = ftl->free_count;
    CHECK_EQ_U64(ftl_background_gc(ftl, 0), 0);
    CHECK(write_pages(ftl, 0, 3, 1, NULL) == FTL_OK);
    ftl->geo.gc_thres_lines = ftl->free_count;
    CHECK_EQ_U64(ftl_background_gc(ftl, 0), 1);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

static void test_gc_occupies_luns(void)
{
    struct ftl_config cfg = lines8();
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t logical = ftl_geometry_of(ftl)->logical_pages;
    uint64_t now = 0, done = 0, worst = 0;
    /* fill, then overwrite everything until foreground GC has run */
    for (uint64_t i = 0; i < 3 * logical; i++) {
        CHECK(write_pages(ftl, now, i % logical, 1, &done) == FTL_OK);
        worst = max_u64(worst, done - now);
        now = done;
    }
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK(c.gc_runs > 0);
    /* a write that waited for GC took longer than one page program */
    CHECK(worst > cfg.pg_wr_lat);
    CHECK(worst >= cfg.blk_er_lat);
    ftl_destroy(ftl);
}

/* Fill every logical page, then overwrite at random; GC must keep up forever. */
static void full_device_churn(struct ftl_config cfg, uint64_t rounds, uint64_t seed)
{
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    CHECK(cfg.devsz_mb > 0);
    struct ftl *ftl = make_ftl(&cfg);
    const struct ftl_geometry *geo = ftl_geometry_of(ftl);
    uint64_t logical = geo->logical_pages;
    struct rng rng;
    rng_seed(&rng, seed);
    int failures = 0;
    uint64_t now = 0, done;
    for (uint64_t lpn = 0; lpn < logical; lpn++) {
        failures += write_pages(ftl, now, lpn, 1, &done) != FTL_OK;
    }
    uint32_t min_free = UINT32_MAX;
    for (uint64_t i = 0; i < rounds * logical; i++) {
        uint64_t lpn = rng_below(&rng, logical);
        struct ftl_io io = page_io(ftl, now, lpn, 1, (uint32_t)rng_below(&rng, geo->write_pointers));
        failures += ftl_write(ftl, &io, &done) != FTL_OK;
        now += 1000;
        if (i % 7 == 0) {
            ftl_background_gc(ftl, now);
        }
        if (ftl->free_count < min_free) {
            min_free = ftl->free_count;
        }
    }
    CHECK_EQ_U64(failures, 0);
    /* host writes never ate the line kept back for GC */
    CHECK(min_free >= 1);
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(g.valid_pages, logical);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

static void test_full_utilization(void)
{
    /* several shapes (512-byte pages, so MiB sizes come close to the bound) at the
     * smallest over-provisioning validation allows */
    struct ftl_config cfg = small_config(2, 2, 64, 64, 1);
    full_device_churn(cfg, 20, 1);
    cfg = small_config(2, 4, 40, 32, 1);
    cfg.gc_thres_pcent_high = 90;
    cfg.gc_thres_pcent = 80;
    full_device_churn(cfg, 20, 2);
    cfg.placement = FTL_PLACEMENT_HOTCOLD;
    cfg.hot_threshold = 3;
    full_device_churn(cfg, 20, 3);
    cfg.placement = FTL_PLACEMENT_STREAM;
    cfg.nstreams = 4;
    full_device_churn(cfg, 20, 4);
    cfg = small_config(1, 2, 128, 32, 1);
    cfg.placement = FTL_PLACEMENT_HOTCOLD;
    full_device_churn(cfg, 10, 5);
}

int main(void)
{
    test_greedy_victim();
    test_gc_occupies_luns();
    test_full_utilization();
    return check_summary();
}
