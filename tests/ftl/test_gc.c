/* Greedy GC: victim choice, thresholds, timing, paced steps, and progress at 100% logical
 * utilization in both background modes. */
#include "base/max_u64.h"
#include "flash/geometry.h"
#include "flash/line_lists.h"
#include "gc/gc.h"
#include "map/page_map.h"
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
    cfg.gc_mode = FTL_GC_LINE;   /* one call collects a whole line */
    struct ftl *ftl = make_ftl(&cfg);
    /* fill lines 0..3 (8 pages each) with lpn 0..31 */
    CHECK(write_pages(ftl, 0, 0, 32, NULL) == FTL_OK);
    uint32_t line_of[4];
    for (int l = 0; l < 4; l++) {
        line_of[l] = ppa_line(ftl, l2p_get(ftl, l * 8));
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
static void full_device_churn_mode(struct ftl_config cfg, uint64_t rounds, uint64_t seed)
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

/* The line-2 victim of test_greedy_victim under paced GC: lpn 20..23 valid at offsets
 * 4..7 (LUNs 0, 1, 0, 1), lpn 16..19 invalid; background GC due. */
static struct ftl *paced_victim(uint32_t *victim)
{
    struct ftl_config cfg = lines8();
    struct ftl *ftl = make_ftl(&cfg);

    CHECK_EQ_U64(cfg.gc_mode, FTL_GC_PACED);   /* the default */
    CHECK(write_pages(ftl, 0, 0, 32, NULL) == FTL_OK);
    CHECK(write_pages(ftl, 0, 16, 4, NULL) == FTL_OK);
    *victim = ppa_line(ftl, l2p_get(ftl, 20));
    CHECK_EQ_U64(victim_peek(ftl), *victim);
    ftl->geo.gc_thres_lines = ftl->free_count;
    return ftl;
}

/* Moves paced GC still owes the flash. */
static uint32_t owed_moves(const struct ftl *ftl)
{
    return ftl->gc_debt_moves;
}

/* Erases paced GC still owes (after the moves of their unit). */
static uint32_t owed_erases(const struct ftl *ftl)
{
    return ftl->gc_debt_count - ftl->gc_debt_moves;
}

static void test_paced_idle_fill(void)
{
    uint32_t victim, old_ppa[4];
    struct ftl *ftl = paced_victim(&victim);
    uint64_t idle = 0;
    for (uint32_t lun = 0; lun < ftl->luns; lun++) {
        idle = max_u64(idle, ftl->lun_avail_ns[lun]);
    }
    for (int i = 0; i < 4; i++) {
        old_ppa[i] = l2p_get(ftl, 20 + i);
    }
    /* The collection is line GC's, done in the maps at once: 4 pages moved, the line
     * erased and freed. Every LUN idle: one move per LUN is charged (and counted) now, 2
     * are owed. */
    CHECK_EQ_U64(ftl_background_gc(ftl, idle), 1);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.gc_moved_pages, 2);
    CHECK_EQ_U64(c.gc_runs, 1);
    CHECK_EQ_U64(ftl->lines[victim].state, LINE_FREE);
    CHECK_EQ_U64(ftl->gc_line, NO_LINE);
    CHECK_EQ_U64(owed_moves(ftl), 2);
    CHECK_EQ_U64(owed_erases(ftl), 2);       /* the line's two blocks, after the moves */
    CHECK_CONSISTENT(ftl);
    /* Same instant: both LUNs are now busy with those moves, nothing owed, nothing more. */
    CHECK_EQ_U64(ftl_background_gc(ftl, idle), 0);
    CHECK_EQ_U64(owed_moves(ftl), 2);
    /* Once they are idle again the rest is charged, then the erases. */
    uint64_t later = idle + 10 * ftl_config_of(ftl)->pg_wr_lat;
    CHECK_EQ_U64(ftl_background_gc(ftl, later), 0);
    CHECK_EQ_U64(owed_moves(ftl), 0);
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.gc_moved_pages, 4);
    CHECK_EQ_U64(owed_erases(ftl), 0);
    for (uint32_t lun = 0; lun < ftl->luns; lun++) {
        /* read + program, then the erase */
        CHECK(ftl->lun_avail_ns[lun] >= later + ftl_config_of(ftl)->pg_rd_lat +
              ftl_config_of(ftl)->pg_wr_lat + ftl_config_of(ftl)->blk_er_lat);
    }
    /* Each page was read and programmed on one LUN (a copyback): no cross-LUN wait. */
    for (int i = 0; i < 4; i++) {
        CHECK(ftl_lpn_is_mapped(ftl, 20 + (uint64_t)i));
        CHECK_EQ_U64(ppa_lun(ftl, l2p_get(ftl, 20 + i)), ppa_lun(ftl, old_ppa[i]));
    }
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

static void test_paced_host_writes_owe_moves(void)
{
    uint32_t victim;
    struct ftl *ftl = paced_victim(&victim);

    /* Collect while the LUNs are busy (nothing is charged for free): 4 moves owed, and
     * every host page owes valid/invalid = 4/4 = 1 of them, charged at the next chance. */
    uint64_t busy = 0;
    CHECK_EQ_U64(ftl_background_gc(ftl, busy), 1);
    CHECK_EQ_U64(owed_moves(ftl), 4);
    /* no further collection (free lines stay above it): only the debt is paid */
    ftl->geo.gc_thres_lines = ftl->geo.gc_thres_lines_high;
    CHECK(ftl->free_count > ftl->geo.gc_thres_lines + 1);
    CHECK(write_pages(ftl, busy, 0, 3, NULL) == FTL_OK);   /* lpn 0..2 */
    CHECK_EQ_U64(ftl_background_gc(ftl, busy), 0);
    CHECK_EQ_U64(owed_moves(ftl), 1);
    CHECK_EQ_U64(owed_erases(ftl), 2);
    CHECK_CONSISTENT(ftl);
    CHECK(write_pages(ftl, busy, 3, 1, NULL) == FTL_OK);
    CHECK_EQ_U64(ftl_background_gc(ftl, busy), 0);
    CHECK_EQ_U64(owed_moves(ftl), 0);
    CHECK_EQ_U64(owed_erases(ftl), 0);               /* charged once the moves were */
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/*
 * Paced GC's onset rule by hand: 1 channel x 2 LUNs x 8 blocks x 4 pages of 32 KiB, 8
 * lines of 8 pages, 1 MiB logical. Lines 0-3 hold lpn 0..31; rewriting lpn 0, 1, 8, 9, 16, 17 leaves lines 0, 1 and
 * 2 each with 6 valid and 2 invalid pages (all worth collecting: 1/8 of 8 is 1) and fills
 * 6 pages of line 4, the open one; lines 5-7 are free: 24 free pages, none owed. The
 * LUNs are busy (time 0), so nothing is charged for free and every move stays owed.
 * A collection is taken while (owed + valid) x invalid x 2 <= valid x (ahead - valid),
 * ahead being the free pages before the first unit whose erase is owed.
 */
static void test_paced_onset_rule(void)
{
    struct ftl_config cfg = small_config(1, 2, 8, 4, 64);     /* 32 KiB pages */
    cfg.devsz_mb = 1;                                           /* 32 logical pages */
    cfg.gc_thres_pcent_high = 80;   /* 8 lines: 95 % would leave none for foreground GC */
    struct ftl *ftl = make_ftl(&cfg);
    static const uint64_t rewrite[] = { 0, 1, 8, 9, 16, 17 };

    CHECK(write_pages(ftl, 0, 0, 32, NULL) == FTL_OK);
    for (size_t i = 0; i < sizeof(rewrite) / sizeof(rewrite[0]); i++) {
        CHECK(write_pages(ftl, 0, rewrite[i], 1, NULL) == FTL_OK);
    }
    CHECK_EQ_U64(ftl->free_count, 3);
    CHECK_EQ_U64(ftl->free_pages, 24);
    ftl->geo.gc_thres_lines = ftl->free_count + 8;     /* background GC due throughout */
    ftl->geo.gc_thres_lines_high = 0;

    /* First: owed 0, ahead 24: (0 + 6) x 2 x 2 = 24 <= 6 x (24 - 6) = 108, taken. Its 6
     * pages fill line 4 (2) and open line 5 (4 of 8); line 0 is free with its erase owed:
     * free pages 16 + 8, ahead 16. */
    CHECK_EQ_U64(ftl_background_gc(ftl, 0), 1);
    CHECK_EQ_U64(owed_moves(ftl), 6);
    CHECK_EQ_U64(ftl->free_pages, 24);
    CHECK_EQ_U64(ftl->gc_debt_units, 1);
    /* Second: (6 + 6) x 2 x 2 = 48 <= 6 x (16 - 6) = 60, taken (line GC's burst goes on);
     * its pages fill line 5 (4) and open line 6 (2 of 8): free pages 8 + 16 owed, ahead 8. */
    CHECK_EQ_U64(ftl_background_gc(ftl, 0), 1);
    CHECK_EQ_U64(owed_moves(ftl), 12);
    CHECK_EQ_U64(ftl->free_pages, 24);
    CHECK_EQ_U64(ftl->gc_debt_units, 2);
    /* Third: ahead 8 > 6 but (12 + 6) x 2 x 2 = 72 > 6 x (8 - 6) = 12: it waits (line GC
     * would take it, and its moves would open a unit whose erase is owed). */
    CHECK_EQ_U64(ftl_background_gc(ftl, 0), 0);
    CHECK_EQ_U64(owed_moves(ftl), 12);
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.gc_runs, 2);
    CHECK_EQ_U64(c.gc_moved_pages, 0);      /* nothing charged yet: counted when charged */
    /* Host pages pay: each owes 6/2 = 3 (the level) + owed / max(ahead, 8). The first: 3 +
     * 12/8 = 4.5; charged at the next request: 4 moves (the half carries), owed 8. */
    CHECK(write_pages(ftl, 0, 24, 1, NULL) == FTL_OK);   /* into line 6 */
    CHECK_EQ_U64(ftl_background_gc(ftl, 0), 0);
    CHECK_EQ_U64(owed_moves(ftl), 8);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* Foreground GC first charges what paced GC owes, as line GC would have done it by now. */
static void test_foreground_settles_paced_debt(void)
{
    uint32_t victim;
    struct ftl *ftl = paced_victim(&victim);

    CHECK_EQ_U64(ftl_background_gc(ftl, 0), 1);
    CHECK_EQ_U64(owed_moves(ftl), 4);
    CHECK(write_pages(ftl, 0, 0, 2, NULL) == FTL_OK);  /* a victim for foreground GC */
    uint64_t before = ftl->lun_avail_ns[0];
    ftl->geo.gc_thres_lines_high = ftl->free_count;
    CHECK_EQ_U64(gc_foreground(ftl, 0, 0), FTL_OK);
    CHECK_EQ_U64(owed_moves(ftl), 0);
    CHECK_EQ_U64(owed_erases(ftl), 0);
    CHECK(ftl->lun_avail_ns[0] >= before + 2 * (ftl_config_of(ftl)->pg_rd_lat +
                                               ftl_config_of(ftl)->pg_wr_lat));
    for (uint64_t lpn = 20; lpn < 24; lpn++) {
        CHECK(ftl_lpn_is_mapped(ftl, lpn));
    }
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* Both background GC modes. */
static void full_device_churn(struct ftl_config cfg, uint64_t rounds, uint64_t seed)
{
    cfg.gc_mode = FTL_GC_PACED;
    full_device_churn_mode(cfg, rounds, seed);
    cfg.gc_mode = FTL_GC_LINE;
    full_device_churn_mode(cfg, rounds, seed);
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
    test_paced_idle_fill();
    test_paced_host_writes_owe_moves();
    test_foreground_settles_paced_debt();
    test_paced_onset_rule();
    test_full_utilization();
    return check_summary();
}
