/*
 * placement=stream: foreground GC collects the writing stream's own lines, and the
 * defragmenting fallback (every victim line of the other streams compacted) runs exactly
 * when that stream has no victim line; GC moves a page back to the write pointer of the
 * stream whose line it leaves; randomized runs with 2..4 streams, page mapping or dftl,
 * with or without the write buffer, pass the checker after every request and lose no
 * data. Assertions are on counts only.
 */
#include <string.h>

#include "flash/line_lists.h"
#include "gc/gc_policy.h"
#include "ftl_test_util.h"
#include "ftl_wp_of_lpn.h"
#include "rng.h"

static int write_stream(struct ftl *ftl, uint64_t now, uint64_t lpn, uint32_t stream)
{
    struct ftl_io io = page_io(ftl, now, lpn, 1, stream);
    uint64_t done;
    return ftl_write(ftl, &io, &done);
}

/* Two streams on 8-page lines: 288 lines of 512-byte pages, 1 MiB logical, whole-line GC. */
static struct ftl_config two_streams_config(void)
{
    struct ftl_config cfg = small_config(1, 2, 288, 4, 1);
    cfg.devsz_mb = 1;
    cfg.placement = FTL_PLACEMENT_STREAM;
    cfg.nstreams = 2;
    cfg.gc_scope = FTL_GC_SCOPE_STREAM;     /* the lab's rule, which these tests pin */
    cfg.gc_mode = FTL_GC_LINE;
    return cfg;
}

/* Victim lines of write pointer wp, and their valid pages. */
static uint32_t victims_of(const struct ftl *ftl, uint32_t wp, uint64_t *valid)
{
    uint32_t n = 0, *ids = calloc(ftl->nunits, sizeof(uint32_t));
    uint32_t all = ids ? victims_list(ftl, GC_ANY_LUN, ids) : 0;
    CHECK(ids != NULL);
    *valid = 0;
    for (uint32_t k = 0; k < all; k++) {
        const struct line *l = &ftl->lines[ids[k]];
        if (l->wp == wp) {
            n++;
            *valid += l->valid;
        }
    }
    free(ids);
    return n;
}

/*
 * Stream 0 writes its half of the LPNs once, sequentially: its lines close full and stay
 * so. Stream 1 overwrites its quarter at random, and stream 0 now and then writes a
 * fresh LPN of the last quarter (then, once they are all written, one of stream 1's
 * quarter). Before every single-page write the test notes whether foreground GC is due
 * and whether the writing stream has a victim line (gc_group_has_victim), then checks:
 * no GC due, no GC at all; no victim of its own, the fallback runs first, over every
 * victim line of the other stream (each page back to that stream's write pointer);
 * victims of its own, GC collects one of them first. So the fallback runs exactly when
 * the writing stream has no victim line (a write whose GC took the stream's last victim
 * and still needs a line may then fall back too).
 */
static void test_fallback_exactly_when_starved(void)
{
    /* only foreground GC: no background call */
    struct ftl_config cfg = two_streams_config();
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t logical = ftl_geometry_of(ftl)->logical_pages, luns = ftl_geometry_of(ftl)->luns;
    uint64_t half = logical / 2, quarter = logical / 4, now = 0, failures = 0;
    uint32_t *writer = calloc(logical, sizeof(uint32_t));
    struct rng rng;
    rng_seed(&rng, 1);

    for (uint64_t lpn = 0; lpn < half; lpn++) {
        failures += write_stream(ftl, now += 1000, lpn, 0) != FTL_OK;
    }
    for (uint64_t lpn = half; lpn < half + quarter; lpn++) {
        failures += write_stream(ftl, now += 1000, lpn, 1) != FTL_OK;
        writer[lpn] = 1;
    }
    CHECK_EQ_U64(victims_of(ftl, 0, &(uint64_t){ 0 }), 0);

    uint64_t starved = 0, fed = 0, no_gc = 0, wrong = 0, fallback_writes = 0;
    uint64_t fallback_lines = 0, fresh = half + quarter;
    for (uint64_t i = 0; i < 20 * logical; i++) {
        uint32_t stream = rng_below(&rng, 4) == 0 ? 0 : 1;
        uint64_t lpn;
        if (stream == 0 && fresh < logical) {
            lpn = fresh++;
        } else {
            lpn = half + rng_below(&rng, quarter);
        }
        bool needs_gc = ftl->free_count <= ftl->geo.gc_thres_lines_high;
        bool own = gc_group_has_victim(ftl, stream);
        uint64_t other_valid;
        uint32_t other_lines = victims_of(ftl, 1 - stream, &other_valid);
        struct ftl_counters a = counters(ftl);
        failures += write_stream(ftl, now += 1000, lpn, stream) != FTL_OK;
        writer[lpn] = stream;
        struct ftl_counters b = counters(ftl);
        uint64_t fb = b.fallback_runs - a.fallback_runs, own_runs = b.gc_runs - a.gc_runs;
        if (!needs_gc) {
            no_gc++;
            wrong += fb != 0 || own_runs != 0;
        } else if (!own) {
            starved++;
            /* the first round is the fallback, over every victim line of the other
             * stream, each page back to that stream's write pointer */
            wrong += fb == 0 || other_lines == 0;
            if (fb == 1 && own_runs == 0) {
                fallback_writes++;
                fallback_lines += other_lines;
                wrong += b.fallback_erased_blocks - a.fallback_erased_blocks !=
                         other_lines * luns;
                wrong += b.fallback_pages - a.fallback_pages != other_valid;
                wrong += b.wp_gc_pages[1 - stream] - a.wp_gc_pages[1 - stream] != other_valid;
                wrong += b.wp_gc_pages[stream] != a.wp_gc_pages[stream];
                wrong += b.gc_moved_pages != a.gc_moved_pages;
                if (lpn >= half + quarter) {
                    /* a fresh LPN invalidated nothing: no victim is left anywhere */
                    wrong += ftl->victim_count != 0;
                }
            }
        } else {
            fed++;
            /* its own lines first (a fallback could follow only once GC took its
             * last victim) */
            wrong += own_runs == 0;
            if (fb == 0) {
                wrong += b.wp_gc_pages[stream] - a.wp_gc_pages[stream] !=
                         b.gc_moved_pages - a.gc_moved_pages;
                wrong += b.wp_gc_pages[1 - stream] != a.wp_gc_pages[1 - stream];
                wrong += b.fallback_pages != a.fallback_pages;
            }
        }
    }
    CHECK_EQ_U64(failures, 0);
    CHECK_EQ_U64(wrong, 0);
    CHECK(starved >= 5 && fed > 100 && fallback_writes >= 5);
    /* every page sits in a line of the stream that last wrote it */
    uint64_t misplaced = 0;
    for (uint64_t lpn = 0; lpn < logical; lpn++) {
        misplaced += !ftl_lpn_is_mapped(ftl, lpn) || wp_of_lpn(ftl, lpn) != writer[lpn];
    }
    CHECK_EQ_U64(misplaced, 0);
    struct ftl_counters c = counters(ftl);
    /* the data victims' histogram holds GC's victims and the lines fallbacks compacted */
    size_t n;
    const uint64_t *hist = ftl_victim_histogram(ftl, false, &n);
    uint64_t victims = 0;
    for (size_t v = 0; v < n; v++) {
        victims += hist[v];
    }
    CHECK(victims - c.gc_runs >= fallback_lines);
    CHECK_EQ_U64(c.fallback_erased_blocks, (victims - c.gc_runs) * luns);
    CHECK_EQ_U64(c.gc_victim_valid_pages, c.gc_moved_pages + c.fallback_pages);
    struct ftl_counters zero = { 0 };
    double waf;
    CHECK(ftl_waf(&zero, &c, &waf));
    CHECK_NEAR(waf, (double)(c.nand_user_programs + c.nand_gc_programs + c.fallback_pages) /
               c.host_write_pages, 1e-12);
    printf("  writes needing GC: %llu with own victims (%llu GC runs), %llu starved -> "
           "%llu fallback runs compacting %llu lines (%llu pages); %llu writes without GC; "
           "WAF %.3f\n", (unsigned long long)fed, (unsigned long long)c.gc_runs,
           (unsigned long long)starved, (unsigned long long)c.fallback_runs,
           (unsigned long long)fallback_lines, (unsigned long long)c.fallback_pages,
           (unsigned long long)no_gc, waf);
    printf("  GC pages by stream: %llu to stream 0, %llu to stream 1\n",
           (unsigned long long)c.wp_gc_pages[0], (unsigned long long)c.wp_gc_pages[1]);
    CHECK_CONSISTENT(ftl);
    free(writer);
    ftl_destroy(ftl);
}

/*
 * Every stream keeps its own lines under GC: two streams overwrite disjoint halves at
 * random; the writing stream's GC collects its own lines and their pages go back to its
 * write pointer, and a fallback (when the rarely writing stream 0 has used up its few
 * victims) moves the other stream's pages back to that stream's.
 */
static void test_gc_pages_stay_in_stream(void)
{
    struct ftl_config cfg = two_streams_config();
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t logical = ftl_geometry_of(ftl)->logical_pages, half = logical / 2, now = 0;
    uint64_t failures = 0, wrong = 0, fallback_writes = 0;
    struct rng rng;
    rng_seed(&rng, 2);
    for (uint64_t i = 0; i < 12 * logical; i++) {
        uint32_t stream = (uint32_t)rng_below(&rng, 2);
        /* stream 1 writes three times as often: its lines decay faster */
        if (rng_below(&rng, 4)) {
            stream = 1;
        }
        uint64_t lpn = stream * half + rng_below(&rng, half);
        struct ftl_counters a = counters(ftl);
        failures += write_stream(ftl, now += 1000, lpn, stream) != FTL_OK;
        struct ftl_counters b = counters(ftl);
        wrong += b.wp_gc_pages[stream] - a.wp_gc_pages[stream] !=
                 b.gc_moved_pages - a.gc_moved_pages;
        wrong += b.wp_gc_pages[1 - stream] - a.wp_gc_pages[1 - stream] !=
                 b.fallback_pages - a.fallback_pages;
        fallback_writes += b.fallback_runs != a.fallback_runs;
    }
    CHECK_EQ_U64(failures, 0);
    CHECK_EQ_U64(wrong, 0);
    uint64_t misplaced = 0;
    for (uint64_t lpn = 0; lpn < logical; lpn++) {
        misplaced += ftl_lpn_is_mapped(ftl, lpn) && wp_of_lpn(ftl, lpn) != lpn / half;
    }
    CHECK_EQ_U64(misplaced, 0);
    struct ftl_counters c = counters(ftl);
    CHECK(c.wp_gc_pages[0] > 0 && c.wp_gc_pages[1] > 0);
    CHECK_EQ_U64(c.wp_gc_pages[0] + c.wp_gc_pages[1], c.gc_moved_pages + c.fallback_pages);
    printf("  two streams on disjoint halves: GC moved %llu pages into stream 0, %llu into "
           "stream 1 (%llu by %llu fallback runs); host pages %llu / %llu\n",
           (unsigned long long)c.wp_gc_pages[0], (unsigned long long)c.wp_gc_pages[1],
           (unsigned long long)c.fallback_pages, (unsigned long long)c.fallback_runs,
           (unsigned long long)c.wp_host_pages[0], (unsigned long long)c.wp_host_pages[1]);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* ---- property: random streams, the checker after every request, no data loss ---- */

static void property_run(bool dftl, bool buffer, uint64_t seed)
{
    struct rng rng;
    rng_seed(&rng, seed);
    uint32_t nstreams = 2 + (uint32_t)rng_below(&rng, 3);
    /* 8 pages a line, 1 KiB pages (2 sectors), 1 MiB logical over 160 lines */
    struct ftl_config cfg = small_config(1, 2, 160, 4, 2);
    cfg.devsz_mb = 1;
    cfg.placement = FTL_PLACEMENT_STREAM;
    cfg.nstreams = nstreams;
    cfg.gc_scope = FTL_GC_SCOPE_STREAM;
    cfg.gc_mode = rng_below(&rng, 2) ? FTL_GC_LINE : FTL_GC_PACED;
    if (cfg.gc_mode == FTL_GC_LINE && rng_below(&rng, 2)) {
        cfg.gc_unit = FTL_GC_UNIT_BLOCK;
    }
    if (dftl) {
        cfg.mapping = FTL_MAPPING_DFTL;
        cfg.cmt_entries = 256 + rng_below(&rng, 256);   /* one to two translation pages */
    }
    if (buffer) {
        cfg.write_buffer_sectors = 16 + rng_below(&rng, 64);
        cfg.buf_flush_pcent = 50 + rng_below(&rng, 51);
    }
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t logical = ftl_geometry_of(ftl)->logical_pages, spp = cfg.secs_per_pg;
    uint64_t cap = logical * spp, now = 0, done, requests = 4000;
    uint64_t failures = 0, inconsistent = 0, lost = 0, checks = 0, misplaced = 0;
    bool *has_data = calloc(logical, sizeof(bool));
    uint8_t *writer = calloc(logical, 1);       /* stream of the last write */

    /* the device filled once, 8 pages a command, each region by its stream, so GC is
     * under way from the start */
    for (uint64_t lpn = 0; lpn < logical; lpn += 8, now += 10000) {
        uint32_t stream = (uint32_t)(lpn * nstreams / logical);
        struct ftl_io io = { .now_ns = now, .slba = lpn * spp, .nlb = 8 * spp,
                             .stream = stream };
        failures += ftl_write(ftl, &io, &done) != FTL_OK;
        for (uint64_t p = lpn; p < lpn + 8; p++) {
            has_data[p] = true;
            writer[p] = (uint8_t)stream;
        }
    }
    for (uint64_t i = 0; i < requests; i++, now += rng_below(&rng, 100000)) {
        /* 60% writes, 12% reads, 12% trims, 3% background GC, 12% flushes, 1% formats */
        enum { WRITE = 60, READ = 72, TRIM = 84, BGGC = 87, FLUSH = 99 };
        uint64_t kind = rng_below(&rng, 100);
        uint64_t nlb = 1 + rng_below(&rng, 8 * spp);
        bool protect = i / 500 % 2 == 1;
        /* each stream favours its own region of the LPNs, as hosts tagging data do */
        uint32_t stream = (uint32_t)rng_below(&rng, nstreams);
        if (protect && rng_below(&rng, 2)) {
            stream = 0;
        }
        uint64_t region = cap / nstreams;
        uint64_t slba = rng_below(&rng, 4) ? stream * region + rng_below(&rng, region)
                                           : rng_below(&rng, cap);
        slba = slba + nlb <= cap ? slba : cap - nlb;
        /* Every other 500 requests, nothing invalidates stream 0's pages: it writes half
         * the time, taking over pages of other streams (or without data) one at a time,
         * and the others leave its pages alone (a request that would touch one reads
         * instead). Its lines then stay whole, its GC uses up its victims, and the
         * fallback has to run. */
        if (protect && stream == 0 && kind < WRITE) {
            for (int tries = 0; tries < 8 && has_data[slba / spp] && writer[slba / spp] == 0;
                 tries++) {
                slba = rng_below(&rng, cap - 1);
            }
            nlb = 1 + (slba % spp == 0);    /* within one page */
        }
        if (kind >= FLUSH) {    /* a format: whole pages */
            nlb = (slba % spp + nlb + spp - 1) / spp * spp;
            slba = slba / spp * spp;
            slba = slba + nlb <= cap ? slba : cap - nlb;
        }
        if (protect && ((kind < WRITE && stream != 0) || (kind >= READ && kind < TRIM) ||
                        kind >= FLUSH)) {
            for (uint64_t p = slba / spp; p <= (slba + nlb - 1) / spp; p++) {
                if (has_data[p] && writer[p] == 0) {
                    kind = WRITE;   /* a read */
                }
            }
        }
        struct ftl_io io = { .now_ns = now, .slba = slba, .nlb = nlb, .stream = stream };
        int rc;
        if (kind < WRITE) {
            rc = ftl_write(ftl, &io, &done);
            for (uint64_t p = slba / spp; rc == FTL_OK && p <= (slba + nlb - 1) / spp; p++) {
                has_data[p] = true;
                writer[p] = (uint8_t)stream;
            }
        } else if (kind < READ) {
            rc = ftl_read(ftl, &io, &done);
        } else if (kind < TRIM) {
            rc = ftl_trim(ftl, &io, &done);
            forget_pages(has_data, slba, nlb, spp);
        } else if (kind < BGGC) {
            rc = ftl_background_gc(ftl, now) < 0 ? -1 : FTL_OK;
        } else if (kind < FLUSH) {
            rc = ftl_flush(ftl, now, &done);
        } else {
            rc = ftl_format(ftl, &io, rng_below(&rng, 2), &done);
            forget_pages(has_data, slba, nlb, spp);
        }
        failures += rc != FTL_OK;
        check_after_request(ftl, i, &inconsistent);
        /* with a buffer, compare after a flush every 50 requests */
        if (buffer && i % 50 != 49) {
            continue;
        }
        if (buffer) {
            failures += ftl_flush(ftl, now, &done) != FTL_OK;
        }
        checks++;
        for (uint64_t p = 0; p < logical; p++) {
            lost += ftl_lpn_is_mapped(ftl, p) != has_data[p];
            /* GC, the fallback and the flushes kept it in its writer's lines */
            misplaced += has_data[p] && ftl_lpn_is_mapped(ftl, p) &&
                         wp_of_lpn(ftl, p) != writer[p];
        }
    }
    CHECK_EQ_U64(failures, 0);
    CHECK_EQ_U64(inconsistent, 0);
    CHECK_EQ_U64(lost, 0);
    CHECK_EQ_U64(misplaced, 0);
    struct ftl_counters c = counters(ftl);
    CHECK(c.gc_runs > 0);
    /* paced GC's background collections keep the streams fed: the fallback is for line
     * GC's runs to exercise */
    CHECK(c.fallback_runs > 0 || cfg.gc_mode == FTL_GC_PACED);
    printf("  %u streams, %s, gc_mode=%s, gc_unit=%s, buffer %llu sectors: %llu requests "
           "checked, %llu mapping comparisons; %llu GC runs, %llu fallback runs (%llu pages), "
           "%llu map GC runs\n", nstreams, ftl_mapping_name(cfg.mapping),
           ftl_gc_mode_name(cfg.gc_mode), ftl_gc_unit_name(cfg.gc_unit),
           (unsigned long long)cfg.write_buffer_sectors, (unsigned long long)requests,
           (unsigned long long)checks, (unsigned long long)c.gc_runs,
           (unsigned long long)c.fallback_runs, (unsigned long long)c.fallback_pages,
           (unsigned long long)c.map_gc_runs);
    free(has_data);
    free(writer);
    ftl_destroy(ftl);
}

int main(void)
{
    test_fallback_exactly_when_starved();
    test_gc_pages_stay_in_stream();
    uint64_t seed = 100;
    for (int round = 0; round < 3; round++) {
        for (int mode = 0; mode < 4; mode++) {
            property_run(mode & 1, mode & 2, seed++);
        }
    }
    return check_summary();
}
