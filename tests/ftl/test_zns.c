/*
 * The zoned namespace's flash side (zns.c) through the engine: where zone pages live,
 * exact program / sense / erase times (appends pipelining over the zone's LUNs, the
 * channel's share, resets in parallel across LUNs), counters, ftl_lun_busy_ns, the
 * conventional FTL unchanged beside the zones, and a randomized run mixing both
 * namespaces with ftl_check after every request.
 */
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/engine.h"
#include "zns/zns.h"
#include "ftl_test_util.h"
#include "rng.h"

#define R_LAT 40000ull
#define P_LAT 200000ull
#define E_LAT 2000000ull
#define LATER 1000000000000ull  /* when every earlier operation has ended */

/*
 * nchs x luns_per_ch LUNs of blks blocks of pgs 4 KiB pages; zones of zone_luns LUNs x
 * zone_blocks blocks (zone_size the cap rounded up to a power of two); the conventional
 * size the largest the remaining lines allow.
 */
static struct ftl_config zoned_config(uint64_t nchs, uint64_t luns_per_ch, uint64_t blks,
                                      uint64_t pgs, uint64_t zones, uint64_t zone_luns,
                                      uint64_t zone_blocks)
{
    struct ftl_config cfg = small_config(nchs, luns_per_ch, blks, pgs, 8);
    cfg.pg_rd_lat = R_LAT;
    cfg.pg_wr_lat = P_LAT;
    cfg.blk_er_lat = E_LAT;
    cfg.gc_thres_pcent = 60;        /* a few lines still keep one for foreground GC */
    cfg.gc_thres_pcent_high = 80;
    cfg.zoned = 1;
    cfg.zones = zones;
    cfg.zone_luns = zone_luns;
    cfg.zone_cap = zone_luns * zone_blocks * pgs * 4096;
    cfg.devsz_mb = 1;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    return cfg;
}

struct rig {
    struct ftl *ftl;
    struct ftl_engine *engine;
    uint64_t spp, zone_sectors;
};

static struct rig rig_open(const struct ftl_config *cfg)
{
    struct rig r = { .ftl = make_ftl(cfg) };
    r.engine = ftl_engine_create(r.ftl, NULL, NULL);
    r.spp = cfg->secs_per_pg;
    r.zone_sectors = ftl_zone_size_sectors(r.ftl);
    return r;
}

static void rig_close(struct rig *r)
{
    ftl_engine_destroy(r->engine);
    ftl_destroy(r->ftl);
}

static int serve(struct rig *r, struct ftl_request req, uint64_t *done)
{
    struct ftl_served served;
    int rc = ftl_engine_serve(r->engine, &req, &served);
    if (done) {
        *done = served.done_ns;
    }
    return rc;
}

/* A write of npages pages at the zone's write pointer (admitted by the engine). */
static int zone_write(struct rig *r, uint64_t zone, uint64_t first_page, uint64_t npages,
                      uint64_t now, uint64_t *done)
{
    return serve(r, (struct ftl_request){ .op = FTL_OP_ZONE_WRITE, .arrival_ns = now,
                                          .slba = zone * r->zone_sectors + first_page * r->spp,
                                          .nlb = npages * r->spp }, done);
}

static int zone_append(struct rig *r, uint64_t zone, uint64_t nlb, uint64_t now,
                       uint64_t *done)
{
    return serve(r, (struct ftl_request){ .op = FTL_OP_ZONE_WRITE, .flags = FTL_REQ_APPEND,
                                          .arrival_ns = now, .slba = zone * r->zone_sectors,
                                          .nlb = nlb }, done);
}

static int zone_mgmt(struct rig *r, uint64_t zone, enum ftl_zone_action action, bool all,
                     uint64_t now, uint64_t *done)
{
    return serve(r, (struct ftl_request){ .op = FTL_OP_ZONE_MGMT, .arrival_ns = now,
                                          .slba = zone * r->zone_sectors,
                                          .zone_action = action,
                                          .flags = all ? FTL_REQ_ZONE_ALL : 0 }, done);
}

static int zone_read(struct rig *r, uint64_t slba, uint64_t nlb, uint64_t now, uint64_t *done)
{
    return serve(r, (struct ftl_request){ .op = FTL_OP_ZONE_READ, .arrival_ns = now,
                                          .slba = slba, .nlb = nlb }, done);
}

/* Erase counts of every block (rows x LUNs) summed, and of one block. */
static uint64_t erase_total(const struct ftl *ftl)
{
    const struct ftl_geometry *g = ftl_geometry_of(ftl);
    uint64_t sum = 0;
    for (uint64_t row = 0; row < g->blks_per_lun; row++) {
        for (uint32_t lun = 0; lun < g->luns; lun++) {
            sum += ftl_block_erase_count(ftl, row, lun);
        }
    }
    return sum;
}

static void test_geometry_and_placement(void)
{
    /* 4 LUNs (2 ch x 2), zones of 2 LUNs x 2 blocks: 2 groups, 4 zones stack 2 deep */
    struct ftl_config cfg = zoned_config(2, 2, 12, 16, 4, 2, 2);
    struct rig r = rig_open(&cfg);
    const struct ftl_geometry *g = ftl_geometry_of(r.ftl);
    CHECK_EQ_U64(ftl_zone_count(r.ftl), 4);
    CHECK_EQ_U64(ftl_zone_luns(r.ftl), 2);
    CHECK_EQ_U64(ftl_zone_cap_sectors(r.ftl), 2 * 2 * 16 * 8);
    CHECK_EQ_U64(ftl_zone_size_sectors(r.ftl), 2 * 2 * 16 * 8);
    CHECK_EQ_U64(g->zone_groups, 2);
    CHECK_EQ_U64(g->zone_rows, 4);
    CHECK_EQ_U64(g->lines, 8);
    /* zone z page p: LUN (z % 2) * 2 + p % 2, row 8 + (z / 2) * 2 + (p / 2) / 16 */
    const uint64_t expect[][4] = {  /* zone, page, lun, row */
        { 0, 0, 0, 8 }, { 0, 1, 1, 8 }, { 0, 31, 1, 8 }, { 0, 32, 0, 9 }, { 1, 0, 2, 8 },
        { 1, 63, 3, 9 }, { 2, 0, 0, 10 }, { 3, 33, 3, 11 },
    };
    for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
        uint32_t lun;
        uint64_t block;
        zns_page_place(r.ftl, expect[i][0], expect[i][1], &lun, &block);
        CHECK_EQ_U64(lun, expect[i][2]);
        CHECK_EQ_U64(block, expect[i][3] * 4 + expect[i][2]);
    }
    /* zone 3 written whole, zone 1 over its first block row: a reset erases exactly the
     * blocks holding their programmed pages */
    CHECK(zone_write(&r, 3, 0, 64, 0, NULL) == FTL_OK);
    CHECK(zone_write(&r, 1, 0, 20, 0, NULL) == FTL_OK);
    CHECK(zone_mgmt(&r, 3, FTL_ZONE_ACTION_RESET, false, LATER, NULL) == FTL_OK);
    CHECK(zone_mgmt(&r, 1, FTL_ZONE_ACTION_RESET, false, LATER, NULL) == FTL_OK);
    for (uint64_t row = 0; row < 12; row++) {
        for (uint32_t lun = 0; lun < 4; lun++) {
            bool zone3 = (row == 10 || row == 11) && lun >= 2;
            bool zone1 = row == 8 && lun >= 2;
            CHECK_EQ_U64(ftl_block_erase_count(r.ftl, row, lun), zone3 || zone1);
        }
    }
    struct ftl_counters c = counters(r.ftl);
    CHECK_EQ_U64(c.zone_erased_blocks, 6);
    CHECK_EQ_U64(c.nand_erases, 6);
    CHECK_EQ_U64(c.zone_resets, 2);
    CHECK_EQ_U64(c.zone_programs, 84);
    CHECK_EQ_U64(ftl_nand_programs(&c), 84);
    /* zone blocks are good blocks in the wear figures */
    struct ftl_wear w;
    ftl_get_wear(r.ftl, &w);
    CHECK_EQ_U64(w.blocks, 48);
    CHECK_EQ_U64(w.erase_sum, 6);
    CHECK_EQ_U64(w.erase_max, 1);
    CHECK_EQ_U64(erase_total(r.ftl), 6);
    CHECK_CONSISTENT(r.ftl);
    rig_close(&r);
}

/* N one-page appends arriving together into one zone: append k (from 1) programs page
 * k - 1 on LUN (k - 1) % L, the ceil(k / L)-th program there. */
static void test_append_pipeline(void)
{
    const uint64_t luns_list[] = { 1, 2, 4, 8 };
    for (size_t i = 0; i < 4; i++) {
        uint64_t L = luns_list[i];
        struct ftl_config cfg = zoned_config(4, 2, 16, 16, 4, L, 1);
        struct rig r = rig_open(&cfg);
        uint64_t n = 3 * L + 1, last = 0;
        for (uint64_t k = 1; k <= n; k++) {
            uint64_t done;
            CHECK(zone_append(&r, 0, r.spp, 1000, &done) == FTL_OK);
            CHECK_EQ_U64(done, 1000 + (k + L - 1) / L * P_LAT);
            last = done;
        }
        struct ftl_zone_info info;
        ftl_zone_get(r.ftl, 0, &info);
        CHECK_EQ_U64(info.wp, n * r.spp);
        struct ftl_counters c = counters(r.ftl);
        CHECK_EQ_U64(c.zone_append_cmds, n);
        CHECK_EQ_U64(c.zone_write_cmds, 0);
        CHECK_EQ_U64(c.zone_programs, n);
        printf("appends: %2llu one-page appends at once into a %llu-LUN zone end at %.1f ms "
               "(%llu programs deep)\n", (unsigned long long)n, (unsigned long long)L,
               (double)(last - 1000) / 1e6, (unsigned long long)((n + L - 1) / L));
        rig_close(&r);
    }
    /* with a channel transfer: a zone of 4 LUNs over 2 channels (LUN l * 2 + ch), so
     * two LUNs share each bus and the second one's transfer waits for the first */
    struct ftl_config cfg = zoned_config(2, 4, 16, 16, 4, 4, 1);
    const uint64_t X = 10000;
    cfg.ch_xfer_lat = X;
    struct rig r = rig_open(&cfg);
    for (uint64_t k = 0; k < 12; k++) {
        uint64_t done, wave = k / 4, lun = k % 4;
        CHECK(zone_append(&r, 0, r.spp, 0, &done) == FTL_OK);
        CHECK_EQ_U64(done, (wave + 1) * (X + P_LAT) + lun / 2 * X);
    }
    rig_close(&r);
}

/* Writes: at the write pointer, pages programmed as they complete, sub-page writes in the
 * page buffer (buf_wr_lat), reads sensing only programmed pages. */
static void test_write_and_read_timing(void)
{
    struct ftl_config cfg = zoned_config(2, 2, 16, 16, 4, 4, 1);
    struct rig r = rig_open(&cfg);
    uint64_t done, spp = r.spp, z1 = r.zone_sectors;
    /* one sector: no page completes */
    CHECK(serve(&r, (struct ftl_request){ .op = FTL_OP_ZONE_WRITE, .arrival_ns = 100,
                                          .slba = z1, .nlb = 1 }, &done) == FTL_OK);
    CHECK_EQ_U64(done, 100 + cfg.buf_wr_lat);
    CHECK_EQ_U64(counters(r.ftl).zone_programs, 0);
    /* the rest of page 0 and 1.5 pages more: pages 0 and 1 programmed on LUNs 0 and 1 */
    CHECK(serve(&r, (struct ftl_request){ .op = FTL_OP_ZONE_WRITE, .arrival_ns = 200,
                                          .slba = z1 + 1, .nlb = 2 * spp + spp / 2 - 1 },
                &done) == FTL_OK);
    CHECK_EQ_U64(done, 200 + P_LAT);
    CHECK_EQ_U64(counters(r.ftl).zone_programs, 2);
    CHECK_EQ_U64(zns_programmed_pages(r.ftl, 1), 2);
    /* not at the write pointer: refused by admission, nothing priced */
    CHECK(serve(&r, (struct ftl_request){ .op = FTL_OP_ZONE_WRITE, .arrival_ns = 300,
                                          .slba = z1, .nlb = spp }, &done) ==
          FTL_E_ZONE_INVALID_WRITE);
    CHECK_EQ_U64(done, 300);
    /* a read of pages 0..2: two senses in parallel; page 2 is in the buffer */
    CHECK(zone_read(&r, z1, 3 * spp, LATER, &done) == FTL_OK);
    CHECK_EQ_U64(done, LATER + R_LAT);
    CHECK_EQ_U64(counters(r.ftl).zone_reads, 2);
    /* buffered and unwritten sectors cost nothing; a read may cross zones */
    CHECK(zone_read(&r, z1 + 2 * spp, spp, LATER, &done) == FTL_OK);
    CHECK_EQ_U64(done, LATER);
    CHECK(zone_read(&r, z1 - spp, 2 * spp, 2 * LATER, &done) == FTL_OK);
    CHECK_EQ_U64(done, 2 * LATER + R_LAT);      /* page 0 of zone 1 only */
    struct ftl_counters c = counters(r.ftl);
    CHECK_EQ_U64(c.zone_reads, 3);
    CHECK_EQ_U64(c.zone_read_cmds, 3);
    CHECK_EQ_U64(c.zone_write_cmds, 2);
    CHECK_EQ_U64(ftl_nand_reads(&c), 3);
    /* finish: counts, no padding program */
    CHECK(zone_mgmt(&r, 1, FTL_ZONE_ACTION_FINISH, false, 3 * LATER, &done) == FTL_OK);
    CHECK_EQ_U64(done, 3 * LATER);
    c = counters(r.ftl);
    CHECK_EQ_U64(c.zone_finishes, 1);
    CHECK_EQ_U64(c.zone_programs, 2);
    /* a read past the namespace: admission's range error */
    CHECK(zone_read(&r, 4 * z1 - 1, 2, 3 * LATER, &done) == FTL_E_RANGE);
    CHECK_CONSISTENT(r.ftl);
    rig_close(&r);
}

/* A reset of a zone written over k blocks per LUN takes k erases: per LUN in series,
 * the LUNs in parallel. */
static void test_reset_timing(void)
{
    for (uint64_t k = 0; k <= 3; k++) {
        struct ftl_config cfg = zoned_config(2, 2, 16, 16, 2, 4, 3);
        struct rig r = rig_open(&cfg);
        uint64_t done;
        if (k) {
            CHECK(zone_write(&r, 0, 0, k * 16 * 4, 0, NULL) == FTL_OK);
        }
        CHECK(zone_mgmt(&r, 0, FTL_ZONE_ACTION_RESET, false, LATER, &done) == FTL_OK);
        CHECK_EQ_U64(done, LATER + k * E_LAT);
        CHECK_EQ_U64(counters(r.ftl).zone_erased_blocks, 4 * k);
        printf("reset: a zone written over %llu block(s) on each of 4 LUNs resets in %.1f ms "
               "(blk_er_lat %.1f ms)\n", (unsigned long long)k, (double)(done - LATER) / 1e6,
               (double)E_LAT / 1e6);
        if (k == 3) {
            rig_close(&r);
            continue;       /* the zone is 3 blocks deep */
        }
        /* a page more than k blocks: k + 1 erases on LUN 0 */
        CHECK(zone_write(&r, 0, 0, k * 16 * 4 + 1, 2 * LATER, NULL) == FTL_OK);
        CHECK(zone_mgmt(&r, 0, FTL_ZONE_ACTION_RESET, false, 3 * LATER, &done) == FTL_OK);
        CHECK_EQ_U64(done, 3 * LATER + (k + 1) * E_LAT);
        CHECK_EQ_U64(counters(r.ftl).zone_erased_blocks, 4 * k + 4 * k + 1);
        CHECK_EQ_U64(zns_programmed_pages(r.ftl, 0), 0);
        CHECK_CONSISTENT(r.ftl);
        rig_close(&r);
    }
    /* Select All resets every zone that holds data, each counted */
    struct ftl_config cfg = zoned_config(2, 2, 16, 16, 4, 2, 1);
    struct rig r = rig_open(&cfg);
    uint64_t done;
    CHECK(zone_write(&r, 0, 0, 2, 0, NULL) == FTL_OK);
    CHECK(zone_write(&r, 3, 0, 1, 0, NULL) == FTL_OK);
    CHECK(zone_mgmt(&r, 0, FTL_ZONE_ACTION_RESET, true, LATER, &done) == FTL_OK);
    CHECK_EQ_U64(done, LATER + E_LAT);
    struct ftl_counters c = counters(r.ftl);
    CHECK_EQ_U64(c.zone_resets, 2);
    CHECK_EQ_U64(c.zone_erased_blocks, 3);
    rig_close(&r);
}

/* Requests the caller admitted: the engine only prices them. */
static void test_admitted(void)
{
    struct ftl_config cfg = zoned_config(2, 2, 16, 16, 4, 4, 1);
    struct rig r = rig_open(&cfg);
    uint64_t assigned, done;
    CHECK(ftl_zone_admit_write(r.ftl, 0, 4 * r.spp, true, &assigned) == FTL_OK);
    CHECK_EQ_U64(assigned, 0);
    CHECK(serve(&r, (struct ftl_request){ .op = FTL_OP_ZONE_WRITE, .arrival_ns = 0,
                                          .flags = FTL_REQ_ADMITTED | FTL_REQ_APPEND,
                                          .slba = 0, .nlb = 4 * r.spp, .assigned = assigned },
                &done) == FTL_OK);
    CHECK_EQ_U64(done, P_LAT);
    struct ftl_zone_info info;
    ftl_zone_get(r.ftl, 0, &info);
    CHECK_EQ_U64(info.wp, 4 * r.spp);   /* admitted once, not twice */
    uint64_t zones[4];
    size_t n;
    CHECK(ftl_zone_admit_mgmt(r.ftl, 0, FTL_ZONE_ACTION_RESET, false, zones, &n) == FTL_OK);
    CHECK_EQ_U64(n, 1);
    struct ftl_range changed = { 0, r.zone_sectors };
    CHECK(serve(&r, (struct ftl_request){ .op = FTL_OP_ZONE_MGMT, .arrival_ns = LATER,
                                          .flags = FTL_REQ_ADMITTED, .ranges = &changed,
                                          .nranges = 1,
                                          .zone_action = FTL_ZONE_ACTION_RESET },
                &done) == FTL_OK);
    CHECK_EQ_U64(done, LATER + E_LAT);
    CHECK_EQ_U64(counters(r.ftl).zone_erased_blocks, 4);
    /* an admitted write the controller dropped: the next one's pages start after a gap */
    CHECK(ftl_zone_admit_write(r.ftl, 0, r.spp, false, &assigned) == FTL_OK);
    CHECK(ftl_zone_admit_write(r.ftl, r.spp, r.spp, false, &assigned) == FTL_OK);
    CHECK(serve(&r, (struct ftl_request){ .op = FTL_OP_ZONE_WRITE, .arrival_ns = 2 * LATER,
                                          .flags = FTL_REQ_ADMITTED, .slba = r.spp,
                                          .nlb = r.spp }, &done) == FTL_OK);
    CHECK_EQ_U64(done, 2 * LATER + P_LAT);
    CHECK_EQ_U64(zns_programmed_pages(r.ftl, 0), 2);
    /* an admitted request outside every zone's capacity is malformed */
    CHECK(serve(&r, (struct ftl_request){ .op = FTL_OP_ZONE_WRITE, .arrival_ns = 2 * LATER,
                                          .flags = FTL_REQ_ADMITTED,
                                          .slba = r.zone_sectors - 1, .nlb = 2 }, &done) ==
          FTL_E_INVAL);
    CHECK_CONSISTENT(r.ftl);
    rig_close(&r);
}

/* Zone operations on an FTL without zones are malformed; statuses have names. */
static void test_not_zoned(void)
{
    struct ftl_config cfg = small_config(2, 2, 64, 16, 8);
    struct rig r = rig_open(&cfg);
    const enum ftl_op ops[] = { FTL_OP_ZONE_WRITE, FTL_OP_ZONE_READ, FTL_OP_ZONE_MGMT };
    struct ftl_range src = { 0, 8 };
    for (size_t i = 0; i < 3; i++) {
        for (uint32_t flags = 0; flags <= FTL_REQ_ADMITTED; flags += FTL_REQ_ADMITTED) {
            uint64_t done = 1;
            CHECK(serve(&r, (struct ftl_request){ .op = ops[i], .arrival_ns = 5, .nlb = 8,
                                                  .flags = flags, .ranges = &src,
                                                  .nranges = 1,
                                                  .zone_action = FTL_ZONE_ACTION_OPEN },
                        &done) == FTL_E_INVAL);
            CHECK_EQ_U64(done, 5);
        }
    }
    CHECK(serve(&r, (struct ftl_request){ .op = FTL_OP_COPY, .flags = FTL_REQ_ZONED,
                                          .ranges = &src, .nranges = 1, .slba = 64,
                                          .nlb = 8 }, NULL) == FTL_E_INVAL);
    uint64_t assigned;
    CHECK(ftl_zone_admit_write(r.ftl, 0, 8, false, &assigned) == FTL_E_INVAL);
    CHECK_EQ_U64(ftl_zone_count(r.ftl), 0);
    CHECK_EQ_U64(ftl_zone_open_count(r.ftl), 0);
    for (int s = FTL_E_ZONE_TRANSITION; s <= FTL_OK; s++) {
        CHECK(strcmp(ftl_status_str(s), "unknown status") != 0);
    }
    CHECK(strcmp(ftl_status_str(FTL_E_TOO_MANY_OPEN), "too many open zones") == 0);
    CHECK(strcmp(ftl_zone_state_name(FTL_ZONE_FULL), "full") == 0);
    rig_close(&r);
}

/* ftl_lun_busy_ns: exact for a known schedule, sampled at any times. */
static void test_lun_busy(void)
{
    struct ftl_config cfg = zoned_config(2, 2, 16, 16, 4, 4, 1);
    struct rig r = rig_open(&cfg);
    /* zone 0: pages 0, 1 on LUNs 0, 1 at t=0 -> [0, P) on two LUNs */
    CHECK(zone_write(&r, 0, 0, 2, 0, NULL) == FTL_OK);
    /* 4 more pages at t=0: LUNs 2, 3 [0, P); LUNs 0, 1 back to back [P, 2P) (merged) */
    CHECK(zone_write(&r, 0, 2, 4, 0, NULL) == FTL_OK);
    CHECK_EQ_U64(ftl_lun_busy_ns(r.ftl, 0), 0);
    CHECK_EQ_U64(ftl_lun_busy_ns(r.ftl, P_LAT / 2), 4 * (P_LAT / 2));
    CHECK_EQ_U64(ftl_lun_busy_ns(r.ftl, P_LAT), 4 * P_LAT);
    /* a read of page 0 at 5P on LUN 0: [5P, 5P + R) */
    uint64_t done;
    CHECK(zone_read(&r, 0, r.spp, 5 * P_LAT, &done) == FTL_OK);
    CHECK_EQ_U64(ftl_lun_busy_ns(r.ftl, 3 * P_LAT), 6 * P_LAT);
    CHECK_EQ_U64(ftl_lun_busy_ns(r.ftl, 5 * P_LAT + R_LAT / 4), 6 * P_LAT + R_LAT / 4);
    /* a reset at 6P: four erases [6P, 6P + E) */
    CHECK(zone_mgmt(&r, 0, FTL_ZONE_ACTION_RESET, false, 6 * P_LAT, &done) == FTL_OK);
    CHECK_EQ_U64(ftl_lun_busy_ns(r.ftl, 6 * P_LAT + 10), 6 * P_LAT + R_LAT + 40);
    CHECK_EQ_U64(ftl_lun_busy_ns(r.ftl, LATER), 6 * P_LAT + R_LAT + 4 * E_LAT);
    rig_close(&r);

    /* operations booked ahead of the samples, with gaps: [0, P), [10P, 10P + R) and
     * [20P, 21P) on LUN 0, sampled inside and between them */
    struct rig f = rig_open(&cfg);
    CHECK(zone_write(&f, 0, 0, 1, 0, NULL) == FTL_OK);
    CHECK(zone_read(&f, 0, f.spp, 10 * P_LAT, &done) == FTL_OK);
    CHECK(zone_write(&f, 0, 1, 3, 0, NULL) == FTL_OK);     /* LUNs 1-3: [0, P) */
    CHECK(zone_write(&f, 0, 4, 1, 20 * P_LAT, NULL) == FTL_OK);
    CHECK_EQ_U64(ftl_lun_busy_ns(f.ftl, P_LAT / 2), 4 * (P_LAT / 2));
    CHECK_EQ_U64(ftl_lun_busy_ns(f.ftl, 10 * P_LAT + R_LAT / 2), 4 * P_LAT + R_LAT / 2);
    CHECK_EQ_U64(ftl_lun_busy_ns(f.ftl, 11 * P_LAT), 4 * P_LAT + R_LAT);
    CHECK_EQ_U64(ftl_lun_busy_ns(f.ftl, 20 * P_LAT + P_LAT / 2), 4 * P_LAT + R_LAT + P_LAT / 2);
    CHECK_EQ_U64(ftl_lun_busy_ns(f.ftl, LATER), 5 * P_LAT + R_LAT);
    CHECK_EQ_U64(ftl_lun_busy_ns(f.ftl, LATER + 1), 5 * P_LAT + R_LAT);
    rig_close(&f);

    /* thousands of intervals and no sample until the end: the total is still exact */
    struct rig q = rig_open(&cfg);
    uint64_t expected = 0, t = 0;
    for (int i = 0; i < 20000; i++) {     /* > 4096 intervals per LUN */
        uint64_t page = (uint64_t)i % 64;
        if (page == 0 && i) {
            CHECK(zone_mgmt(&q, 1, FTL_ZONE_ACTION_RESET, false, t, &done) == FTL_OK);
            expected += 4 * E_LAT;
            t = done + 7;
        }
        CHECK(zone_write(&q, 1, page, 1, t, &done) == FTL_OK);
        expected += P_LAT;
        t += P_LAT + 3;     /* never back to back: no merging */
    }
    CHECK_EQ_U64(ftl_lun_busy_ns(q.ftl, LATER), expected);
    rig_close(&q);
}

/* The conventional FTL beside zones is the conventional FTL of the lines left: the same
 * requests give the same times and counters as an unzoned device of that many lines. */
static void test_conventional_unchanged(void)
{
    const char *gc_modes[] = { "paced", "line" };
    for (int m = 0; m < 2; m++) {
        struct ftl_config zoned = zoned_config(2, 2, 24, 16, 6, 2, 2);  /* 6 rows of 24 */
        ftl_config_set(&zoned, "gc_mode", gc_modes[m], NULL, 0);
        zoned.bad_blk_pcent = 10;
        zoned.devsz_mb = 1;
        zoned.devsz_mb = ftl_config_max_devsz_mb(&zoned);
        struct ftl_config plain = zoned;
        plain.zoned = 0;
        plain.blks_per_pl = 18;
        CHECK_EQ_U64(ftl_config_max_devsz_mb(&plain), zoned.devsz_mb);
        struct rig a = rig_open(&zoned), b = rig_open(&plain);
        CHECK_EQ_U64(ftl_geometry_of(a.ftl)->lines, 18);
        CHECK_EQ_U64(ftl_geometry_of(a.ftl)->logical_pages,
                     ftl_geometry_of(b.ftl)->logical_pages);
        struct rng rng;
        rng_seed(&rng, 7 + m);
        uint64_t sectors = ftl_geometry_of(a.ftl)->logical_sectors, mismatches = 0;
        for (uint64_t i = 0; i < 20000; i++) {
            uint64_t nlb = 1 + rng_below(&rng, 32), slba = rng_below(&rng, sectors - nlb);
            uint64_t kind = rng_below(&rng, 10);
            struct ftl_request req = { .op = kind < 6 ? FTL_OP_WRITE
                                          : kind < 9 ? FTL_OP_READ : FTL_OP_TRIM,
                                       .arrival_ns = i * 20000, .slba = slba, .nlb = nlb };
            uint64_t da, db;
            int ra = serve(&a, req, &da), rb = serve(&b, req, &db);
            mismatches += ra != rb || da != db;
        }
        CHECK_EQ_U64(mismatches, 0);
        struct ftl_counters ca = counters(a.ftl), cb = counters(b.ftl);
        CHECK(memcmp(&ca, &cb, sizeof(ca)) == 0);
        CHECK(ca.gc_runs > 0);
        struct ftl_gauges ga, gb;
        ftl_get_gauges(a.ftl, &ga);
        ftl_get_gauges(b.ftl, &gb);
        CHECK(memcmp(&ga, &gb, sizeof(ga)) == 0);
        /* bad blocks only among the conventional lines; zone blocks never bad */
        for (uint32_t lun = 0; lun < 4; lun++) {
            for (uint64_t row = 0; row < 24; row++) {
                CHECK(ftl_block_is_bad(a.ftl, row, lun) ==
                      (row < 18 && ftl_block_is_bad(b.ftl, row, lun)));
            }
        }
        CHECK_CONSISTENT(a.ftl);
        rig_close(&a);
        rig_close(&b);
    }
}

/* The model of one zone the randomized run keeps: sectors written from its start. */
struct zone_model {
    uint64_t written;
};

/*
 * Random conventional I/O and zone operations (writes at and off the write pointer,
 * appends, reads, every action alone and with Select All, copies in both namespaces),
 * ftl_check after every request, and the zone pages programmed counted against a model.
 */
static void test_randomized(void)
{
    uint64_t statuses[16] = { 0 };     /* requests by -status, over every run */
    for (int run = 0; run < 3; run++) {
        struct ftl_config cfg = zoned_config(2, 2, 40, 8, 12, run == 0 ? 4 : 2, 1 + run);
        cfg.max_open = run == 1 ? 3 : 0;
        cfg.max_active = run == 1 ? 4 : 0;
        cfg.pe_cycles = 25;     /* some zones wear out (read only) during the run */
        cfg.ch_xfer_lat = run == 2 ? 5000 : 0;
        if (run == 2) {
            cfg.mapping = FTL_MAPPING_DFTL;
            cfg.cmt_entries = 1024;
            cfg.write_buffer_sectors = 256;
            cfg.devsz_mb = 1;
            cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
        }
        struct rig r = rig_open(&cfg);
        uint64_t zones = ftl_zone_count(r.ftl), cap = ftl_zone_cap_sectors(r.ftl);
        uint64_t sectors = ftl_geometry_of(r.ftl)->logical_sectors, spp = r.spp;
        struct zone_model *model = calloc(zones, sizeof(*model));
        struct rng rng;
        rng_seed(&rng, 100 + run);
        uint64_t inconsistent = 0, pages = 0, bad_time = 0, served_before = statuses[0];
        for (uint64_t i = 0; i < 6000; i++) {
            uint64_t now = i * 50000, zone = rng_below(&rng, zones), kind = rng_below(&rng, 20);
            struct ftl_zone_info info;
            ftl_zone_get(r.ftl, zone, &info);
            uint64_t zstart = zone * r.zone_sectors, done;
            struct ftl_request req = { .arrival_ns = now };
            struct ftl_range src[2];
            if (kind < 4) {         /* conventional */
                uint64_t nlb = 1 + rng_below(&rng, 24);
                req.op = kind < 2 ? FTL_OP_WRITE : kind < 3 ? FTL_OP_READ : FTL_OP_TRIM;
                req.slba = rng_below(&rng, sectors - nlb);
                req.nlb = nlb;
            } else if (kind < 11) { /* write or append, mostly where admission takes it */
                bool append = kind >= 8;
                req.op = FTL_OP_ZONE_WRITE;
                req.flags = append ? FTL_REQ_APPEND : 0;
                req.nlb = 1 + rng_below(&rng, 3 * spp);
                req.slba = append ? zstart : rng_below(&rng, 8) ? info.wp
                                                                 : zstart + rng_below(&rng, cap);
            } else if (kind < 14) {
                req.op = FTL_OP_ZONE_READ;
                req.nlb = 1 + rng_below(&rng, 4 * spp);
                req.slba = rng_below(&rng, zones * r.zone_sectors - req.nlb);
            } else if (kind < 16) {
                req.op = FTL_OP_ZONE_MGMT;
                req.slba = zstart;
                req.zone_action = 1 + (uint32_t)rng_below(&rng, 5);
                req.flags = rng_below(&rng, 12) == 0 ? FTL_REQ_ZONE_ALL : 0;
                if (req.zone_action == FTL_ZONE_ACTION_OFFLINE && rng_below(&rng, 4)) {
                    req.zone_action = FTL_ZONE_ACTION_RESET;    /* offline sparingly */
                }
            } else {                /* copy: two source ranges */
                bool zoned = kind < 19;     /* 3 in 4 */
                uint64_t limit = zoned ? zones * r.zone_sectors : sectors;
                for (int s = 0; s < 2; s++) {
                    src[s].nlb = rng_below(&rng, 2 * spp);
                    src[s].slba = rng_below(&rng, limit - src[s].nlb);
                }
                req.op = FTL_OP_COPY;
                req.flags = zoned ? FTL_REQ_ZONED : 0;
                req.ranges = src;
                req.nranges = 2;
                req.nlb = src[0].nlb + src[1].nlb;
                req.slba = zoned ? info.wp : rng_below(&rng, sectors - req.nlb - 1);
            }
            struct ftl_counters before = counters(r.ftl);
            int rc = serve(&r, req, &done);
            struct ftl_counters after = counters(r.ftl);
            statuses[-rc]++;
            bad_time += done < now;
            pages += after.zone_programs - before.zone_programs;
            if (rc == FTL_OK && (req.op == FTL_OP_ZONE_WRITE ||
                                 (req.op == FTL_OP_COPY && req.flags & FTL_REQ_ZONED))) {
                /* admitted where it asked (an append at its zone's write pointer, and a
                 * write at info.wp may be the next zone's start): the pages it completes */
                uint64_t at = req.flags & FTL_REQ_APPEND ? info.wp : req.slba;
                uint64_t tz = at / r.zone_sectors, end = at - tz * r.zone_sectors + req.nlb;
                uint64_t completed = end / spp - model[tz].written / spp;
                uint64_t got = req.op == FTL_OP_COPY ? after.copy_pages - before.copy_pages
                                                     : after.zone_programs - before.zone_programs;
                CHECK_EQ_U64(got, completed);
                model[tz].written = end;
            }
            if (rc == FTL_OK && req.op == FTL_OP_ZONE_MGMT) {
                for (uint64_t z = 0; z < zones; z++) {
                    struct ftl_zone_info zi;
                    ftl_zone_get(r.ftl, z, &zi);
                    if (zi.state == FTL_ZONE_EMPTY || zi.state == FTL_ZONE_OFFLINE ||
                        zi.state == FTL_ZONE_READ_ONLY) {
                        model[z].written = 0;
                    }
                }
            }
            check_after_request(r.ftl, i, &inconsistent);
            for (uint64_t z = 0; z < zones && inconsistent == 0; z++) {
                if (zns_programmed_pages(r.ftl, z) != model[z].written / spp) {
                    inconsistent++;
                    fprintf(stderr, "    request %llu: zone %llu programmed %llu, model %llu\n",
                            (unsigned long long)i, (unsigned long long)z,
                            (unsigned long long)zns_programmed_pages(r.ftl, z),
                            (unsigned long long)(model[z].written / spp));
                }
            }
        }
        CHECK_EQ_U64(inconsistent, 0);
        CHECK_EQ_U64(bad_time, 0);
        struct ftl_counters c = counters(r.ftl);
        CHECK(c.zone_resets > 0 && c.zone_finishes > 0 && c.copy_cmds > 0 &&
              c.nand_copybacks > 0 && c.gc_runs > 0);
        printf("randomized run %d: %llu zone pages, %llu resets, %llu copies (%llu copybacks), "
               "%llu requests refused\n", run, (unsigned long long)pages,
               (unsigned long long)c.zone_resets, (unsigned long long)c.copy_cmds,
               (unsigned long long)c.nand_copybacks,
               (unsigned long long)(6000 - (statuses[0] - served_before)));
        free(model);
        rig_close(&r);
    }
    CHECK(statuses[-FTL_E_ZONE_INVALID_WRITE] > 0 && statuses[-FTL_E_ZONE_TRANSITION] > 0);
    CHECK(statuses[-FTL_E_ZONE_READ_ONLY] > 0 && statuses[-FTL_E_ZONE_OFFLINE] > 0 &&
          statuses[-FTL_E_ZONE_FULL] > 0 && statuses[-FTL_E_ZONE_BOUNDARY] > 0);
}

int main(void)
{
    test_geometry_and_placement();
    test_append_pipeline();
    test_write_and_read_timing();
    test_reset_timing();
    test_admitted();
    test_not_zoned();
    test_lun_busy();
    test_conventional_unchanged();
    test_randomized();
    return check_summary();
}
