/*
 * Read retries (flash/read_retry.c): a host page read senses pg_rd_lat plus
 * read_retry_lat per step, with x = erases / read_retry_pe_step + age / read_retry_age_s
 * expected steps: floor(x), one more with probability frac(x), at most read_retry_max.
 * One channel, one LUN and no channel time, so a read issued on an idle LUN takes
 * exactly its sense time.
 */
#include <stdbool.h>
#include <unistd.h>

#include "femu_ftl/state.h"
#include "flash/geometry.h"
#include "flash/read_retry.h"
#include "map/page_map.h"
#include "ftl_state_test_util.h"

enum { RD = 40000, STEP = 75000 };
#define SEC UINT64_C(1000000000)

static char err[256];

static struct ftl_config retry_config(uint64_t pe_step, uint64_t age_s, uint64_t max)
{
    struct ftl_config cfg = small_config(1, 1, 64, 64, 8);
    cfg.pg_rd_lat = RD;
    cfg.read_retry_lat = STEP;
    cfg.read_retry_pe_step = pe_step;
    cfg.read_retry_age_s = age_s;
    cfg.read_retry_max = max;
    return cfg;
}

/* The sense time of one read of lpn at now (the LUN is idle by then). */
static uint64_t read_time(struct ftl *ftl, uint64_t lpn, uint64_t now)
{
    uint64_t done = 0;
    CHECK(read_pages(ftl, now, lpn, 1, &done) == FTL_OK);
    return done - now;
}

/* The block lpn lives on, to give it a wear the test chose. */
static struct block *block_of(struct ftl *ftl, uint64_t lpn)
{
    return ppa_block(ftl, l2p_get(ftl, (uint32_t)lpn));
}

/* Off (read_retry_lat 0) is today's read, whatever wear and age. */
static void test_off_is_a_plain_read(void)
{
    struct ftl_config cfg = retry_config(100, 10, 8);
    cfg.read_retry_lat = 0;
    struct ftl *ftl = make_ftl(&cfg);
    CHECK(write_pages(ftl, 0, 0, 1, NULL) == FTL_OK);
    block_of(ftl, 0)->erase_count = 1000;
    CHECK_EQ_U64(read_time(ftl, 0, 1000 * SEC), RD);
    CHECK_EQ_U64(counters(ftl).read_retries, 0);
    ftl_destroy(ftl);
}

/* A whole number of expected steps is exact: wear 300 / 100, then age 30 s / 10 s on top. */
static void test_whole_steps_are_exact(void)
{
    struct ftl_config cfg = retry_config(100, 10, 16);
    struct ftl *ftl = make_ftl(&cfg);
    CHECK(write_pages(ftl, 0, 0, 1, NULL) == FTL_OK);
    block_of(ftl, 0)->erase_count = 300;
    CHECK_EQ_U64(read_time(ftl, 0, SEC / 1000), RD + 3 * STEP);    /* 1 ms: age adds 0.0001 */
    ftl_destroy(ftl);

    cfg.read_retry_pe_step = 0;     /* age only */
    ftl = make_ftl(&cfg);
    CHECK(write_pages(ftl, 5 * SEC, 0, 1, NULL) == FTL_OK);
    CHECK_EQ_U64(read_time(ftl, 0, 5 * SEC + 30 * SEC), RD + 3 * STEP);
    CHECK_EQ_U64(read_time(ftl, 0, 5 * SEC + 50 * SEC), RD + 5 * STEP);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.read_retries, 8);
    CHECK_EQ_U64(c.retried_reads, 2);
    size_t n;
    const uint64_t *h = ftl_read_retry_histogram(ftl, &n);
    CHECK_EQ_U64(n, 17);
    CHECK_EQ_U64(h[3 * n + 3], 1);      /* age class 3, 3 steps */
    CHECK_EQ_U64(h[5 * n + 5], 1);
    ftl_destroy(ftl);

    cfg.read_retry_pe_step = 100;   /* both: 2 from wear + 1.5 from age = 3.5, and 3 + 1 */
    ftl = make_ftl(&cfg);
    CHECK(write_pages(ftl, 0, 0, 1, NULL) == FTL_OK);
    block_of(ftl, 0)->erase_count = 300;
    CHECK_EQ_U64(read_time(ftl, 0, 10 * SEC), RD + 4 * STEP);
    ftl_destroy(ftl);
}

/* read_retry_max caps the steps; the age class is capped with it. */
static void test_max_caps(void)
{
    struct ftl_config cfg = retry_config(100, 0, 2);
    struct ftl *ftl = make_ftl(&cfg);
    CHECK(write_pages(ftl, 0, 0, 1, NULL) == FTL_OK);
    block_of(ftl, 0)->erase_count = 500;
    CHECK_EQ_U64(read_time(ftl, 0, SEC), RD + 2 * STEP);
    size_t n;
    const uint64_t *h = ftl_read_retry_histogram(ftl, &n);
    CHECK_EQ_U64(h[2 * n + 2], 1);
    ftl_destroy(ftl);
}

/* x = 2.25: every read takes 2 or 3 steps, 3 in a quarter of them, the same draws for
 * the same seed and others for another. */
static void test_fraction_is_a_seeded_draw(void)
{
    enum { READS = 8000 };
    struct ftl_config cfg = retry_config(400, 0, 8);
    uint64_t threes[2] = { 0 };
    uint64_t sum[3] = { 0 };
    for (int run = 0; run < 3; run++) {
        cfg.fault_seed = run == 2 ? 7 : 1;
        struct ftl *ftl = make_ftl(&cfg);
        CHECK(write_pages(ftl, 0, 0, 4, NULL) == FTL_OK);
        block_of(ftl, 0)->erase_count = 900;
        uint64_t now = SEC, odd = 0;
        for (int i = 0; i < READS; i++, now += SEC / 1000) {
            uint64_t t = read_time(ftl, (uint64_t)i % 4, now);
            odd += t != RD + 2 * STEP && t != RD + 3 * STEP;
            sum[run] = sum[run] * 31 + t;   /* the sequence, not just the count */
            if (run < 2) {
                threes[run] += t == RD + 3 * STEP;
            }
        }
        CHECK_EQ_U64(odd, 0);
        ftl_destroy(ftl);
    }
    CHECK_EQ_U64(threes[0], threes[1]);
    CHECK(sum[0] == sum[1]);
    CHECK(sum[0] != sum[2]);
    /* binomial(8000, 0.25): sd 38.7, so 4.5 sd either side */
    CHECK(threes[0] > 2000 - 175 && threes[0] < 2000 + 175);
}

/* A block's age starts at its first program after an erase, and a state file keeps it:
 * saved at 40 s and restored at 1000 s (or at 0), a read 20 s later sees 40 + 20 = 60 s. */
static void test_age_follows_erase_and_state(void)
{
    struct ftl_config cfg = retry_config(0, 10, 16);
    struct ftl *ftl = make_ftl(&cfg);
    CHECK(write_pages(ftl, 0, 0, 1, NULL) == FTL_OK);
    char path[] = "/tmp/femu-read-retry-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK(ftl_state_save_file(ftl, path, "test", 40 * SEC, err, sizeof(err)) == 0);
    struct ftl *back = load_or_null(&cfg, path, 1000 * SEC, err, sizeof(err));
    CHECK(back != NULL);
    if (back) {
        CHECK_EQ_U64(read_time(back, 0, 1020 * SEC), RD + 6 * STEP);
        CHECK_CONSISTENT(back);
        ftl_destroy(back);
    }
    /* restored at the clock's 0, as ftl-sim does: the block dates from 40 s before it */
    back = load_or_null(&cfg, path, 0, err, sizeof(err));
    CHECK(back != NULL);
    if (back) {
        CHECK_EQ_U64(read_time(back, 0, 20 * SEC), RD + 6 * STEP);
        ftl_destroy(back);
    }
    remove(path);

    /* fill the device over and over: GC erases blocks and their new data is young */
    uint64_t pages = ftl_geometry_of(ftl)->logical_pages, now = SEC;
    for (int pass = 0; pass < 4; pass++) {
        for (uint64_t lpn = 0; lpn < pages; lpn++, now += SEC / 100) {
            CHECK(write_pages(ftl, now, lpn, 1, NULL) == FTL_OK);
        }
    }
    CHECK(counters(ftl).gc_erased_blocks > 0);
    /* lpn 0 was last written at t0, into a block opened at most one block's worth of
     * writes (64 pages, host or GC, at 10 ms a host write) before */
    uint32_t ppa = l2p_get(ftl, 0);
    uint64_t index = unit_block_index(ftl, ppa_line(ftl, ppa), ppa_lun(ftl, ppa));
    uint64_t t0 = SEC + 3 * pages * (SEC / 100);
    CHECK(ftl->block_programmed_ns[index] <= t0);
    CHECK(ftl->block_programmed_ns[index] + 64 * (SEC / 100) >= t0);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* A page the SLC cache took dates its block too (and senses at the SLC latency): written
 * at 100 s, read at 130 s, 30 s of age are 3 steps (dating it from the clock's 0 would
 * give 13). */
static void test_slc_cache_pages_are_dated(void)
{
    struct ftl_config cfg = retry_config(0, 10, 16);
    cfg.cell_bits = 2;
    cfg.slc_pg_rd_lat = 25000;
    cfg.slc_pg_wr_lat = 100000;
    cfg.slc_blk_er_lat = 1000000;
    cfg.slc_cache = 1;
    cfg.slc_static_units = 1;
    struct ftl *ftl = make_ftl(&cfg);
    CHECK(write_pages(ftl, 100 * SEC, 0, 1, NULL) == FTL_OK);
    CHECK_EQ_U64(counters(ftl).slc_host_pages, 1);
    CHECK_EQ_U64(read_time(ftl, 0, 130 * SEC), 25000 + 3 * STEP);
    ftl_destroy(ftl);
}

/* A model that makes a read exceed a second is refused, naming the key. */
static void test_a_read_over_a_second_is_refused(void)
{
    struct ftl_config cfg = retry_config(100, 0, 8);
    cfg.read_retry_lat = 130 * 1000000;     /* 8 x 130 ms + 40 us */
    CHECK(ftl_create(&cfg, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "read_retry_max: 8 steps of read_retry_lat 130000000 ns");
    cfg.read_retry_max = 7;                 /* 910 ms: fine */
    struct ftl *ftl = ftl_create(&cfg, err, sizeof(err));
    CHECK(ftl != NULL);
    ftl_destroy(ftl);
    CHECK(ftl_config_set(&cfg, "read_retry_max", "65", err, sizeof(err)) == -1);
    CHECK_CONTAINS(err, "read_retry_max");
}

/* The expected steps in 1/65536: both terms, and ages of months without overflow. */
static void test_expected_steps(void)
{
    struct ftl_config cfg = retry_config(1000, 86400, 8);
    CHECK_EQ_U64(read_retry_expected(&cfg, 500, 0), 32768);
    CHECK_EQ_U64(read_retry_expected(&cfg, 0, 43200 * SEC), 32768);
    CHECK_EQ_U64(read_retry_expected(&cfg, 3000, 100 * 86400 * SEC), 103 * 65536);
}

int main(void)
{
    test_off_is_a_plain_read();
    test_whole_steps_are_exact();
    test_max_caps();
    test_fraction_is_a_seeded_draw();
    test_age_follows_erase_and_state();
    test_slc_cache_pages_are_dated();
    test_a_read_over_a_second_is_refused();
    test_expected_steps();
    return check_summary();
}
