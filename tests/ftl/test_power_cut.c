/*
 * Power loss (docs/ftl.md, "Power loss"): the durability contract, hand-computed on one
 * LUN (every program serialises there: a program issued at t with the LUN idle ends at
 * t + pg_wr_lat = t + 200 us). With the cache on and no flush exactly the buffered
 * sectors are lost; a write acknowledged before a completed Flush survives; FUA writes
 * survive; with the cache off or plp nothing acknowledged is lost; a program in flight
 * at the cut is torn, one that ended is not; a cut in the past is refused; after a cut
 * the FTL is consistent, idle from the cut, keeps working, and saves and restores.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L     /* mkstemp, fdopen */
#endif
#include <string.h>
#include <unistd.h>

#include "femu_ftl/state.h"
#include "ftl_test_util.h"
#include "temp_file.h"

#define SPP 4               /* sectors per page */
#define PROG 200000ull      /* pg_wr_lat */
#define BUF 1000ull         /* buf_wr_lat */

/* 1 channel x 1 LUN, 256 blocks of 4 pages of 4 sectors; a buffer of `buffer` sectors
 * (0: none) that flushes only when full. */
static struct ftl_config one_lun(uint64_t buffer)
{
    struct ftl_config cfg = small_config(1, 1, 256, 4, SPP);
    cfg.write_buffer_sectors = buffer;
    cfg.buf_flush_pcent = 100;
    return cfg;
}

struct loss {
    enum ftl_loss_kind kind;
    uint64_t slba, nlb;
};

struct losses {
    struct loss l[64];
    size_t n;
};

static void collect(void *ctx, enum ftl_loss_kind kind, uint64_t slba, uint64_t nlb)
{
    struct losses *ls = ctx;
    if (ls->n < 64) {
        ls->l[ls->n++] = (struct loss){ kind, slba, nlb };
    }
}

static bool loss_is(const struct losses *ls, size_t i, enum ftl_loss_kind kind,
                    uint64_t slba, uint64_t nlb)
{
    return i < ls->n && ls->l[i].kind == kind && ls->l[i].slba == slba && ls->l[i].nlb == nlb;
}

static uint64_t wr(struct ftl *ftl, uint64_t now, uint64_t slba, uint64_t nlb, bool fua)
{
    struct ftl_io io = { .now_ns = now, .slba = slba, .nlb = nlb, .fua = fua };
    uint64_t done = 0;
    CHECK(ftl_write(ftl, &io, &done) == FTL_OK);
    return done;
}

static int cut(struct ftl *ftl, uint64_t now, bool plp, struct losses *ls,
               struct ftl_power_cut_result *res)
{
    char err[256] = "";
    *ls = (struct losses){ .n = 0 };
    return ftl_power_cut(ftl, now, plp, collect, ls, res, err, sizeof(err));
}

/* Cache on, no flush: sectors 0-5 and 9 are in DRAM; each run of each page is lost, in
 * the buffer's order (least recently written first), and the pages stay unwritten. */
static void test_buffered_lost(void)
{
    struct ftl_config cfg = one_lun(64);
    struct ftl *ftl = make_ftl(&cfg);
    struct losses ls;
    struct ftl_power_cut_result res;

    CHECK_EQ_U64(wr(ftl, 1000, 0, 6, false), 1000 + BUF);
    CHECK_EQ_U64(wr(ftl, 2000, 9, 1, false), 2000 + BUF);
    CHECK(cut(ftl, 3000, false, &ls, &res) == FTL_OK);
    CHECK_EQ_U64(ls.n, 3);
    CHECK(loss_is(&ls, 0, FTL_LOSS_BUFFERED, 0, 4));
    CHECK(loss_is(&ls, 1, FTL_LOSS_BUFFERED, 4, 2));
    CHECK(loss_is(&ls, 2, FTL_LOSS_BUFFERED, 9, 1));
    CHECK_EQ_U64(res.buffered_pages, 3);
    CHECK_EQ_U64(res.buffered_sectors, 7);
    CHECK_EQ_U64(res.torn_pages, 0);
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 0);
    CHECK(!ftl_lpn_is_mapped(ftl, 0) && !ftl_lpn_is_mapped(ftl, 1));
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.power_cuts, 1);
    CHECK_EQ_U64(c.power_cut_lost_pages, 3);
    CHECK_EQ_U64(c.power_cut_torn_pages, 0);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* The buffered sectors of a page, as a cut would lose them: partial pages, a FUA write
 * taking a page's buffered sectors along, a flush, beyond the logical pages. */
static void test_buffered_mask(void)
{
    struct ftl_config cfg = one_lun(64);
    struct ftl *ftl = make_ftl(&cfg);
    uint64_t done;

    wr(ftl, 1000, 1, 2, false);            /* page 0, sectors 1-2 */
    wr(ftl, 2000, 6, 3, false);            /* page 1 sectors 2-3, page 2 sector 0 */
    CHECK_EQ_U64(ftl_lpn_buffered_mask(ftl, 0), 0x6);
    CHECK_EQ_U64(ftl_lpn_buffered_mask(ftl, 1), 0xc);
    CHECK_EQ_U64(ftl_lpn_buffered_mask(ftl, 2), 0x1);
    CHECK_EQ_U64(ftl_lpn_buffered_mask(ftl, 3), 0);
    wr(ftl, 3000, 4, 1, true);             /* FUA on page 1: programmed with 2-3 */
    CHECK_EQ_U64(ftl_lpn_buffered_mask(ftl, 1), 0);
    CHECK_EQ_U64(ftl_lpn_buffered_mask(ftl, ftl_geometry_of(ftl)->logical_pages), 0);
    CHECK(ftl_flush(ftl, 4000, &done) == FTL_OK);
    CHECK_EQ_U64(ftl_lpn_buffered_mask(ftl, 0) | ftl_lpn_buffered_mask(ftl, 2), 0);
    ftl_destroy(ftl);

    struct ftl_config plain = one_lun(0);
    ftl = make_ftl(&plain);
    wr(ftl, 1000, 0, 4, false);
    CHECK_EQ_U64(ftl_lpn_buffered_mask(ftl, 0), 0);   /* no buffer: nothing volatile */
    ftl_destroy(ftl);
}

/* The shared lost list: buffered before torn, by LBA, touching ranges of a kind folded,
 * ranges of different kinds kept apart. */
static void test_loss_list(void)
{
    struct ftl_loss_list l = { 0 };

    ftl_loss_list_add(&l, FTL_LOSS_TORN, 8, 4);
    ftl_loss_list_add(&l, FTL_LOSS_BUFFERED, 4, 2);
    ftl_loss_list_add(&l, FTL_LOSS_BUFFERED, 0, 4);
    ftl_loss_list_add(&l, FTL_LOSS_TORN, 12, 4);
    ftl_loss_list_add(&l, FTL_LOSS_BUFFERED, 9, 1);
    ftl_loss_list_merge(&l);
    CHECK(!l.failed);
    CHECK_EQ_U64(l.n, 3);
    CHECK(l.n == 3 && l.v[0].kind == FTL_LOSS_BUFFERED && l.v[0].slba == 0 && l.v[0].nlb == 6);
    CHECK(l.n == 3 && l.v[1].kind == FTL_LOSS_BUFFERED && l.v[1].slba == 9 && l.v[1].nlb == 1);
    CHECK(l.n == 3 && l.v[2].kind == FTL_LOSS_TORN && l.v[2].slba == 8 && l.v[2].nlb == 8);
    CHECK(strcmp(ftl_loss_kind_name(FTL_LOSS_TORN), "torn") == 0);
    ftl_loss_list_free(&l);
    CHECK(l.v == NULL && l.n == 0);
}

/* Flush at 2000 programs pages 0 and 1 (ends 202000, then 402000): a cut once it has
 * completed loses only what came after it; a cut before tears the page still in flight. */
static void test_flush_durable(void)
{
    for (int before = 0; before < 2; before++) {
        struct ftl_config cfg = one_lun(64);
        struct ftl *ftl = make_ftl(&cfg);
        struct losses ls;
        struct ftl_power_cut_result res;
        uint64_t done;

        wr(ftl, 1000, 0, 8, false);
        CHECK(ftl_flush(ftl, 2000, &done) == FTL_OK);
        CHECK_EQ_U64(done, 2000 + 2 * PROG);
        wr(ftl, 3000, 12, 1, false);
        CHECK(cut(ftl, before ? done - 1 : done, false, &ls, &res) == FTL_OK);
        CHECK_EQ_U64(ls.n, 2 - (uint64_t)!before);
        CHECK(loss_is(&ls, 0, FTL_LOSS_BUFFERED, 12, 1));
        if (before) {
            CHECK(loss_is(&ls, 1, FTL_LOSS_TORN, 4, 4));   /* page 1: ends at done */
        }
        CHECK(ftl_lpn_is_mapped(ftl, 0) && ftl_lpn_is_mapped(ftl, 1));
        CHECK_CONSISTENT(ftl);
        ftl_destroy(ftl);
    }
}

/* A FUA write is programmed before it completes; one onto a page with buffered sectors
 * takes them along in the same program, leaving nothing in DRAM. */
static void test_fua_durable(void)
{
    struct ftl_config cfg = one_lun(64);
    struct ftl *ftl = make_ftl(&cfg);
    struct losses ls;
    struct ftl_power_cut_result res;

    CHECK_EQ_U64(wr(ftl, 1000, 0, 4, true), 1000 + PROG);
    CHECK_EQ_U64(wr(ftl, 2000, 4, 2, false), 2000 + BUF);     /* page 1: buffered */
    CHECK_EQ_U64(wr(ftl, 3000, 6, 1, true), 1000 + 2 * PROG);  /* merged, after page 0 */
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 0);
    CHECK_EQ_U64(counters(ftl).buf_flushed_pages, 1);
    CHECK_EQ_U64(counters(ftl).nand_user_programs, 2);
    CHECK(cut(ftl, 1000 + 2 * PROG, false, &ls, &res) == FTL_OK);
    CHECK_EQ_U64(ls.n, 0);
    CHECK(ftl_lpn_is_mapped(ftl, 0) && ftl_lpn_is_mapped(ftl, 1));
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* The cache off: switching drains the buffer (done when its program ends); writes then
 * complete when programmed, so a cut at any completion loses nothing acknowledged. A
 * power cycle turns the cache back on. Without a buffer off is accepted, on refused. */
static void test_cache_off(void)
{
    struct ftl_config cfg = one_lun(64);
    struct ftl *ftl = make_ftl(&cfg);
    struct losses ls;
    struct ftl_power_cut_result res;
    uint64_t done;

    CHECK(ftl_write_cache_on(ftl));
    wr(ftl, 1000, 0, 2, false);
    CHECK(ftl_set_write_cache(ftl, false, 2000, &done) == FTL_OK);
    CHECK_EQ_U64(done, 2000 + PROG);
    CHECK(!ftl_write_cache_on(ftl));
    CHECK_EQ_U64(wr(ftl, 3000, 8, 4, false), 2000 + 2 * PROG);
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 0);
    CHECK(cut(ftl, 2000 + 2 * PROG, false, &ls, &res) == FTL_OK);
    CHECK_EQ_U64(ls.n, 0);
    CHECK(ftl_write_cache_on(ftl));
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);

    cfg = one_lun(0);
    ftl = make_ftl(&cfg);
    CHECK(!ftl_write_cache_on(ftl));
    CHECK(ftl_set_write_cache(ftl, false, 0, &done) == FTL_OK && done == 0);
    CHECK(ftl_set_write_cache(ftl, true, 0, &done) == FTL_E_INVAL);
    ftl_destroy(ftl);
}

/* plp: the buffer (3 pages) is programmed from stored energy and the program in flight
 * ends: nothing is lost, and the LUN is idle from the cut all the same. */
static void test_plp(void)
{
    struct ftl_config cfg = one_lun(64);
    cfg.plp = 1;
    struct ftl *ftl = make_ftl(&cfg);
    struct losses ls;
    struct ftl_power_cut_result res;

    wr(ftl, 1000, 0, 4, true);                  /* in flight until 201000 */
    wr(ftl, 2000, 4, 6, false);                 /* pages 1 and 2 */
    wr(ftl, 3000, 13, 1, false);                /* page 3 */
    CHECK(cut(ftl, 4000, true, &ls, &res) == FTL_OK);
    CHECK_EQ_U64(ls.n, 0);
    CHECK_EQ_U64(res.plp_pages, 3);
    CHECK_EQ_U64(res.torn_pages + res.buffered_pages, 0);
    CHECK_EQ_U64(counters(ftl).power_cut_plp_pages, 3);
    for (uint64_t lpn = 0; lpn < 4; lpn++) {
        CHECK(ftl_lpn_is_mapped(ftl, lpn));
    }
    CHECK_EQ_U64(wr(ftl, 4000, 16, 4, true), 4000 + PROG);    /* idle from the cut */
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);
}

/* plp with an energy budget of 2 pages: the two least recently written buffered pages (1
 * and 2, written at 2000) are programmed at the cut, page 3 (written at 3000) is lost; the
 * FUA write in flight ends. */
static void test_plp_budget(void)
{
    struct ftl_config cfg = one_lun(64);
    cfg.plp = 1;
    cfg.plp_budget_pages = 2;
    struct ftl *ftl = make_ftl(&cfg);
    struct losses ls;
    struct ftl_power_cut_result res;

    wr(ftl, 1000, 0, 4, true);
    wr(ftl, 2000, 4, 6, false);
    wr(ftl, 3000, 13, 1, false);
    CHECK(cut(ftl, 4000, true, &ls, &res) == FTL_OK);
    CHECK_EQ_U64(res.plp_pages, 2);
    CHECK_EQ_U64(res.buffered_pages, 1);
    CHECK_EQ_U64(res.buffered_sectors, 1);
    CHECK_EQ_U64(res.torn_pages, 0);
    CHECK_EQ_U64(ls.n, 1);
    CHECK(loss_is(&ls, 0, FTL_LOSS_BUFFERED, 13, 1));
    CHECK(ftl_lpn_is_mapped(ftl, 0) && ftl_lpn_is_mapped(ftl, 1) && ftl_lpn_is_mapped(ftl, 2));
    CHECK(!ftl_lpn_is_mapped(ftl, 3));
    struct ftl_counters c = counters(ftl);
    CHECK_EQ_U64(c.power_cut_plp_pages, 2);
    CHECK_EQ_U64(c.power_cut_lost_pages, 1);
    CHECK_CONSISTENT(ftl);
    ftl_destroy(ftl);

    /* the key needs plp */
    struct ftl_config bad = one_lun(64);
    bad.plp_budget_pages = 2;
    char err[256] = "";
    CHECK(ftl_create(&bad, err, sizeof(err)) == NULL);
    CHECK_CONTAINS(err, "plp_budget_pages: an energy budget needs power-loss protection");
}

/* Without a buffer: page 0 written at 1000 is in flight until 201000 and page 1 queued
 * behind it until 401000. A cut at 201000 tears page 1 only; at 200999 both; at 401000
 * none. A page trimmed or rewritten since holds no torn copy of that program. */
static void test_torn_exact(void)
{
    const uint64_t cuts[] = { 200999, 201000, 401000 };
    const uint64_t torn[] = { 2, 1, 0 };
    for (int i = 0; i < 3; i++) {
        struct ftl_config cfg = one_lun(0);
        struct ftl *ftl = make_ftl(&cfg);
        struct losses ls;
        struct ftl_power_cut_result res;

        CHECK_EQ_U64(wr(ftl, 1000, 0, 8, false), 1000 + 2 * PROG);
        CHECK(cut(ftl, cuts[i], false, &ls, &res) == FTL_OK);
        CHECK_EQ_U64(res.torn_pages, torn[i]);
        CHECK_EQ_U64(ls.n, torn[i]);
        if (torn[i] == 2) {
            CHECK(loss_is(&ls, 0, FTL_LOSS_TORN, 0, 4) && loss_is(&ls, 1, FTL_LOSS_TORN, 4, 4));
        } else if (torn[i] == 1) {
            CHECK(loss_is(&ls, 0, FTL_LOSS_TORN, 4, 4));
        }
        CHECK_EQ_U64(counters(ftl).power_cut_torn_pages, torn[i]);
        /* the LUN is idle from the cut: the next program starts there */
        CHECK_EQ_U64(wr(ftl, cuts[i], 40, 4, false), cuts[i] + PROG);
        CHECK_CONSISTENT(ftl);
        ftl_destroy(ftl);
    }

    struct ftl_config cfg = one_lun(0);
    struct ftl *ftl = make_ftl(&cfg);
    struct losses ls;
    struct ftl_power_cut_result res;
    struct ftl_io trim = { .now_ns = 2000, .slba = 0, .nlb = 4 };
    uint64_t done;
    wr(ftl, 1000, 0, 8, false);             /* pages 0 and 1, until 401000 */
    CHECK(ftl_trim(ftl, &trim, &done) == FTL_OK);
    wr(ftl, 3000, 4, 4, false);             /* page 1 again: until 601000 */
    CHECK(cut(ftl, 500000, false, &ls, &res) == FTL_OK);
    CHECK_EQ_U64(ls.n, 1);
    CHECK(loss_is(&ls, 0, FTL_LOSS_TORN, 4, 4));
    ftl_destroy(ftl);
}

/* A cut before the newest time the FTL was given changes nothing. */
static void test_cut_in_past(void)
{
    struct ftl_config cfg = one_lun(64);
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_power_cut_result res;
    char err[256] = "";

    wr(ftl, 5000, 0, 1, false);
    CHECK(ftl_power_cut(ftl, 4999, false, NULL, NULL, &res, err, sizeof(err)) ==
          FTL_E_INVAL);
    CHECK(strcmp(err, "a cut time in the past: 4999 ns is before 5000 ns, the newest time "
                 "the FTL was given") == 0);
    CHECK_EQ_U64(ftl_buffered_sectors(ftl), 1);
    CHECK_EQ_U64(counters(ftl).power_cuts, 0);
    CHECK(ftl_power_cut(ftl, 5000, false, NULL, NULL, &res, NULL, 0) == FTL_OK);
    CHECK_EQ_U64(res.buffered_sectors, 1);
    ftl_destroy(ftl);
}

/* A cut before the first program (at 0, on a fresh FTL): nothing lost, nothing torn. The
 * in-flight ring does not exist yet (issue 39, fault 11: qsort(NULL, 0) under UBSan). */
static void test_cut_before_any_program(void)
{
    for (uint64_t buffer = 0; buffer <= 64; buffer += 64) {
        struct ftl_config cfg = one_lun(buffer);
        struct ftl *ftl = make_ftl(&cfg);
        struct ftl_power_cut_result res;
        struct losses ls;

        CHECK(cut(ftl, 0, false, &ls, &res) == FTL_OK);
        CHECK_EQ_U64(res.torn_pages, 0);
        CHECK_EQ_U64(res.buffered_sectors, 0);
        CHECK_EQ_U64(ls.n, 0);
        CHECK_EQ_U64(counters(ftl).power_cuts, 1);
        CHECK_CONSISTENT(ftl);
        ftl_destroy(ftl);
    }
}

/* After a cut the FTL saves and restores like any: the same maps, the tallies not kept. */
static void test_state_after_cut(void)
{
    struct ftl_config cfg = one_lun(64);
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_power_cut_result res;
    char path[4096], err[256] = "";
    uint64_t done;

    wr(ftl, 1000, 0, 8, false);
    CHECK(ftl_flush(ftl, 2000, &done) == FTL_OK);
    wr(ftl, 3000, 8, 4, false);
    CHECK(ftl_power_cut(ftl, 100000, false, NULL, NULL, &res, err, sizeof(err)) == FTL_OK);
    CHECK_EQ_U64(res.torn_pages, 2);
    CHECK_EQ_U64(res.buffered_pages, 1);
    write_temp_file(path, sizeof(path), "power-cut-state", "", 0);
    CHECK(ftl_state_save_file(ftl, path, "test", 100000, err, sizeof(err)) == 0);
    struct ftl *back = make_ftl(&cfg);
    CHECK(ftl_state_load_file(back, path, 100000, err, sizeof(err)) == 0);
    for (uint64_t lpn = 0; lpn < 4; lpn++) {
        CHECK(ftl_lpn_is_mapped(back, lpn) == ftl_lpn_is_mapped(ftl, lpn));
    }
    struct ftl_counters a = counters(ftl), b = counters(back);
    CHECK_EQ_U64(b.nand_user_programs, a.nand_user_programs);
    CHECK_EQ_U64(b.power_cuts, 0);
    CHECK_CONSISTENT(back);
    CHECK_EQ_U64(wr(back, 100000, 0, 4, true), 100000 + PROG);
    ftl_destroy(back);
    ftl_destroy(ftl);
    unlink(path);
}

int main(void)
{
    test_buffered_lost();
    test_buffered_mask();
    test_loss_list();
    test_flush_durable();
    test_fua_durable();
    test_cache_off();
    test_plp();
    test_plp_budget();
    test_torn_exact();
    test_cut_in_past();
    test_cut_before_any_program();
    test_state_after_cut();
    return check_summary();
}
