/*
 * The write buffer (write_buffer_sectors): rewrites are absorbed and reach flash only when
 * flushed, as whole pages; reads it covers cost no flash read; a page flushed with holes
 * is completed from flash only when it is there; past buf_flush_pcent the least recently
 * written page goes first; trim and format drop buffered data; the checker passes after
 * every command of randomized runs with and without dftl; configuration errors name their
 * key. Assertions are on counts and on simulated times only.
 */
#include <string.h>

#include "wbuf/write_buffer.h"
#include "ftl_test_util.h"
#include "rng.h"

#define SEC 1000000000ull
#define SPP 4   /* sectors per page in these tests */

/* 1 channel x 2 LUNs x 4 pages per block (8 pages a line), 2 KiB pages; 2 MiB logical
 * (1024 pages) over 160 lines (1280 pages). */
static struct ftl_config buf_config(uint64_t sectors, uint64_t flush_pcent)
{
    struct ftl_config cfg = small_config(1, 2, 160, 4, SPP);
    cfg.devsz_mb = 2;
    cfg.write_buffer_sectors = sectors;
    cfg.buf_flush_pcent = flush_pcent;
    return cfg;
}

/* Sector-granular I/O. */
static int wr(struct ftl *ftl, uint64_t now, uint64_t slba, uint64_t nlb, uint64_t *done)
{
    struct ftl_io io = { .now_ns = now, .slba = slba, .nlb = nlb };
    return ftl_write(ftl, &io, done);
}

static int rd(struct ftl *ftl, uint64_t now, uint64_t slba, uint64_t nlb, uint64_t *done)
{
    struct ftl_io io = { .now_ns = now, .slba = slba, .nlb = nlb };
    return ftl_read(ftl, &io, done);
}

static int trim(struct ftl *ftl, uint64_t now, uint64_t slba, uint64_t nlb)
{
    struct ftl_io io = { .now_ns = now, .slba = slba, .nlb = nlb };
    uint64_t done;
    return ftl_trim(ftl, &io, &done);
}

/* Whether page lpn has sectors in the buffer. */
static bool buffered(const struct ftl *ftl, uint64_t lpn)
{
    return wbuf_covers(ftl, (uint32_t)lpn, 0);
}

/* ---- absorbed rewrites ---- */

static void test_hot_loop(void)
{
    struct ftl_config cfg = buf_config(64, 100);
    struct ftl *ftl = make_ftl(&cfg);
    const uint64_t k = 10;      /* sectors 0..9: pages 0, 1 and half of 2 */
    uint64_t now = SEC, done, sectors = 0, late = 0, programs = 0;
    struct rng rng;
    rng_seed(&rng, 1);

    for (int round = 0; round < 100; round++) {
        if (round % 2 == 0) {
            CHECK(wr(ftl, now += 1000, 0, k, &done) == FTL_OK);
            late += done != now + cfg.buf_wr_lat;
            sectors += k;
        } else {
            for (uint64_t i = 0; i < k; i++) {
                CHECK(wr(ftl, now += 1000, rng_below(&rng, k), 1, &done) == FTL_OK);
                late += done != now + cfg.buf_wr_lat;
                sectors++;
            }
        }
        programs += counters(ftl).nand_user_programs;
    }
    CHECK_EQ_U64(late, 0);
    CHECK_EQ_U64(programs, 0);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.buf_absorbed_sectors, sectors - k);
    CHECK_EQ_U64(c.nand_user_programs + c.nand_user_reads, 0);
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), k);
    CHECK(!ftl_lpn_is_mapped(ftl, 0));
    CHECK_CONSISTENT(ftl);

    /* Flush: the 3 distinct pages, LRU first (pages 0, 1, 2 on LUNs 0, 1, 0): two
     * programs back to back on LUN 0. Page 2's holes were never written: no fill read. */
    now += SEC;
    CHECK(ftl_flush(ftl, now, &done) == FTL_OK);
    CHECK_EQ_U64(done, now + 2 * cfg.pg_wr_lat);
    c = counters(ftl);
    CHECK_EQ_U64(c.nand_user_programs, 3);
    CHECK_EQ_U64(c.buf_flushed_pages, 3);
    CHECK_EQ_U64(c.buf_fill_reads, 0);
    CHECK_EQ_U64(c.host_flush_cmds, 1);
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 0);
    for (uint64_t lpn = 0; lpn < 3; lpn++) {
        CHECK(ftl_lpn_is_mapped(ftl, lpn));
    }
    CHECK(!ftl_lpn_is_mapped(ftl, 3));
    /* a second flush has nothing to do */
    CHECK(ftl_flush(ftl, now + SEC, &done) == FTL_OK);
    CHECK_EQ_U64(done, now + SEC);
    CHECK_EQ_U64(counters(ftl).nand_user_programs, 3);
    struct ftl_counters zero = { 0 };
    double waf;
    CHECK(ftl_waf(&zero, &c, &waf));
    CHECK_NEAR(waf, 3.0 / (double)c.host_write_pages, 1e-12);
    printf("  hot loop over %llu sectors: %llu sectors written, %llu absorbed, %llu host "
           "pages, %llu programs after the flush (WAF %.4f)\n", (unsigned long long)k,
           (unsigned long long)sectors, (unsigned long long)c.buf_absorbed_sectors,
           (unsigned long long)c.host_write_pages, (unsigned long long)c.nand_user_programs,
           waf);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* Where host pages written through the buffer go, counted by hand: absorbed (a later
 * write replaced them there), flushed, dropped (trimmed while buffered) or pending. */
static void test_page_accounting(void)
{
    struct ftl_config cfg = buf_config(64, 100);    /* room for 16 whole pages */
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t now = SEC, done;
    struct ftl_gauges g;

    for (uint64_t lpn = 0; lpn < 5; lpn++) {        /* 5 pages buffered */
        CHECK(wr(ftl, now += 1000, lpn * SPP, SPP, &done) == FTL_OK);
    }
    for (uint64_t lpn = 0; lpn < 3; lpn++) {        /* k = 3 rewrites absorbed */
        CHECK(wr(ftl, now += 1000, lpn * SPP, SPP, &done) == FTL_OK);
    }
    CHECK(ftl_flush(ftl, now += 1000, &done) == FTL_OK);    /* 5 programs */
    CHECK(wr(ftl, now += 1000, 5 * SPP, SPP, &done) == FTL_OK);
    CHECK(wr(ftl, now += 1000, 6 * SPP, SPP, &done) == FTL_OK);
    CHECK(wr(ftl, now += 1000, 5 * SPP, 1, &done) == FTL_OK);  /* one sector: absorbed */
    CHECK(wr(ftl, now += 1000, 7 * SPP, SPP, &done) == FTL_OK);
    CHECK(trim(ftl, now += 1000, 7 * SPP, SPP) == FTL_OK);      /* dropped */

    struct ftl_counters c = counters(ftl), zero = { 0 };
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(c.host_write_pages, 5 + 3 + 3 + 1);
    CHECK_EQ_U64(c.buf_absorbed_pages, 3 + 1);
    CHECK_EQ_U64(c.buf_flushed_pages, 5);
    CHECK_EQ_U64(c.buf_dropped_pages, 1);
    CHECK_EQ_U64(g.buf_pending_pages, 2);          /* pages 5 and 6 */
    CHECK_EQ_U64(c.buf_absorbed_pages + c.buf_flushed_pages + c.buf_dropped_pages +
                 g.buf_pending_pages, c.host_write_pages);
    /* the WAF is unchanged: every program over every host page, 5 / 12 here */
    double waf;
    CHECK(ftl_waf(&zero, &c, &waf));
    CHECK_NEAR(waf, 5.0 / 12.0, 1e-12);
    printf("  page accounting: %llu host pages = %llu absorbed + %llu flushed + %llu dropped "
           "+ %llu pending; WAF %.4f\n", (unsigned long long)c.host_write_pages,
           (unsigned long long)c.buf_absorbed_pages, (unsigned long long)c.buf_flushed_pages,
           (unsigned long long)c.buf_dropped_pages, (unsigned long long)g.buf_pending_pages,
           waf);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* ---- reads ---- */

static void test_reads(void)
{
    struct ftl_config cfg = buf_config(64, 100);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t now = SEC, done;
    struct ftl_counters a, b;

    CHECK(wr(ftl, now, 0, 10, &done) == FTL_OK);   /* pages 0, 1 whole, page 2 sectors 8, 9 */
    a = counters(ftl);
    CHECK(rd(ftl, now += SEC, 0, 4, &done) == FTL_OK);         /* page 0 */
    CHECK_EQ_U64(done, now + cfg.buf_wr_lat);
    CHECK(rd(ftl, now += SEC, 2, 6, &done) == FTL_OK);         /* pages 0 and 1, partly */
    CHECK_EQ_U64(done, now + cfg.buf_wr_lat);
    CHECK(rd(ftl, now += SEC, 8, 2, &done) == FTL_OK);         /* the buffered half of 2 */
    b = counters(ftl);
    CHECK_EQ_U64(b.buf_read_hits - a.buf_read_hits, 4);
    CHECK_EQ_U64(b.nand_user_reads - a.nand_user_reads, 0);
    /* page 2's other half is in neither place: no hit, and nothing to read */
    CHECK(rd(ftl, now += SEC, 8, 4, &done) == FTL_OK);
    CHECK_EQ_U64(done, now);
    a = counters(ftl);
    CHECK_EQ_U64(a.buf_read_hits, b.buf_read_hits);
    CHECK_EQ_U64(a.nand_user_reads, 0);

    /* once on flash, a page partly rewritten in the buffer reads flash for what the
     * buffer does not hold, and only then */
    CHECK(ftl_flush(ftl, now += SEC, &done) == FTL_OK);
    CHECK(wr(ftl, now += SEC, 5, 1, &done) == FTL_OK);         /* sector 1 of page 1 */
    a = counters(ftl);
    CHECK(rd(ftl, now += SEC, 4, 4, &done) == FTL_OK);
    CHECK_EQ_U64(done, now + cfg.pg_rd_lat);
    CHECK(rd(ftl, now += SEC, 5, 1, &done) == FTL_OK);
    CHECK_EQ_U64(done, now + cfg.buf_wr_lat);
    CHECK(rd(ftl, now += SEC, 0, 4, &done) == FTL_OK);         /* flushed: flash */
    CHECK_EQ_U64(done, now + cfg.pg_rd_lat);
    b = counters(ftl);
    CHECK_EQ_U64(b.nand_user_reads - a.nand_user_reads, 2);
    CHECK_EQ_U64(b.buf_read_hits - a.buf_read_hits, 1);
    printf("  reads: %llu buffer hits, %llu flash reads\n",
           (unsigned long long)b.buf_read_hits, (unsigned long long)b.nand_user_reads);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* ---- pages flushed with holes ---- */

static void test_fill_reads(bool dftl)
{
    struct ftl_config cfg = buf_config(64, 100);
    if (dftl) {
        cfg.mapping = FTL_MAPPING_DFTL;
        cfg.cmt_entries = 512;
    }
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t now = SEC, done;

    CHECK(wr(ftl, now, 40, 4, &done) == FTL_OK);          /* page 10, whole */
    CHECK(ftl_flush(ftl, now += SEC, &done) == FTL_OK);
    CHECK_EQ_U64(counters(ftl).buf_fill_reads, 0);
    /* one sector of page 10 (on flash) and one of page 11 (never written) */
    CHECK(wr(ftl, now += SEC, 41, 1, &done) == FTL_OK);
    CHECK(wr(ftl, now += SEC, 46, 1, &done) == FTL_OK);
    struct ftl_counters a = counters(ftl);
    CHECK(ftl_flush(ftl, now += SEC, &done) == FTL_OK);
    struct ftl_counters b = counters(ftl);
    CHECK_EQ_U64(b.buf_fill_reads - a.buf_fill_reads, 1);
    CHECK_EQ_U64(b.nand_user_programs - a.nand_user_programs, 2);
    CHECK_EQ_U64(b.nand_user_reads - a.nand_user_reads, 0);   /* a fill read is no host read */
    /* page 10 (LRU) reads its old copy, then programs; page 11 programs at once on the
     * other LUN */
    CHECK_EQ_U64(done, now + cfg.pg_rd_lat + cfg.pg_wr_lat);
    /* page 11 alone: no fill read, just the program */
    CHECK(wr(ftl, now += SEC, 47, 1, &done) == FTL_OK);
    a = counters(ftl);
    CHECK(ftl_flush(ftl, now += SEC, &done) == FTL_OK);
    b = counters(ftl);
    CHECK_EQ_U64(b.buf_fill_reads - a.buf_fill_reads, 1);     /* 11 is on flash now */
    CHECK_EQ_U64(done, now + cfg.pg_rd_lat + cfg.pg_wr_lat);
    CHECK(wr(ftl, now += SEC, 49, 2, &done) == FTL_OK);       /* page 12, never written */
    a = counters(ftl);
    CHECK(ftl_flush(ftl, now += SEC, &done) == FTL_OK);
    b = counters(ftl);
    CHECK_EQ_U64(b.buf_fill_reads - a.buf_fill_reads, 0);
    CHECK_EQ_U64(done, now + cfg.pg_wr_lat);
    /* a trimmed page is no longer on flash: nothing to fill from */
    CHECK(trim(ftl, now += SEC, 40, 4) == FTL_OK);
    CHECK(wr(ftl, now += SEC, 42, 1, &done) == FTL_OK);
    a = counters(ftl);
    CHECK(ftl_flush(ftl, now += SEC, &done) == FTL_OK);
    b = counters(ftl);
    CHECK_EQ_U64(b.buf_fill_reads - a.buf_fill_reads, 0);
    printf("  holes (%s): %llu fill reads for %llu flushed pages\n", dftl ? "dftl" : "page",
           (unsigned long long)b.buf_fill_reads, (unsigned long long)b.buf_flushed_pages);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* ---- the watermark and LRU order ---- */

static void test_watermark_lru(void)
{
    /* 24 sectors, flushed above 50%: 12 sectors, three whole pages */
    struct ftl_config cfg = buf_config(24, 50);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t now = SEC, done;
    enum { A = 10, B = 11, C = 12, D = 13, E = 14, F = 15 };

    CHECK(wr(ftl, now += SEC, A * SPP, SPP, &done) == FTL_OK);
    CHECK(wr(ftl, now += SEC, B * SPP, SPP, &done) == FTL_OK);
    CHECK(wr(ftl, now += SEC, C * SPP, SPP, &done) == FTL_OK);
    CHECK(wr(ftl, now += SEC, A * SPP + 1, 2, &done) == FTL_OK);   /* A is the newest */
    CHECK_EQ_U64(done, now + cfg.buf_wr_lat);
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 12);
    CHECK_EQ_U64(counters(ftl).nand_user_programs, 0);
    /* D takes it to 16 sectors: B, the least recently written, goes; D completes when
     * its program ends */
    CHECK(wr(ftl, now += SEC, D * SPP, SPP, &done) == FTL_OK);
    CHECK_EQ_U64(done, now + cfg.pg_wr_lat);
    CHECK(ftl_lpn_is_mapped(ftl, B));
    CHECK(!ftl_lpn_is_mapped(ftl, A) && !ftl_lpn_is_mapped(ftl, C) &&
          !ftl_lpn_is_mapped(ftl, D));
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 12);
    CHECK(wr(ftl, now += SEC, E * SPP, SPP, &done) == FTL_OK);     /* then C */
    CHECK(ftl_lpn_is_mapped(ftl, C) && !ftl_lpn_is_mapped(ftl, A));
    CHECK(wr(ftl, now += SEC, F * SPP, 2, &done) == FTL_OK);       /* 14 sectors: A */
    CHECK(ftl_lpn_is_mapped(ftl, A) && !ftl_lpn_is_mapped(ftl, D));
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 10);
    CHECK_EQ_U64(counters(ftl).buf_flushed_pages, 3);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);

    /* random sub-page writes: never more than half the buffer between commands, and the
     * pages flushed are always the least recently written */
    cfg = buf_config(40, 50);
    ftl = make_ftl(&cfg);
    struct rng rng;
    rng_seed(&rng, 2);
    uint64_t over = 0, order_errors = 0, max_sectors = 0, flushes = 0;
    uint64_t stamp[64] = { 0 };     /* order of the last write of each page, 0: never */
    for (uint64_t i = 1; i <= 20000; i++) {
        uint64_t slba = rng_below(&rng, 64 * SPP - 8), nlb = 1 + rng_below(&rng, 8);
        struct ftl_counters a = counters(ftl);
        CHECK(wr(ftl, now += 1000, slba, nlb, &done) == FTL_OK);
        struct ftl_counters b = counters(ftl);
        flushes += b.buf_flushed_pages - a.buf_flushed_pages;
        /* a command buffers its pages in LPN order */
        for (uint64_t p = slba / SPP; p <= (slba + nlb - 1) / SPP; p++) {
            stamp[p] = i * 64 + p;
        }
        /* LRU: every page still buffered was written after every page flushed */
        uint64_t newest_flushed = 0, oldest_buffered = UINT64_MAX;
        for (uint64_t p = 0; p < 64; p++) {
            if (buffered(ftl, p) && stamp[p] < oldest_buffered) {
                oldest_buffered = stamp[p];
            } else if (!buffered(ftl, p) && stamp[p] > newest_flushed) {
                newest_flushed = stamp[p];
            }
        }
        order_errors += newest_flushed > oldest_buffered;
        uint64_t s = ftl_buffered_sectors(ftl);
        over += s > 20;
        max_sectors = s > max_sectors ? s : max_sectors;
    }
    CHECK_EQ_U64(over, 0);
    CHECK_EQ_U64(order_errors, 0);
    CHECK(flushes > 1000);
    printf("  buffer of 40 sectors, flush above 50%%: at most %llu sectors held between "
           "writes, %llu pages flushed LRU first\n", (unsigned long long)max_sectors,
           (unsigned long long)flushes);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* ---- trim and format ---- */

static void test_trim_format_drop(void)
{
    struct ftl_config cfg = buf_config(64, 100);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t now = SEC, done;

    CHECK(wr(ftl, now += SEC, 20 * SPP, SPP, &done) == FTL_OK);        /* pages 20 and */
    CHECK(wr(ftl, now += SEC, 30 * SPP, SPP, &done) == FTL_OK);        /* 30 on flash, */
    CHECK(ftl_flush(ftl, now += SEC, &done) == FTL_OK);
    CHECK(wr(ftl, now += SEC, 21 * SPP, 3, &done) == FTL_OK);          /* 3 of page 21, */
    CHECK(wr(ftl, now += SEC, 30 * SPP, 2, &done) == FTL_OK);          /* 2 of 30 and */
    CHECK(wr(ftl, now += SEC, 20 * SPP, SPP, &done) == FTL_OK);        /* 20 buffered */
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 9);
    struct ftl_counters a = counters(ftl);
    /* a trim wholly covering page 20 and 30 drops them from buffer and flash; one
     * covering a sector of 21 leaves it */
    CHECK(trim(ftl, now += SEC, 20 * SPP, SPP + 1) == FTL_OK);
    CHECK(trim(ftl, now += SEC, 30 * SPP, SPP) == FTL_OK);
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 3);
    CHECK(!buffered(ftl, 20) && buffered(ftl, 21) && !buffered(ftl, 30));
    CHECK(!ftl_lpn_is_mapped(ftl, 20) && !ftl_lpn_is_mapped(ftl, 30));
    CHECK_CONSISTENT(ftl);
    /* a format of page 21 drops it too; a flush then has nothing to write */
    struct ftl_io io = { .now_ns = now += SEC, .slba = 21 * SPP, .nlb = SPP };
    CHECK(ftl_format(ftl, &io, false, &done) == FTL_OK);
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 0);
    CHECK(ftl_flush(ftl, now += SEC, &done) == FTL_OK);
    struct ftl_counters b = counters(ftl);
    CHECK_EQ_U64(b.nand_user_programs, a.nand_user_programs);
    CHECK_EQ_U64(b.buf_flushed_pages, a.buf_flushed_pages);
    CHECK(!ftl_lpn_is_mapped(ftl, 20) && !ftl_lpn_is_mapped(ftl, 21) &&
          !ftl_lpn_is_mapped(ftl, 30));
    /* a format with erase drops buffered pages and their write counts alike */
    CHECK(wr(ftl, now += SEC, 22 * SPP, 1, &done) == FTL_OK);
    io = (struct ftl_io){ .now_ns = now += SEC, .slba = 16 * SPP, .nlb = 16 * SPP };
    CHECK(ftl_format(ftl, &io, true, &done) == FTL_OK);
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 0);
    CHECK_EQ_U64(ftl_lpn_write_count(ftl, 22), 0);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* ---- randomized: the checker after every command ---- */

static void test_randomized(struct ftl_config cfg, uint64_t seed)
{
    struct ftl *ftl = make_ftl(&cfg);
    const uint64_t spp = cfg.secs_per_pg, buffer = cfg.write_buffer_sectors;
    const uint64_t pcent = cfg.buf_flush_pcent;
    const bool dftl = cfg.mapping == FTL_MAPPING_DFTL;
    uint64_t logical = ftl_geometry_of(ftl)->logical_pages, cap = logical * spp;
    uint64_t now = 0, done, failures = 0, inconsistent = 0, lost = 0, flushed_lost = 0;
    uint64_t requests = 6000, watermark = buffer * pcent / 100, over = 0;
    bool *has_data = calloc(logical, sizeof(bool));
    struct rng rng;
    rng_seed(&rng, seed);

    for (uint64_t i = 0; i < requests; i++, now += rng_below(&rng, 100000)) {
        uint64_t kind = rng_below(&rng, 100);
        uint64_t nlb = 1 + rng_below(&rng, 6 * spp);
        /* a hot quarter half the time, so rewrites are absorbed */
        uint64_t slba = rng_below(&rng, 2) ? rng_below(&rng, cap / 4) : rng_below(&rng, cap);
        slba = slba + nlb <= cap ? slba : cap - nlb;
        struct ftl_io io = { .now_ns = now, .slba = slba, .nlb = nlb };
        bool flushed = false;
        int rc;
        if (kind < 55) {
            rc = ftl_write(ftl, &io, &done);
            for (uint64_t p = slba / spp; rc == FTL_OK && p <= (slba + nlb - 1) / spp; p++) {
                has_data[p] = true;
            }
            over += ftl_buffered_sectors(ftl) > watermark;
        } else if (kind < 75) {
            rc = ftl_read(ftl, &io, &done);
        } else if (kind < 85) {
            rc = ftl_trim(ftl, &io, &done);
            forget_pages(has_data, slba, nlb, spp);
        } else if (kind < 92) {
            rc = ftl_flush(ftl, now, &done);
            flushed = true;
        } else if (kind < 98) {
            rc = ftl_background_gc(ftl, now) < 0 ? -1 : FTL_OK;
        } else {
            io.slba = slba / spp * spp;
            io.nlb = (nlb + spp - 1) / spp * spp;
            if (io.slba + io.nlb > cap) {
                io.slba = cap - io.nlb;
            }
            rc = ftl_format(ftl, &io, rng_below(&rng, 2), &done);
            forget_pages(has_data, io.slba, io.nlb, spp);
        }
        failures += rc != FTL_OK;
        check_after_request(ftl, i, &inconsistent);
        for (uint64_t p = 0; p < logical; p++) {
            bool mapped = ftl_lpn_is_mapped(ftl, p);
            lost += has_data[p] != (mapped || buffered(ftl, p));
            flushed_lost += flushed && has_data[p] != mapped;
        }
    }
    CHECK_EQ_U64(failures, 0);
    CHECK_EQ_U64(inconsistent, 0);
    CHECK_EQ_U64(lost, 0);
    CHECK_EQ_U64(flushed_lost, 0);
    CHECK_EQ_U64(over, 0);
    struct ftl_counters c = counters(ftl);
    CHECK(c.buf_absorbed_sectors > 0 && c.buf_read_hits > 0);
    CHECK(spp == 1 ? c.buf_fill_reads == 0 : c.buf_fill_reads > 0);    /* no page has holes */
    CHECK(c.gc_runs > 0);
    CHECK(c.nand_user_programs == c.buf_flushed_pages);
    /* every host page was absorbed, programmed, dropped or is still buffered */
    struct ftl_gauges g;
    ftl_get_gauges(ftl, &g);
    CHECK_EQ_U64(c.buf_absorbed_pages + c.buf_flushed_pages + c.buf_dropped_pages +
                 g.buf_pending_pages, c.host_write_pages);
    struct ftl_counters zero = { 0 };
    double waf;
    CHECK(ftl_waf(&zero, &c, &waf));
    printf("  randomized %s, gc_unit=%s, %llu sectors a page, buffer %llu sectors flushed "
           "above %llu%%: %llu commands checked; %llu absorbed sectors, %llu read hits, %llu "
           "fill reads, %llu pages flushed, %llu GC runs, WAF %.3f\n", dftl ? "dftl" : "page",
           ftl_gc_unit_name(cfg.gc_unit), (unsigned long long)spp,
           (unsigned long long)buffer, (unsigned long long)pcent,
           (unsigned long long)requests, (unsigned long long)c.buf_absorbed_sectors,
           (unsigned long long)c.buf_read_hits, (unsigned long long)c.buf_fill_reads,
           (unsigned long long)c.buf_flushed_pages, (unsigned long long)c.gc_runs, waf);
    free(has_data);
    ftl_destroy(ftl);
}

/* ---- configuration ---- */

static void check_rejected(const struct ftl_config *cfg, const char *key, const char *what)
{
    char err[512] = "";
    CHECK(ftl_config_validate(cfg, NULL, err, sizeof(err)) != 0);
    size_t n = strlen(key);
    if (!check_record(strncmp(err, key, n) == 0 && err[n] == ':' && !strchr(err, '\n') &&
                      strstr(err, what), __FILE__, __LINE__, "one line naming the key")) {
        fprintf(stderr, "    expected '%s: ...%s...', got \"%s\"\n", key, what, err);
    }
    printf("  rejected: %s\n", err);
}

static void test_config(void)
{
    struct ftl_config cfg = buf_config(4096, 100);     /* the whole device */
    char err[256] = "";
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
    cfg.write_buffer_sectors = 4097;
    check_rejected(&cfg, "write_buffer_sectors", "larger than the device");
    cfg.write_buffer_sectors = SPP - 1;
    check_rejected(&cfg, "write_buffer_sectors", "smaller than one page");
    cfg.write_buffer_sectors = SPP;
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
    /* 128 sectors a page: more than the 64 bits of a buffered page's sector mask */
    cfg = small_config(1, 2, 160, 4, 128);
    cfg.write_buffer_sectors = 1024;
    check_rejected(&cfg, "write_buffer_sectors", "secs_per_pg <= 64");
    cfg.write_buffer_sectors = 0;
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
    cfg = small_config(1, 2, 160, 4, 64);
    cfg.write_buffer_sectors = 1024;
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
    cfg = buf_config(64, 100);
    CHECK(ftl_config_set(&cfg, "buf_flush_pcent", "0", err, sizeof(err)) != 0);
    CHECK_CONTAINS(err, "buf_flush_pcent:");

    /* a write the FTL refuses leaves the buffer alone */
    cfg.placement = FTL_PLACEMENT_STREAM;
    cfg.nstreams = 2;
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t done, cap = ftl_geometry_of(ftl)->logical_sectors;
    CHECK(wr(ftl, 0, 0, 3, &done) == FTL_OK);
    struct ftl_io io = { .now_ns = 1, .slba = cap - 2, .nlb = 3 };
    CHECK(ftl_write(ftl, &io, &done) == FTL_E_RANGE);
    io = (struct ftl_io){ .now_ns = 1, .slba = 8, .nlb = 3, .stream = 2 };
    CHECK(ftl_write(ftl, &io, &done) == FTL_E_INVAL);
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 3);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.host_write_cmds, 1);
    CHECK_EQ_U64(c.host_write_pages, 1);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

int main(void)
{
    test_hot_loop();
    test_page_accounting();
    test_reads();
    test_fill_reads(false);
    test_fill_reads(true);
    test_watermark_lru();
    test_trim_format_drop();
    struct ftl_config cfg = buf_config(64, 100);
    test_randomized(cfg, 1);
    cfg = buf_config(40, 50);
    test_randomized(cfg, 2);
    cfg = buf_config(64, 75);
    cfg.mapping = FTL_MAPPING_DFTL;
    cfg.cmt_entries = 512;      /* one translation page of two */
    test_randomized(cfg, 3);
    cfg.write_buffer_sectors = 200;
    cfg.buf_flush_pcent = 100;
    test_randomized(cfg, 4);
    cfg = buf_config(64, 60);
    cfg.gc_mode = FTL_GC_LINE;
    cfg.gc_unit = FTL_GC_UNIT_BLOCK;
    test_randomized(cfg, 5);
    cfg.write_buffer_sectors = 100;
    cfg.buf_flush_pcent = 90;
    cfg.mapping = FTL_MAPPING_DFTL;
    cfg.cmt_entries = 512;
    test_randomized(cfg, 6);
    /* one sector a page (never a hole), and 64 (a whole 64-bit sector mask) */
    cfg = small_config(1, 2, 288, 4, 1);
    cfg.devsz_mb = 1;
    cfg.write_buffer_sectors = 24;
    cfg.buf_flush_pcent = 80;
    test_randomized(cfg, 7);
    cfg = small_config(1, 2, 160, 4, 64);
    cfg.devsz_mb = 32;
    cfg.write_buffer_sectors = 8 * 64;
    cfg.buf_flush_pcent = 70;
    cfg.mapping = FTL_MAPPING_DFTL;
    cfg.cmt_entries = 8192;     /* one 32 KiB translation page: all 1024 entries */
    test_randomized(cfg, 8);
    test_config();
    return check_summary();
}
