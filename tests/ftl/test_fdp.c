/*
 * Flexible Data Placement in the FTL (femu_ftl/fdp.h): reclaim unit handles as write
 * pointers, isolation under GC, Reclaim Unit Handle Update, the RU time limit, the
 * events, and that one handle is today's FTL exactly.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "femu_ftl/fdp.h"
#include "femu_ftl/ftl.h"
#include "femu_ftl/state.h"
#include "flash/ftl_handle.h"
#include "ftl_test_util.h"
#include "ftl_wp_of_lpn.h"
#include "rng.h"

#define SEC UINT64_C(1000000000)

/* 2 channels x 2 LUNs, 96 lines of 4 x 8 pages of 512 bytes: small lines, much GC. */
static struct ftl_config fdp_config(uint32_t ruhs, enum ftl_ruh_type type,
                                    enum ftl_gc_mode mode)
{
    struct ftl_config cfg = small_config(2, 2, 96, 8, 1);
    cfg.placement = FTL_PLACEMENT_FDP;
    cfg.fdp_ruhs = ruhs;
    cfg.fdp_ruh_type = type;
    cfg.gc_mode = mode;
    cfg.devsz_mb = 1;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    return cfg;
}

static int write_on(struct ftl *ftl, uint64_t now, uint64_t lpn, uint64_t npages,
                    uint32_t ruh)
{
    struct ftl_io io = page_io(ftl, now, lpn, npages, ruh);
    uint64_t done;
    return ftl_write(ftl, &io, &done);
}

/* ---- configuration ---- */

static void test_config_keys(void)
{
    struct ftl_config cfg = fdp_config(16, FTL_RUH_PERSISTENT, FTL_GC_PACED);
    char err[256];
    struct ftl_geometry g;

    CHECK_EQ_U64(ftl_config_validate(&cfg, &g, err, sizeof(err)), 0);
    CHECK_EQ_U64(g.write_pointers, 16);
    /* initially isolated handles need one more write pointer, for GC: 15 at most */
    cfg.fdp_ruh_type = FTL_RUH_INITIAL;
    CHECK(ftl_config_validate(&cfg, &g, err, sizeof(err)) != 0);
    CHECK(strncmp(err, "fdp_ruhs: ", 10) == 0 && !strchr(err, '\n'));
    cfg.fdp_ruhs = 15;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    CHECK_EQ_U64(ftl_config_validate(&cfg, &g, err, sizeof(err)), 0);
    CHECK_EQ_U64(g.write_pointers, 16);
    CHECK(ftl_config_set(&cfg, "fdp_ruhs", "17", err, sizeof(err)) != 0);
    CHECK(strncmp(err, "fdp_ruhs: ", 10) == 0);
    CHECK(ftl_config_set(&cfg, "fdp_ruh_type", "sometimes", err, sizeof(err)) != 0);
    CHECK(strncmp(err, "fdp_ruh_type: ", 14) == 0);
    CHECK(ftl_config_set(&cfg, "gc_scope", "stream", err, sizeof(err)) == 0 &&
          cfg.gc_scope == FTL_GC_SCOPE_STREAM);
    /* the reclaim unit is the GC unit: naming it is allowed, naming another size is not */
    cfg = fdp_config(4, FTL_RUH_PERSISTENT, FTL_GC_PACED);
    cfg.fdp_ru_size = 4 * 8 * 512;              /* a line: 4 LUNs x 8 pages of 512 bytes */
    CHECK_EQ_U64(ftl_config_validate(&cfg, &g, err, sizeof(err)), 0);
    cfg.fdp_ru_size = 8 * 512;                  /* a block */
    CHECK(ftl_config_validate(&cfg, &g, err, sizeof(err)) != 0);
    CHECK(strncmp(err, "fdp_ru_size: 4096 bytes is not", 30) == 0 && !strchr(err, '\n'));
    cfg.gc_unit = FTL_GC_UNIT_BLOCK;
    cfg.gc_mode = FTL_GC_LINE;
    cfg.devsz_mb = ftl_config_max_devsz_mb(&cfg);
    CHECK_EQ_U64(ftl_config_validate(&cfg, &g, err, sizeof(err)), 0);
    CHECK(ftl_config_set(&cfg, "fdp_nrg", "2", err, sizeof(err)) != 0);
    CHECK(strncmp(err, "fdp_nrg: ", 9) == 0);
    /* a handle past fdp_ruhs is refused, nothing written */
    cfg = fdp_config(3, FTL_RUH_INITIAL, FTL_GC_PACED);
    struct ftl *ftl = make_ftl(&cfg);
    CHECK_EQ_U64(ftl_fdp_ruhs(ftl), 3);
    CHECK_EQ_U64(ftl_write_pointer_count(ftl), 4);
    CHECK_EQ_U64(write_on(ftl, 0, 0, 1, 3), FTL_E_INVAL);
    CHECK_EQ_U64(counters(ftl).host_write_pages, 0);
    CHECK_EQ_U64(write_on(ftl, 0, 0, 1, 2), FTL_OK);
    ftl_destroy(ftl);
}

/* ---- one handle is the FTL without FDP ---- */

/* The same random writes through placement=single and through handle 0 of fdp_ruhs
 * persistently isolated handles: every counter equal and the same flash time, under both
 * GC modes. (Initially isolated handles are another FTL: GC's pages go to their own
 * write pointer, apart from the host's.) */
static void test_one_handle_is_single(void)
{
    enum ftl_gc_mode modes[2] = { FTL_GC_PACED, FTL_GC_LINE };

    for (int m = 0; m < 2; m++) {
        struct ftl_config fdp = fdp_config(4, FTL_RUH_PERSISTENT, modes[m]), single = fdp;
        single.placement = FTL_PLACEMENT_SINGLE;
        struct ftl *a = make_ftl(&single), *b = make_ftl(&fdp);
        uint64_t logical = ftl_geometry_of(a)->logical_pages, now = 0, failures = 0;
        struct rng r;
        rng_seed(&r, 5);
        for (uint64_t i = 0; i < 6 * logical; i++, now += 20000) {
            uint64_t lpn = rng_below(&r, logical);
            failures += write_on(a, now, lpn, 1, 0) != FTL_OK;
            failures += write_on(b, now, lpn, 1, 0) != FTL_OK;
            failures += ftl_background_gc(a, now) < 0;
            failures += ftl_background_gc(b, now) < 0;
        }
        struct ftl_counters ca = counters(a), cb = counters(b);
        CHECK_EQ_U64(failures, 0);
        CHECK(ca.gc_runs > 100);
        CHECK(memcmp(&ca, &cb, sizeof(ca)) == 0);
        for (uint32_t lun = 0; lun < a->luns; lun++) {
            CHECK_EQ_U64(a->lun_avail_ns[lun], b->lun_avail_ns[lun]);
        }
        CHECK_CONSISTENT(b);
        ftl_destroy(a);
        ftl_destroy(b);
    }
}

/* ---- isolation under GC, with updates and the checker after every GC ---- */

/*
 * Random handles (each LPN keeps the handle that wrote it last) with RUH updates mixed in:
 * persistently isolated, every page stays in a unit of its writer's handle through GC;
 * initially isolated, in its writer's handle or the GC write pointer. ftl_check after
 * every request that collected. No data lost.
 */
static void isolation_run(enum ftl_ruh_type type, enum ftl_gc_mode mode, uint64_t seed)
{
    struct ftl_config cfg = fdp_config(3, type, mode);
    cfg.fdp_ru_time_limit_s = seed % 2 ? 1 : 0;
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t logical = ftl_geometry_of(ftl)->logical_pages, now = 0;
    uint64_t failures = 0, misplaced = 0, lost = 0, checks = 0, inconsistent = 0;
    uint32_t *writer = calloc(logical, sizeof(uint32_t));
    bool *has = calloc(logical, sizeof(bool));
    struct rng r;
    rng_seed(&r, seed);
    CHECK(writer && has);
    for (uint64_t i = 0; i < 8 * logical; i++) {
        now += rng_below(&r, 3) ? 20000 : SEC / 2;  /* now and then a long pause */
        if (rng_below(&r, 200) == 0) {
            failures += ftl_fdp_ruh_update(ftl, (uint32_t)rng_below(&r, 3), now, NULL) != FTL_OK;
        }
        uint64_t lpn = rng_below(&r, logical);
        /* a third of the space per handle, a tenth of the writes anywhere */
        uint32_t ruh = rng_below(&r, 10) ? (uint32_t)(lpn * 3 / logical)
                                         : (uint32_t)rng_below(&r, 3);
        uint64_t runs = counters(ftl).gc_runs;
        failures += write_on(ftl, now, lpn, 1, ruh) != FTL_OK;
        failures += ftl_background_gc(ftl, now) < 0;
        writer[lpn] = ruh;
        has[lpn] = true;
        if (counters(ftl).gc_runs != runs) {
            char err[256];
            inconsistent += ftl_check(ftl, err, sizeof(err)) != 0;
            checks++;
        }
    }
    for (uint64_t lpn = 0; lpn < logical; lpn++) {
        lost += has[lpn] != ftl_lpn_is_mapped(ftl, lpn);
        if (has[lpn] && ftl_lpn_is_mapped(ftl, lpn)) {
            uint32_t wp = wp_of_lpn(ftl, lpn);
            misplaced += wp != writer[lpn] && !(type == FTL_RUH_INITIAL && wp == 3);
        }
    }
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(failures, 0);
    CHECK_EQ_U64(lost, 0);
    CHECK_EQ_U64(misplaced, 0);
    CHECK_EQ_U64(inconsistent, 0);
    CHECK(checks > 100 && c.fdp_ru_updates > 10);
    CHECK(cfg.fdp_ru_time_limit_s == 0 ? c.fdp_ru_time_limits == 0 : c.fdp_ru_time_limits > 0);
    if (type == FTL_RUH_INITIAL) {
        CHECK(c.wp_gc_pages[3] == c.gc_moved_pages && c.wp_gc_pages[0] == 0);
    } else {
        CHECK(c.wp_gc_pages[3] == 0 && c.wp_gc_pages[0] > 0 && c.wp_gc_pages[1] > 0);
    }
    printf("  %s, %s GC, time limit %llus: %llu GC runs checked, %llu RU updates and %llu "
           "time limits left %llu pages unwritten\n", ftl_ruh_type_name(type),
           ftl_gc_mode_name(mode), (unsigned long long)cfg.fdp_ru_time_limit_s,
           (unsigned long long)checks, (unsigned long long)c.fdp_ru_updates,
           (unsigned long long)c.fdp_ru_time_limits,
           (unsigned long long)c.fdp_unwritten_pages);
    CHECK_CONSISTENT(ftl);
    free(writer);
    free(has);
    ftl_destroy(ftl);
}

static void test_isolation(void)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        isolation_run(seed <= 2 ? FTL_RUH_PERSISTENT : FTL_RUH_INITIAL,
                      seed % 2 ? FTL_GC_PACED : FTL_GC_LINE, seed);
    }
}

/* ---- Reclaim Unit Handle Update, status and events, by hand ---- */

static void test_ruh_update(void)
{
    struct ftl_config cfg = fdp_config(2, FTL_RUH_PERSISTENT, FTL_GC_LINE);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t ru = ftl_fdp_ru_pages(ftl), unwritten = 99;
    struct ftl_ruh_status st;
    struct ftl_fdp_event ev[4];
    uint64_t lost = 99;

    CHECK_EQ_U64(ru, 4 * 8);
    /* nothing open yet: a whole RU available, an update changes nothing */
    CHECK_EQ_U64(ftl_fdp_ruh_status(ftl, 1, &st), FTL_OK);
    CHECK_EQ_U64(st.ru, UINT32_MAX);
    CHECK_EQ_U64(st.available_pages, ru);
    CHECK_EQ_U64(ftl_fdp_ruh_update(ftl, 1, 10, &unwritten), FTL_OK);
    CHECK_EQ_U64(unwritten, 0);
    CHECK_EQ_U64(ftl_fdp_take_events(ftl, ev, 4, &lost), 0);
    CHECK_EQ_U64(lost, 0);
    /* 5 pages on handle 1: its RU has ru - 5 left */
    CHECK_EQ_U64(write_on(ftl, 100, 0, 5, 1), FTL_OK);
    CHECK_EQ_U64(ftl_fdp_ruh_status(ftl, 1, &st), FTL_OK);
    uint32_t first = st.ru;
    CHECK(first != UINT32_MAX);
    CHECK_EQ_U64(st.available_pages, ru - 5);
    CHECK_EQ_U64(st.opened_ns, 100);
    CHECK_EQ_U64(ftl_fdp_ruh_status(ftl, 0, &st), FTL_OK);
    CHECK_EQ_U64(st.ru, UINT32_MAX);      /* handle 0 untouched */
    /* update: the RU closes with ru - 5 pages never written, an event says so */
    CHECK_EQ_U64(ftl_fdp_ruh_update(ftl, 1, 200, &unwritten), FTL_OK);
    CHECK_EQ_U64(unwritten, ru - 5);
    CHECK_EQ_U64(ftl->lines[first].state, LINE_VICTIM);
    CHECK_EQ_U64(ftl->lines[first].valid, 5);
    CHECK_EQ_U64(ftl->lines[first].invalid, ru - 5);
    CHECK_CONSISTENT(ftl);
    CHECK_EQ_U64(ftl_fdp_take_events(ftl, ev, 4, &lost), 1);
    CHECK_EQ_U64(ev[0].type, FTL_FDP_EVENT_RU_NOT_FULLY_WRITTEN);
    CHECK_EQ_U64(ev[0].ruh, 1);
    CHECK_EQ_U64(ev[0].ru, first);
    CHECK_EQ_U64(ev[0].unwritten_pages, ru - 5);
    CHECK_EQ_U64(ev[0].time_ns, 200);
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.fdp_ru_updates, 1);
    CHECK_EQ_U64(c.fdp_unwritten_pages, ru - 5);
    CHECK_EQ_U64(c.nand_user_programs, 5);    /* the unwritten pages were never programmed */
    /* the next write opens another RU */
    CHECK_EQ_U64(write_on(ftl, 300, 5, 1, 1), FTL_OK);
    CHECK_EQ_U64(ftl_fdp_ruh_status(ftl, 1, &st), FTL_OK);
    CHECK(st.ru != first && st.ru != UINT32_MAX);
    CHECK_EQ_U64(st.available_pages, ru - 1);
    /* a handle out of range: refused, nothing changed */
    CHECK_EQ_U64(ftl_fdp_ruh_update(ftl, 2, 400, &unwritten), FTL_E_INVAL);
    CHECK_EQ_U64(ftl_fdp_ruh_status(ftl, 2, &st), FTL_E_INVAL);
    CHECK_EQ_U64(counters(ftl).fdp_ru_updates, 1);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);

    /* no FDP: no handles */
    cfg.placement = FTL_PLACEMENT_SINGLE;
    ftl = make_ftl(&cfg);
    CHECK_EQ_U64(ftl_fdp_ruhs(ftl), 0);
    CHECK_EQ_U64(ftl_fdp_ruh_update(ftl, 0, 0, NULL), FTL_E_INVAL);
    ftl_destroy(ftl);
}

/* Deallocate and Format unmap pages: no handle's reclaim unit changes. */
static void test_trim_and_format_keep_units(void)
{
    struct ftl_config cfg = fdp_config(2, FTL_RUH_PERSISTENT, FTL_GC_LINE);
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_ruh_status before[2], after[2];
    uint64_t done, spp = cfg.secs_per_pg;

    CHECK_EQ_U64(write_on(ftl, 10, 0, 5, 0), FTL_OK);
    CHECK_EQ_U64(write_on(ftl, 20, 5, 3, 1), FTL_OK);
    for (uint32_t h = 0; h < 2; h++) {
        CHECK_EQ_U64(ftl_fdp_ruh_status(ftl, h, &before[h]), FTL_OK);
    }
    struct ftl_io trim = page_io(ftl, 30, 0, 6, 0);     /* handle 0's pages and one of 1's */
    CHECK_EQ_U64(ftl_trim(ftl, &trim, &done), FTL_OK);
    struct ftl_io all = { .now_ns = 40, .slba = 0, .nlb = 8 * spp };
    CHECK_EQ_U64(ftl_format(ftl, &all, false, &done), FTL_OK);
    CHECK_EQ_U64(ftl_format(ftl, &all, true, &done), FTL_OK);
    for (uint32_t h = 0; h < 2; h++) {
        CHECK_EQ_U64(ftl_fdp_ruh_status(ftl, h, &after[h]), FTL_OK);
        CHECK_EQ_U64(after[h].ru, before[h].ru);
        CHECK_EQ_U64(after[h].available_pages, before[h].available_pages);
    }
    CHECK_EQ_U64(counters(ftl).fdp_ru_updates, 0);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* An RU open past fdp_ru_time_limit_s is closed at its handle's next write. */
static void test_time_limit(void)
{
    struct ftl_config cfg = fdp_config(2, FTL_RUH_PERSISTENT, FTL_GC_LINE);
    cfg.fdp_ru_time_limit_s = 2;
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_ruh_status st;
    struct ftl_fdp_event ev[2];

    CHECK_EQ_U64(write_on(ftl, SEC, 0, 3, 0), FTL_OK);
    CHECK_EQ_U64(ftl_fdp_ruh_status(ftl, 0, &st), FTL_OK);
    uint32_t first = st.ru;
    /* at the limit exactly: still the same RU */
    CHECK_EQ_U64(write_on(ftl, 3 * SEC, 3, 1, 0), FTL_OK);
    CHECK_EQ_U64(ftl_fdp_ruh_status(ftl, 0, &st), FTL_OK);
    CHECK_EQ_U64(st.ru, first);
    CHECK_EQ_U64(ftl_fdp_take_events(ftl, ev, 2, NULL), 0);
    /* past it: closed with 4 pages written, the write went to a new RU */
    CHECK_EQ_U64(write_on(ftl, 3 * SEC + 1, 4, 1, 0), FTL_OK);
    CHECK_EQ_U64(ftl_fdp_ruh_status(ftl, 0, &st), FTL_OK);
    CHECK(st.ru != first);
    CHECK_EQ_U64(st.opened_ns, 3 * SEC + 1);
    CHECK_EQ_U64(ftl_fdp_take_events(ftl, ev, 2, NULL), 1);
    CHECK_EQ_U64(ev[0].type, FTL_FDP_EVENT_RU_TIME_LIMIT);
    CHECK_EQ_U64(ev[0].ru, first);
    CHECK_EQ_U64(ev[0].unwritten_pages, ftl_fdp_ru_pages(ftl) - 4);
    CHECK_EQ_U64(counters(ftl).fdp_ru_time_limits, 1);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* A state file keeps an open RU's age and its events' ages: saved at 12 s with the RU
 * opened at 5 s and limit 10 s, restored at the clock's 0 (as ftl-sim does), the RU is
 * 7 s old there and past its limit after 3 s more; the event taken before the save
 * (raised at 11 s) reads 1 s before the clock's 0. */
static void test_time_limit_survives_a_restore_at_zero(void)
{
    struct ftl_config cfg = fdp_config(2, FTL_RUH_PERSISTENT, FTL_GC_LINE);
    cfg.fdp_ru_time_limit_s = 10;
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_ruh_status st;
    struct ftl_fdp_event ev[2];
    char path[] = "/tmp/femu-fdp-age-XXXXXX", err[256];
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);

    CHECK_EQ_U64(write_on(ftl, 5 * SEC, 0, 3, 0), FTL_OK);
    CHECK_EQ_U64(write_on(ftl, 11 * SEC, 100, 1, 1), FTL_OK);
    CHECK_EQ_U64(ftl_fdp_ruh_update(ftl, 1, 11 * SEC, NULL), FTL_OK);
    CHECK(ftl_state_save_file(ftl, path, "test", 12 * SEC, err, sizeof(err)) == 0);
    struct ftl *back = make_ftl(&cfg);
    CHECK(ftl_state_load_file(back, path, 0, err, sizeof(err)) == 0);
    CHECK_EQ_U64(ftl_fdp_take_events(back, ev, 2, NULL), 1);
    CHECK_EQ_U64(ev[0].time_ns, (uint64_t)0 - SEC);
    CHECK_EQ_U64(ftl_fdp_ruh_status(back, 0, &st), FTL_OK);
    uint32_t first = st.ru;
    CHECK_EQ_U64(write_on(back, 3 * SEC, 3, 1, 0), FTL_OK);     /* 10 s: at the limit */
    CHECK_EQ_U64(ftl_fdp_ruh_status(back, 0, &st), FTL_OK);
    CHECK_EQ_U64(st.ru, first);
    CHECK_EQ_U64(write_on(back, 3 * SEC + 1, 4, 1, 0), FTL_OK); /* past it */
    CHECK_EQ_U64(ftl_fdp_ruh_status(back, 0, &st), FTL_OK);
    CHECK(st.ru != first);
    CHECK_EQ_U64(counters(back).fdp_ru_time_limits, 1);
    CHECK_CONSISTENT(back);
    ftl_destroy(back);
    ftl_destroy(ftl);
    remove(path);
}

/* The event ring keeps the newest FTL_FDP_EVENT_RING and counts what it dropped. */
static void test_event_ring(void)
{
    struct ftl_config cfg = fdp_config(1, FTL_RUH_PERSISTENT, FTL_GC_LINE);
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_fdp_event ev[FTL_FDP_EVENT_RING + 1];
    uint64_t lost = 0, updates = FTL_FDP_EVENT_RING + 6;

    for (uint64_t i = 0; i < updates; i++) {
        CHECK_EQ_U64(write_on(ftl, 10 * i, i, 1, 0), FTL_OK);
        CHECK_EQ_U64(ftl_fdp_ruh_update(ftl, 0, 10 * i + 5, NULL), FTL_OK);
    }
    CHECK_EQ_U64(ftl_fdp_take_events(ftl, ev, FTL_FDP_EVENT_RING + 1, &lost),
                 FTL_FDP_EVENT_RING);
    CHECK_EQ_U64(lost, 6);
    CHECK_EQ_U64(ev[0].time_ns, 10 * 6 + 5);    /* the oldest kept */
    CHECK_EQ_U64(ev[FTL_FDP_EVENT_RING - 1].time_ns, 10 * (updates - 1) + 5);
    CHECK_EQ_U64(ftl_fdp_take_events(ftl, ev, 4, &lost), 0);
    CHECK_EQ_U64(lost, 0);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

int main(void)
{
    test_config_keys();
    test_one_handle_is_single();
    test_isolation();
    test_ruh_update();
    test_trim_and_format_keep_units();
    test_time_limit();
    test_time_limit_survives_a_restore_at_zero();
    test_event_ring();
    return check_summary();
}
