/* Hot/cold placement: classification of host and GC writes, and its effect on WAF. */
#include "flash/ftl_handle.h"
#include "ftl_test_util.h"
#include "ftl_wp_of_lpn.h"
#include "rng.h"

enum { HOT = 0, COLD = 1 };

/* A small FTL (2 channels x 2 LUNs, 64 blocks of 64 pages, the most logical space it
 * allows) placing hot/cold by this threshold, its counts halved every `decay` host page
 * writes (0: exact counts). */
static struct ftl *hotcold_ftl(uint64_t threshold, uint64_t decay)
{
    struct ftl_config cfg = small_config(2, 2, 64, 64, 1);
    cfg.placement = FTL_PLACEMENT_HOTCOLD;
    cfg.hot_threshold = threshold;
    cfg.hot_decay = decay;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    return make_ftl(&cfg);
}

static void test_classification(void)
{
    struct ftl *ftl = hotcold_ftl(2, 0);
    /* writes 1 and 2 are cold (count <= 2), the third is hot (count 3 > 2) */
    CHECK(write_pages(ftl, 0, 7, 1, NULL) == FTL_OK);
    CHECK_EQ_U64(wp_of_lpn(ftl, 7), COLD);
    CHECK(write_pages(ftl, 0, 7, 1, NULL) == FTL_OK);
    CHECK_EQ_U64(wp_of_lpn(ftl, 7), COLD);
    CHECK(write_pages(ftl, 0, 7, 1, NULL) == FTL_OK);
    CHECK_EQ_U64(wp_of_lpn(ftl, 7), HOT);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.wp_host_pages[COLD], 2);
    CHECK_EQ_U64(c.wp_host_pages[HOT], 1);
    /* the two streams own different open lines */
    CHECK(ftl->wps[HOT].line != NO_LINE && ftl->wps[COLD].line != NO_LINE);
    CHECK(ftl->wps[HOT].line != ftl->wps[COLD].line);
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(g.open_lines, 2);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

static void test_threshold_zero_is_one_stream(void)
{
    struct ftl *ftl = hotcold_ftl(0, 0);
    uint64_t logical = ftl_geometry_of(ftl)->logical_pages;
    struct rng rng;
    rng_seed(&rng, 3);
    for (uint64_t i = 0; i < 6 * logical; i++) {
        CHECK(write_pages(ftl, 0, rng_below(&rng, logical), 1, NULL) == FTL_OK);
    }
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK(c.gc_moved_pages > 0);
    CHECK_EQ_U64(c.wp_host_pages[COLD] + c.wp_gc_pages[COLD], 0);
    CHECK_EQ_U64(c.wp_host_pages[HOT], c.nand_user_programs);
    ftl_destroy(ftl);
}

/* Skewed overwrites on a full device: 90% of writes hit 10% of the LPNs. */
static struct ftl_counters skewed_run(enum ftl_placement placement, uint64_t threshold)
{
    struct ftl_config cfg = small_config(4, 4, 64, 32, 1);
    cfg.placement = placement;
    cfg.hot_threshold = threshold;
    cfg.devsz_mb = 6;  /* 75% of the 8 MiB raw, as the labs' configurations */
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t logical = ftl_geometry_of(ftl)->logical_pages, hot = logical / 10;
    uint64_t now = 0, done;
    struct rng rng;
    rng_seed(&rng, 42);
    for (uint64_t lpn = 0; lpn < logical; lpn++) {
        write_pages(ftl, now, lpn, 1, &done);
    }
    struct ftl_counters start, end;
    for (uint64_t i = 0; i < 30 * logical; i++) {
        if (i == 10 * logical) {
            ftl_get_counters(ftl, &start);  /* measure after the streams settle */
        }
        uint64_t lpn = rng_below(&rng, 10) < 9 ? rng_below(&rng, hot)
                                               : hot + rng_below(&rng, logical - hot);
        CHECK(write_pages(ftl, now, lpn, 1, &done) == FTL_OK);
        now += 10000;
        ftl_background_gc(ftl, now);
    }
    ftl_get_counters(ftl, &end);
    CHECK_CONSISTENT(ftl);
    /* GC re-writes follow the same classification: both streams receive GC pages */
    if (placement == FTL_PLACEMENT_HOTCOLD) {
        CHECK(end.wp_gc_pages[HOT] > 0 && end.wp_gc_pages[COLD] > 0);
    }
    ftl_destroy(ftl);
    for (unsigned i = 0; i < FTL_MAX_WRITE_POINTERS; i++) {
        end.wp_host_pages[i] -= start.wp_host_pages[i];
    }
    end.nand_user_programs -= start.nand_user_programs;
    end.nand_gc_programs -= start.nand_gc_programs;
    return end;
}

static void test_separation_lowers_waf(void)
{
    struct ftl_counters zero = { 0 };
    struct ftl_counters single = skewed_run(FTL_PLACEMENT_SINGLE, 0);
    struct ftl_counters split = skewed_run(FTL_PLACEMENT_HOTCOLD, 20);
    double waf_single = counters_waf(&zero, &single), waf_split = counters_waf(&zero, &split);
    printf("  skewed 90/10 writes: WAF single %.2f, hotcold(threshold 20) %.2f\n",
           waf_single, waf_split);
    CHECK(waf_split < waf_single * 0.8);
    /* most host writes of the measured part go to the hot stream */
    CHECK(split.wp_host_pages[HOT] > split.wp_host_pages[COLD]);
}

static uint64_t hot_pages(struct ftl *ftl)
{
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    return g.hot_pages;
}

/*
 * hot_decay=1024, threshold 1, worked by hand: LPN 0 written 3 times is hot (count 3);
 * LPNs 1..1020 once each are cold (1 is not above 1): writes 1..1023. Write 1024 (LPN 1
 * again) is the 1024th since the start, so every count halves first (LPN 0: 3 -> 1, the
 * others 1 -> 0), then LPN 1 counts 1: nothing is hot. LPN 0's next write makes it 2:
 * hot again. Its exact write count never aged: 4.
 */
static void test_counts_age(void)
{
    struct ftl *ftl = hotcold_ftl(1, 1024);
    for (int i = 0; i < 3; i++) {
        CHECK(write_pages(ftl, 0, 0, 1, NULL) == FTL_OK);
    }
    CHECK_EQ_U64(wp_of_lpn(ftl, 0), HOT);
    CHECK_EQ_U64(hot_pages(ftl), 1);
    for (uint64_t lpn = 1; lpn <= 1020; lpn++) {
        CHECK(write_pages(ftl, 0, lpn, 1, NULL) == FTL_OK);
    }
    CHECK_EQ_U64(ftl->heat[0], 3);
    CHECK_EQ_U64(ftl->heat_ticks, 1023);
    CHECK_EQ_U64(hot_pages(ftl), 1);
    CHECK(write_pages(ftl, 0, 1, 1, NULL) == FTL_OK);
    CHECK_EQ_U64(ftl->heat_ticks, 0);
    CHECK_EQ_U64(ftl->heat[0], 1);
    CHECK_EQ_U64(ftl->heat[1], 1);
    CHECK_EQ_U64(ftl->heat[2], 0);
    CHECK_EQ_U64(hot_pages(ftl), 0);
    CHECK_EQ_U64(wp_of_lpn(ftl, 1), COLD);
    CHECK(write_pages(ftl, 0, 0, 1, NULL) == FTL_OK);
    CHECK_EQ_U64(wp_of_lpn(ftl, 0), HOT);
    CHECK_EQ_U64(hot_pages(ftl), 1);
    CHECK_EQ_U64(ftl_lpn_write_count(ftl, 0), 4);
    CHECK_CONSISTENT(ftl);
    /* a format forgets the counts, aged and exact, and the hot page with them */
    uint64_t done;
    struct ftl_io all = { .slba = 0,
                          .nlb = ftl_geometry_of(ftl)->logical_pages * ftl->secs_per_pg };
    CHECK(ftl_format(ftl, &all, true, &done) == FTL_OK);
    CHECK_EQ_U64(hot_pages(ftl), 0);
    CHECK_EQ_U64(ftl->heat[0], 0);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* Without hot_decay the counts are exact and never age: hot_pages counts the pages
 * written more than hot_threshold times, however long ago. */
static void test_counts_without_decay(void)
{
    struct ftl *ftl = hotcold_ftl(1, 0);
    CHECK(ftl->heat == NULL);
    for (int i = 0; i < 2; i++) {
        CHECK(write_pages(ftl, 0, 5, 1, NULL) == FTL_OK);
    }
    for (uint64_t i = 0; i < 5000; i++) {
        CHECK(write_pages(ftl, 0, 100 + i % 1000, 1, NULL) == FTL_OK);
    }
    CHECK_EQ_U64(hot_pages(ftl), 1001);   /* LPN 5 and the 1000 written 5 times */
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

int main(void)
{
    test_classification();
    test_threshold_zero_is_one_stream();
    test_counts_age();
    test_counts_without_decay();
    test_separation_lowers_waf();
    return check_summary();
}
