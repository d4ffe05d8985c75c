/*
 * buf_flush_mode=ahead: a write completes at buf_wr_lat unless the buffered sectors plus
 * those of the buffer's flushes still programming exceed write_buffer_sectors, then when
 * the earliest of those programs have ended to make room; wait mode keeps FEMU's times
 * (the same sequence, pinned); Flush and the write-cache switch wait for programs in
 * flight; a power cut tears them (no plp) or lets them end (plp) and forgets them, as
 * does a restore; a randomized run keeps the checker's invariants. Times are simulated, computed by hand.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "femu_ftl/state.h"

#include "wbuf/write_buffer.h"
#include "ftl_test_util.h"
#include "rng.h"

#define SEC 1000000000ull
#define SPP 4

/* One channel, one LUN (its programs run back to back), 4-sector pages; a buffer of 4
 * pages (16 sectors) flushed above 50 % (8 sectors). */
static struct ftl_config ahead_config(enum ftl_buf_flush_mode mode)
{
    struct ftl_config cfg = small_config(1, 1, 160, 8, SPP);
    cfg.devsz_mb = 1;
    cfg.write_buffer_sectors = 4 * SPP;
    cfg.buf_flush_pcent = 50;
    cfg.buf_flush_mode = mode;
    return cfg;
}

/* Whole page lpn at now. */
static uint64_t write_page(struct ftl *ftl, uint64_t now, uint64_t lpn)
{
    struct ftl_io io = { .now_ns = now, .slba = lpn * SPP, .nlb = SPP };
    uint64_t done = 0;
    CHECK(ftl_write(ftl, &io, &done) == FTL_OK);
    return done;
}

/*
 * Six single-page writes 1 us apart at t0.., then a Flush at t0 + 6 us; W = pg_wr_lat,
 * L = buf_wr_lat. Pages 0 and 1 fill the buffer to its watermark; from the third write
 * on, each write flushes the oldest page, programmed at t2 + W, t2 + 2W, ... on the one
 * LUN. ahead: writes 2 and 3 still fit (8 buffered + 4, then 8 in flight = 16), write 4
 * holds 8 + 12 > 16 and waits for page 0's program (t2 + W), write 5 for page 1's
 * (t2 + 2W). wait: each of writes 2..5 completes at its own flush's end.
 */
static void test_sequence(enum ftl_buf_flush_mode mode)
{
    struct ftl_config cfg = ahead_config(mode);
    struct ftl *ftl = make_ftl(&cfg);
    const uint64_t W = cfg.pg_wr_lat, L = cfg.buf_wr_lat, t0 = SEC, us = 1000;
    const uint64_t t2 = t0 + 2 * us;
    uint64_t want_ahead[6] = { t0 + L, t0 + us + L, t2 + L, t0 + 3 * us + L, t2 + W,
                               t2 + 2 * W };
    uint64_t want_wait[6] = { t0 + L, t0 + us + L, t2 + W, t2 + 2 * W, t2 + 3 * W,
                              t2 + 4 * W };
    const uint64_t *want = mode == FTL_BUF_FLUSH_AHEAD ? want_ahead : want_wait;

    for (uint64_t k = 0; k < 6; k++) {
        CHECK_EQ_U64(write_page(ftl, t0 + k * us, k), want[k]);
        CHECK_CONSISTENT(ftl);
    }
    CHECK_EQ_U64(counters(ftl).buf_flushed_pages, 4);
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 8);
    /* Flush: pages 4 and 5 after the four already queued on the LUN */
    uint64_t done;
    CHECK(ftl_flush(ftl, t0 + 6 * us, &done) == FTL_OK);
    CHECK_EQ_U64(done, t2 + 6 * W);
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 0);
    CHECK_CONSISTENT(ftl);
    /* long after: nothing in flight, a write fits again */
    CHECK_EQ_U64(write_page(ftl, 2 * SEC, 6), 2 * SEC + L);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* A Flush with nothing buffered still waits for the buffer's flushes in flight: page 0
 * is programming (t2 .. t2 + W) when pages 1 and 2 are trimmed out of the buffer. In
 * wait mode too: page 0 was acknowledged at t0 + L, and the write whose flush programs it
 * has not completed yet when the Flush arrives. */
static void test_flush_waits_in_flight(enum ftl_buf_flush_mode mode)
{
    struct ftl_config cfg = ahead_config(mode);
    struct ftl *ftl = make_ftl(&cfg);
    const uint64_t W = cfg.pg_wr_lat, L = cfg.buf_wr_lat, t0 = SEC, us = 1000;
    const uint64_t t2 = t0 + 2 * us;
    uint64_t done;

    for (uint64_t k = 0; k < 3; k++) {
        write_page(ftl, t0 + k * us, k);
    }
    struct ftl_io io = { .now_ns = t0 + 3 * us, .slba = 1 * SPP, .nlb = 2 * SPP };
    CHECK(ftl_trim(ftl, &io, &done) == FTL_OK);
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 0);
    CHECK(ftl_flush(ftl, t0 + 4 * us, &done) == FTL_OK);
    CHECK_EQ_U64(done, t2 + W);
    /* after it ended, a Flush of an empty buffer is immediate */
    CHECK(ftl_flush(ftl, t2 + W + us, &done) == FTL_OK);
    CHECK_EQ_U64(done, t2 + W + us);
    /* switching the cache off drains the same way: page 3 flushed by page 5's write
     * (t0 + 2 s + 2 us .. + W) is still programming at the switch */
    const uint64_t t = 2 * SEC;
    write_page(ftl, t, 3);
    write_page(ftl, t + us, 4);
    CHECK_EQ_U64(write_page(ftl, t + 2 * us, 5),
                 t + 2 * us + (mode == FTL_BUF_FLUSH_AHEAD ? L : W));
    io = (struct ftl_io){ .now_ns = t + 3 * us, .slba = 4 * SPP, .nlb = 2 * SPP };
    CHECK(ftl_trim(ftl, &io, &done) == FTL_OK);
    CHECK(ftl_set_write_cache(ftl, false, t + 4 * us, &done) == FTL_OK);
    CHECK_EQ_U64(done, t + 2 * us + W);
    CHECK(ftl_set_write_cache(ftl, true, t + 5 * us, &done) == FTL_OK);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* A FUA write of a buffered page programs it (merged) and, in ahead mode, also waits for
 * room: after the sequence's first four writes 8 sectors are buffered and 8 in flight
 * (pages 0, 1: ends t2 + W, t2 + 2W); FUA of page 3 moves its 4 sectors into flight
 * (program t2 + 3W), 4 + 12 = 16 fits: done at its own program's end. */
static void test_fua(void)
{
    struct ftl_config cfg = ahead_config(FTL_BUF_FLUSH_AHEAD);
    struct ftl *ftl = make_ftl(&cfg);
    const uint64_t W = cfg.pg_wr_lat, t0 = SEC, us = 1000, t2 = t0 + 2 * us;
    uint64_t done;

    for (uint64_t k = 0; k < 4; k++) {
        write_page(ftl, t0 + k * us, k);
    }
    struct ftl_io io = { .now_ns = t0 + 4 * us, .slba = 3 * SPP, .nlb = 1, .fua = true };
    CHECK(ftl_write(ftl, &io, &done) == FTL_OK);
    CHECK_EQ_U64(done, t2 + 3 * W);
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 4);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* A cut while pages 0 and 1 program (after four writes): without plp both are torn and
 * the two buffered pages lost; with plp the buffer is programmed and nothing is lost.
 * Either way the power-on has nothing in flight: the next write fits at once. */
static void test_power_cut(bool plp)
{
    struct ftl_config cfg = ahead_config(FTL_BUF_FLUSH_AHEAD);
    cfg.plp = plp;
    struct ftl *ftl = make_ftl(&cfg);
    const uint64_t L = cfg.buf_wr_lat, t0 = SEC, us = 1000;
    struct ftl_power_cut_result res;
    char err[256] = "";

    for (uint64_t k = 0; k < 4; k++) {
        write_page(ftl, t0 + k * us, k);
    }
    CHECK(ftl_power_cut(ftl, t0 + 5 * us, plp, NULL, NULL, &res, err, sizeof(err)) ==
          FTL_OK);
    CHECK_EQ_U64(res.torn_pages, plp ? 0 : 2);
    CHECK_EQ_U64(res.buffered_pages, plp ? 0 : 2);
    CHECK_EQ_U64(res.plp_pages, plp ? 2 : 0);
    CHECK_CONSISTENT(ftl);
    for (uint64_t k = 0; k < 4; k++) {
        CHECK_EQ_U64(write_page(ftl, t0 + (6 + k) * us, 10 + k), t0 + (6 + k) * us + L);
    }
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* A state file saved in wait mode (pages 2 and 3 buffered) restores into an ahead-mode
 * FTL at T, its flash idle from then: pages 9 and 10 each flush one (2, then 3, at T + us
 * + W and + 2W) and fit; page 11 flushes page 9 and waits for page 2's program. */
static void test_restore(void)
{
    char dir[] = "/tmp/femu-wbuf-ahead-XXXXXX", path[64], err[256] = "";
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/ftl.state", dir);
    struct ftl_config wait = ahead_config(FTL_BUF_FLUSH_WAIT);
    struct ftl_config ahead = ahead_config(FTL_BUF_FLUSH_AHEAD);
    struct ftl *saved = make_ftl(&wait), *ftl = make_ftl(&ahead);
    const uint64_t W = ahead.pg_wr_lat, L = ahead.buf_wr_lat, t0 = SEC, us = 1000;
    const uint64_t T = 3 * SEC;

    for (uint64_t k = 0; k < 4; k++) {
        write_page(saved, t0 + k * us, k);
    }
    CHECK(ftl_state_save_file(saved, path, "test", 2 * SEC, err, sizeof(err)) == 0);
    CHECK(ftl_state_load_file(ftl, path, T, err, sizeof(err)) == 0);
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 8);
    CHECK_EQ_U64(write_page(ftl, T + us, 9), T + us + L);
    CHECK_EQ_U64(write_page(ftl, T + 2 * us, 10), T + 2 * us + L);
    CHECK_EQ_U64(write_page(ftl, T + 3 * us, 11), T + us + W);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(saved);
    ftl_destroy(ftl);
    unlink(path);
    CHECK(rmdir(dir) == 0);
}

/* Random sub-page writes, reads, trims and Flushes on two LUNs: the checker (buffered +
 * in flight within the buffer, the heap in order) after every command; at the time a
 * Flush completes no page is still programming, so a power cut then tears none and
 * loses nothing. (No FUA here: a FUA write of an unbuffered page is no flush of the
 * buffer's, and a Flush need not wait for a write that has not completed.) */
static void test_randomized(uint64_t seed)
{
    struct ftl_config cfg = small_config(1, 2, 160, 4, SPP);
    cfg.devsz_mb = 2;
    cfg.write_buffer_sectors = 40;
    cfg.buf_flush_pcent = 60;
    cfg.buf_flush_mode = FTL_BUF_FLUSH_AHEAD;
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t cap = ftl_geometry_of(ftl)->logical_sectors, now = 0, done;
    uint64_t failures = 0, inconsistent = 0, lost = 0, flushes = 0, waited = 0;
    struct rng rng;
    rng_seed(&rng, seed);

    for (uint64_t i = 0; i < 4000; i++, now += rng_below(&rng, 50000)) {
        uint64_t kind = rng_below(&rng, 100), nlb = 1 + rng_below(&rng, 3 * SPP);
        uint64_t slba = rng_below(&rng, cap / 8);
        struct ftl_io io = { .now_ns = now, .slba = slba, .nlb = nlb };
        int rc;
        if (kind < 70) {
            rc = ftl_write(ftl, &io, &done);
            waited += done > now + cfg.buf_wr_lat;
        } else if (kind < 85) {
            rc = ftl_read(ftl, &io, &done);
        } else if (kind < 95) {
            rc = ftl_trim(ftl, &io, &done);
        } else {
            rc = ftl_flush(ftl, now, &done);
            now = done;
            struct ftl_power_cut_result res;
            rc |= ftl_power_cut(ftl, now, false, NULL, NULL, &res, NULL, 0);
            lost += res.torn_pages + res.buffered_pages;
            flushes++;
        }
        failures += rc != FTL_OK;
        char err[256] = "";
        inconsistent += ftl_check(ftl, err, sizeof(err)) != 0;
    }
    CHECK_EQ_U64(failures, 0);
    CHECK_EQ_U64(inconsistent, 0);
    CHECK_EQ_U64(lost, 0);
    CHECK(flushes > 0 && waited > 0);
    printf("  randomized ahead (seed %llu): %llu Flushes each followed by a cut, %llu "
           "writes waited for room\n", (unsigned long long)seed,
           (unsigned long long)flushes, (unsigned long long)waited);
    ftl_destroy(ftl);
}

static void test_config(void)
{
    struct ftl_config cfg;
    ftl_config_defaults(&cfg);
    char err[256] = "";
    CHECK(ftl_config_set(&cfg, "buf_flush_mode", "early", err, sizeof(err)) != 0);
    CHECK(strncmp(err, "buf_flush_mode", strlen("buf_flush_mode")) == 0 &&
          !strchr(err, '\n'));
    printf("  rejected: %s\n", err);
    CHECK(ftl_config_get(&cfg, "buf_flush_mode", err, sizeof(err)) == 0 &&
          !strcmp(err, "wait"));
    CHECK(ftl_config_set(&cfg, "buf_flush_mode", "ahead", err, sizeof(err)) == 0);
    CHECK_EQ_U64(cfg.buf_flush_mode, FTL_BUF_FLUSH_AHEAD);
    /* ahead without a buffer names the key */
    cfg.write_buffer_sectors = 0;
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) != 0);
    CHECK(strncmp(err, "buf_flush_mode:", strlen("buf_flush_mode:")) == 0 &&
          !strchr(err, '\n'));
    printf("  rejected: %s\n", err);
}

int main(void)
{
    test_sequence(FTL_BUF_FLUSH_AHEAD);
    test_sequence(FTL_BUF_FLUSH_WAIT);
    test_flush_waits_in_flight(FTL_BUF_FLUSH_AHEAD);
    test_flush_waits_in_flight(FTL_BUF_FLUSH_WAIT);
    test_fua();
    test_power_cut(false);
    test_power_cut(true);
    test_restore();
    test_randomized(1);
    test_randomized(2);
    test_config();
    return check_summary();
}
