/* GC victim policies (gc_policy): each one's choice on hand-built states, determinism for
 * a seed, consistency under random churn in both GC modes, and cost-benefit's WAF against
 * greedy's on skewed and uniform traffic. Counts only: no host timing is involved. */
#include <string.h>

#include "flash/geometry.h"
#include "flash/line_lists.h"
#include "gc/gc_policy.h"
#include "map/page_map.h"
#include "ftl_test_util.h"
#include "rng.h"

#define SEC 1000000000ull

static const enum ftl_gc_policy all_policies[] = {
    FTL_GC_GREEDY, FTL_GC_COST_BENEFIT, FTL_GC_RANDOM, FTL_GC_FIFO, FTL_GC_DCHOICE,
};
#define NPOLICIES (sizeof(all_policies) / sizeof(all_policies[0]))

/* 1 channel x 2 LUNs x 4 pages per block: 8 pages per line, 512 lines; whole-line GC so
 * one background call collects one victim. */
static struct ftl *lines8(enum ftl_gc_policy policy)
{
    struct ftl_config cfg = small_config(1, 2, 512, 4, 1);
    cfg.gc_mode = FTL_GC_LINE;
    cfg.gc_policy = policy;
    return make_ftl(&cfg);
}

/* Write lines' worth of lpns 8k..8k+7, line k closing at times[k]; returns the lines. */
static void fill_lines(struct ftl *ftl, const uint64_t *times, uint32_t n, uint32_t *line_of)
{
    for (uint32_t k = 0; k < n; k++) {
        CHECK(write_pages(ftl, times[k], 8 * k, 8, NULL) == FTL_OK);
        line_of[k] = ppa_line(ftl, l2p_get(ftl, 8 * k));
        CHECK_EQ_U64(ftl->lines[line_of[k]].written_ns, times[k]);
    }
}

/* Closed B (6 valid), C (4) and D (7) hold invalid pages, A (closed first) none. */
static struct ftl *four_lines(enum ftl_gc_policy policy, uint32_t *line_of)
{
    static const uint64_t times[] = { 100, 200, 300, 400 };
    struct ftl *ftl = lines8(policy);
    fill_lines(ftl, times, 4, line_of);
    CHECK(write_pages(ftl, 500, 8, 2, NULL) == FTL_OK);
    CHECK(write_pages(ftl, 500, 16, 4, NULL) == FTL_OK);
    CHECK(write_pages(ftl, 500, 24, 1, NULL) == FTL_OK);   /* 7: the new line stays open */
    CHECK_EQ_U64(ftl->victim_count, 3);
    return ftl;
}

/* Background GC collects exactly `victim`, and the data it held stays mapped. */
static void check_background_collects(struct ftl *ftl, uint32_t victim, uint64_t now)
{
    struct ftl_gauges before, after;
    ftl_get_gauges(ftl, &before);
    ftl->geo.gc_thres_lines = ftl->free_count;
    CHECK_EQ_U64(ftl_background_gc(ftl, now), 1);
    CHECK_EQ_U64(ftl->lines[victim].state, LINE_FREE);
    ftl_get_gauges(ftl, &after);
    CHECK_EQ_U64(after.valid_pages, before.valid_pages);
    CHECK_CONSISTENT(ftl);
}

static void test_greedy_and_fifo(void)
{
    uint32_t line_of[4];
    struct ftl *ftl = four_lines(FTL_GC_GREEDY, line_of);
    CHECK_EQ_U64(gc_policy_victim(ftl, 600, GC_ANY_GROUP, GC_ANY_LUN), line_of[2]);      /* fewest valid */
    CHECK_EQ_U64(gc_policy_victim(ftl, 600, GC_ANY_GROUP, GC_ANY_LUN), victim_peek(ftl));
    check_background_collects(ftl, line_of[2], 600);
    ftl_destroy(ftl);

    ftl = four_lines(FTL_GC_FIFO, line_of);
    CHECK_EQ_U64(gc_policy_victim(ftl, 600, GC_ANY_GROUP, GC_ANY_LUN), line_of[1]);      /* closed first of B, C, D */
    CHECK(write_pages(ftl, 600, 0, 1, NULL) == FTL_OK);        /* A becomes a victim */
    CHECK_EQ_U64(gc_policy_victim(ftl, 700, GC_ANY_GROUP, GC_ANY_LUN), line_of[0]);
    check_background_collects(ftl, line_of[0], 700);
    CHECK_EQ_U64(gc_policy_victim(ftl, 700, GC_ANY_GROUP, GC_ANY_LUN), line_of[1]);
    ftl_destroy(ftl);
}

static void test_cost_benefit(void)
{
    /* A old with 3 of 8 invalid, B young with 4 of 8: at 2 s A scores
     * 3/10 x 2 s = 0.6 s against B's 4/8 x 1 s = 0.5 s; greedy would take B. */
    static const uint64_t times[] = { 0, SEC };
    uint32_t line_of[3];
    struct ftl *ftl = lines8(FTL_GC_COST_BENEFIT);
    fill_lines(ftl, times, 2, line_of);
    CHECK(write_pages(ftl, SEC, 0, 3, NULL) == FTL_OK);
    CHECK(write_pages(ftl, SEC, 8, 4, NULL) == FTL_OK);
    CHECK_EQ_U64(victim_peek(ftl), line_of[1]);
    CHECK_EQ_U64(gc_policy_victim(ftl, 2 * SEC, GC_ANY_GROUP, GC_ANY_LUN), line_of[0]);
    /* Long after both closed their ages are nearly equal, so the emptier B wins:
     * at 100 s, A 3/10 x 100 s = 30 s against B 4/8 x 99 s = 49.5 s. */
    CHECK_EQ_U64(gc_policy_victim(ftl, 100 * SEC, GC_ANY_GROUP, GC_ANY_LUN), line_of[1]);
    /* An empty line beats any other, however young: lpn 16..23 fill a line at 3 s and
     * are rewritten at once (into another line, which closes full). */
    CHECK(write_pages(ftl, 3 * SEC, 12, 1, NULL) == FTL_OK);   /* the open line closes */
    CHECK(write_pages(ftl, 3 * SEC, 16, 8, NULL) == FTL_OK);
    line_of[2] = ppa_line(ftl, l2p_get(ftl, 16));
    CHECK(write_pages(ftl, 3 * SEC, 16, 8, NULL) == FTL_OK);
    CHECK_EQ_U64(ftl->lines[line_of[2]].valid, 0);
    CHECK_EQ_U64(ftl->lines[line_of[2]].state, LINE_VICTIM);
    CHECK_EQ_U64(gc_policy_victim(ftl, 3 * SEC, GC_ANY_GROUP, GC_ANY_LUN), line_of[2]);
    CHECK_EQ_U64(gc_policy_victim(ftl, 1000 * SEC, GC_ANY_GROUP, GC_ANY_LUN), line_of[2]);
    check_background_collects(ftl, line_of[2], 3 * SEC);
    CHECK_EQ_U64(gc_policy_victim(ftl, 3 * SEC, GC_ANY_GROUP, GC_ANY_LUN), line_of[1]);   /* 5/6 x 2 s beats 3/10 x 3 s */
    ftl_destroy(ftl);
}

/* Whether id is one of the victim lines. */
static bool is_victim(const struct ftl *ftl, uint32_t id)
{
    return id != NO_LINE && ftl->lines[id].state == LINE_VICTIM;
}

static void test_random_and_dchoice(void)
{
    uint32_t line_of[4], hits[3] = { 0 };
    struct ftl *ftl = four_lines(FTL_GC_RANDOM, line_of);
    /* uniform over B, C, D: 3000 draws give each about 1000 (6 sigma is 155) */
    for (int i = 0; i < 3000; i++) {
        uint32_t id = gc_policy_victim(ftl, 600, GC_ANY_GROUP, GC_ANY_LUN);
        CHECK(is_victim(ftl, id));
        for (int k = 0; k < 3; k++) {
            hits[k] += id == line_of[k + 1];
        }
    }
    printf("  random over 3 victims, 3000 draws: %u %u %u\n", hits[0], hits[1], hits[2]);
    for (int k = 0; k < 3; k++) {
        CHECK(hits[k] > 845 && hits[k] < 1155);
    }
    ftl_destroy(ftl);

    /* d >= victims: every victim is a candidate, the pick is greedy's */
    ftl = four_lines(FTL_GC_DCHOICE, line_of);
    ftl->cfg.gc_dchoice_d = 3;
    CHECK_EQ_U64(gc_policy_victim(ftl, 600, GC_ANY_GROUP, GC_ANY_LUN), line_of[2]);
    ftl->cfg.gc_dchoice_d = 64;
    CHECK_EQ_U64(gc_policy_victim(ftl, 600, GC_ANY_GROUP, GC_ANY_LUN), victim_peek(ftl));
    /* d = 2 of 3: never D, the fullest (the other drawn line always has fewer valid) */
    ftl->cfg.gc_dchoice_d = 2;
    uint32_t c_hits = 0;
    for (int i = 0; i < 3000; i++) {
        uint32_t id = gc_policy_victim(ftl, 600, GC_ANY_GROUP, GC_ANY_LUN);
        CHECK(id == line_of[1] || id == line_of[2]);
        c_hits += id == line_of[2];
    }
    printf("  dchoice d=2 over 3 victims: C (fewest valid) %u of 3000\n", c_hits);
    CHECK(c_hits > 1845 && c_hits < 2155);  /* C is in 2 of the 3 pairs */
    ftl_destroy(ftl);
}

/* A random overwrite workload at the smallest over-provisioning, with background GC now
 * and then; time advances by counts, 1 us per write. */
static void churn(struct ftl *ftl, uint64_t rounds, uint64_t seed, bool check_often)
{
    uint64_t logical = ftl_geometry_of(ftl)->logical_pages, done, now = 0;
    struct rng rng;
    rng_seed(&rng, seed);
    for (uint64_t lpn = 0; lpn < logical; lpn++, now += 1000) {
        CHECK(write_pages(ftl, now, lpn, 1, &done) == FTL_OK);
    }
    for (uint64_t i = 0; i < rounds * logical; i++, now += 1000) {
        CHECK(write_pages(ftl, now, rng_below(&rng, logical - 1), 1 + rng_below(&rng, 3) / 2,
                          &done) == FTL_OK);
        if (i % 5 == 0) {
            CHECK(ftl_background_gc(ftl, now) >= 0);
        }
        if (check_often && i % 997 == 0) {
            CHECK_CONSISTENT(ftl);
        }
    }
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(g.valid_pages, logical);
    CHECK_CONSISTENT(ftl);
}

static struct ftl_config churn_config(enum ftl_gc_policy policy, enum ftl_gc_mode mode)
{
    struct ftl_config cfg = small_config(2, 2, 48, 16, 1);
    cfg.gc_policy = policy;
    cfg.gc_mode = mode;
    cfg.gc_dchoice_d = 3;
    cfg.bad_blk_pcent = 5;      /* lines of unequal capacity */
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    return cfg;
}

static void test_consistent_under_churn(void)
{
    static const enum ftl_gc_mode modes[] = { FTL_GC_PACED, FTL_GC_LINE };
    for (size_t p = 0; p < NPOLICIES; p++) {
        for (size_t m = 0; m < 2; m++) {
            struct ftl_config cfg = churn_config(all_policies[p], modes[m]);
            struct ftl *ftl = make_ftl(&cfg);
            churn(ftl, 12, 7 + p, true);
            struct ftl_counters c;
            ftl_get_counters(ftl, &c);
            CHECK(c.gc_runs > 0);
            printf("  %-12s %-5s: %llu GC runs, WAF %.3f\n", ftl_gc_policy_name(cfg.gc_policy),
                   ftl_gc_mode_name(cfg.gc_mode), (unsigned long long)c.gc_runs,
                   (double)(c.nand_user_programs + c.nand_gc_programs) /
                   (double)c.nand_user_programs);
            ftl_destroy(ftl);
        }
    }
}

/* Two handles with the same seed make the same choices: same counters, same mapping. */
static void test_deterministic(void)
{
    static const enum ftl_gc_policy seeded[] = { FTL_GC_RANDOM, FTL_GC_DCHOICE };
    for (size_t p = 0; p < 2; p++) {
        struct ftl_config cfg = churn_config(seeded[p], FTL_GC_PACED);
        cfg.fault_seed = 42;
        struct ftl *a = make_ftl(&cfg), *b = make_ftl(&cfg);
        churn(a, 6, 3, false);
        churn(b, 6, 3, false);
        struct ftl_counters ca, cb;
        ftl_get_counters(a, &ca);
        ftl_get_counters(b, &cb);
        CHECK(memcmp(&ca, &cb, sizeof(ca)) == 0);
        uint64_t logical = ftl_geometry_of(a)->logical_pages, same = 0;
        for (uint64_t lpn = 0; lpn < logical; lpn++) {
            same += l2p_get(a, lpn) == l2p_get(b, lpn);
        }
        CHECK_EQ_U64(same, logical);
        ftl_destroy(a);
        ftl_destroy(b);
    }
}

/*
 * Steady-state WAF of one policy: 8 ch x 4 LUNs x 64 pages of 512 bytes (64 lines of
 * 1 MiB), 54 MiB logical (about 18% over-provisioning), foreground GC only. hot_pcent of
 * the writes go to the first 20% of the LPNs (0: uniform). With placement=hotcold
 * (threshold 8 writes) the FTL separates them, and lines then differ in how fast they
 * decay, which is where the policies differ: cost-benefit takes the cold lines greedy
 * passes over. With placement=stream the workload tags hot writes stream 1, cold ones
 * stream 0, and GC stays within the stream that needs space, so a hot write's GC only
 * sees hot lines (all decaying alike) and cost-benefit has no cold line to prefer. With one write pointer every line holds the same mix, valid pages fall
 * with age alike in all of them, and greedy, FIFO and cost-benefit choose the same line.
 * Time is the write count (1 us per write).
 */
static double steady_waf(enum ftl_gc_policy policy, enum ftl_placement placement,
                         uint64_t hot_pcent, uint64_t seed)
{
    struct ftl_config cfg = small_config(8, 4, 64, 64, 1);
    cfg.devsz_mb = 54;
    cfg.gc_policy = policy;
    cfg.placement = placement;
    cfg.nstreams = 2;
    cfg.hot_threshold = 8;  /* hot pages see ~40 writes per pass of 10 x logical, cold ~2.5 */
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t logical = ftl_geometry_of(ftl)->logical_pages, hot = logical / 5, done, now = 0;
    struct rng rng;
    rng_seed(&rng, seed);
    for (uint64_t lpn = 0; lpn < logical; lpn++, now += 1000) {
        struct ftl_io io = page_io(ftl, now, lpn, 1, hot_pcent && lpn < hot);
        CHECK(ftl_write(ftl, &io, &done) == FTL_OK);
    }
    struct ftl_counters start, end;
    for (int phase = 0; phase < 2; phase++) {   /* warm up, then measure */
        ftl_get_counters(ftl, &start);
        for (uint64_t i = 0; i < 10 * logical; i++, now += 1000) {
            uint64_t lpn;
            if (hot_pcent && rng_below(&rng, 100) < hot_pcent) {
                lpn = rng_below(&rng, hot);
            } else if (hot_pcent) {
                lpn = hot + rng_below(&rng, logical - hot);
            } else {
                lpn = rng_below(&rng, logical);
            }
            struct ftl_io io = page_io(ftl, now, lpn, 1, hot_pcent && lpn < hot);
            CHECK(ftl_write(ftl, &io, &done) == FTL_OK);
        }
    }
    ftl_get_counters(ftl, &end);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
    return counters_waf(&start, &end);
}

static void test_waf_cost_benefit_vs_greedy(void)
{
    static const enum ftl_placement placements[] = {
        FTL_PLACEMENT_STREAM, FTL_PLACEMENT_HOTCOLD, FTL_PLACEMENT_SINGLE,
    };
    for (size_t p = 0; p < 3; p++) {
        enum ftl_placement pl = placements[p];
        double g_skew = steady_waf(FTL_GC_GREEDY, pl, 80, 1);
        double cb_skew = steady_waf(FTL_GC_COST_BENEFIT, pl, 80, 1);
        double g_uni = steady_waf(FTL_GC_GREEDY, pl, 0, 1);
        double cb_uni = steady_waf(FTL_GC_COST_BENEFIT, pl, 0, 1);
        printf("  placement=%s 80/20: greedy WAF %.3f, cost_benefit %.3f (%+.1f%%)\n",
               ftl_placement_name(pl), g_skew, cb_skew, (cb_skew / g_skew - 1) * 100);
        printf("  placement=%s uniform: greedy WAF %.3f, cost_benefit %.3f (%+.1f%%)\n",
               ftl_placement_name(pl), g_uni, cb_uni, (cb_uni / g_uni - 1) * 100);
        for (size_t k = 2; k < NPOLICIES; k++) {
            printf("  placement=%s 80/20 %s: WAF %.3f\n", ftl_placement_name(pl),
                   ftl_gc_policy_name(all_policies[k]), steady_waf(all_policies[k], pl, 80, 1));
        }
        CHECK(cb_uni < g_uni * 1.03);
        if (pl == FTL_PLACEMENT_HOTCOLD) {
            CHECK(cb_skew < g_skew);
        }
    }
}

int main(void)
{
    test_greedy_and_fifo();
    test_cost_benefit();
    test_random_and_dchoice();
    test_consistent_under_churn();
    test_deterministic();
    test_waf_cost_benefit_vs_greedy();
    return check_summary();
}
