/* Hot/cold placement: classification of host and GC writes, and its effect on WAF. */
#include "flash/ftl_handle.h"
#include "ftl_test_util.h"
#include "ftl_wp_of_lpn.h"
#include "rng.h"

enum { HOT = 0, COLD = 1 };

static void test_classification(void)
{
    struct ftl_config cfg = small_config(2, 2, 64, 64, 1);
    cfg.placement = FTL_PLACEMENT_HOTCOLD;
    cfg.hot_threshold = 2;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    struct ftl *ftl = make_ftl(&cfg);
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
    struct ftl_config cfg = small_config(2, 2, 64, 64, 1);
    cfg.placement = FTL_PLACEMENT_HOTCOLD;
    cfg.hot_threshold = 0;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    struct ftl *ftl = make_ftl(&cfg);
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

int main(void)
{
    test_classification();
    test_threshold_zero_is_one_stream();
    test_separation_lowers_waf();
    return check_summary();
}
