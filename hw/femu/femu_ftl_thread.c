/*
 * The FTL thread: the only caller of the FTL and of its statistics writer. It takes
 * requests from the poller's ring, stamps them with their fetch time, asks the FTL when
 * the flash work completes, runs FEMU's per-request background GC check, and returns the
 * requests. It also writes the statistics: it wakes at every 1 s boundary whether or not
 * there is I/O, so an idle device still gets its rows.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/error-report.h"
#include "qemu/rcu.h"
#include "qemu/timer.h"

#include <poll.h>

#include "femu_ctrl.h"

#define FEMU_FTL_BATCH 64
#define FEMU_ERR_LEN 256

void femu_ftl_kick(FemuCtrl *n)
{
    smp_mb();
    if (qatomic_read(&n->ftl_sleeping)) {
        event_notifier_set(&n->ftl_wake);
    }
}

static void femu_stats_error(FemuCtrl *n, const char *what, const char *err)
{
    /* Once per run: a full disk must not flood the log every second. */
    if (!n->stats_error_reported) {
        n->stats_error_reported = true;
        error_report("femu: statistics: %s: %s", what, err);
    }
}

static void femu_stats_advance(FemuCtrl *n, uint64_t now)
{
    char err[FEMU_ERR_LEN];

    if (n->stats && ftl_stats_advance(n->stats, now, err, sizeof(err)) != 0) {
        femu_stats_error(n, "writing rows", err);
    }
}

static uint16_t femu_ftl_status(int rc)
{
    return rc == FTL_OK ? NVME_SUCCESS : NVME_INTERNAL_DEV_ERROR;
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
    return (req->op == FEMU_OP_READ || req->op == FEMU_OP_WRITE || req->op == FEMU_OP_TRIM ||
            req->op == FEMU_OP_DSM) && req->epoch != qatomic_read(&n->epoch);
}

static void femu_ftl_execute(FemuCtrl *n, FemuRequest *req, uint64_t now)
{
    char err[FEMU_ERR_LEN];
    uint64_t done = req->io.now_ns;

    if (femu_ftl_stale(n, req)) {
        req->done_ns = now;   /* the poller drops it */
        return;
    }
    switch (req->op) {
    case FEMU_OP_READ:
        req->status = femu_ftl_status(ftl_read(n->ftl, &req->io, &done));
        break;
    case FEMU_OP_WRITE:
        req->status = femu_ftl_status(ftl_write(n->ftl, &req->io, &done));
        break;
    case FEMU_OP_TRIM:
        req->status = femu_ftl_status(ftl_trim(n->ftl, &req->io, &done));
        break;
    case FEMU_OP_DSM:
        for (uint32_t i = 0; i < req->nranges && req->status == NVME_SUCCESS &&
                             !qatomic_read(&n->stop); i++) {
            struct ftl_io io = {
                .now_ns = req->io.now_ns,
                .slba = le64_to_cpu(req->ranges[i].slba),
                .nlb = le32_to_cpu(req->ranges[i].nlb),
            };
            uint64_t range_done = io.now_ns;

            if (io.nlb) {
                req->status = femu_ftl_status(ftl_trim(n->ftl, &io, &range_done));
                done = MAX(done, range_done);
            }
        }
        break;
    case FEMU_OP_LPN_DUMP:
        femu_lpn_dump(n, req);
        done = now;
        break;
    case FEMU_OP_PHASE:
        if (ftl_stats_phase(n->stats, now, req->phase, err, sizeof(err)) != 0) {
            femu_stats_error(n, "phases.csv", err);
            req->status = NVME_INTERNAL_DEV_ERROR;
        }
        done = now;
        break;
    case FEMU_OP_NONE:
        break;
    }
    req->done_ns = MAX(done, req->io.now_ns);
    if (req->op == FEMU_OP_WRITE || req->op == FEMU_OP_TRIM || req->op == FEMU_OP_DSM) {
        ftl_background_gc(n->ftl, now);
    }
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

static void femu_ftl_finish(FemuCtrl *n)
{
    char err[FEMU_ERR_LEN];
    FemuRequest dump = { .op = FEMU_OP_LPN_DUMP };

    if (!n->stats) {
        return;
    }
    if (ftl_stats_close(n->stats, femu_now_ns(), err, sizeof(err)) != 0) {
        femu_stats_error(n, "closing", err);
    }
    n->stats = NULL;
    femu_lpn_dump(n, &dump);
}

void *femu_ftl_thread_run(void *opaque)
{
    FemuCtrl *n = opaque;
    void *items[FEMU_FTL_BATCH];

    rcu_register_thread();
    while (!qatomic_read(&n->stop)) {
        size_t count = spsc_ring_pop_batch(n->to_ftl, items, ARRAY_SIZE(items));
        uint64_t now = femu_now_ns();

        femu_stats_advance(n, now);
        if (count == 0) {
            femu_ftl_sleep(n);
            continue;
        }
        /* Stop between requests: exit and unplug never wait for a queue of them. */
        for (size_t i = 0; i < count && !qatomic_read(&n->stop); i++) {
            femu_ftl_execute(n, items[i], now);
            spsc_ring_push(n->from_ftl, items[i]);
        }
        femu_poller_kick(n);
    }
    femu_ftl_finish(n);
    rcu_unregister_thread();
    return NULL;
}
