/*
 * The FTL engine: dispatch by operation, deallocate ranges and the stop hook, background
 * GC after every kind of request, completion order, and the statistics tick.
 */
#include <string.h>
#include <unistd.h>

#include "femu_ftl/engine.h"
#include "flash/ftl_handle.h"
#include "ftl_test_util.h"

#define S 1000000000ull

/* 1 channel x 2 LUNs x 4 pages per block: 8 pages of 512 bytes per line, 512 lines. */
static struct ftl_config lines8(void)
{
    return small_config(1, 2, 512, 4, 1);
}

static struct ftl_request req(enum ftl_op op, uint64_t arrival, uint64_t slba, uint64_t nlb)
{
    return (struct ftl_request){ .op = op, .arrival_ns = arrival, .slba = slba, .nlb = nlb };
}

static void test_dispatch(void)
{
    struct ftl_config cfg = lines8();
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    CHECK(e != NULL && ftl_engine_ftl(e) == ftl);
    struct ftl_served done = { 0 };

    struct ftl_request w = req(FTL_OP_WRITE, 100, 0, 4);
    CHECK_EQ_U64(ftl_engine_serve(e, &w, &done), FTL_OK);
    CHECK(done.done_ns >= 100 + cfg.pg_wr_lat);
    struct ftl_request r = req(FTL_OP_READ, done.done_ns, 0, 1);
    struct ftl_served read_done;
    CHECK_EQ_U64(ftl_engine_serve(e, &r, &read_done), FTL_OK);
    CHECK(read_done.done_ns >= done.done_ns + cfg.pg_rd_lat);
    struct ftl_request f = req(FTL_OP_FLUSH, 777 * S, 0, 0);
    CHECK_EQ_U64(ftl_engine_serve(e, &f, &done), FTL_OK);
    CHECK_EQ_U64(done.done_ns, 777 * S);       /* no volatile cache: nothing to wait for */

    /* An error leaves the FTL unchanged and completes at arrival. */
    uint64_t logical_sectors = ftl_geometry_of(ftl)->logical_sectors;
    struct ftl_request bad = req(FTL_OP_WRITE, 900 * S, logical_sectors - 1, 2);
    CHECK_EQ_U64(ftl_engine_serve(e, &bad, &done), (uint64_t)FTL_E_RANGE);
    CHECK_EQ_U64(done.done_ns, 900 * S);

    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(c.host_write_cmds, 1);
    CHECK_EQ_U64(c.host_read_cmds, 1);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

struct stop_after {
    unsigned calls, allow;
};

static bool stop_after_n(void *opaque)
{
    struct stop_after *s = opaque;
    return s->calls++ >= s->allow;
}

static void test_trim_ranges(void)
{
    struct ftl_config cfg = lines8();
    struct ftl *ftl = make_ftl(&cfg);
    struct stop_after stop = { 0, 2 };
    struct ftl_engine_hooks hooks = { .opaque = &stop, .stop = stop_after_n };
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, &hooks);
    struct ftl_served done;

    CHECK(write_pages(ftl, 0, 0, 16, NULL) == FTL_OK);
    /* Three ranges, the middle one empty; the stop hook lets two range checks through. */
    struct ftl_range ranges[] = { { 0, 2 }, { 4, 0 }, { 8, 3 } };
    struct ftl_request t = { .op = FTL_OP_TRIM, .arrival_ns = 5 * S, .ranges = ranges,
                             .nranges = 3 };
    CHECK_EQ_U64(ftl_engine_serve(e, &t, &done), FTL_OK);
    CHECK(!ftl_lpn_is_mapped(ftl, 0) && !ftl_lpn_is_mapped(ftl, 1));
    CHECK(ftl_lpn_is_mapped(ftl, 8));   /* the third range came after the stop */
    CHECK_EQ_U64(done.done_ns, 5 * S);

    /* Without a stop every non-empty range is done; a single range works too. */
    stop.allow = 100;
    CHECK_EQ_U64(ftl_engine_serve(e, &t, &done), FTL_OK);
    for (uint64_t lpn = 8; lpn < 11; lpn++) {
        CHECK(!ftl_lpn_is_mapped(ftl, lpn));
    }
    CHECK(ftl_lpn_is_mapped(ftl, 4) && ftl_lpn_is_mapped(ftl, 11));
    struct ftl_request one = req(FTL_OP_TRIM, 6 * S, 11, 1);
    CHECK_EQ_U64(ftl_engine_serve(e, &one, &done), FTL_OK);
    CHECK(!ftl_lpn_is_mapped(ftl, 11));
    CHECK_CONSISTENT(ftl);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

/* Whether a request's figures say GC ran (as the device traces it). */
static bool gc_ran(const struct ftl_gc_work *w)
{
    return w->lines || w->moved_pages;
}

/* Four full lines, line 2 half invalid (a victim), and an engine over them. */
static struct ftl *ftl_with_victim_mode(struct ftl_engine **engine, enum ftl_gc_mode mode)
{
    struct ftl_config cfg = lines8();
    cfg.gc_mode = mode;
    struct ftl *ftl = make_ftl(&cfg);

    *engine = ftl_engine_create(ftl, NULL, NULL);
    CHECK(write_pages(ftl, 0, 0, 32, NULL) == FTL_OK);
    CHECK(write_pages(ftl, 0, 16, 4, NULL) == FTL_OK);
    return ftl;
}

/* Whole-line background GC: one run per request. */
static struct ftl *ftl_with_victim(struct ftl_engine **engine)
{
    return ftl_with_victim_mode(engine, FTL_GC_LINE);
}

/* Background GC gets its chance after a read as after a write (FEMU's loop does so). */
static void test_background_gc_after_any_request(void)
{
    static const enum ftl_op kinds[] = { FTL_OP_READ, FTL_OP_FLUSH, FTL_OP_WRITE };

    for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        struct ftl_engine *e;
        struct ftl *ftl = ftl_with_victim(&e);
        struct ftl_served served;

        ftl->geo.gc_thres_lines = ftl->free_count;           /* background GC now due */
        struct ftl_request r = req(kinds[k], S, 40, 1);
        CHECK_EQ_U64(ftl_engine_serve(e, &r, &served), FTL_OK);
        struct ftl_counters c;
        ftl_get_counters(ftl, &c);
        CHECK_EQ_U64(c.gc_runs, 1);
        /* Returned as background GC, with the FTL's own figures; none inside the request. */
        CHECK(!gc_ran(&served.fg));
        CHECK_EQ_U64(served.bg.lines, 1);
        CHECK_EQ_U64(served.bg.moved_pages, c.gc_moved_pages);
        CHECK_EQ_U64(served.bg.erased_blocks, c.gc_erased_blocks);
        CHECK_CONSISTENT(ftl);
        ftl_engine_destroy(e);
        ftl_destroy(ftl);
    }
}

/* The latest time any LUN is busy until. */
static uint64_t luns_busy_until(const struct ftl *ftl)
{
    uint64_t t = 0;
    for (uint32_t lun = 0; lun < ftl->luns; lun++) {
        t = ftl->lun_avail_ns[lun] > t ? ftl->lun_avail_ns[lun] : t;
    }
    return t;
}

/* Paced GC collects the line line GC would, at once in the maps (returned as background
 * GC), but owes the flash its moves (counted as they are charged): right after, the LUNs
 * are busy for less long. */
static void test_paced_gc_reported(void)
{
    uint64_t busy[2], moved[2];
    enum ftl_gc_mode modes[2] = { FTL_GC_PACED, FTL_GC_LINE };

    for (int m = 0; m < 2; m++) {
        struct ftl_engine *e;
        struct ftl *ftl = ftl_with_victim_mode(&e, modes[m]);
        struct ftl_served served;

        ftl->geo.gc_thres_lines = ftl->free_count;           /* background GC now due */
        struct ftl_request r = req(FTL_OP_READ, S, 40, 1);
        CHECK_EQ_U64(ftl_engine_serve(e, &r, &served), FTL_OK);
        struct ftl_counters c;
        ftl_get_counters(ftl, &c);
        CHECK(c.gc_moved_pages > 0);
        CHECK_EQ_U64(c.gc_runs, 1);
        CHECK(!gc_ran(&served.fg));
        CHECK_EQ_U64(served.bg.lines, 1);
        CHECK_EQ_U64(served.bg.moved_pages, c.gc_moved_pages);
        CHECK_CONSISTENT(ftl);
        busy[m] = luns_busy_until(ftl);
        moved[m] = c.gc_moved_pages + ftl->gc_debt_moves;  /* counted once charged */
        ftl_engine_destroy(e);
        ftl_destroy(ftl);
    }
    CHECK_EQ_U64(moved[0], moved[1]);
    CHECK(busy[0] < busy[1]);
}

/* Foreground GC inside a write is returned as such, apart from any background collection. */
static void test_foreground_gc_reported(void)
{
    struct ftl_engine *e;
    struct ftl *ftl = ftl_with_victim(&e);
    struct ftl_served served;

    ftl->geo.gc_thres_lines = 0;                         /* no background GC */
    ftl->geo.gc_thres_lines_high = ftl->free_count;      /* the next write must collect */
    struct ftl_request w = req(FTL_OP_WRITE, 2 * S, 40, 1);
    CHECK_EQ_U64(ftl_engine_serve(e, &w, &served), FTL_OK);
    CHECK(gc_ran(&served.fg));
    CHECK(!gc_ran(&served.bg));
    struct ftl_counters c;
    ftl_get_counters(ftl, &c);
    CHECK_EQ_U64(served.fg.lines, c.gc_runs);
    CHECK(c.gc_runs >= 1);
    CHECK_CONSISTENT(ftl);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

static void test_completion_order(void)
{
    struct ftl_config cfg = lines8();
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_engine *e = ftl_engine_create(ftl, NULL, NULL);
    int tags[5];
    struct ftl_served done[5];
    uint64_t due;

    CHECK(!ftl_engine_next_due(e, &due));
    /* A write (slow), a read of never-written space (free) and flushes at one time. */
    struct ftl_request rq[5] = {
        req(FTL_OP_WRITE, 10, 0, 1), req(FTL_OP_READ, 10, 100, 1), req(FTL_OP_FLUSH, 10, 0, 0),
        req(FTL_OP_FLUSH, 10, 0, 0), req(FTL_OP_READ, 20, 0, 1),
    };
    for (int i = 0; i < 5; i++) {
        CHECK_EQ_U64(ftl_engine_submit(e, &rq[i], &tags[i], &done[i]), FTL_OK);
    }
    CHECK_EQ_U64(ftl_engine_queued(e), 5);
    CHECK(ftl_engine_next_due(e, &due) && due == 10);
    void *out[8];
    /* Equal completion times leave in submission order. */
    CHECK_EQ_U64(ftl_engine_pop_due(e, 10, out, 8), 3);
    CHECK(out[0] == &tags[1] && out[1] == &tags[2] && out[2] == &tags[3]);
    /* the read waits for the program */
    CHECK(done[0].done_ns > 10 && done[4].done_ns > done[0].done_ns);
    CHECK_EQ_U64(ftl_engine_pop_due(e, done[0].done_ns - 1, out, 8), 0);
    CHECK_EQ_U64(ftl_engine_pop_due(e, UINT64_MAX, out, 1), 1);
    CHECK(out[0] == &tags[0]);
    CHECK_EQ_U64(ftl_engine_pop_due(e, UINT64_MAX, out, 8), 1);
    CHECK(out[0] == &tags[4]);
    CHECK_EQ_U64(ftl_engine_queued(e), 0);
    ftl_engine_destroy(e);
    ftl_destroy(ftl);
}

struct stats_errors {
    unsigned count;
};

static void count_stats_error(void *opaque, const char *what, const char *err)
{
    (void)what;
    (void)err;
    ((struct stats_errors *)opaque)->count++;
}

static size_t count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    size_t lines = 0;
    int ch;

    if (!f) {
        return 0;
    }
    while ((ch = fgetc(f)) != EOF) {
        lines += ch == '\n';
    }
    fclose(f);
    return lines;
}

/* The engine writes a row at each 1 s boundary of the arrival times it is given. */
static void test_stats_tick(void)
{
    char dir[] = "/tmp/ftl-engine-test-XXXXXX";
    char err[256], path[512];
    struct stats_errors errors = { 0 };
    struct ftl_engine_hooks hooks = { .opaque = &errors, .stats_error = count_stats_error };

    CHECK(mkdtemp(dir) != NULL);
    struct ftl_config cfg = lines8();
    struct ftl *ftl = make_ftl(&cfg);
    struct ftl_stats_writer *w = ftl_stats_open(dir, ftl, 0, err, sizeof(err));
    CHECK(w != NULL);
    struct ftl_engine *e = ftl_engine_create(ftl, w, &hooks);

    struct ftl_request a = req(FTL_OP_WRITE, S / 2, 0, 1);
    CHECK_EQ_U64(ftl_engine_serve(e, &a, NULL), FTL_OK);
    snprintf(path, sizeof(path), "%s/IOPSData.csv", dir);
    CHECK(count_lines(path) <= 1);               /* at most the header: no second has ended */
    struct ftl_request b = req(FTL_OP_READ, 3 * S + 1, 0, 1);
    CHECK_EQ_U64(ftl_engine_serve(e, &b, NULL), FTL_OK);
    CHECK_EQ_U64(count_lines(path), 4);          /* seconds 1, 2 and 3 */
    ftl_engine_advance(e, 5 * S);                /* idle time still gets rows */
    CHECK_EQ_U64(count_lines(path), 6);
    ftl_engine_phase(e, 5 * S, "end");
    CHECK_EQ_U64(errors.count, 0);

    ftl_engine_destroy(e);
    CHECK(ftl_stats_close(w, 5 * S, err, sizeof(err)) == 0);
    ftl_destroy(ftl);
    static const char *files[] = { "GCData.csv", "IOPSData.csv", "WAFData.csv", "phases.csv",
                                   "statistics.csv", "stats.csv", "throughputData.csv",
                                   "gc_victims.csv", "nand.csv", "ch_util.csv" };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        unlink(path);
    }
    CHECK(rmdir(dir) == 0);
}

int main(void)
{
    test_dispatch();
    test_trim_ranges();
    test_background_gc_after_any_request();
    test_paced_gc_reported();
    test_foreground_gc_reported();
    test_completion_order();
    test_stats_tick();
    return check_summary();
}
