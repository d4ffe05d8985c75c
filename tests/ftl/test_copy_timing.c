/*
 * Copy's timing against the host doing the same flash work (flash/page_moves.c): a Copy
 * of pages is never slower than a zone read of them and a Zone Append of what was read.
 * An exact small case (2 LUNs, 4 pages), then zns-compaction's case: 8 victim zones whose
 * valid pages lie in runs of 1..16 (fragmented) or in one extent, compacted at QD 1 by
 * Copy and by read + append; the device time is the last command's completion.
 */
#include <stdint.h>

#include "femu_ftl/engine.h"
#include "ftl_test_util.h"

#define LATER 1000000000000ull

struct timing {
    const char *name;
    uint64_t rd, wr, xfer;
};

static uint64_t serve_at(struct ftl_engine *e, struct ftl_request req)
{
    struct ftl_served served;
    CHECK(ftl_engine_serve(e, &req, &served) == FTL_OK);
    return served.done_ns;
}

/* nchs channels of luns_per_ch LUNs, zones over zone_luns of them, blocks of pgs pages. */
static struct ftl_config zoned_config(uint64_t nchs, uint64_t luns_per_ch, uint64_t zone_luns,
                                      uint64_t pgs, uint64_t zones, struct timing t)
{
    struct ftl_config cfg = small_config(nchs, luns_per_ch, zones / (nchs * luns_per_ch /
                                                                    zone_luns) + 16, pgs, 8);
    cfg.pg_rd_lat = t.rd;
    cfg.pg_wr_lat = t.wr;
    cfg.ch_xfer_lat = t.xfer;
    cfg.gc_thres_pcent = 60;
    cfg.gc_thres_pcent_high = 80;
    cfg.zoned = 1;
    cfg.zones = zones;
    cfg.zone_luns = zone_luns;
    cfg.zone_cap = zone_luns * pgs * 4096;
    cfg.devsz_mb = 1;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    return cfg;
}

/*
 * Zones over LUNs 0 and 1 (their own channels); zone 0's pages 1..4 copied to zone 1's
 * start: destination page p on LUN p % 2, its source on the other LUN, so no copyback.
 * The reads go first on both LUNs (d1, d3 on LUN 0; d0, d2 on LUN 1: 2 (tR + txfer)),
 * then each LUN programs its two pages back to back (2 (txfer + tPROG)): the host's read
 * of the 4 pages and append of them take exactly as long. (Priced page by page, each read
 * waited for the program issued before it on its LUN: 2 (tR + txfer) + 4 (txfer + tPROG)
 * without transfers, i.e. twice as long.)
 */
static void test_two_luns_exact(void)
{
    struct timing ts[2] = { { "no transfers", 40000, 200000, 0 },
                            { "10 us transfers", 40000, 200000, 10000 } };
    for (int k = 0; k < 2; k++) {
        struct timing t = ts[k];
        struct ftl_config cfg = zoned_config(2, 1, 2, 16, 4, t);
        uint64_t spp = cfg.secs_per_pg, done[2];
        for (int method = 0; method < 2; method++) {
            struct ftl *ftl = make_ftl(&cfg);
            struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
            uint64_t zs = ftl_zone_size_sectors(ftl);
            serve_at(e, (struct ftl_request){ .op = FTL_OP_ZONE_WRITE, .slba = 0,
                                              .nlb = 8 * spp });
            struct ftl_range src = { spp, 4 * spp };
            if (method == 0) {
                done[0] = serve_at(e, (struct ftl_request){
                    .op = FTL_OP_COPY, .flags = FTL_REQ_ZONED, .arrival_ns = LATER,
                    .ranges = &src, .nranges = 1, .slba = zs, .nlb = 4 * spp });
                struct ftl_counters c = counters(ftl);
                CHECK_EQ_U64(c.nand_copy_reads, 4);
                CHECK_EQ_U64(c.nand_copy_programs, 4);
                CHECK_EQ_U64(c.nand_copybacks, 0);
            } else {
                uint64_t read = serve_at(e, (struct ftl_request){
                    .op = FTL_OP_ZONE_READ, .arrival_ns = LATER, .slba = spp, .nlb = 4 * spp });
                done[1] = serve_at(e, (struct ftl_request){
                    .op = FTL_OP_ZONE_WRITE, .flags = FTL_REQ_APPEND, .arrival_ns = read,
                    .slba = zs, .nlb = 4 * spp });
            }
            CHECK_CONSISTENT(ftl);
            ftl_engine_destroy(e);
            ftl_destroy(ftl);
        }
        uint64_t want = 2 * (t.rd + t.xfer) + 2 * (t.xfer + t.wr);
        CHECK_EQ_U64(done[0] - LATER, want);
        CHECK_EQ_U64(done[1] - LATER, want);
        printf("2 LUNs, 4 pages, %s: Copy %.0f us, read + append %.0f us (2 (tR + txfer) + "
               "2 (txfer + tPROG) = %.0f us)\n", t.name, (done[0] - LATER) / 1e3,
               (done[1] - LATER) / 1e3, want / 1e3);
    }
}

/* zns-compaction's layout (scripts/workloads/lib/zns-compaction.sh): runs of 1..16 pages,
 * each valid with probability 1/2, from a Park-Miller generator; touching runs merge. */
#define VICTIMS 8
#define MAX_EXTENTS 4096

struct extent {
    uint32_t victim, first, pages;
};

static size_t fragmented(uint64_t zone_pages, struct extent *out)
{
    uint64_t seed = 1;
    size_t n = 0;
    for (uint32_t v = 0; v < VICTIMS; v++) {
        for (uint64_t b = 0, run; b < zone_pages; b += run) {
            seed = seed * 16807 % 2147483647;
            run = 1 + seed * 16 / 2147483647;
            run = b + run > zone_pages ? zone_pages - b : run;
            seed = seed * 16807 % 2147483647;
            if (seed * 2 >= 2147483647) {
                continue;
            }
            if (n && out[n - 1].victim == v && out[n - 1].first + out[n - 1].pages == b) {
                out[n - 1].pages += (uint32_t)run;
            } else if (n < MAX_EXTENTS) {
                out[n++] = (struct extent){ v, (uint32_t)b, (uint32_t)run };
            }
        }
    }
    return n;
}

/*
 * Fill the victims, then move each victim's extents, packed, to the target zones from zone
 * 2 x VICTIMS on (one Copy of all its extents; or a zone read of each extent and a Zone
 * Append of every 64 pages read), each victim reset once moved, one command at a time.
 * Returns the compaction's device time: its last completion less the fill's.
 */
static uint64_t compaction_time(const struct ftl_config *cfg, const struct extent *x, size_t n,
                                bool copy, uint64_t *moved)
{
    struct ftl *ftl = make_ftl(cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    uint64_t zs = ftl_zone_size_sectors(ftl), spp = cfg->secs_per_pg;
    uint64_t zone_pages = ftl_zone_cap_sectors(ftl) / spp, now = 0;
    for (uint64_t v = 0; v < VICTIMS; v++) {
        now = serve_at(e, (struct ftl_request){ .op = FTL_OP_ZONE_WRITE, .arrival_ns = now,
                                                .slba = v * zs, .nlb = zone_pages * spp });
    }
    uint64_t filled = now, target = 2 * VICTIMS, used = 0;
    struct ftl_range ranges[MAX_EXTENTS];
    *moved = 0;
    for (size_t i = 0, j; i < n; i = j) {
        uint32_t v = x[i].victim;
        uint64_t payload = 0, pending = 0;
        for (j = i; j < n && x[j].victim == v; j++) {
            payload += x[j].pages;
        }
        if (used + payload > zone_pages) {
            target++, used = 0;
        }
        uint64_t zslba = target * zs;
        for (size_t k = i; k < j; k++) {
            struct ftl_range r = { v * zs + x[k].first * spp, x[k].pages * spp };
            if (copy) {
                ranges[k - i] = r;
                continue;
            }
            for (uint64_t at = 0, len; at < x[k].pages; at += len) {    /* 64-page reads */
                len = x[k].pages - at < 64 ? x[k].pages - at : 64;
                if (pending + len > 64) {
                    now = serve_at(e, (struct ftl_request){
                        .op = FTL_OP_ZONE_WRITE, .flags = FTL_REQ_APPEND, .arrival_ns = now,
                        .slba = zslba, .nlb = pending * spp });
                    pending = 0;
                }
                now = serve_at(e, (struct ftl_request){
                    .op = FTL_OP_ZONE_READ, .arrival_ns = now, .slba = r.slba + at * spp,
                    .nlb = len * spp });
                pending += len;
            }
        }
        if (copy) {
            now = serve_at(e, (struct ftl_request){
                .op = FTL_OP_COPY, .flags = FTL_REQ_ZONED, .arrival_ns = now,
                .ranges = ranges, .nranges = (uint32_t)(j - i), .slba = zslba + used * spp,
                .nlb = payload * spp });
        } else if (pending) {
            now = serve_at(e, (struct ftl_request){
                .op = FTL_OP_ZONE_WRITE, .flags = FTL_REQ_APPEND, .arrival_ns = now,
                .slba = zslba, .nlb = pending * spp });
        }
        now = serve_at(e, (struct ftl_request){ .op = FTL_OP_ZONE_MGMT, .arrival_ns = now,
                                                .slba = v * zs,
                                                .zone_action = FTL_ZONE_ACTION_RESET });
        used += payload;
        *moved += payload;
    }
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(copy ? c.copy_pages : c.zone_reads, *moved);
    CHECK_EQ_U64(c.zone_resets, VICTIMS);
    CHECK_CONSISTENT(ftl);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
    return now - filled;
}

static void test_compaction_copy_not_slower(void)
{
    /* conf/zns-lab.conf's timing, and conf/nand/mlc.conf's (the ZNS+ artifact's) */
    struct timing ts[2] = { { "zns-lab timing", 40000, 200000, 10000 },
                            { "MLC timing", 35000, 390000, 24000 } };
    static struct extent x[MAX_EXTENTS];
    for (int k = 0; k < 2; k++) {
        /* 2 channels x 4 LUNs, zones over 4 LUNs (two groups), 256-page zones */
        struct ftl_config cfg = zoned_config(2, 4, 4, 64, 32, ts[k]);
        uint64_t zone_pages = 4 * 64;
        for (int layout = 0; layout < 2; layout++) {
            size_t n = VICTIMS;
            if (layout == 0) {
                n = fragmented(zone_pages, x);
                CHECK(n > 4 * VICTIMS && n < MAX_EXTENTS);
            } else {
                for (uint32_t v = 0; v < VICTIMS; v++) {
                    x[v] = (struct extent){ v, 0, (uint32_t)zone_pages / 2 };
                }
            }
            uint64_t moved_copy, moved_rw;
            uint64_t copy = compaction_time(&cfg, x, n, true, &moved_copy);
            uint64_t rw = compaction_time(&cfg, x, n, false, &moved_rw);
            CHECK_EQ_U64(moved_copy, moved_rw);
            CHECK(copy <= rw);
            printf("%s, %s (%zu extents, %llu pages): Copy %.2f ms, read + append %.2f ms\n",
                   ts[k].name, layout ? "contiguous" : "fragmented", n,
                   (unsigned long long)moved_copy, copy / 1e6, rw / 1e6);
        }
    }
}

int main(void)
{
    test_two_luns_exact();
    test_compaction_copy_not_slower();
    return check_summary();
}
