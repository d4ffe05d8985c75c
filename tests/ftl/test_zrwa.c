/*
 * Zone Random Write Areas: admission (zone_zrwa.c through zone_state) with every window
 * rule and status worked by hand, and the flash side through the engine on a small
 * geometry (pages programmed, completion times, counters, reads from the window, Finish's
 * commit, power cut, a state file round trip, the config keys' refusals).
 */
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/engine.h"
#include "femu_ftl/state.h"
#include "zns/zns.h"
#include "zns/zns_tables.h"
#include "zns/zone_state.h"
#include "flash/ftl_handle.h"
#include "ftl_test_util.h"
#include "rng.h"

#define OPEN_ZRWA FTL_ZONE_ACTION_OPEN_ZRWA
#define FLUSH FTL_ZONE_ACTION_ZRWA_FLUSH

/* ---- admission ---- */

/* 4 zones of 64 sectors (cap 64), 2 ZRWAs of 16 sectors, committed in units of 4. */
static struct zone_state *make_zs(uint32_t resources, uint64_t cap)
{
    struct zone_state_params p = { .zones = 4, .zone_sectors = 64, .cap_sectors = cap,
                                   .zrwa_resources = resources, .zrwa_sectors = 16,
                                   .zrwa_fg_sectors = 4 };
    struct zone_state *zs = zone_state_create(&p);
    if (!zs) {
        fprintf(stderr, "zone_state_create failed\n");
        exit(1);
    }
    return zs;
}

static struct ftl_zone_info zinfo(const struct zone_state *zs, uint64_t zone)
{
    struct ftl_zone_info i;
    zone_state_get(zs, zone, &i);
    return i;
}

static int wr(struct zone_state *zs, uint64_t slba, uint64_t nlb)
{
    uint64_t assigned = UINT64_MAX;
    int rc = zone_state_write(zs, slba, nlb, false, &assigned);
    if (rc == FTL_OK) {
        CHECK_EQ_U64(assigned, slba);   /* a window write lands where it was sent */
    }
    return rc;
}

static int mgmt(struct zone_state *zs, uint64_t slba, enum ftl_zone_action a, bool all,
                size_t *n)
{
    uint64_t zones[4];
    size_t ignored;
    return zone_state_mgmt(zs, slba, a, all, zones, n ? n : &ignored);
}

static void check_zs(const struct zone_state *zs, int line)
{
    char err[256] = "";
    if (!check_record(zone_state_check(zs, err, sizeof(err)) == 0, __FILE__, line,
                      "zone_state_check")) {
        fprintf(stderr, "    %s\n", err);
    }
}

static void test_params(void)
{
    struct zone_state_params p = { .zones = 4, .zone_sectors = 64, .cap_sectors = 64,
                                   .zrwa_resources = 1, .zrwa_sectors = 18,
                                   .zrwa_fg_sectors = 4 };
    CHECK(zone_state_create(&p) == NULL);   /* 18 is not whole units of 4 */
    p.zrwa_sectors = 128;
    CHECK(zone_state_create(&p) == NULL);   /* past the capacity */
    p.zrwa_sectors = 16;
    p.zrwa_fg_sectors = 0;
    CHECK(zone_state_create(&p) == NULL);
}

static void test_window_rules(void)
{
    struct zone_state *none = make_zs(0, 64);
    CHECK_EQ_U64((uint64_t)mgmt(none, 0, OPEN_ZRWA, false, NULL), (uint64_t)FTL_E_INVAL);
    CHECK_EQ_U64((uint64_t)mgmt(none, 0, FLUSH, false, NULL), (uint64_t)FTL_E_INVAL);
    zone_state_destroy(none);

    struct zone_state *zs = make_zs(2, 64);
    size_t n = 9;
    CHECK_EQ_U64((uint64_t)mgmt(zs, 1, OPEN_ZRWA, false, NULL), (uint64_t)FTL_E_INVAL);
    CHECK_EQ_U64((uint64_t)mgmt(zs, 0, OPEN_ZRWA, true, NULL), (uint64_t)FTL_E_INVAL);
    CHECK_EQ_U64((uint64_t)mgmt(zs, 256, OPEN_ZRWA, false, NULL), (uint64_t)FTL_E_RANGE);
    CHECK(mgmt(zs, 0, OPEN_ZRWA, false, &n) == FTL_OK && n == 1);
    CHECK(zinfo(zs, 0).state == FTL_ZONE_EXPLICIT_OPEN && zinfo(zs, 0).zrwa);
    CHECK_EQ_U64(zone_state_zrwa_used(zs), 1);
    /* append refused; writes anywhere in [0, 16), rewrites too: no commit */
    uint64_t got;
    CHECK_EQ_U64((uint64_t)zone_state_write(zs, 0, 4, true, &got),
                 (uint64_t)FTL_E_ZONE_INVALID_OP);
    CHECK(wr(zs, 4, 4) == FTL_OK && wr(zs, 0, 4) == FTL_OK && wr(zs, 0, 8) == FTL_OK);
    CHECK_EQ_U64(zinfo(zs, 0).wp, 0);
    /* [14, 18) ends 2 past the window: one unit of 4 committed */
    CHECK(wr(zs, 14, 4) == FTL_OK);
    CHECK_EQ_U64(zinfo(zs, 0).wp, 4);
    CHECK_EQ_U64((uint64_t)wr(zs, 2, 4), (uint64_t)FTL_E_ZONE_INVALID_WRITE);  /* below wp */
    CHECK_EQ_U64((uint64_t)wr(zs, 35, 2), (uint64_t)FTL_E_ZONE_INVALID_WRITE); /* past 36 */
    CHECK_EQ_U64(zinfo(zs, 0).wp, 4);
    /* [30, 36) ends at wp + 2 ZRWAS: 16 past, 16 committed */
    CHECK(wr(zs, 30, 6) == FTL_OK);
    CHECK_EQ_U64(zinfo(zs, 0).wp, 20);
    /* explicit flush: the last LBA in [20, 36), 23 - 20 + 1 = 4 a whole unit */
    CHECK_EQ_U64((uint64_t)mgmt(zs, 36, FLUSH, false, NULL), (uint64_t)FTL_E_ZONE_BOUNDARY);
    CHECK_EQ_U64((uint64_t)mgmt(zs, 19, FLUSH, false, NULL), (uint64_t)FTL_E_ZONE_BOUNDARY);
    CHECK_EQ_U64((uint64_t)mgmt(zs, 22, FLUSH, false, NULL), (uint64_t)FTL_E_INVAL);
    CHECK_EQ_U64((uint64_t)mgmt(zs, 23, FLUSH, true, NULL), (uint64_t)FTL_E_INVAL);
    CHECK_EQ_U64((uint64_t)mgmt(zs, 64 + 3, FLUSH, false, NULL), (uint64_t)FTL_E_INVAL);
    CHECK_EQ_U64(zinfo(zs, 0).wp, 20);
    CHECK(mgmt(zs, 23, FLUSH, false, &n) == FTL_OK && n == 0);  /* no state changed */
    CHECK_EQ_U64(zinfo(zs, 0).wp, 24);
    /* Close keeps the ZRWA; a write opens the zone implicitly */
    CHECK(mgmt(zs, 0, FTL_ZONE_ACTION_CLOSE, false, NULL) == FTL_OK);
    CHECK(zinfo(zs, 0).state == FTL_ZONE_CLOSED && zinfo(zs, 0).zrwa);
    CHECK(wr(zs, 24, 4) == FTL_OK);
    CHECK(zinfo(zs, 0).state == FTL_ZONE_IMPLICIT_OPEN && zinfo(zs, 0).wp == 24);
    /* reopening with ZRWAA takes no second resource */
    CHECK(mgmt(zs, 0, OPEN_ZRWA, false, NULL) == FTL_OK);
    CHECK_EQ_U64(zone_state_zrwa_used(zs), 1);
    check_zs(zs, __LINE__);
    zone_state_destroy(zs);
}

static void test_resources(void)
{
    struct zone_state *zs = make_zs(2, 64);
    CHECK(mgmt(zs, 0, OPEN_ZRWA, false, NULL) == FTL_OK);
    CHECK(mgmt(zs, 64, OPEN_ZRWA, false, NULL) == FTL_OK);
    CHECK_EQ_U64((uint64_t)mgmt(zs, 128, OPEN_ZRWA, false, NULL),
                 (uint64_t)FTL_E_ZRWA_UNAVAILABLE);
    CHECK(zinfo(zs, 2).state == FTL_ZONE_EMPTY && !zinfo(zs, 2).zrwa);
    /* a zone written without a ZRWA cannot get one */
    CHECK(wr(zs, 192, 1) == FTL_OK);
    CHECK_EQ_U64((uint64_t)mgmt(zs, 192, OPEN_ZRWA, false, NULL),
                 (uint64_t)FTL_E_ZONE_TRANSITION);
    /* Copy into a ZRWA zone is refused (no flash path for it) */
    struct ftl_range src = { 192, 1 };
    CHECK_EQ_U64((uint64_t)zone_state_copy(zs, &src, 1, 0), (uint64_t)FTL_E_ZONE_INVALID_OP);
    /* Finish frees one, Reset the other */
    CHECK(mgmt(zs, 64, FTL_ZONE_ACTION_FINISH, false, NULL) == FTL_OK);
    CHECK(zinfo(zs, 1).state == FTL_ZONE_FULL && !zinfo(zs, 1).zrwa);
    CHECK_EQ_U64(zone_state_zrwa_used(zs), 1);
    CHECK(mgmt(zs, 128, OPEN_ZRWA, false, NULL) == FTL_OK);
    CHECK(mgmt(zs, 128, FTL_ZONE_ACTION_RESET, false, NULL) == FTL_OK);
    CHECK(zinfo(zs, 2).state == FTL_ZONE_EMPTY && !zinfo(zs, 2).zrwa);
    CHECK_EQ_U64(zone_state_zrwa_used(zs), 1);
    /* zone 0 to its capacity by commits: full, and its ZRWA freed */
    CHECK(mgmt(zs, 15, FLUSH, false, NULL) == FTL_OK);          /* wp 16 */
    CHECK_EQ_U64((uint64_t)wr(zs, 48, 16), (uint64_t)FTL_E_ZONE_INVALID_WRITE);
    CHECK(wr(zs, 44, 4) == FTL_OK);     /* ends 48, 16 past [16, 32): wp 32 */
    CHECK(wr(zs, 60, 4) == FTL_OK);     /* ends 64, 16 past [32, 48): wp 48 */
    CHECK_EQ_U64(zinfo(zs, 0).wp, 48);
    CHECK_EQ_U64((uint64_t)wr(zs, 60, 8), (uint64_t)FTL_E_ZONE_BOUNDARY);    /* past cap */
    CHECK(mgmt(zs, 63, FLUSH, false, NULL) == FTL_OK);
    CHECK(zinfo(zs, 0).state == FTL_ZONE_FULL && !zinfo(zs, 0).zrwa);
    CHECK_EQ_U64(zinfo(zs, 0).wp, 64);
    CHECK_EQ_U64(zone_state_zrwa_used(zs), 0);
    check_zs(zs, __LINE__);
    zone_state_destroy(zs);

    /* with max_open 1 the ZRWA zone takes the open resource like any open */
    struct zone_state_params p = { .zones = 4, .zone_sectors = 64, .cap_sectors = 64,
                                   .max_open = 1, .zrwa_resources = 1, .zrwa_sectors = 16,
                                   .zrwa_fg_sectors = 4 };
    zs = zone_state_create(&p);
    CHECK(mgmt(zs, 0, OPEN_ZRWA, false, NULL) == FTL_OK);
    CHECK_EQ_U64((uint64_t)mgmt(zs, 64, FTL_ZONE_ACTION_OPEN, false, NULL),
                 (uint64_t)FTL_E_TOO_MANY_OPEN);
    check_zs(zs, __LINE__);
    zone_state_destroy(zs);
}

/* ---- flash side through the engine ---- */

#define P_LAT 200000ull
#define R_LAT 40000ull
#define XFER 453ull         /* per 4 KiB into or out of the window */
#define T 1000000000ull     /* each step starts a second after the last: LUNs idle */

/* 1 channel x 2 LUNs, zones of 2 LUNs x 1 block of 16 4-KiB pages (256 sectors of 512
 * bytes), one ZRWA of 8 pages committed 2 pages at a time. */
static struct ftl_config zrwa_config(void)
{
    struct ftl_config cfg = small_config(1, 2, 16, 16, 8);
    cfg.pg_rd_lat = R_LAT;
    cfg.pg_wr_lat = P_LAT;
    cfg.gc_thres_pcent = 60;
    cfg.gc_thres_pcent_high = 80;
    cfg.zoned = 1;
    cfg.zones = 2;
    cfg.zone_luns = 2;
    cfg.zone_cap = 2 * 16 * 4096;
    cfg.zrwa_zones = 1;
    cfg.zrwa_size = 8 * 4096;
    cfg.zrwa_flush_gran = 2 * 4096;
    cfg.devsz_mb = 1;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    return cfg;
}

struct rig {
    struct ftl *ftl;
    struct ftl_engine *engine;
};

static uint64_t serve(struct rig *r, struct ftl_request req, int want)
{
    struct ftl_served served = { 0 };
    int rc = ftl_engine_serve(r->engine, &req, &served);
    CHECK_EQ_U64((uint64_t)rc, (uint64_t)want);
    return served.done_ns;
}

static uint64_t zwrite(struct rig *r, uint64_t slba, uint64_t nlb, uint64_t now)
{
    return serve(r, (struct ftl_request){ .op = FTL_OP_ZONE_WRITE, .arrival_ns = now,
                                          .slba = slba, .nlb = nlb }, FTL_OK);
}

static uint64_t zread(struct rig *r, uint64_t slba, uint64_t nlb, uint64_t now)
{
    return serve(r, (struct ftl_request){ .op = FTL_OP_ZONE_READ, .arrival_ns = now,
                                          .slba = slba, .nlb = nlb }, FTL_OK);
}

static uint64_t zmgmt(struct rig *r, uint64_t slba, enum ftl_zone_action a, uint64_t now)
{
    return serve(r, (struct ftl_request){ .op = FTL_OP_ZONE_MGMT, .arrival_ns = now,
                                          .slba = slba, .zone_action = a }, FTL_OK);
}

static void test_flash(void)
{
    struct ftl_config cfg = zrwa_config();
    struct rig r = { .ftl = make_ftl(&cfg) };
    r.engine = ftl_engine_create(r.ftl, NULL, NULL);
    struct ftl_zrwa_geometry zg;
    CHECK(ftl_zrwa_geometry(r.ftl, &zg));
    CHECK(zg.resources == 1 && zg.size_sectors == 64 && zg.flush_gran_sectors == 16);

    CHECK_EQ_U64(zmgmt(&r, 0, OPEN_ZRWA, T), T);
    /* one 4 KiB page written, then rewritten 7 times: a transfer each, no program */
    for (uint64_t k = 1; k <= 8; k++) {
        CHECK_EQ_U64(zwrite(&r, 0, 8, k * T), k * T + XFER);
    }
    /* the rest of the window, 7 pages: 7 transfers, still no program */
    CHECK_EQ_U64(zwrite(&r, 8, 56, 9 * T), 9 * T + 7 * XFER);
    struct ftl_counters c = counters(r.ftl);
    CHECK(c.zrwa_writes == 9 && c.zrwa_overwrites == 7 && c.zone_programs == 0);
    /* [64, 72) is 8 past the window: 16 sectors (pages 0 and 1, one per LUN) committed */
    CHECK_EQ_U64(zwrite(&r, 64, 8, 10 * T), 10 * T + P_LAT);
    c = counters(r.ftl);
    CHECK(c.zrwa_commit_pages_implicit == 2 && c.zone_programs == 2);
    CHECK_EQ_U64(ftl_nand_programs(&c), 2);
    /* a read of [0, 24): pages 0-1 from flash (one LUN each), [16, 24) from the window */
    CHECK_EQ_U64(zread(&r, 0, 24, 11 * T), 11 * T + R_LAT);
    CHECK_EQ_U64(zread(&r, 16, 8, 12 * T), 12 * T + XFER);
    CHECK_EQ_U64(counters(r.ftl).zone_reads, 2);
    /* explicit flush to LBA 47: 32 sectors, pages 2-5, two on each LUN */
    CHECK_EQ_U64(zmgmt(&r, 47, FLUSH, 13 * T), 13 * T + 2 * P_LAT);
    struct ftl_zone_info zi;
    ftl_zone_get(r.ftl, 0, &zi);
    CHECK(zi.wp == 48 && zi.zrwa);
    /* Finish commits what the window holds, [48, 72): pages 6-8 (LUN 0 twice) */
    CHECK_EQ_U64(zmgmt(&r, 0, FTL_ZONE_ACTION_FINISH, 14 * T), 14 * T + 2 * P_LAT);
    c = counters(r.ftl);
    CHECK(c.zrwa_commit_pages_explicit == 7 && c.zone_programs == 9);
    ftl_zone_get(r.ftl, 0, &zi);
    CHECK(zi.state == FTL_ZONE_FULL && !zi.zrwa && ftl_zrwa_in_use(r.ftl) == 0);
    CHECK_CONSISTENT(r.ftl);

    /* power cut: without plp the window's 3 pages are lost, with plp kept */
    uint64_t z1 = 256;
    CHECK_EQ_U64(zmgmt(&r, z1, OPEN_ZRWA, 20 * T), 20 * T);
    CHECK_EQ_U64(zwrite(&r, z1, 24, 21 * T), 21 * T + 3 * XFER);
    char err[256] = "";
    struct ftl_power_cut_result res;
    CHECK(ftl_power_cut(r.ftl, 22 * T, true, NULL, NULL, &res, err, sizeof(err)) == FTL_OK);
    CHECK_EQ_U64(res.zrwa_lost_sectors, 0);
    CHECK_EQ_U64(zread(&r, z1, 24, 23 * T), 23 * T + 3 * XFER);
    /* the state file keeps the ZRWA zone and its window */
    snprintf(err, sizeof(err), "%s", "");
    const char *path = "test-zrwa.state";
    CHECK(ftl_state_save_file(r.ftl, path, "test", 24 * T, err, sizeof(err)) == 0);
    struct ftl *back = make_ftl(&cfg);
    if (!check_record(ftl_state_load_file(back, path, 24 * T, err, sizeof(err)) == 0,
                      __FILE__, __LINE__, "load")) {
        fprintf(stderr, "    %s\n", err);
    }
    struct ftl_zone_info bi;
    ftl_zone_get(back, 1, &bi);
    ftl_zone_get(r.ftl, 1, &zi);
    CHECK(bi.zrwa && zi.zrwa && bi.wp == zi.wp && bi.state == zi.state);
    CHECK_EQ_U64(back->zns->zones[1].zrwa_hi, 24);
    CHECK_EQ_U64(counters(back).zrwa_writes, counters(r.ftl).zrwa_writes);
    CHECK_CONSISTENT(back);
    ftl_destroy(back);
    remove(path);
    CHECK(ftl_power_cut(r.ftl, 25 * T, false, NULL, NULL, &res, err, sizeof(err)) == FTL_OK);
    CHECK_EQ_U64(res.zrwa_lost_sectors, 24);
    CHECK_EQ_U64(zread(&r, z1, 24, 26 * T), 26 * T);     /* nothing left to read */
    ftl_zone_get(r.ftl, 1, &zi);
    CHECK(zi.wp == z1 && zi.zrwa);
    CHECK_CONSISTENT(r.ftl);
    ftl_engine_destroy(r.engine);
    ftl_destroy(r.ftl);
}

/*
 * Random requests through the engine (admission, then the flash side) on the small
 * geometry: after each, ftl_check (both sides' ZRWA invariants); a refused request
 * changes no zone's state, write pointer or ZRWA.
 */
static void test_randomized(void)
{
    struct ftl_config cfg = zrwa_config();
    struct rig r = { .ftl = make_ftl(&cfg) };
    r.engine = ftl_engine_create(r.ftl, NULL, NULL);
    struct rng g;
    rng_seed(&g, 46);
    uint64_t zs = ftl_zone_size_sectors(r.ftl), ok = 0;
    for (uint64_t i = 0; i < 20000; i++) {
        uint64_t zone = rng_below(&g, 2), start = zone * zs, now = (i + 1) * T;
        struct ftl_zone_info before[2], after[2];
        ftl_zone_get(r.ftl, 0, &before[0]);
        ftl_zone_get(r.ftl, 1, &before[1]);
        uint64_t wp = before[zone].wp, k = rng_below(&g, 8);
        struct ftl_request req = { .arrival_ns = now, .op = FTL_OP_ZONE_MGMT, .slba = start };
        if (k < 4) {        /* a write near the window, sometimes outside it */
            req.op = FTL_OP_ZONE_WRITE;
            req.slba = wp + rng_below(&g, 140) - 10;
            req.nlb = 1 + rng_below(&g, 40);
            req.flags = rng_below(&g, 20) == 0 ? FTL_REQ_APPEND : 0;
            if (req.flags) {
                req.slba = start;
            }
        } else if (k == 4) {
            req.op = FTL_OP_ZONE_READ;
            req.slba = start + rng_below(&g, 256 - 16);
            req.nlb = 16;
        } else if (k == 5) {
            req.zone_action = FLUSH;
            req.slba = wp + rng_below(&g, 70) - 2;
        } else {
            const uint32_t acts[] = { OPEN_ZRWA, OPEN_ZRWA, FTL_ZONE_ACTION_CLOSE,
                                      FTL_ZONE_ACTION_FINISH, FTL_ZONE_ACTION_RESET,
                                      FTL_ZONE_ACTION_OPEN };
            req.zone_action = acts[rng_below(&g, 6)];
        }
        struct ftl_served served;
        int rc = ftl_engine_serve(r.engine, &req, &served);
        ftl_zone_get(r.ftl, 0, &after[0]);
        ftl_zone_get(r.ftl, 1, &after[1]);
        if (rc != FTL_OK) {
            for (int z = 0; z < 2; z++) {
                CHECK(before[z].wp == after[z].wp && before[z].state == after[z].state &&
                      before[z].zrwa == after[z].zrwa);
            }
        } else {
            ok++;
        }
        if (i % 64 == 0 || rc != FTL_OK) {
            char err[256] = "";
            if (!check_record(ftl_check(r.ftl, err, sizeof(err)) == 0, __FILE__, __LINE__,
                              "ftl_check")) {
                fprintf(stderr, "    step %llu: %s\n", (unsigned long long)i, err);
                break;
            }
        }
        /* the flash side agrees with admission (a finished plain zone's does not: no
         * padding reaches the flash) */
        for (int z = 0; z < 2; z++) {
            const struct zone_flash *zf = &r.ftl->zns->zones[z];
            if (!check_record(zf->zrwa == after[z].zrwa &&
                              (!zf->zrwa || zf->written == after[z].wp - (uint64_t)z * zs),
                              __FILE__, __LINE__, "flash record = admission")) {
                fprintf(stderr, "    step %llu zone %d\n", (unsigned long long)i, z);
                i = UINT64_MAX - 1;
            }
        }
    }
    CHECK(ok > 5000);
    ftl_engine_destroy(r.engine);
    ftl_destroy(r.ftl);
}

/* ---- config keys ---- */

static void expect_refused(struct ftl_config cfg, const char *want)
{
    char err[256] = "";
    struct ftl *ftl = ftl_create(&cfg, err, sizeof(err));
    CHECK(ftl == NULL);
    if (!check_record(strstr(err, want) == err, __FILE__, __LINE__, want)) {
        fprintf(stderr, "    got: %s\n", err);
    }
    ftl_destroy(ftl);
}

static void test_config(void)
{
    struct ftl_config cfg = zrwa_config();
    cfg.zrwa_size = 3 * 4096;           /* not whole 8 KiB units */
    expect_refused(cfg, "zrwa_size: 12288 bytes is not a whole number");
    cfg = zrwa_config();
    cfg.zrwa_flush_gran = 6144;         /* not whole pages */
    expect_refused(cfg, "zrwa_flush_gran: 6144 bytes");
    cfg = zrwa_config();
    cfg.zrwa_size = 64 * 4096;          /* past zone_cap */
    expect_refused(cfg, "zrwa_size: 262144 bytes");
    cfg = zrwa_config();
    cfg.max_open = 1;
    cfg.zrwa_zones = 2;
    expect_refused(cfg, "zrwa_zones: 2 is more than max_open (1)");
    cfg = zrwa_config();
    cfg.zrwa_zones = 3;
    expect_refused(cfg, "zrwa_zones: 3 is more than the 2 zones");
    cfg = zrwa_config();
    cfg.zrwa_size = 0;
    cfg.zrwa_flush_gran = 4 * 4096;     /* default size 16 x 16 KiB, past the 128 KiB cap */
    expect_refused(cfg, "zrwa_size: the default");
    struct ftl_config plain = zrwa_config();
    plain.zoned = 0;
    expect_refused(plain, "zrwa_zones: a Zone Random Write Area needs zoned=on");
    cfg = zrwa_config();
    cfg.zrwa_zones = 0;
    expect_refused(cfg, "zrwa_size: set without zrwa_zones");
    cfg = zrwa_config();
    cfg.dram_mb = 1;
    cfg.zrwa_zones = 2;
    cfg.zrwa_size = 32 * 4096;          /* two 128 KiB windows fit in 1 MiB with the map */
    struct ftl *ftl = make_ftl(&cfg);
    ftl_destroy(ftl);
}

int main(void)
{
    test_params();
    test_window_rules();
    test_resources();
    test_flash();
    test_randomized();
    test_config();
    return check_summary();
}
