/*
 * The FTL thread: it takes requests from the poller's ring, hands each to the FTL engine
 * (and through it to the FTL and its statistics writer) with the time the poller fetched
 * it, and returns them with the time the flash work completes. It also keeps the
 * statistics going: it wakes at every 1 s boundary whether or not there is I/O, so an idle
 * device still gets its rows.
 *
 * A read, or a command without FTL work (FTL_OP_ADMIN: no flash, no GC), that finds the
 * FTL thread idle (engine_lock free, nothing waiting in the ring) is served by the poller
 * itself (femu_ftl_serve_inline): two thread hand-offs fewer on the QD1 read path. The
 * lock is taken before requests leave the ring, so a request in the ring is never
 * overtaken: the engine sees requests in fetch order either way.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/error-report.h"
#include "qemu/rcu.h"
#include "qemu/timer.h"

#include <poll.h>

#include "backend/fdp_ftl.h"
#include "backend/ftl_status.h"
#include "backend/ftl_thread.h"
#include "backend/ftl_view.h"
#include "backend/power_cut.h"
#include "ctrl/wake.h"
#include "femu_ftl/trace.h"
#include "trace.h"

#define FEMU_FTL_BATCH 64
#define FEMU_ERR_LEN 256

static void femu_stats_error(FemuCtrl *n, const char *what, const char *err)
{
    /* Once per run: a full disk must not flood the log every second. */
    if (!n->stats_error_reported) {
        n->stats_error_reported = true;
        error_report("femu: statistics: %s: %s", what, err);
    }
}

/* Engine hooks. */
static bool femu_ftl_stopping(void *opaque)
{
    FemuCtrl *n = opaque;

    return qatomic_read(&n->stop);
}

/* A failing trace_out is reported once too, apart from the statistics. */
static void femu_trace_error(FemuCtrl *n, const char *err)
{
    if (!n->trace_error_reported) {
        n->trace_error_reported = true;
        error_report("femu: trace_out: %s", err);
    }
}

static void femu_ftl_stats_error(void *opaque, const char *what, const char *err)
{
    femu_stats_error(opaque, what, err);
}

static void femu_ftl_trace_error(void *opaque, const char *err)
{
    femu_trace_error(opaque, err);
}

bool femu_ftl_engine_create(FemuCtrl *n)
{
    const struct ftl_engine_hooks hooks = {
        .opaque = n, .stop = femu_ftl_stopping, .stats_error = femu_ftl_stats_error,
        .trace_error = femu_ftl_trace_error,
    };

    n->engine = ftl_engine_create(n->ftl, n->stats, &hooks);
    if (!n->engine) {
        return false;
    }
    ftl_engine_record(n->engine, n->trace);
    /* Time (the power states' counts) runs from the statistics' and the recording's origin,
     * as a replay's does from its time 0 (ftl-sim's sim_run_init). */
    ftl_engine_advance(n->engine, n->stats_start_ns);
    /* The stores realize made (kv_ns_mb) are the recording's first records; a restored
     * state's are in its file, from which a replay starts too. */
    for (uint32_t nsid = 1; !n->state_in && nsid <= FEMU_MAX_NAMESPACES; nsid++) {
        if (n->ns[nsid].kv) {
            femu_ftl_kv_life(n, nsid, true, n->stats_start_ns);
        }
    }
    return true;
}

static void femu_lpn_dump(FemuCtrl *n, FemuRequest *req)
{
    char err[FEMU_ERR_LEN];
    char *path = g_build_filename(n->stats_dir, "lpn_access_count.csv", NULL);

    if (ftl_stats_write_lpn_counts(n->ftl, path, err, sizeof(err)) != 0) {
        femu_stats_error(n, "lpn_access_count.csv", err);
        req->status = NVME_INTERNAL_DEV_ERROR;
    }
    g_free(path);
}

/* Flash work of a command a controller reset dropped: nobody waits for it any more. */
static bool femu_ftl_stale(FemuCtrl *n, const FemuRequest *req)
{
    enum ftl_op op = req->ftl.op;

    /* Only work that changed nothing at fetch is skipped. A write (its data is in the
     * store), a deallocate (the store discarded it), a format, a namespace delete, zone
     * writes and zone management (admitted at fetch) are served anyway: the FTL must map
     * what the store holds. */
    return req->work == FEMU_WORK_FTL &&
           (op == FTL_OP_READ || op == FTL_OP_FLUSH || op == FTL_OP_VERIFY ||
            op == FTL_OP_ZONE_READ) &&
           !req->keep_on_reset && req->epoch != qatomic_read(&n->epoch);
}

/* One engine call: its completion time in *done_ns, the GC it caused traced; the power
 * state it left the drive in, in *power_state when not NULL. */
static int femu_ftl_serve_state(FemuCtrl *n, const struct ftl_request *r, uint64_t *done_ns,
                                uint32_t *power_state)
{
    struct ftl_served served = { 0 };
    int rc = ftl_engine_serve(n->engine, r, &served);

    if (served.fg.lines || served.fg.moved_pages) {
        trace_femu_gc("foreground", served.fg.lines, served.fg.moved_pages,
                      served.fg.erased_blocks, r->arrival_ns);
    }
    if (served.bg.lines || served.bg.moved_pages) {
        trace_femu_gc("background", served.bg.lines, served.bg.moved_pages,
                      served.bg.erased_blocks, r->arrival_ns);
    }
    *done_ns = served.done_ns;
    if (power_state) {
        *power_state = served.power_state;
    }
    return rc;
}

static int femu_ftl_serve(FemuCtrl *n, const struct ftl_request *r, uint64_t *done_ns)
{
    return femu_ftl_serve_state(n, r, done_ns, NULL);
}

/* Format NVM: one FTL format per namespace (a range each); done with the last erase. */
static void femu_ftl_format(FemuCtrl *n, FemuRequest *req, uint64_t *done_ns)
{
    struct ftl_request r = req->ftl;

    r.ranges = NULL;
    r.nranges = 0;
    for (uint32_t i = 0; i < req->ftl.nranges && req->status == NVME_SUCCESS; i++) {
        uint64_t range_done;

        r.slba = req->ftl.ranges[i].slba;
        r.nlb = req->ftl.ranges[i].nlb;
        req->status = femu_ftl_status(femu_ftl_serve(n, &r, &range_done));
        *done_ns = MAX(*done_ns, range_done);
    }
}

/* FDP's Reclaim Unit Handle Update: one FTL_OP_RUH_UPDATE per handle (cmd/fdp/fdp_io.c, or
 * every handle for a controller reset's, cmd/fdp/fdp.c); no flash time. */
static void femu_ftl_ruh_update(FemuCtrl *n, FemuRequest *req, uint64_t *done_ns)
{
    struct ftl_request r = req->ftl;

    for (uint32_t ruh = 0; ruh < FEMU_FDP_MAX_RUHS && req->status == NVME_SUCCESS; ruh++) {
        uint64_t done;

        if (req->ruh_update >> ruh & 1) {
            r.stream = ruh;
            req->status = femu_ftl_status(femu_ftl_serve(n, &r, &done));
            *done_ns = MAX(*done_ns, done);
        }
    }
}

/* FTL work other than a format. Zone operations were admitted at fetch (cmd/io/zns.c): the
 * engine does the flash work of what the poller already decided; a failure here would be
 * the FTL's own. */
static void femu_ftl_work(FemuCtrl *n, FemuRequest *req, uint64_t *done_ns)
{
    uint32_t power_state = 0;

    if (req->pre_data) {
        femu_power_cut_before_serve(n, req);
    }
    int rc = femu_ftl_serve_state(n, &req->ftl, done_ns, &power_state);

    femu_power_cut_after_serve(n, req);     /* the pre-images of what it buffered */

    if (rc == FTL_E_UNCORRECTABLE) {    /* a conventional read's or verify's page */
        req->media_error = true;    /* the poller marks the page (femu_media_done) */
        req->error_lpn = ftl_read_error_lpn(n->ftl);
    }
    /* Served: what the poller found at fetch (marked LBAs, a miscompare) stands, unless
     * the FTL failed the request itself. */
    req->status = rc == FTL_OK ? req->status_on_done : femu_ftl_status(rc);
    if (rc == FTL_OK && req->ftl.op == FTL_OP_POWER &&
        req->ftl.power->action == FTL_POWER_GET_STATE) {
        req->result |= power_state;     /* Get Features 02h: PS beside the host's WH */
    }
}

static void femu_ftl_execute(FemuCtrl *n, FemuRequest *req, uint64_t now)
{
    uint64_t done = req->ftl.arrival_ns;

    if (femu_ftl_stale(n, req)) {
        req->done_ns = now;   /* the poller drops it */
        return;
    }
    switch (req->work) {
    case FEMU_WORK_FTL:
        if (req->ftl.op == FTL_OP_FORMAT) {
            femu_ftl_format(n, req, &done);
        } else if (req->ftl.op == FTL_OP_RUH_UPDATE) {
            femu_ftl_ruh_update(n, req, &done);
        } else {
            femu_ftl_work(n, req, &done);
        }
        if (n->fdp.supported) {
            femu_fdp_ftl_events(n, req);
        }
        break;
    case FEMU_WORK_LPN_DUMP:
        if (req->drain) {
            /* a shutdown: nothing may stay in the write buffer */
            struct ftl_request flush = { .op = FTL_OP_FLUSH, .arrival_ns = now, .nsid = 1 };
            uint64_t flushed;

            femu_ftl_serve(n, &flush, &flushed);
        }
        if (n->stats_dir) {
            femu_lpn_dump(n, req);
        }
        done = now;
        break;
    case FEMU_WORK_PHASE:
        if (ftl_engine_phase(n->engine, req->ftl.arrival_ns, req->phase) != 0) {
            req->status = NVME_INTERNAL_DEV_ERROR;
        }
        done = now;
        break;
    case FEMU_WORK_NONE:
        break;
    }
    req->done_ns = MAX(done, req->ftl.arrival_ns);
    femu_ftl_view_publish(n);
}

bool femu_ftl_serve_inline(FemuCtrl *n, FemuRequest *req)
{
    if (req->work != FEMU_WORK_FTL ||
        (req->ftl.op != FTL_OP_READ && req->ftl.op != FTL_OP_ADMIN) ||
        qemu_mutex_trylock(&n->engine_lock) != 0) {
        return false;
    }
    /* The poller is the ring's only producer: empty now means nothing earlier waits. */
    bool idle = spsc_ring_count(n->to_ftl) == 0;

    if (idle) {
        femu_ftl_execute(n, req, femu_now_ns());
    }
    qemu_mutex_unlock(&n->engine_lock);
    return idle;
}

void femu_ftl_serve_queued(FemuCtrl *n)
{
    void *items[FEMU_FTL_BATCH];
    size_t count;

    /* Both rings' FTL ends are only used under engine_lock, which the caller holds. */
    while ((count = spsc_ring_pop_batch(n->to_ftl, items, ARRAY_SIZE(items))) > 0) {
        uint64_t now = femu_now_ns();

        for (size_t i = 0; i < count; i++) {
            femu_ftl_execute(n, items[i], now);
            spsc_ring_push(n->from_ftl, items[i]);
        }
    }
}

void femu_ftl_kv_life(FemuCtrl *n, uint32_t nsid, bool create, uint64_t now)
{
    struct ftl_request r = { .op = create ? FTL_OP_KV_CREATE : FTL_OP_KV_DESTROY,
                             .arrival_ns = now, .nsid = nsid,
                             .flags = create ? FTL_REQ_ADMITTED : 0 };
    struct ftl_kv_info info;
    uint64_t done;

    if (!n->engine) {
        /* realize: femu_ftl_engine_create records the stores made before it */
        if (!create) {
            ftl_kv_destroy(n->ftl, nsid);
        }
        return;
    }
    /* In fetch order: what was fetched before it is served before it, so a recording puts
     * the commands of a namespace being deleted before its store's end, as they ran. */
    femu_ftl_serve_queued(n);
    if (create) {
        if (!ftl_kv_info(n->ftl, nsid, &info)) {
            return;
        }
        r.slba = info.base_sector;
        r.nlb = info.sectors;
        r.kv_capacity = info.capacity_bytes;
    }
    femu_ftl_serve(n, &r, &done);
    femu_ftl_view_publish(n);
}

static uint64_t femu_next_stats_deadline(FemuCtrl *n, uint64_t now)
{
    uint64_t elapsed = now - n->stats_start_ns;

    return n->stats_start_ns +
           (elapsed / NANOSECONDS_PER_SECOND + 1) * NANOSECONDS_PER_SECOND;
}

static void femu_ftl_sleep(FemuCtrl *n)
{
    struct pollfd pfd = { .fd = event_notifier_get_fd(&n->ftl_wake), .events = POLLIN };
    struct timespec timeout, *tp = NULL;

    if (n->stats) {
        uint64_t now = femu_now_ns();
        uint64_t left = femu_next_stats_deadline(n, now) - now;

        timeout.tv_sec = left / NANOSECONDS_PER_SECOND;
        timeout.tv_nsec = left % NANOSECONDS_PER_SECOND;
        tp = &timeout;
    }
    qatomic_set(&n->ftl_sleeping, 1);
    smp_mb();   /* pairs with femu_ftl_kick */
    if (spsc_ring_count(n->to_ftl) == 0 && !qatomic_read(&n->stop)) {
        ppoll(&pfd, 1, tp, NULL);
    }
    qatomic_set(&n->ftl_sleeping, 0);
    event_notifier_test_and_clear(&n->ftl_wake);
}

/* The statistics and the trace end at the same instant, so a replay ends where they did. */
static void femu_ftl_finish(FemuCtrl *n)
{
    char err[FEMU_ERR_LEN];
    FemuRequest dump = { .work = FEMU_WORK_LPN_DUMP };
    uint64_t now = femu_now_ns();

    qemu_mutex_lock(&n->engine_lock);
    if (n->trace && io_trace_writer_close(n->trace, now, err, sizeof(err)) != 0) {
        femu_trace_error(n, err);
    }
    n->trace = NULL;
    if (n->stats) {
        if (ftl_stats_close(n->stats, now, err, sizeof(err)) != 0) {
            femu_stats_error(n, "closing", err);
        }
        n->stats = NULL;
        femu_lpn_dump(n, &dump);
    }
    qemu_mutex_unlock(&n->engine_lock);
}

void *femu_ftl_thread_run(void *opaque)
{
    FemuCtrl *n = opaque;
    void *items[FEMU_FTL_BATCH];

    rcu_register_thread();
    while (!qatomic_read(&n->stop)) {
        qemu_mutex_lock(&n->engine_lock);
        size_t count = spsc_ring_pop_batch(n->to_ftl, items, ARRAY_SIZE(items));
        uint64_t now = femu_now_ns();

        if (count == 0) {
            /* Rows for the seconds that passed idle; with requests the engine ticks at
             * their arrival times, so each row holds the commands that arrived in it. */
            ftl_engine_advance(n->engine, now);
            qemu_mutex_unlock(&n->engine_lock);
            femu_ftl_sleep(n);
            continue;
        }
        /* Stop between requests: exit and unplug never wait for a queue of them. */
        for (size_t i = 0; i < count && !qatomic_read(&n->stop); i++) {
            femu_ftl_execute(n, items[i], now);
            spsc_ring_push(n->from_ftl, items[i]);
        }
        qemu_mutex_unlock(&n->engine_lock);
        femu_poller_kick(n);
    }
    femu_ftl_finish(n);
    rcu_unregister_thread();
    return NULL;
}
