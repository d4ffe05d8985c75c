/*
 * mapping=dftl: a CMT holding every entry is page mapping exactly; the CMT's hit rate
 * under uniform reads is its share of the written pages; dirty entries are written back
 * once per translation page; a miss costs a translation-page read only when that page is
 * on flash; map GC and data GC's batched mapping updates are counted; the checker passes
 * after every request of randomized runs; configuration errors name their key.
 * Assertions are on counts and on simulated times only.
 */
#include <stddef.h>
#include <string.h>

#include "flash/geometry.h"
#include "flash/line_lists.h"
#include "map/page_map.h"
#include "ftl_test_util.h"
#include "rng.h"

#define SEC 1000000000ull

/*
 * 1 channel x 2 LUNs x 4 pages per block: 8 pages per line; 512-byte pages, so a
 * translation page holds 128 entries. 1 MiB logical (2048 pages, 16 translation pages)
 * over `blks` lines.
 */
static struct ftl_config dftl_config(uint64_t blks, uint64_t cmt_entries)
{
    struct ftl_config cfg = small_config(1, 2, blks, 4, 1);
    cfg.devsz_mb = 1;
    cfg.mapping = FTL_MAPPING_DFTL;
    cfg.cmt_entries = cmt_entries;
    return cfg;
}

static int write1(struct ftl *ftl, uint64_t now, uint64_t lpn, uint64_t *done)
{
    return write_pages(ftl, now, lpn, 1, done);
}

static int read1(struct ftl *ftl, uint64_t now, uint64_t lpn, uint64_t *done)
{
    return read_pages(ftl, now, lpn, 1, done);
}

/* ---- a CMT holding every entry is page mapping ---- */

/* One request of the shared workload on ftl; returns its status, *done its completion. */
static int random_request(struct ftl *ftl, struct rng *rng, uint64_t now, uint64_t *done)
{
    const struct ftl_geometry *g = ftl_geometry_of(ftl);
    uint64_t kind = rng_below(rng, 100);
    uint64_t npages = 1 + rng_below(rng, 4);
    uint64_t lpn = rng_below(rng, g->logical_pages - npages + 1);
    struct ftl_io io = page_io(ftl, now, lpn, npages, 0);

    *done = now;
    if (kind < 60) {
        return ftl_write(ftl, &io, done);
    }
    if (kind < 80) {
        return ftl_read(ftl, &io, done);
    }
    if (kind < 85) {
        return ftl_verify(ftl, &io, done);
    }
    if (kind < 92) {
        return ftl_trim(ftl, &io, done);
    }
    if (kind < 99) {
        int runs = ftl_background_gc(ftl, now);
        return runs < 0 ? runs : FTL_OK;
    }
    return ftl_format(ftl, &io, rng_below(rng, 2), done);
}

/* Counters as an array of uint64_t (every field is one). */
#define NCOUNTERS (sizeof(struct ftl_counters) / sizeof(uint64_t))
_Static_assert(sizeof(struct ftl_counters) % sizeof(uint64_t) == 0, "counters are uint64_t");

static void check_counters_equal_but_cmt(const struct ftl_counters *page,
                                         const struct ftl_counters *dftl)
{
    uint64_t a[NCOUNTERS], b[NCOUNTERS];
    memcpy(a, page, sizeof(a));
    memcpy(b, dftl, sizeof(b));
    size_t hits = offsetof(struct ftl_counters, cmt_hits) / sizeof(uint64_t);
    size_t misses = offsetof(struct ftl_counters, cmt_misses) / sizeof(uint64_t);
    unsigned differing = 0;
    for (size_t i = 0; i < NCOUNTERS; i++) {
        if (i != hits && i != misses && a[i] != b[i]) {
            fprintf(stderr, "    counter word %zu: page %llu, dftl %llu\n", i,
                    (unsigned long long)a[i], (unsigned long long)b[i]);
            differing++;
        }
    }
    CHECK_EQ_U64(differing, 0);
}

static void test_full_cmt_is_page_mapping(struct ftl_config cfg, uint64_t seed)
{
    struct ftl *dftl = make_ftl(&cfg);
    cfg.mapping = FTL_MAPPING_PAGE;
    struct ftl *page = make_ftl(&cfg);
    uint64_t logical = ftl_geometry_of(page)->logical_pages;
    struct rng ra, rb;
    rng_seed(&ra, seed);
    rng_seed(&rb, seed);
    uint64_t now = 0, status_diffs = 0, time_diffs = 0, requests = 12000;

    for (uint64_t i = 0; i < requests; i++) {
        uint64_t done_a, done_b;
        int rc_a = random_request(page, &ra, now, &done_a);
        int rc_b = random_request(dftl, &rb, now, &done_b);
        status_diffs += rc_a != rc_b || rc_a != FTL_OK;
        time_diffs += done_a != done_b;
        now += rng_below(&ra, 400000);
        rng_below(&rb, 400000);     /* rb stays in step with ra */
    }
    CHECK_EQ_U64(status_diffs, 0);
    CHECK_EQ_U64(time_diffs, 0);
    struct ftl_counters a = counters(page), b = counters(dftl);
    check_counters_equal_but_cmt(&a, &b);
    CHECK(a.gc_runs > 0);
    CHECK_EQ_U64(b.map_reads + b.map_writes + b.cmt_writebacks + b.gc_map_updates, 0);
    CHECK_EQ_U64(b.map_gc_runs + b.map_gc_moved_pages + b.map_gc_erased_blocks, 0);
    CHECK_EQ_U64(b.map_gc_victim_valid_pages, 0);
    CHECK(b.cmt_hits > 0 && b.cmt_misses > 0);
    uint64_t lpn_diffs = 0;
    for (uint64_t lpn = 0; lpn < logical; lpn++) {
        lpn_diffs += ftl_lpn_write_count(page, lpn) != ftl_lpn_write_count(dftl, lpn) ||
                     l2p_get(page, lpn) != l2p_get(dftl, lpn);
    }
    CHECK_EQ_U64(lpn_diffs, 0);
    struct ftl_gauges ga, gb;
    ftl_get_gauges(page, &ga);
    ftl_get_gauges(dftl, &gb);
    CHECK(memcmp(&ga, &gb, sizeof(ga)) == 0);
    size_t na, nb;
    const uint64_t *ha = ftl_victim_histogram(page, false, &na);
    const uint64_t *hb = ftl_victim_histogram(dftl, false, &nb);
    CHECK(na == nb && memcmp(ha, hb, na * sizeof(*ha)) == 0);
    struct ftl_wear wa, wb;
    ftl_get_wear(page, &wa);
    ftl_get_wear(dftl, &wb);
    CHECK(memcmp(&wa, &wb, sizeof(wa)) == 0);
    struct ftl_counters zero = { 0 };
    double waf_a = 0, waf_b = -1;
    CHECK(ftl_waf(&zero, &a, &waf_a) && ftl_waf(&zero, &b, &waf_b));
    CHECK(waf_a == waf_b);
    CHECK_CONSISTENT(page);
    CHECK_CONSISTENT(dftl);
    printf("  cmt_entries=%llu (%llu logical pages), gc_mode=%s, gc_unit=%s, placement=%s, "
           "%llu requests: identical to page mapping; %llu GC runs, WAF %.3f, CMT %llu hits "
           "/ %llu misses\n", (unsigned long long)cfg.cmt_entries,
           (unsigned long long)logical, ftl_gc_mode_name(cfg.gc_mode),
           ftl_gc_unit_name(cfg.gc_unit), ftl_placement_name(cfg.placement),
           (unsigned long long)requests,
           (unsigned long long)a.gc_runs, waf_a, (unsigned long long)b.cmt_hits,
           (unsigned long long)b.cmt_misses);
    ftl_destroy(page);
    ftl_destroy(dftl);
}

/* ---- hit rate of an LRU CMT under uniform reads ---- */

static void test_hit_rate(uint64_t cmt_entries, uint64_t written, uint64_t seed)
{
    struct ftl_config cfg = dftl_config(512, cmt_entries);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t now = 0, done, reads = 100000;
    struct rng rng;
    rng_seed(&rng, seed);
    for (uint64_t lpn = 0; lpn < written; lpn++, now += 1000) {
        CHECK(write1(ftl, now, lpn, &done) == FTL_OK);
    }
    for (uint64_t i = 0; i < 4 * written; i++, now += 1000) {     /* warm-up */
        CHECK(read1(ftl, now, rng_below(&rng, written), &done) == FTL_OK);
    }
    struct ftl_counters a = counters(ftl);
    for (uint64_t i = 0; i < reads; i++, now += 1000) {
        CHECK(read1(ftl, now, rng_below(&rng, written), &done) == FTL_OK);
    }
    struct ftl_counters b = counters(ftl);
    uint64_t hits = b.cmt_hits - a.cmt_hits, misses = b.cmt_misses - a.cmt_misses;
    CHECK_EQ_U64(hits + misses, reads);
    CHECK_EQ_U64(b.nand_user_reads - a.nand_user_reads, reads);
    /* every miss reads its translation page: all of them were written back by now */
    CHECK(b.map_reads - a.map_reads >= misses);
    double rate = (double)hits / (double)reads, expected = (double)cmt_entries / written;
    printf("  C=%llu entries over N=%llu written pages: hit rate %.4f, C/N %.4f; "
           "%llu map reads, %llu map writes for %llu reads\n",
           (unsigned long long)cmt_entries, (unsigned long long)written, rate, expected,
           (unsigned long long)(b.map_reads - a.map_reads),
           (unsigned long long)(b.map_writes - a.map_writes), (unsigned long long)reads);
    CHECK_NEAR(rate, expected, 0.02);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* ---- write-back of dirty entries, and what a miss costs ---- */

static void test_writeback_and_miss_cost(void)
{
    /* the smallest CMT: one translation page's 128 entries */
    struct ftl_config cfg = dftl_config(512, 128);
    struct ftl *ftl = make_ftl(&cfg);
    const uint64_t rd = cfg.pg_rd_lat, wr = cfg.pg_wr_lat;
    uint64_t now = SEC, done;
    struct ftl_counters c;

    /* 64 entries of translation page 0 and 64 of page 1, interleaved: all dirty, the CMT
     * full, nothing on flash yet */
    for (uint64_t k = 0; k < 64; k++) {
        CHECK(write1(ftl, now += SEC, k, &done) == FTL_OK);
        CHECK_EQ_U64(done, now + wr);
        CHECK(write1(ftl, now += SEC, 128 + k, &done) == FTL_OK);
        CHECK_EQ_U64(done, now + wr);
    }
    c = counters(ftl);
    CHECK_EQ_U64(c.cmt_misses, 128);
    CHECK_EQ_U64(c.cmt_hits, 0);
    CHECK_EQ_U64(c.map_reads + c.map_writes + c.cmt_writebacks, 0);

    /* 128 reads of unwritten LPNs of translation page 2 evict every entry, LRU first:
     * LPN 0 (dirty) writes page 0 back, LPN 128 page 1, and that cleans the other 126 */
    uint64_t writeback_reads = 0, free_reads = 0;
    for (uint64_t k = 0; k < 128; k++) {
        CHECK(read1(ftl, now += SEC, 256 + k, &done) == FTL_OK);
        if (k < 2) {
            writeback_reads += done == now + wr;    /* waits for the write-back's program */
        } else {
            free_reads += done == now;   /* clean eviction, unwritten page: nothing to do */
        }
    }
    CHECK_EQ_U64(writeback_reads, 2);
    CHECK_EQ_U64(free_reads, 126);
    c = counters(ftl);
    CHECK_EQ_U64(c.map_writes, 2);
    CHECK_EQ_U64(c.cmt_writebacks, 2);
    CHECK_EQ_U64(c.map_reads, 0);     /* neither page was on flash before its write-back */
    CHECK_EQ_U64(c.cmt_misses, 256);
    CHECK_EQ_U64(c.nand_user_reads, 0);
    printf("  128 dirty entries of 2 translation pages, all evicted: %llu write-backs\n",
           (unsigned long long)c.cmt_writebacks);

    /* a write missing on translation page 0 (on flash) reads it; the program does not
     * wait for that read, unless it queues behind it on a shared LUN */
    CHECK(write1(ftl, now += SEC, 5, &done) == FTL_OK);
    CHECK(done == now + wr || done == now + rd + wr);
    c = counters(ftl);
    CHECK_EQ_U64(c.map_reads, 1);
    CHECK_EQ_U64(c.map_writes, 2);
    /* a write missing on translation page 3 (never written) reads nothing */
    CHECK(write1(ftl, now += SEC, 400, &done) == FTL_OK);
    CHECK_EQ_U64(done, now + wr);
    CHECK_EQ_U64(counters(ftl).map_reads, 1);

    /* a read hit costs the data read; a miss on a written translation page reads it first */
    CHECK(read1(ftl, now += SEC, 5, &done) == FTL_OK);
    uint64_t hit_time = done - now;
    CHECK(read1(ftl, now += SEC, 6, &done) == FTL_OK);
    uint64_t miss_time = done - now;
    CHECK_EQ_U64(hit_time, rd);
    CHECK_EQ_U64(miss_time, 2 * rd);
    c = counters(ftl);
    CHECK_EQ_U64(c.map_reads, 2);
    CHECK_EQ_U64(c.cmt_hits, 1);
    printf("  read hit %llu ns, read miss on a written translation page %llu ns "
           "(pg_rd_lat %llu)\n", (unsigned long long)hit_time, (unsigned long long)miss_time,
           (unsigned long long)rd);

    /* LPN 5 and 400 are dirty again: evicting everything writes pages 0 (read-modify-
     * write: its old copy is read) and 3 (first copy) back, once each */
    struct ftl_counters before = counters(ftl);
    for (uint64_t k = 0; k < 128; k++) {
        CHECK(read1(ftl, now += SEC, 640 + k, &done) == FTL_OK);
    }
    c = counters(ftl);
    CHECK_EQ_U64(c.cmt_writebacks - before.cmt_writebacks, 2);
    CHECK_EQ_U64(c.map_writes - before.map_writes, 2);
    CHECK_EQ_U64(c.map_reads - before.map_reads, 1);
    CHECK_EQ_U64(c.cmt_misses - before.cmt_misses, 128);
    CHECK_EQ_U64(c.map_writes, c.cmt_writebacks);
    /* map_writes are flash programs: WAF counts them */
    double waf;
    struct ftl_counters zero = { 0 };
    CHECK(ftl_waf(&zero, &c, &waf));
    CHECK_NEAR(waf, (double)(c.nand_user_programs + c.map_writes) / c.host_write_pages, 1e-12);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* ---- data GC's mapping updates ---- */

/*
 * A line holding LPNs 0..3 and 128..131 loses 0, 1 and 128 to overwrites, so 5 valid
 * pages of 2 translation pages are left; uncached (everything evicted first) or cached,
 * background GC collects it.
 */
static void gc_update_case(bool cached)
{
    struct ftl_config cfg = dftl_config(512, 128);
    cfg.gc_mode = FTL_GC_LINE;
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t now = SEC, done;
    for (uint64_t k = 0; k < 4; k++) {
        CHECK(write1(ftl, now += SEC, k, &done) == FTL_OK);
        CHECK(write1(ftl, now += SEC, 128 + k, &done) == FTL_OK);
    }
    uint32_t victim = ppa_line(ftl, l2p_get(ftl, 0));
    CHECK_EQ_U64(ftl->lines[victim].state, LINE_FULL);
    CHECK(write1(ftl, now += SEC, 0, &done) == FTL_OK);
    CHECK(write1(ftl, now += SEC, 1, &done) == FTL_OK);
    CHECK(write1(ftl, now += SEC, 128, &done) == FTL_OK);
    CHECK_EQ_U64(ftl->lines[victim].valid, 5);
    if (!cached) {
        for (uint64_t k = 0; k < 128; k++) {
            CHECK(read1(ftl, now += SEC, 1024 + k, &done) == FTL_OK);
        }
    }
    struct ftl_counters a = counters(ftl);
    CHECK_EQ_U64(a.map_writes, cached ? 0 : 2);
    ftl->geo.gc_thres_lines = ftl->free_count;      /* background GC is due */
    CHECK_EQ_U64(victim_peek(ftl), victim);
    CHECK_EQ_U64(ftl_background_gc(ftl, now += SEC), 1);
    struct ftl_counters b = counters(ftl);
    CHECK_EQ_U64(b.gc_moved_pages - a.gc_moved_pages, 5);
    CHECK_EQ_U64(b.gc_map_updates - a.gc_map_updates, cached ? 0 : 2);
    CHECK_EQ_U64(b.map_writes - a.map_writes, cached ? 0 : 2);
    CHECK_EQ_U64(b.map_reads - a.map_reads, cached ? 0 : 2);    /* read-modify-write */
    CHECK_EQ_U64(b.cmt_writebacks - a.cmt_writebacks, 0);
    printf("  GC of 5 pages over 2 translation pages, entries %s: %llu mapping updates, "
           "%llu map writes\n", cached ? "cached" : "not cached",
           (unsigned long long)(b.gc_map_updates - a.gc_map_updates),
           (unsigned long long)(b.map_writes - a.map_writes));
    if (cached) {
        /* the moved entries turned dirty: evicting them writes their 2 pages back */
        for (uint64_t k = 0; k < 128; k++) {
            CHECK(read1(ftl, now += SEC, 1024 + k, &done) == FTL_OK);
        }
        struct ftl_counters c = counters(ftl);
        CHECK_EQ_U64(c.cmt_writebacks - b.cmt_writebacks, 2);
    }
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* Sustained random overwrites with a small CMT: map GC runs, and every figure adds up. */
static void test_map_gc(enum ftl_gc_mode mode, uint64_t cmt_entries, uint64_t seed)
{
    struct ftl_config cfg = dftl_config(288, cmt_entries);
    cfg.gc_mode = mode;
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t logical = ftl_geometry_of(ftl)->logical_pages, now = 0, done, failures = 0;
    struct rng rng;
    rng_seed(&rng, seed);
    for (uint64_t lpn = 0; lpn < logical; lpn++, now += 1000) {
        failures += write1(ftl, now, lpn, &done) != FTL_OK;
    }
    for (uint64_t i = 0; i < 12 * logical; i++, now += 20000) {
        failures += write1(ftl, now, rng_below(&rng, logical), &done) != FTL_OK;
        failures += ftl_background_gc(ftl, now) < 0;
    }
    CHECK_EQ_U64(failures, 0);
    struct ftl_counters c = counters(ftl);
    CHECK(c.map_gc_runs > 0);
    CHECK(c.gc_map_updates > 0);
    CHECK_EQ_U64(c.map_gc_erased_blocks, c.map_gc_runs * ftl_geometry_of(ftl)->luns);
    CHECK_EQ_U64(c.gc_erased_blocks, c.gc_runs * ftl_geometry_of(ftl)->luns);
    /* no trim nor format: a translation page is written by an eviction or by data GC */
    CHECK_EQ_U64(c.map_writes, c.cmt_writebacks + c.gc_map_updates);
    size_t n;
    const uint64_t *hist = ftl_victim_histogram(ftl, true, &n);
    uint64_t victims = 0, valid = 0;
    for (size_t v = 0; v < n; v++) {
        victims += hist[v];
        valid += v * hist[v];
    }
    CHECK_EQ_U64(victims, c.map_gc_runs);
    CHECK_EQ_U64(valid, c.map_gc_victim_valid_pages);
    if (mode == FTL_GC_LINE) {
        /* a whole line at once: every page valid when chosen moves */
        CHECK_EQ_U64(c.map_gc_moved_pages, c.map_gc_victim_valid_pages);
        CHECK_EQ_U64(c.gc_moved_pages, c.gc_victim_valid_pages);
    } else {
        CHECK(c.map_gc_moved_pages <= c.map_gc_victim_valid_pages);
    }
    struct ftl_counters zero = { 0 };
    double waf;
    CHECK(ftl_waf(&zero, &c, &waf));
    CHECK_NEAR(waf, (double)(c.nand_user_programs + c.nand_gc_programs + c.map_writes +
                             c.map_gc_moved_pages) / c.host_write_pages, 1e-12);
    printf("  cmt_entries=%llu gc_mode=%s: %llu map GC runs (%llu pages moved), %llu data "
           "GC runs, %llu map writes (%llu write-backs, %llu GC updates), %llu map reads, "
           "WAF %.3f\n", (unsigned long long)cmt_entries, ftl_gc_mode_name(mode),
           (unsigned long long)c.map_gc_runs, (unsigned long long)c.map_gc_moved_pages,
           (unsigned long long)c.gc_runs, (unsigned long long)c.map_writes,
           (unsigned long long)c.cmt_writebacks, (unsigned long long)c.gc_map_updates,
           (unsigned long long)c.map_reads, waf);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* ---- randomized: the checker after every request ---- */

static void test_randomized(struct ftl_config cfg, uint64_t seed)
{
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t logical = ftl_geometry_of(ftl)->logical_pages;
    uint64_t spp = cfg.secs_per_pg, now = 0, done, failures = 0, inconsistent = 0;
    uint64_t lost = 0, requests = 5000;
    bool *has_data = calloc(logical, sizeof(bool));
    struct rng rng;
    rng_seed(&rng, seed);

    for (uint64_t i = 0; i < requests; i++, now += rng_below(&rng, 200000)) {
        uint64_t kind = rng_below(&rng, 100);
        uint64_t npages = 1 + rng_below(&rng, 16);
        uint64_t lpn = rng_below(&rng, logical - npages + 1);
        struct ftl_io io = page_io(ftl, now, lpn, npages,
                                   (uint32_t)rng_below(&rng, ftl_write_pointer_count(ftl)));
        int rc;
        if (kind < 60) {
            rc = ftl_write(ftl, &io, &done);
            for (uint64_t p = lpn; rc == FTL_OK && p < lpn + npages; p++) {
                has_data[p] = true;
            }
        } else if (kind < 80) {
            rc = ftl_read(ftl, &io, &done);
        } else if (kind < 90) {
            /* sector-granular: only pages wholly inside lose their data */
            uint64_t shift = rng_below(&rng, spp);
            io.slba = lpn * spp + shift;
            io.nlb = npages * spp - shift;
            rc = ftl_trim(ftl, &io, &done);
            forget_pages(has_data, io.slba, io.nlb, spp);
        } else if (kind < 98) {
            rc = ftl_background_gc(ftl, now) < 0 ? -1 : FTL_OK;
        } else {
            io.nlb = 16 * npages * spp;     /* up to 256 pages */
            io.slba = rng_below(&rng, logical - 16 * npages + 1) * spp;
            rc = ftl_format(ftl, &io, rng_below(&rng, 2), &done);
            forget_pages(has_data, io.slba, io.nlb, spp);
        }
        failures += rc != FTL_OK;
        check_after_request(ftl, i, &inconsistent);
        for (uint64_t p = 0; p < logical; p++) {
            lost += ftl_lpn_is_mapped(ftl, p) != has_data[p];
        }
    }
    CHECK_EQ_U64(failures, 0);
    CHECK_EQ_U64(inconsistent, 0);
    CHECK_EQ_U64(lost, 0);
    struct ftl_counters c = counters(ftl);
    CHECK(c.gc_runs > 0);
    CHECK(c.map_writes > c.cmt_writebacks + c.gc_map_updates);  /* trims and formats too */
    printf("  randomized cmt_entries=%llu gc_mode=%s gc_unit=%s placement=%s bad_blk_pcent="
           "%llu: %llu requests checked, %llu GC runs, %llu map GC runs, %llu map writes, "
           "%llu formats\n", (unsigned long long)cfg.cmt_entries, ftl_gc_mode_name(cfg.gc_mode),
           ftl_gc_unit_name(cfg.gc_unit), ftl_placement_name(cfg.placement),
           (unsigned long long)cfg.bad_blk_pcent,
           (unsigned long long)requests, (unsigned long long)c.gc_runs,
           (unsigned long long)c.map_gc_runs, (unsigned long long)c.map_writes,
           (unsigned long long)c.format_cmds);
    free(has_data);
    ftl_destroy(ftl);
}

/* ---- configuration ---- */

/* Validation fails with one line that starts with "key:". */
static void check_rejected(const struct ftl_config *cfg, const char *key)
{
    char err[512] = "";
    CHECK(ftl_config_validate(cfg, NULL, err, sizeof(err)) != 0);
    size_t n = strlen(key);
    if (!check_record(strncmp(err, key, n) == 0 && err[n] == ':' && !strchr(err, '\n'),
                      __FILE__, __LINE__, "one line naming the key")) {
        fprintf(stderr, "    expected '%s: ...', got \"%s\"\n", key, err);
    }
    printf("  rejected: %s\n", err);
    CHECK(ftl_create(cfg, err, sizeof(err)) == NULL);
}

static void test_config(void)
{
    struct ftl_config cfg = dftl_config(288, 128);
    struct ftl_geometry g;
    char err[512] = "";
    CHECK(ftl_config_validate(&cfg, &g, err, sizeof(err)) == 0);
    CHECK_EQ_U64(g.entries_per_tpage, 128);
    CHECK_EQ_U64(g.translation_pages, 16);
    CHECK_EQ_U64(g.map_write_pointers, 1);

    cfg.cmt_entries = 127;          /* less than one translation page's entries */
    check_rejected(&cfg, "cmt_entries");

    /* the default geometry: 4 KiB pages, 1024 entries a translation page */
    ftl_config_defaults(&cfg);
    cfg.mapping = FTL_MAPPING_DFTL;
    cfg.cmt_entries = 1023;
    check_rejected(&cfg, "cmt_entries");
    cfg.cmt_entries = 1024;
    CHECK(ftl_config_validate(&cfg, &g, err, sizeof(err)) == 0);

    /* the largest device page mapping allows leaves no room for the translation pages */
    cfg.mapping = FTL_MAPPING_PAGE;
    uint64_t page_max = ftl_config_max_devsz_mb(&cfg);
    cfg.mapping = FTL_MAPPING_DFTL;
    uint64_t dftl_max = ftl_config_max_devsz_mb(&cfg);
    printf("  largest devsz_mb: page mapping %llu, dftl %llu\n",
           (unsigned long long)page_max, (unsigned long long)dftl_max);
    CHECK(dftl_max > 0 && dftl_max < page_max);
    cfg.devsz_mb = dftl_max;
    CHECK(ftl_config_validate(&cfg, &g, err, sizeof(err)) == 0);
    printf("  dftl at %llu MiB: %llu translation pages\n", (unsigned long long)dftl_max,
           (unsigned long long)g.translation_pages);
    /* up to page mapping's largest the data would fit: only the map does not, and the
     * message says what fits with dftl */
    char most[64];
    snprintf(most, sizeof(most), "at most %llu MiB with dftl", (unsigned long long)dftl_max);
    const uint64_t sizes[] = { dftl_max + 1, page_max };
    for (size_t i = 0; i < 2; i++) {
        cfg.devsz_mb = sizes[i];
        check_rejected(&cfg, "mapping");
        CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) != 0 && strstr(err, most));
    }
    /* beyond it the data alone does not fit */
    cfg.devsz_mb = page_max + 1;
    check_rejected(&cfg, "devsz_mb");
    cfg.devsz_mb = page_max;
    cfg.mapping = FTL_MAPPING_PAGE;
    CHECK(ftl_config_validate(&cfg, &g, err, sizeof(err)) == 0);

    /* unknown mapping: by name, and as a value a C caller put in the struct */
    ftl_config_defaults(&cfg);
    CHECK(ftl_config_set(&cfg, "mapping", "hybrid", err, sizeof(err)) != 0);
    CHECK_CONTAINS(err, "mapping: 'hybrid' is not one of page, dftl");
    CHECK(ftl_config_set(&cfg, "mapping", "dftl", err, sizeof(err)) == 0);
    CHECK_EQ_U64(cfg.mapping, FTL_MAPPING_DFTL);
    cfg.mapping = (enum ftl_mapping)2;
    check_rejected(&cfg, "mapping");
    CHECK(ftl_config_set(&cfg, "cmt_entries", "0", err, sizeof(err)) != 0);
    CHECK_CONTAINS(err, "cmt_entries:");
}

int main(void)
{
    struct ftl_config cfg = dftl_config(288, 2048);     /* about 12% spare */
    test_full_cmt_is_page_mapping(cfg, 1);
    cfg.cmt_entries = 1u << 20;
    cfg.gc_mode = FTL_GC_LINE;
    test_full_cmt_is_page_mapping(cfg, 2);
    cfg.gc_unit = FTL_GC_UNIT_BLOCK;
    test_full_cmt_is_page_mapping(cfg, 3);
    /* 2 channels x 2 LUNs, 1 KiB pages (256 entries a translation page), a channel bus,
     * hot/cold placement */
    cfg = small_config(2, 2, 96, 4, 2);
    cfg.devsz_mb = 1;
    cfg.ch_xfer_lat = 5000;
    cfg.placement = FTL_PLACEMENT_HOTCOLD;
    cfg.hot_threshold = 2;
    cfg.mapping = FTL_MAPPING_DFTL;
    cfg.cmt_entries = 1024;
    test_full_cmt_is_page_mapping(cfg, 4);

    test_hit_rate(256, 2048, 3);
    test_hit_rate(1024, 2048, 4);
    test_hit_rate(500, 1000, 5);
    test_writeback_and_miss_cost();
    gc_update_case(false);
    gc_update_case(true);
    test_map_gc(FTL_GC_LINE, 128, 6);
    test_map_gc(FTL_GC_PACED, 256, 7);
    cfg = dftl_config(288, 128);
    test_randomized(cfg, 8);
    cfg.cmt_entries = 300;
    cfg.gc_mode = FTL_GC_LINE;
    test_randomized(cfg, 9);
    cfg.gc_unit = FTL_GC_UNIT_BLOCK;
    test_randomized(cfg, 10);
    /* factory bad blocks under the map lines too; hot/cold placement */
    cfg = dftl_config(400, 200);
    cfg.bad_blk_pcent = 10;
    cfg.placement = FTL_PLACEMENT_HOTCOLD;
    cfg.hot_threshold = 1;
    test_randomized(cfg, 11);
    cfg.placement = FTL_PLACEMENT_STREAM;
    cfg.nstreams = 3;
    test_randomized(cfg, 12);
    test_config();
    return check_summary();
}
