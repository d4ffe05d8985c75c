/*
 * Simple Copy (copy.c): copyback when source and destination pages share a LUN, read +
 * program otherwise, program only for data not on flash; exact times against the model
 * N / L x (t_R + t_PROG) and N / L x (t_R + 2 t_xfer + t_PROG) (printed); the conventional
 * namespace's copy through the FTL (placement, write counts, WAF); errors.
 */
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/engine.h"
#include "flash/fault.h"
#include "ftl_test_util.h"

#define R_LAT 40000ull
#define P_LAT 200000ull
#define X_LAT 10000ull
#define LATER 1000000000000ull

static int serve(struct ftl_engine *e, struct ftl_request req, uint64_t *done)
{
    struct ftl_served served;
    int rc = ftl_engine_serve(e, &req, &served);
    if (done) {
        *done = served.done_ns;
    }
    return rc;
}

/* L-LUN zones of one block per LUN over 2L channels of one LUN each (zone groups 0 and
 * 1 on distinct buses), 16-page blocks. */
static struct ftl_config copy_config(uint64_t L, uint64_t xfer)
{
    struct ftl_config cfg = small_config(2 * L, 1, 24, 16, 8);
    cfg.pg_rd_lat = R_LAT;
    cfg.pg_wr_lat = P_LAT;
    cfg.ch_xfer_lat = xfer;
    cfg.gc_thres_pcent = 60;
    cfg.gc_thres_pcent_high = 80;
    cfg.zoned = 1;
    cfg.zones = 4;
    cfg.zone_luns = L;
    cfg.zone_cap = L * 16 * 4096;
    cfg.devsz_mb = 1;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    return cfg;
}

/* Copy n pages from zone 0 (group 0, written whole) to the start of zone dest_zone. */
static uint64_t zone_copy_time(uint64_t L, uint64_t xfer, uint64_t dest_zone, uint64_t n,
                               struct ftl_counters *c)
{
    struct ftl_config cfg = copy_config(L, xfer);
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    uint64_t zs = ftl_zone_size_sectors(ftl), spp = cfg.secs_per_pg, done;
    CHECK(serve(e, (struct ftl_request){ .op = FTL_OP_ZONE_WRITE, .slba = 0,
                                         .nlb = L * 16 * spp }, NULL) == FTL_OK);
    struct ftl_range src = { 0, n * spp };
    CHECK(serve(e, (struct ftl_request){ .op = FTL_OP_COPY, .flags = FTL_REQ_ZONED,
                                         .arrival_ns = LATER, .ranges = &src, .nranges = 1,
                                         .slba = dest_zone * zs, .nlb = n * spp },
                &done) == FTL_OK);
    struct ftl_zone_info info;
    ftl_zone_get(ftl, dest_zone, &info);
    CHECK_EQ_U64(info.wp, dest_zone * zs + n * spp);
    *c = counters(ftl);
    CHECK_CONSISTENT(ftl);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
    return done - LATER;
}

static void test_zoned_copy_timing(void)
{
    const uint64_t L = 4;
    for (uint64_t per_lun = 1; per_lun <= 8; per_lun *= 2) {
        uint64_t n = per_lun * L;
        struct ftl_counters c;
        /* zone 2 is in group 0 like zone 0: page p on the same LUN as its source */
        uint64_t same = zone_copy_time(L, X_LAT, 2, n, &c);
        CHECK_EQ_U64(same, per_lun * (R_LAT + P_LAT));
        CHECK_EQ_U64(c.nand_copybacks, n);
        CHECK_EQ_U64(c.nand_copy_reads + c.nand_copy_programs, 0);
        CHECK_EQ_U64(c.copy_cmds, 1);
        CHECK_EQ_U64(c.copy_pages, n);
        CHECK_EQ_U64(ftl_nand_reads(&c), 0);
        CHECK_EQ_U64(ftl_nand_programs(&c), L * 16);    /* the zone 0 write only */
        /* zone 1 is in group 1: every page read on its LUN, moved, programmed: the source
         * LUN reads back to back (t_R + t_xfer each) and the destination programs each
         * page (t_xfer + t_PROG) once read, so with t_PROG > t_R the programs chain */
        uint64_t across = zone_copy_time(L, X_LAT, 1, n, &c);
        CHECK_EQ_U64(across, R_LAT + X_LAT + per_lun * (X_LAT + P_LAT));
        CHECK_EQ_U64(c.nand_copybacks, 0);
        CHECK_EQ_U64(c.nand_copy_reads, n);
        CHECK_EQ_U64(c.nand_copy_programs, n);
        CHECK_EQ_U64(ftl_nand_reads(&c), n);
        CHECK_EQ_U64(ftl_nand_programs(&c), L * 16 + n);
        printf("copy of %2llu pages over %llu LUNs: copyback %.2f ms (model N/L x (tR + tPROG) "
               "%.2f ms); read + program %.2f ms (model N/L x (tR + 2 txfer + tPROG) %.2f ms: "
               "reads and programs of successive pages overlap)\n", (unsigned long long)n,
               (unsigned long long)L, same / 1e6, per_lun * (R_LAT + P_LAT) / 1e6,
               across / 1e6, per_lun * (R_LAT + 2 * X_LAT + P_LAT) / 1e6);
    }
    /* one page per LUN: both models exactly */
    struct ftl_counters c;
    CHECK_EQ_U64(zone_copy_time(L, X_LAT, 1, L, &c), R_LAT + 2 * X_LAT + P_LAT);
}

/* Sources not on flash (in the page buffer, or never written) cost a program only. */
static void test_zoned_copy_sources(void)
{
    struct ftl_config cfg = copy_config(2, 0);
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    uint64_t zs = ftl_zone_size_sectors(ftl), spp = cfg.secs_per_pg, done;
    /* zone 0: 2.5 pages, the half page buffered */
    CHECK(serve(e, (struct ftl_request){ .op = FTL_OP_ZONE_WRITE, .slba = 0,
                                         .nlb = 2 * spp + spp / 2 }, NULL) == FTL_OK);
    /* copy page 2's buffered half then page 0 into zone 2 (same group): half a page
     * first (nothing completes), then page 0 completes dest page 0 from the buffer */
    struct ftl_range src[2] = { { 2 * spp, spp / 2 }, { 0, spp } };
    CHECK(serve(e, (struct ftl_request){ .op = FTL_OP_COPY, .flags = FTL_REQ_ZONED,
                                         .arrival_ns = LATER, .ranges = src, .nranges = 2,
                                         .slba = 2 * zs, .nlb = spp + spp / 2 }, &done) ==
          FTL_OK);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.copy_pages, 1);
    CHECK_EQ_U64(c.nand_copy_programs, 1);     /* dest page 0's first sector: buffered */
    CHECK_EQ_U64(c.nand_copy_reads + c.nand_copybacks, 0);
    CHECK_EQ_U64(done, LATER + P_LAT);
    /* a copy completing no page waits in the buffer */
    struct ftl_range one = { spp, 1 };
    CHECK(serve(e, (struct ftl_request){ .op = FTL_OP_COPY, .flags = FTL_REQ_ZONED,
                                         .arrival_ns = 2 * LATER, .ranges = &one,
                                         .nranges = 1, .slba = 2 * zs + spp + spp / 2,
                                         .nlb = 1 }, &done) == FTL_OK);
    CHECK_EQ_U64(done, 2 * LATER + cfg.buf_wr_lat);
    /* refused by admission: not at the write pointer */
    CHECK(serve(e, (struct ftl_request){ .op = FTL_OP_COPY, .flags = FTL_REQ_ZONED,
                                         .ranges = &one, .nranges = 1, .slba = 3 * zs + 8,
                                         .nlb = 1 }, NULL) == FTL_E_ZONE_INVALID_WRITE);
    CHECK_EQ_U64(counters(ftl).copy_cmds, 2);
    CHECK_CONSISTENT(ftl);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/*
 * Conventional copy: one write pointer stripes page i of a fresh FTL on LUN i % luns, so
 * a copy of pages [0, m) to [n, n + m) is all copyback when n is a multiple of the LUNs
 * and all read + program when it is not.
 */
static void test_conventional_copy(void)
{
    for (int shift = 0; shift < 2; shift++) {
        struct ftl_config cfg = small_config(2, 2, 64, 16, 8);
        cfg.pg_rd_lat = R_LAT;
        cfg.pg_wr_lat = P_LAT;
        struct ftl *ftl = make_ftl(&cfg);
        struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
        uint64_t spp = cfg.secs_per_pg, m = 8, n = 16 + (uint64_t)shift, done;
        CHECK(write_pages(ftl, 0, 0, 16, NULL) == FTL_OK);
        if (shift) {
            CHECK(write_pages(ftl, 0, 16, 1, NULL) == FTL_OK);  /* lpn 16 at LUN 0 */
            n = 17;
        }
        struct ftl_counters before = counters(ftl);
        struct ftl_range src[2] = { { 0, 4 * spp }, { 4 * spp, 4 * spp } };
        CHECK(serve(e, (struct ftl_request){ .op = FTL_OP_COPY, .arrival_ns = LATER,
                                             .ranges = src, .nranges = 2, .slba = n * spp,
                                             .nlb = m * spp }, &done) == FTL_OK);
        struct ftl_counters c = counters(ftl);
        CHECK_EQ_U64(c.copy_cmds, 1);
        CHECK_EQ_U64(c.copy_pages, m);
        CHECK_EQ_U64(c.host_write_pages, before.host_write_pages);
        CHECK_EQ_U64(c.nand_user_programs, before.nand_user_programs);
        if (shift == 0) {
            CHECK_EQ_U64(c.nand_copybacks, m);
            CHECK_EQ_U64(c.nand_copy_reads + c.nand_copy_programs, 0);
            CHECK_EQ_U64(done, LATER + m / 4 * (R_LAT + P_LAT));
        } else {
            CHECK_EQ_U64(c.nand_copybacks, 0);
            CHECK_EQ_U64(c.nand_copy_reads, m);
            CHECK_EQ_U64(c.nand_copy_programs, m);
        }
        for (uint64_t i = 0; i < m; i++) {
            CHECK(ftl_lpn_is_mapped(ftl, n + i));
            CHECK_EQ_U64(ftl_lpn_write_count(ftl, n + i), 1);
        }
        /* WAF: copy pages count as host pages, their programs and copybacks as programs */
        double waf;
        CHECK(ftl_waf(&before, &c, &waf));
        CHECK_NEAR(waf, 1.0, 1e-12);
        CHECK_CONSISTENT(ftl);
        /* errors: out of range, empty */
        struct ftl_range far = { ftl_geometry_of(ftl)->logical_sectors - 4, 8 };
        CHECK(serve(e, (struct ftl_request){ .op = FTL_OP_COPY, .ranges = &far, .nranges = 1,
                                             .slba = 0, .nlb = 8 }, NULL) == FTL_E_RANGE);
        CHECK(serve(e, (struct ftl_request){ .op = FTL_OP_COPY, .ranges = src, .nranges = 2,
                                             .slba = ftl_geometry_of(ftl)->logical_sectors -
                                                     8, .nlb = m * spp }, NULL) ==
              FTL_E_RANGE);
        struct ftl_range empty = { 0, 0 };
        CHECK(serve(e, (struct ftl_request){ .op = FTL_OP_COPY, .ranges = &empty,
                                             .nranges = 1 }, NULL) == FTL_E_INVAL);
        CHECK_EQ_U64(counters(ftl).copy_cmds, 1);
        ftl_engine_destroy(e);
        ftl_destroy(ftl);
    }
}

/* Conventional copies among random writes and trims, with GC, dftl and a write buffer:
 * the FTL stays consistent and every destination page is mapped. */
static void test_conventional_randomized(void)
{
    for (int variant = 0; variant < 4; variant++) {
        struct ftl_config cfg = small_config(2, 2, 32, 16, 8);
        cfg.placement = variant == 1 ? FTL_PLACEMENT_HOTCOLD : FTL_PLACEMENT_SINGLE;
        cfg.hot_threshold = 2;
        if (variant >= 2) {
            cfg.mapping = FTL_MAPPING_DFTL;
            cfg.cmt_entries = 1024;     /* one translation page */
        }
        if (variant == 3) {
            cfg.write_buffer_sectors = 128;
        }
        cfg.devsz_mb = 1;
        cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
        struct ftl *ftl = make_ftl(&cfg);
        struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
        uint64_t sectors = ftl_geometry_of(ftl)->logical_sectors, spp = cfg.secs_per_pg;
        uint64_t inconsistent = 0, unmapped = 0;
        uint64_t state = 12345 + (uint64_t)variant;
        for (uint64_t i = 0; i < 4000; i++) {
            uint64_t kind = rng_state_below(&state, 4), done;
            struct ftl_range src[3];
            struct ftl_request req = { .arrival_ns = i * 30000 };
            if (kind < 2) {
                req.op = kind ? FTL_OP_TRIM : FTL_OP_WRITE;
                req.nlb = 1 + rng_state_below(&state, 4 * spp);
                req.slba = rng_state_below(&state, sectors - req.nlb);
            } else {
                for (int s = 0; s < 3; s++) {
                    src[s].nlb = rng_state_below(&state, 3 * spp);
                    src[s].slba = rng_state_below(&state, sectors - src[s].nlb);
                    req.nlb += src[s].nlb;
                }
                req.op = FTL_OP_COPY;
                req.ranges = src;
                req.nranges = 3;
                req.slba = rng_state_below(&state, sectors - req.nlb - 1);
            }
            int rc = serve(e, req, &done);
            if (req.op == FTL_OP_COPY && rc == FTL_OK && variant != 3) {
                for (uint64_t p = req.slba / spp; p <= (req.slba + req.nlb - 1) / spp; p++) {
                    unmapped += !ftl_lpn_is_mapped(ftl, p);
                }
            }
            CHECK(rc == FTL_OK || (rc == FTL_E_INVAL && req.nlb == 0));
            check_after_request(ftl, i, &inconsistent);
        }
        CHECK_EQ_U64(inconsistent, 0);
        CHECK_EQ_U64(unmapped, 0);
        struct ftl_counters c = counters(ftl);
        CHECK(c.copy_cmds > 0 && c.gc_runs > 0);
        CHECK_EQ_U64(c.copy_pages, c.nand_copybacks + c.nand_copy_programs);
        ftl_engine_destroy(e);
        ftl_destroy(ftl);
    }
}

int main(void)
{
    test_zoned_copy_timing();
    test_zoned_copy_sources();
    test_conventional_copy();
    test_conventional_randomized();
    return check_summary();
}
