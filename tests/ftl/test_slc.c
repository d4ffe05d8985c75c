/*
 * The pseudo-SLC write cache (slc_cache, docs/ftl.md), pinned on a tiny TLC geometry
 * against hand-computed figures: where the write cliff falls, how much idle time folds,
 * the dynamic cache's rule, slc_when_full=fold, a random workload kept consistent through
 * GC, folding and a state round trip, and the configurations refused.
 *
 * The geometry: 1 channel x 1 LUN, 16 blocks of 96 pages (TLC, cell_bits=3: an SLC unit
 * holds the first 32 pages of its block), 4 KiB pages, 3 MiB (768 pages) logical. A unit
 * is one line of one block. Background GC at 4 free units, foreground at 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "femu_ftl/state.h"
#include "flash/geometry.h"
#include "flash/line_lists.h"
#include "gc/slc_fold.h"
#include "map/page_map.h"
#include "ftl_state_test_util.h"
#include "ftl_test_util.h"

#define MS 1000000ull
#define SLC_RD 30000ull
#define SLC_WR 150000ull
#define SLC_ER 3000000ull
#define TLC_RD 60000ull
#define TLC_WR 700000ull
#define TLC_ER 4500000ull
#define SLC_PAGES 32u       /* 96 / 3 */

static struct ftl_config tlc_config(uint64_t static_units, uint64_t dynamic_pcent)
{
    struct ftl_config cfg;
    ftl_config_defaults(&cfg);
    cfg.nchs = 1;
    cfg.luns_per_ch = 1;
    cfg.blks_per_pl = 16;
    cfg.pgs_per_blk = 96;
    cfg.secs_per_pg = 8;
    cfg.devsz_mb = 3;
    cfg.gc_thres_pcent = 75;
    cfg.gc_thres_pcent_high = 90;
    cfg.pg_rd_lat = TLC_RD;
    cfg.pg_wr_lat = TLC_WR;
    cfg.blk_er_lat = TLC_ER;
    cfg.cell_bits = 3;
    cfg.slc_pg_rd_lat = SLC_RD;
    cfg.slc_pg_wr_lat = SLC_WR;
    cfg.slc_blk_er_lat = SLC_ER;
    cfg.slc_cache = 1;
    cfg.slc_static_units = static_units;
    cfg.slc_dynamic_pcent = dynamic_pcent;
    return cfg;
}

static struct ftl_gauges gauges(const struct ftl *ftl)
{
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    return g;
}

/* 1. Sequential one-page writes 1 ms apart (the LUN idle between them, no background
 * step): with 2 static units the cache holds 2 x 32 = 64 pages, so writes 0..63 program
 * in SLC mode (150 us) and write 64 onwards at TLC speed (700 us), direct. */
static void test_cliff_position(void)
{
    struct ftl_config cfg = tlc_config(2, 0);
    struct ftl *ftl = make_ftl(&cfg);
    CHECK_EQ_U64(gauges(ftl).slc_cap_pages, 64);
    uint64_t bad_slc = 0, bad_tlc = 0;
    for (uint64_t i = 0; i < 164; i++) {
        uint64_t done = 0;
        CHECK(write_pages(ftl, i * MS, i, 1, &done) == FTL_OK);
        if (i < 64) {
            bad_slc += done - i * MS != SLC_WR;
        } else {
            bad_tlc += done - i * MS != TLC_WR;
        }
    }
    CHECK_EQ_U64(bad_slc, 0);
    CHECK_EQ_U64(bad_tlc, 0);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.slc_host_pages, 64);
    CHECK_EQ_U64(c.slc_direct_pages, 100);
    CHECK_EQ_U64(c.slc_folded_pages, 0);
    CHECK_EQ_U64(gauges(ftl).slc_used_pages, 64);
    CHECK_EQ_U64(ftl->slc_count, 2);
    /* reads from the cache sense in SLC mode, from a normal unit at TLC speed */
    uint64_t done = 0;
    CHECK(read_pages(ftl, 200 * MS, 3, 1, &done) == FTL_OK);
    CHECK_EQ_U64(done - 200 * MS, SLC_RD);
    CHECK(read_pages(ftl, 201 * MS, 100, 1, &done) == FTL_OK);
    CHECK_EQ_U64(done - 201 * MS, TLC_RD);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/*
 * 2. Fill the 64-page cache (writes 1 ms apart; with a 24 us channel each SLC program
 * takes 24 + 150 us, so the LUN is idle from A0 = 63 ms + 174 us), then give the
 * background step at A0 + 30 ms. Each fold: SLC read + transfer, transfer + TLC program
 * = 30 + 24 + 24 + 700 = 778 us; a unit of 32 pages 24.896 ms, then its SLC erase 3 ms:
 * unit 1 is folded and erased by A0 + 27.896 ms; the 2.104 ms left start pages at
 * +0, +0.778, +1.556 ms (the next would start at +2.334 > 2.104): 32 + 3 = 35 pages
 * folded, 1 block erased, and the LUN busy until A0 + 27.896 + 3 x 0.778 ms.
 */
static void test_idle_refill(void)
{
    struct ftl_config cfg = tlc_config(2, 0);
    cfg.ch_xfer_lat = 24000;
    struct ftl *ftl = make_ftl(&cfg);
    for (uint64_t i = 0; i < 64; i++) {
        CHECK(write_pages(ftl, i * MS, i, 1, NULL) == FTL_OK);
    }
    uint64_t a0 = 63 * MS + 24000 + SLC_WR;
    CHECK_EQ_U64(ftl->lun_avail_ns[0], a0);
    uint64_t fold = SLC_RD + 24000 + 24000 + TLC_WR;
    CHECK_EQ_U64(ftl_background_fold(ftl, a0 + 30 * MS), 35);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.slc_folded_pages, 35);
    CHECK_EQ_U64(c.slc_fold_erases, 1);
    CHECK_EQ_U64(c.slc_fg_fold_units, 0);
    CHECK_EQ_U64(ftl->lun_avail_ns[0], a0 + 32 * fold + SLC_ER + 3 * fold);
    CHECK_EQ_U64(ftl->slc_count, 1);
    CHECK_EQ_U64(gauges(ftl).slc_used_pages, 29);
    CHECK_CONSISTENT(ftl);
    /* the cache has room again: the next write is absorbed, at SLC speed once the LUN is
     * free of the fold it started before now */
    uint64_t now = a0 + 30 * MS, done = 0;
    CHECK(write_pages(ftl, now, 64, 1, &done) == FTL_OK);
    c = counters(ftl);
    CHECK_EQ_U64(c.slc_host_pages, 65);
    CHECK_EQ_U64(c.slc_direct_pages, 0);
    CHECK_EQ_U64(done, a0 + 35 * fold + SLC_ER + 24000 + SLC_WR);
    /* a second idle step before the LUN is free does nothing */
    CHECK_EQ_U64(ftl_background_fold(ftl, done), 0);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/*
 * 3. The dynamic cache (slc_dynamic_pcent=50, no static units) may hold
 * floor(0.5 x (768 - valid) / 96) units: 4 units (128 pages) on an empty device, 2 (64
 * pages) with half of it valid. Writing 384 new pages in a row opens units while the rule
 * allows: at 0 valid pages (0 < 4), 32 (1 < floor(368 / 96) = 3), 64 (2 < floor(352 /
 * 96) = 3), but not at 96 (3 < floor(336 / 96) = 3 fails): 96 pages absorbed.
 */
static void test_dynamic_rule(void)
{
    struct ftl_config cfg = tlc_config(0, 50);
    struct ftl *ftl = make_ftl(&cfg);
    CHECK_EQ_U64(gauges(ftl).slc_cap_pages, 128);
    CHECK(write_pages(ftl, 0, 0, 384, NULL) == FTL_OK);
    CHECK_EQ_U64(gauges(ftl).valid_pages, 384);
    CHECK_EQ_U64(gauges(ftl).slc_cap_pages, 64);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.slc_host_pages, 96);
    CHECK_EQ_U64(c.slc_direct_pages, 288);
    CHECK_CONSISTENT(ftl);
    /* trimming half of it frees user space: floor(0.5 x 576 / 96) = 3 units */
    struct ftl_io trim = page_io(ftl, 0, 0, 192, 0);
    uint64_t done;
    CHECK(ftl_trim(ftl, &trim, &done) == FTL_OK);
    CHECK_EQ_U64(gauges(ftl).slc_cap_pages, 96);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* 4. slc_when_full=fold: 200 pages through a 64-page cache never go direct. SLC units
 * open at pages 0, 32, ..., 192 (7); opening units 3..7 finds 2 closed ones and folds the
 * oldest first: 5 foreground folds of 32 pages, 5 erases. */
static void test_when_full_fold(void)
{
    struct ftl_config cfg = tlc_config(2, 0);
    cfg.slc_when_full = FTL_SLC_FOLD;
    struct ftl *ftl = make_ftl(&cfg);
    for (uint64_t i = 0; i < 200; i++) {
        CHECK(write_pages(ftl, i * MS, i, 1, NULL) == FTL_OK);
    }
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.slc_host_pages, 200);
    CHECK_EQ_U64(c.slc_direct_pages, 0);
    CHECK_EQ_U64(c.slc_fg_fold_units, 5);
    CHECK_EQ_U64(c.slc_folded_pages, 160);
    CHECK_EQ_U64(c.slc_fold_erases, 5);
    /* 6 units closed, 5 folded: 1 closed, and the 7th open with 8 pages */
    CHECK_EQ_U64(ftl->slc_count, 1);
    CHECK_EQ_U64(gauges(ftl).slc_used_pages, 40);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* One step of the mixed workload: a write of 1-4 pages (mostly into a hot eighth, so
 * pages are overwritten and GC has victims), a read, or a trim; the background step after
 * it; then a gap, sometimes long enough to fold. */
static void mixed_step(struct ftl *ftl, uint64_t *rng, uint64_t *now, uint64_t *bad_rc)
{
    uint64_t pages = ftl->geo.logical_pages, r = next_rand(rng);
    uint64_t len = 1 + r % 4;
    uint64_t lpn = r % 8 < 6 ? next_rand(rng) % (pages / 8) : next_rand(rng) % pages;
    if (lpn + len > pages) {
        lpn = pages - len;
    }
    struct ftl_io io = page_io(ftl, *now, lpn, len, 0);
    uint64_t done, kind = next_rand(rng) % 16;
    ftl_background_fold(ftl, *now);     /* the idle time before it, as the engine does */
    int rc = kind < 11 ? ftl_write(ftl, &io, &done) :
             kind < 14 ? ftl_read(ftl, &io, &done) : ftl_trim(ftl, &io, &done);
    *bad_rc += rc != FTL_OK;
    ftl_background_gc(ftl, *now);
    *now += next_rand(rng) % 64 == 0 ? 100 * MS : 100000 + next_rand(rng) % 400000;
}

/*
 * 5. A random mixed workload (overwrites, trims, reads, idle gaps) on a device filled to
 * 90%, GC only at the foreground threshold, so foreground GC, foreground and background
 * folding all run: ftl_check is clean
 * after every step. Halfway a state file is saved, restored into a fresh FTL, and both run
 * the rest: they end alike (1 LUN, saved when it is idle: the restore spends no idle time
 * before it, and neither does the original at that instant).
 */
static void test_random_consistent(void)
{
    struct ftl_config cfg = tlc_config(1, 40);
    cfg.gc_thres_pcent = 90;    /* GC only at the foreground threshold: folds come first */
    struct ftl *a = make_ftl(&cfg);
    char err[512] = "", dir[] = "/tmp/femu-test-slc-XXXXXX", path[300];
    uint64_t rng = 7, now = 0, bad_rc = 0, unclean = 0;
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/state", dir);
    CHECK(write_pages(a, 0, 0, a->geo.logical_pages * 9 / 10, NULL) == FTL_OK);
    /* save with closed SLC units, so the file carries the FIFO */
    for (int i = 0; i < 3000 || (a->slc_count == 0 && i < 6000); i++) {
        mixed_step(a, &rng, &now, &bad_rc);
        unclean += ftl_check(a, err, sizeof(err)) != 0;
    }
    now = idle_time(a);
    uint64_t saved_units = a->slc_count;
    CHECK(ftl_state_save_file(a, path, "test", now, err, sizeof(err)) == 0);
    struct ftl *b = load_or_null(&cfg, path, now, err, sizeof(err));
    if (!check_record(b != NULL, __FILE__, __LINE__, "restore")) {
        fprintf(stderr, "    %s\n", err);
        return;
    }
    uint64_t rng_b = rng, now_b = now, bad_b = 0;
    for (int i = 0; i < 3000; i++) {
        mixed_step(a, &rng, &now, &bad_rc);
        mixed_step(b, &rng_b, &now_b, &bad_b);
        unclean += ftl_check(a, err, sizeof(err)) != 0;
        unclean += ftl_check(b, err, sizeof(err)) != 0;
    }
    CHECK_EQ_U64(bad_rc, 0);
    CHECK_EQ_U64(bad_b, 0);
    CHECK_EQ_U64(unclean, 0);
    if (unclean) {
        fprintf(stderr, "    %s\n", err);
    }
    check_core_same(a, b, "slc round trip");
    CHECK_EQ_U64(a->lun_avail_ns[0], b->lun_avail_ns[0]);
    struct ftl_counters c = counters(a);
    /* every mechanism ran (some units folded in the background), and the file carried
     * closed SLC units */
    CHECK(c.slc_host_pages > 0 && c.slc_direct_pages > 0 && c.gc_runs > 0);
    CHECK(c.slc_fg_fold_units > 0 && c.slc_fold_erases > c.slc_fg_fold_units);
    CHECK(saved_units > 0);
    fprintf(stderr, "random: %llu cached, %llu direct, %llu folded (%llu units in the "
            "foreground), %llu GC runs, %llu units closed at the save\n",
            (unsigned long long)c.slc_host_pages, (unsigned long long)c.slc_direct_pages,
            (unsigned long long)c.slc_folded_pages, (unsigned long long)c.slc_fg_fold_units,
            (unsigned long long)c.gc_runs, (unsigned long long)saved_units);
    ftl_destroy(a);
    ftl_destroy(b);
    remove(path);
    remove(dir);
}

/* 6. What the cache needs and supports: one line naming the key. */
static void test_bad_input(void)
{
    char err[256];
    struct {
        const char *key, *value, *want;
    } cases[] = {
        { "cell_bits", "0", "cell_bits: slc_cache=on needs media of 2 to 4 bits per cell" },
        { "cell_bits", "1", "cell_bits: slc_cache=on needs media of 2 to 4 bits per cell" },
        { "slc_pg_rd_lat", "0", "slc_pg_rd_lat: slc_cache=on with a profile without the SLC "
                                "latencies" },
        { "slc_pg_wr_lat", "0", "slc_pg_wr_lat: slc_cache=on with a profile without" },
        { "slc_blk_er_lat", "0", "slc_blk_er_lat: slc_cache=on with a profile without" },
        { "placement", "stream", "placement: slc_cache=on supports placement=single or" },
        { "placement", "fdp", "placement: slc_cache=on supports placement=single or" },
        { "zoned", "on", "zoned: slc_cache=on is not modelled" },
        { "mapping", "dftl", "mapping: slc_cache=on is not modelled with dftl" },
        /* 16 units, 1 kept for foreground GC, 1 write pointer, the SLC unit open: 768
         * logical pages need 9 of the other 13, leaving room for 4 static units */
        { "slc_static_units", "5", "slc_static_units: 5 static units (96 pages each, taken "
                                   "from the over-provisioning) are a cache larger than the "
                                   "free space can ever hold beside 3 MiB and the GC "
                                   "reserve: at most 4" },
        { "slc_when_full", "later", "slc_when_full: 'later' is not one of direct, fold" },
        { "slc_dynamic_pcent", "101", "slc_dynamic_pcent: 101 is out of range [0, 100]" },
        { "cell_bits", "5", "cell_bits: 5 is out of range [0, 4]" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct ftl_config cfg = tlc_config(0, 0);
        err[0] = '\0';
        int rc = ftl_config_set(&cfg, cases[i].key, cases[i].value, err, sizeof(err));
        if (rc == 0) {
            if (!strcmp(cases[i].key, "zoned")) {
                cfg.zones = 1;
            }
            rc = ftl_config_validate(&cfg, NULL, err, sizeof(err));
        }
        CHECK(rc == -1);
        if (strncmp(err, cases[i].want, strlen(cases[i].want)) != 0) {
            CHECK(!"the expected message");
            fprintf(stderr, "    got: %s\n    want: %s\n", err, cases[i].want);
        }
    }
    /* 4 static units fit; the same with the cache off needs no SLC profile at all */
    struct ftl_config cfg = tlc_config(4, 0);
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
    cfg = tlc_config(0, 0);
    cfg.slc_cache = 0;
    cfg.cell_bits = 0;
    cfg.slc_pg_wr_lat = 0;
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
}

int main(void)
{
    test_cliff_position();
    test_idle_refill();
    test_dynamic_rule();
    test_when_full_fold();
    test_random_consistent();
    test_bad_input();
    return check_summary();
}
