/*
 * The DRAM read cache (read_cache_pages): each policy on a tiny cache against a sequence
 * worked out by hand from its paper's rules (which accesses hit, which page each eviction
 * removes; arc's target p as it moves up and down; 2q's promotion from A1out to Am;
 * clock's second chance); then the FTL around it: a hit completes read_cache_lat after
 * arrival with no flash read, a miss reads flash and caches the page, writes, trims,
 * formats, Copy and power cuts drop pages, unmapped and buffered reads and verifies are
 * no cache accesses, a state file keeps the counters but no cache (a restore under other
 * cache keys, or none, starts empty), ftl_check holds after randomized runs under page mapping and dftl,
 * and bad configurations name their key. Assertions are on counts and simulated times.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/copy.h"
#include "rcache/read_cache.h"
#include "ftl_state_test_util.h"
#include "ftl_test_util.h"
#include "rng.h"

/* CHECK as a value: whether it passed. */
#define CHECKED(cond) check_record(!!(cond), __FILE__, __LINE__, #cond)

#define HIT 0u      /* expected: the access hits */
#define NONE RCACHE_NONE

/* One access as a host read makes it: a lookup, and on a miss an insert. Returns HIT,
 * or the LPN the miss evicted (NONE: a free slot). */
static uint32_t access_page(struct rcache *rc, uint32_t lpn)
{
    return rcache_lookup(rc, lpn) ? HIT : rcache_insert(rc, lpn);
}

struct step {
    uint32_t lpn;
    uint32_t expect;    /* HIT, NONE (a miss into a free slot) or the LPN evicted */
    uint32_t p;         /* arc: the target after the access */
};

/* LPNs start at 1 so that HIT (0) is never an LPN evicted. */
static void run_steps(const char *name, enum ftl_read_cache_policy policy, uint32_t c,
                      const struct step *s, size_t n)
{
    struct rcache *rc = rcache_create(policy, c);
    char err[256] = "";
    for (size_t i = 0; i < n; i++) {
        uint32_t got = access_page(rc, s[i].lpn);
        if (!CHECKED(got == s[i].expect)) {
            fprintf(stderr, "    %s step %zu (LPN %u): got %u, expected %u\n", name, i,
                    s[i].lpn, got, s[i].expect);
        }
        if (policy == FTL_RCACHE_ARC && !CHECKED(rcache_arc_target(rc) == s[i].p)) {
            fprintf(stderr, "    %s step %zu: p = %u, expected %u\n", name, i,
                    rcache_arc_target(rc), s[i].p);
        }
        if (!CHECKED(rcache_check(rc, err, sizeof(err)) == 0)) {
            fprintf(stderr, "    %s step %zu: %s\n", name, i, err);
        }
    }
    rcache_destroy(rc);
}

#define RUN(name, policy, c, steps) run_steps(name, policy, c, steps, \
                                              sizeof(steps) / sizeof(steps[0]))

/* lru, c = 3. Lists LRU first. */
static void test_lru(void)
{
    static const struct step s[] = {
        { 1, NONE, 0 }, { 2, NONE, 0 }, { 3, NONE, 0 },    /* [1 2 3] */
        { 1, HIT, 0 },                                      /* [2 3 1] */
        { 4, 2, 0 },                                        /* [3 1 4] */
        { 3, HIT, 0 },                                      /* [1 4 3] */
        { 5, 1, 0 },                                        /* [4 3 5] */
        { 1, 4, 0 },                                        /* [3 5 1] */
    };
    RUN("lru", FTL_RCACHE_LRU, 3, s);
}

/* clock, c = 3: frames 0-2 in ring order, bits clear on insert, the hand at frame 0. */
static void test_clock(void)
{
    static const struct step s[] = {
        { 1, NONE, 0 }, { 2, NONE, 0 }, { 3, NONE, 0 },    /* frames 1 2 3, hand 0 */
        { 1, HIT, 0 },                  /* frame 0's bit set */
        /* the hand clears frame 0 (1's second chance), evicts 2 at frame 1; hand 2 */
        { 4, 2, 0 },
        { 3, HIT, 0 }, { 4, HIT, 0 },   /* bits of frames 2 and 1 set */
        /* frame 2 cleared; frame 0 (1, cleared before) evicted; 5 there, hand 1 */
        { 5, 1, 0 },
        /* frame 1 (4) cleared; frame 2 (3, cleared) evicted; hand 0 */
        { 6, 3, 0 },
        /* frame 0 (5) has no bit: evicted at once. lru would evict 4 (used before 5) */
        { 7, 5, 0 },
        { 4, HIT, 0 },
    };
    RUN("clock", FTL_RCACHE_CLOCK, 3, s);
}

/*
 * 2q, c = 4: Kin = 25 % = 1 page, Kout = 50 % = 2 keys. Lists oldest first.
 */
static void test_2q(void)
{
    static const struct step s[] = {
        { 1, NONE, 0 }, { 2, NONE, 0 }, { 3, NONE, 0 }, { 4, NONE, 0 }, /* A1in 1 2 3 4 */
        { 2, HIT, 0 },      /* in A1in: a correlated reference, nothing moves */
        { 5, 1, 0 },        /* |A1in| 4 > Kin: 1 out, its key to A1out (1); A1in 2 3 4 5 */
        /* 1's key in A1out: 2 out (A1out 1 2), 1 to Am, A1out 2 */
        { 1, 2, 0 },
        { 1, HIT, 0 },      /* in Am */
        { 6, 3, 0 },        /* A1out 2 3 */
        { 7, 4, 0 },        /* A1out 3 4 past Kout: 2 forgotten */
        { 8, 5, 0 },        /* A1out 4 5 */
        { 9, 6, 0 },        /* A1out 5 6 */
        { 10, 7, 0 },       /* A1out 6 7; A1in 8 9 10, Am 1: the scan did not reach 1 */
        { 1, HIT, 0 },
        /* 6's key in A1out: 8 out (A1out 6 7 8, past Kout: 6 forgotten, 6's own key), 6 to
         * Am all the same (its key was there when it was read); A1in 9 10, Am 1 6 */
        { 6, 8, 0 },
        { 7, 9, 0 },        /* the same for 7: A1in 10, Am 1 6 7, A1out 8 9 */
        /* |A1in| 1 = Kin: Am's LRU page 1 is evicted, with no key kept; A1in 10 11 */
        { 11, 1, 0 },
        /* 1 is nowhere now: a plain miss, to A1in (10 out, A1out 9 10) */
        { 1, 10, 0 },
        { 6, HIT, 0 }, { 7, HIT, 0 }, { 11, HIT, 0 }, { 1, HIT, 0 },
    };
    RUN("2q", FTL_RCACHE_2Q, 4, s);
}

/*
 * arc, c = 3: each step's case of figure 4, the lists after it (LRU first) and p.
 */
static void test_arc(void)
{
    static const struct step s[] = {
        { 1, NONE, 0 }, { 2, NONE, 0 }, { 5, NONE, 0 },    /* IV(B), no REPLACE: T1 1 2 5 */
        { 6, 1, 0 },    /* IV(A), |T1| = c: T1's LRU 1 deleted, no key; T1 2 5 6 */
        { 5, HIT, 0 },  /* I: T1 2 6, T2 5 */
        { 1, 2, 0 },    /* IV(B), sum 3 >= c: REPLACE, |T1| 2 > p 0: 2 to B1; T1 6 1 */
        { 5, HIT, 0 },  /* I */
        /* IV(A), |T1| + |B1| = 3 = c, |T1| < c: B1's LRU 2 forgotten, REPLACE: 6 to B1;
         * T1 1 7, T2 5, B1 6 */
        { 7, 6, 0 },
        { 1, HIT, 0 },  /* I: T1 7, T2 5 1 */
        /* II, 6 in B1: |B1| 1 >= |B2| 0, d1 = 1, p = 1; REPLACE, |T1| 1 > 1 no: T2's LRU
         * 5 to B2; T1 7, T2 1 6, B1 -, B2 5 */
        { 6, 5, 1 },
        /* IV(B), sum 4 >= c: REPLACE, |T1| 1 > 1 no: T2's 1 to B2; T1 7 4, T2 6, B2 5 1 */
        { 4, 1, 1 },
        /* IV(B), sum 5 >= c, not 2c: REPLACE, |T1| 2 > 1: 7 to B1; T1 4 3, B1 7 */
        { 3, 7, 1 },
        /* II, 7 in B1: |B1| 1 < |B2| 2, d1 = 2 / 1 = 2, p = 3; REPLACE, |T1| 2 > 3 no:
         * T2's 6 to B2; T1 4 3, T2 7, B1 -, B2 5 1 6 */
        { 7, 6, 3 },
        /* III, 5 in B2: |B2| 3 >= |B1| 0, d2 = 1, p = 2; REPLACE, 5 in B2 and |T1| 2 = p:
         * the tie rule takes T1's 4 to B1; T1 3, T2 7 5, B1 4, B2 1 6 */
        { 5, 4, 2 },
        /* III, 6 in B2: |B2| 2 >= |B1| 1, p = 1; REPLACE, |T1| 1 = p with 6 in B2: 3 to
         * B1; T1 -, T2 7 5 6, B1 4 3, B2 1 */
        { 6, 3, 1 },
        /* IV(B), sum 6 = 2c: B2's LRU 1 forgotten; REPLACE, T1 empty: T2's 7 to B2;
         * T1 2, T2 5 6, B1 4 3, B2 7 */
        { 2, 7, 1 },
        /* III, 7 in B2: |B2| 1 < |B1| 2, d2 = 2 / 1 = 2, p = max(1 - 2, 0) = 0; REPLACE,
         * |T1| 1 > 0: 2 to B1; T2 5 6 7, B1 4 3 2 */
        { 7, 2, 0 },
        { 5, HIT, 0 }, { 6, HIT, 0 }, { 7, HIT, 0 },
    };
    RUN("arc", FTL_RCACHE_ARC, 3, s);
}

/* A resident page dropped leaves a free slot (no eviction on the next miss) and no ghost;
 * ghosts stay; a range drop wider than the cache walks its entries. */
static void test_drops(void)
{
    for (int policy = FTL_RCACHE_LRU; policy <= FTL_RCACHE_ARC; policy++) {
        struct rcache *rc = rcache_create((enum ftl_read_cache_policy)policy, 4);
        for (uint32_t lpn = 1; lpn <= 4; lpn++) {
            access_page(rc, lpn);
        }
        rcache_drop(rc, 2);
        CHECK(!rcache_holds(rc, 2) && rcache_resident(rc) == 3);
        CHECK(access_page(rc, 9) == NONE);      /* the freed slot */
        CHECK(access_page(rc, 2) != HIT);       /* gone: a miss */
        rcache_drop_range(rc, 0, 1000);         /* wider than the cache */
        CHECK(rcache_resident(rc) == 0);
        for (uint32_t lpn = 1; lpn <= 4; lpn++) {
            CHECK(access_page(rc, lpn) == NONE);
        }
        rcache_drop_range(rc, 2, 4);            /* narrower: LPN by LPN */
        CHECK(rcache_holds(rc, 1) && !rcache_holds(rc, 2) && !rcache_holds(rc, 3) &&
              rcache_holds(rc, 4));
        char err[256] = "";
        CHECK(rcache_check(rc, err, sizeof(err)) == 0);
        rcache_clear(rc);
        CHECK(rcache_resident(rc) == 0 && rcache_arc_target(rc) == 0);
        rcache_destroy(rc);
    }
}

/* ---- the FTL around it ---- */

#define CACHE_LAT 700u

/* 1 channel x 2 LUNs, 4 pages a block, 4 KiB pages; 8 MiB logical. */
static struct ftl_config cache_config(enum ftl_read_cache_policy policy, uint64_t pages)
{
    struct ftl_config cfg = small_config(1, 2, 128, 4, 8);
    cfg.devsz_mb = 1;
    cfg.read_cache_pages = pages;
    cfg.read_cache_policy = policy;
    cfg.read_cache_lat = CACHE_LAT;
    return cfg;
}

static uint64_t read_done(struct ftl *ftl, uint64_t now, uint64_t lpn, uint64_t n)
{
    uint64_t done = 0;
    CHECK(read_pages(ftl, now, lpn, n, &done) == FTL_OK);
    return done;
}

/* A hit: now + read_cache_lat, no flash read (with a channel transfer time set, too: a
 * DRAM hit crosses no flash channel, as a write-buffer hit does not); a miss costs
 * exactly what the same read costs without the cache. */
static void test_hit_timing(void)
{
    struct ftl_config cfg = cache_config(FTL_RCACHE_LRU, 8);
    cfg.ch_xfer_lat = 5000;
    struct ftl_config off = cfg;
    off.read_cache_pages = 0;
    struct ftl *ftl = make_ftl(&cfg), *plain = make_ftl(&off);
    CHECK(write_pages(ftl, 0, 0, 4, NULL) == FTL_OK);
    CHECK(write_pages(plain, 0, 0, 4, NULL) == FTL_OK);
    uint64_t t = 10000000;
    CHECK_EQ_U64(read_done(ftl, t, 0, 2), read_done(plain, t, 0, 2));   /* misses */
    struct ftl_counters a = counters(ftl);
    CHECK_EQ_U64(a.rcache_misses, 2);
    CHECK_EQ_U64(a.rcache_hits, 0);
    t += 10000000;
    CHECK_EQ_U64(read_done(ftl, t, 0, 2), t + CACHE_LAT);    /* both pages hit */
    struct ftl_counters b = counters(ftl);
    CHECK_EQ_U64(b.rcache_hits - a.rcache_hits, 2);
    CHECK_EQ_U64(b.nand_user_reads, a.nand_user_reads);
    /* one hit and one miss: the miss's flash read ends later */
    t += 10000000;
    CHECK_EQ_U64(read_done(ftl, t, 1, 2), read_done(plain, t, 2, 1));
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
    ftl_destroy(plain);
}

/* Writes (even of part of a page), trims, formats, Copy and power cuts drop pages;
 * unmapped pages, verifies and pages the write buffer serves are no cache accesses. */
static void test_invalidation(void)
{
    struct ftl_config cfg = cache_config(FTL_RCACHE_ARC, 16);
    cfg.write_buffer_sectors = 16;  /* two pages */
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t t = 1000000, done;
    CHECK(write_pages(ftl, t, 0, 8, NULL) == FTL_OK);
    CHECK(ftl_flush(ftl, t, &done) == FTL_OK);
    t += 10000000;
    read_done(ftl, t, 0, 8);                        /* 8 misses, all cached */
    struct ftl_counters c0 = counters(ftl);
    CHECK_EQ_U64(c0.rcache_misses, 8);

    struct ftl_io part = { .now_ns = t, .slba = 1 * 8 + 3, .nlb = 1 };   /* one sector */
    CHECK(ftl_write(ftl, &part, &done) == FTL_OK);
    read_done(ftl, t += 1000000, 1, 1);             /* in the buffer in part: flash + merge */
    struct ftl_counters c1 = counters(ftl);
    CHECK_EQ_U64(c1.rcache_misses - c0.rcache_misses, 1);

    CHECK(write_pages(ftl, t, 2, 1, NULL) == FTL_OK);  /* wholly in the buffer now */
    read_done(ftl, t += 1000000, 2, 1);
    struct ftl_counters c2 = counters(ftl);
    CHECK_EQ_U64(c2.buf_read_hits - c1.buf_read_hits, 1);
    CHECK_EQ_U64(c2.rcache_hits + c2.rcache_misses, c1.rcache_hits + c1.rcache_misses);

    struct ftl_io tr = page_io(ftl, t, 3, 1, 0);
    CHECK(ftl_trim(ftl, &tr, &done) == FTL_OK);
    read_done(ftl, t += 1000000, 3, 1);             /* unmapped: neither */
    read_done(ftl, t, 100, 4);                      /* never written: neither */
    struct ftl_counters c3 = counters(ftl);
    CHECK_EQ_U64(c3.rcache_hits + c3.rcache_misses, c2.rcache_hits + c2.rcache_misses);

    struct ftl_io v = page_io(ftl, t, 4, 1, 0);     /* cached, but verify reads flash */
    CHECK(ftl_verify(ftl, &v, &done) == FTL_OK);
    struct ftl_counters c4 = counters(ftl);
    CHECK_EQ_U64(c4.nand_user_reads - c3.nand_user_reads, 1);
    CHECK_EQ_U64(c4.rcache_hits + c4.rcache_misses, c3.rcache_hits + c3.rcache_misses);
    read_done(ftl, t += 1000000, 4, 1);             /* still cached */
    CHECK_EQ_U64(counters(ftl).rcache_hits - c4.rcache_hits, 1);

    struct ftl_io fmt = page_io(ftl, t, 4, 1, 0);
    CHECK(ftl_format(ftl, &fmt, false, &done) == FTL_OK);
    struct ftl_range src = { .slba = 6 * 8, .nlb = 8 };
    CHECK(ftl_copy(ftl, &src, 1, 5 * 8, false, t, &done) == FTL_OK);  /* onto page 5 */
    struct ftl_counters c5 = counters(ftl);
    read_done(ftl, t += 10000000, 4, 3);            /* 4 unmapped; 5 copied: a miss; 6 hits */
    struct ftl_counters c6 = counters(ftl);
    CHECK_EQ_U64(c6.rcache_misses - c5.rcache_misses, 1);
    CHECK_EQ_U64(c6.rcache_hits - c5.rcache_hits, 1);
    CHECK_EQ_U64(c6.rcache_evictions, 0);
    CHECK_CONSISTENT(ftl);

    struct ftl_power_cut_result res;
    char err[256] = "";
    CHECK(ftl_power_cut(ftl, t += 1000000, false, NULL, NULL, &res, err, sizeof(err)) ==
          FTL_OK);
    read_done(ftl, t += 1000000, 6, 2);             /* DRAM lost: misses */
    struct ftl_counters c7 = counters(ftl);
    CHECK_EQ_U64(c7.rcache_misses - c6.rcache_misses, 2);
    CHECK_EQ_U64(c7.rcache_hits, c6.rcache_hits);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* A state file keeps the counters, not the cache: restored under other cache keys (or
 * none), reads of pages the saved cache held miss. */
static void test_state_restore(void)
{
    char dir[] = "/tmp/femu-test-rcache-XXXXXX", path[64], err[256] = "";
    if (!CHECKED(mkdtemp(dir) != NULL)) {
        return;
    }
    snprintf(path, sizeof(path), "%s/ftl.state", dir);
    struct ftl_config cfg = cache_config(FTL_RCACHE_LRU, 16);
    struct ftl *ftl = make_ftl(&cfg);
    CHECK(write_pages(ftl, 0, 0, 8, NULL) == FTL_OK);
    read_done(ftl, 10000000, 0, 8);
    read_done(ftl, 20000000, 0, 8);     /* 8 hits */
    struct ftl_counters saved = counters(ftl);
    CHECK(ftl_state_save_file(ftl, path, "test", idle_time(ftl), err, sizeof(err)) == 0);
    struct ftl_config other = cache_config(FTL_RCACHE_ARC, 32);
    other.read_cache_lat = 900;
    other.dram_mb = 64;
    struct ftl_config none = cache_config(FTL_RCACHE_LRU, 0);
    const struct ftl_config *restore[] = { &other, &none };
    for (int i = 0; i < 2; i++) {
        struct ftl *back = load_or_null(restore[i], path, idle_time(ftl), err, sizeof(err));
        if (!CHECKED(back != NULL)) {
            fprintf(stderr, "    restore %d: %s\n", i, err);
            continue;
        }
        CHECK_EQ_U64(counters(back).rcache_hits, saved.rcache_hits);
        read_done(back, idle_time(back) + 1000000, 0, 8);
        struct ftl_counters c = counters(back);
        CHECK_EQ_U64(c.rcache_hits, saved.rcache_hits);
        CHECK_EQ_U64(c.nand_user_reads - saved.nand_user_reads, 8);
        CHECK_CONSISTENT(back);
        ftl_destroy(back);
    }
    ftl_destroy(ftl);
    unlink(path);
    CHECK(rmdir(dir) == 0);
}

/* A cache smaller than the pages read evicts; hits + misses = reads of mapped pages not
 * in the buffer; ftl_check after every request of a random mix, page mapping and dftl. */
static void test_randomized(enum ftl_read_cache_policy policy, enum ftl_mapping mapping,
                            uint64_t seed)
{
    struct ftl_config cfg = cache_config(policy, 24);
    cfg.mapping = mapping;
    cfg.cmt_entries = 1024;
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t pages = ftl_geometry_of(ftl)->logical_pages, t = 0, inconsistent = 0;
    struct rng r;
    rng_seed(&r, seed);
    for (uint64_t i = 0; i < 3000; i++) {
        uint64_t lpn = rng_below(&r, pages / 4), kind = rng_below(&r, 10), done;
        t += 20000;
        if (kind < 6) {
            read_done(ftl, t, lpn, 1 + rng_below(&r, 3));
        } else if (kind < 9) {
            CHECK(write_pages(ftl, t, lpn, 1, NULL) == FTL_OK);
        } else {
            struct ftl_io tr = page_io(ftl, t, lpn, 2, 0);
            CHECK(ftl_trim(ftl, &tr, &done) == FTL_OK);
        }
        check_after_request(ftl, i, &inconsistent);
    }
    struct ftl_counters c = counters(ftl);
    CHECK(c.rcache_hits > 0 && c.rcache_evictions > 0);
    CHECK(c.rcache_hits + c.rcache_misses <= c.host_read_pages);
    CHECK_EQ_U64(inconsistent, 0);
    ftl_destroy(ftl);
}

static void expect_refused(struct ftl_config cfg, const char *key)
{
    char err[256] = "";
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) != 0);
    if (!CHECKED(strncmp(err, key, strlen(key)) == 0 && err[strlen(key)] == ':')) {
        fprintf(stderr, "    expected '%s: ...', got '%s'\n", key, err);
    }
}

static void test_config(void)
{
    struct ftl_config cfg = cache_config(FTL_RCACHE_LRU, 0);
    uint64_t logical = cfg.devsz_mb * 1024 * 1024 / 4096;
    cfg.read_cache_pages = logical + 1;
    expect_refused(cfg, "read_cache_pages");
    cfg.read_cache_pages = logical;
    char err[256] = "";
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
    /* 1 MiB of DRAM: the map is 4 bytes a page (1 KiB), the cache 256 pages = all of it */
    cfg.dram_mb = 1;
    expect_refused(cfg, "read_cache_pages");
    cfg.read_cache_pages = logical - 1;     /* 4 KiB less: the map fits beside it */
    CHECK(ftl_config_validate(&cfg, NULL, err, sizeof(err)) == 0);
    cfg.write_buffer_sectors = 16;          /* 8 KiB more: no longer */
    expect_refused(cfg, "read_cache_pages");
    CHECK(ftl_config_set(&cfg, "read_cache_policy", "lfu", err, sizeof(err)) != 0 &&
          strncmp(err, "read_cache_policy:", 18) == 0);
    CHECK(ftl_config_set(&cfg, "read_cache_policy", "2q", err, sizeof(err)) == 0 &&
          cfg.read_cache_policy == FTL_RCACHE_2Q);
}

int main(void)
{
    test_lru();
    test_clock();
    test_2q();
    test_arc();
    test_drops();
    test_hit_timing();
    test_invalidation();
    test_state_restore();
    for (int policy = FTL_RCACHE_LRU; policy <= FTL_RCACHE_ARC; policy++) {
        test_randomized((enum ftl_read_cache_policy)policy, FTL_MAPPING_PAGE, 10 + policy);
        test_randomized((enum ftl_read_cache_policy)policy, FTL_MAPPING_DFTL, 20 + policy);
    }
    test_config();
    return check_summary();
}
