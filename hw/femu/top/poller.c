/*
 * The poller thread: the controller's engine. Each pass it runs the state machine's
 * transitions a CC write or a reset asked for (top/ctrl_state.c), fetches commands from
 * every submission queue, executes them (data moves between guest memory and the data
 * store at once), hands flash work to the FTL thread, takes back what the FTL finished,
 * and posts the completions whose time has come. When a pass found nothing to do it
 * polls for a short window after recent I/O (top/poll_window.c), then sleeps: until the
 * next completion is due, or until a doorbell, CC write or the FTL thread wakes it. An
 * idle controller therefore costs no CPU.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/log.h"
#include "qemu/rcu.h"
#include "qemu/timer.h"
#include "qapi/error.h"

#include <poll.h>
#include <sys/prctl.h>

#include "backend/ftl_thread.h"
#include "backend/lpn_dump.h"
#include "backend/power_cut.h"
#include "cmd/core/cmd_set.h"
#include "cmd/core/front_cmd.h"
#include "cmd/health/error_log.h"
#include "cmd/health/media.h"
#include "ctrl/dma.h"
#include "ctrl/queue.h"
#include "ctrl/request.h"
#include "ctrl/wake.h"
#include "top/ctrl_state.h"
#include "top/poll_window.h"
#include "top/poller.h"
#include "top/state_save.h"
#include "trace.h"

#define FEMU_COMPLETE_BATCH 64
#define FEMU_CMD_FUSE_MASK  0x03    /* CDW0 bits 9:8 */
#define FEMU_CMD_PSDT_MASK  0xc0    /* CDW0 bits 15:14 */

static void femu_execute(FemuCtrl *n, uint16_t qid, const NvmeCmd *cmd, FemuRequest *req)
{
    memset(req, 0, offsetof(FemuRequest, list_next));
    req->sqid = qid;
    req->cid = le16_to_cpu(cmd->cid);
    req->sq_gen = n->sq[qid].gen;
    req->epoch = n->epoch;
    req->ftl.arrival_ns = femu_now_ns();
    n->cmd_bytes_in = n->cmd_bytes_out = 0;     /* ctrl/dma.c counts what it moves */

    if (cmd->flags & (FEMU_CMD_FUSE_MASK | FEMU_CMD_PSDT_MASK)) {
        req->status = femu_dnr(NVME_INVALID_FIELD);   /* no fused commands, PRPs only */
    } else {
        req->status = qid == 0 ? femu_admin_cmd(n, cmd, req) : femu_io_cmd(n, cmd, req);
    }
    if (req->status == NVME_NO_COMPLETE) {
        return;                  /* an AER: cmd/core/aer.c holds it until an event */
    }
    trace_femu_cmd(qid, req->cid, cmd->opcode, le32_to_cpu(cmd->nsid), req->status);
    if (req->status != NVME_SUCCESS) {
        uint64_t slba = le32_to_cpu(cmd->cdw10) | (uint64_t)le32_to_cpu(cmd->cdw11) << 32;

        qemu_log_mask(LOG_GUEST_ERROR, "femu: sqid %u cid %u opcode 0x%x nsid %u: status "
                      "0x%x\n", qid, req->cid, cmd->opcode, le32_to_cpu(cmd->nsid),
                      req->status);
        femu_error_log_add(n, req, le32_to_cpu(cmd->nsid), qid ? slba : 0);
        req->work = FEMU_WORK_NONE;
    }
    femu_front_cmd(n, qid, cmd, req);   /* the link model: its transfers without FTL work */
    if (req->work == FEMU_WORK_LPN_DUMP) {
        femu_lpn_dump_submit(n, req);
        return;
    }
    if (req->work != FEMU_WORK_NONE && femu_ftl_serve_inline(n, req)) {
        femu_media_done(n, req);
        completion_heap_push(&n->heap, req->done_ns, req);
        return;
    }
    if (req->work != FEMU_WORK_NONE) {
        spsc_ring_push(n->to_ftl, req);   /* cannot fail: the ring holds the whole pool */
        femu_ftl_kick(n);
        return;
    }
    req->done_ns = req->ftl.arrival_ns;
    completion_heap_push(&n->heap, req->done_ns, req);   /* room for the whole pool too */
}

static unsigned femu_fetch(FemuCtrl *n, uint16_t qid)
{
    FemuSQueue *sq = &n->sq[qid];
    unsigned fetched = 0;
    uint32_t tail;

    if (!femu_sq_pending(n, qid, &tail)) {
        return 0;
    }
    trace_femu_fetch(qid, sq->head, tail);
    /* A CC write (a reset above all) waits for the command being run, not for the pass:
     * 64 SQEs from each of 64 queues, each up to MDTS of data, is a long time for a
     * register write that must return at once. */
    while (sq->valid && sq->head != tail && fetched < FEMU_FETCH_BURST &&
           femu_may_fetch(n) && !femu_ctrl_work_pending(n)) {
        NvmeCmd cmd;

        if (femu_dma_read(n, sq->dma_addr + (uint64_t)sq->head * sizeof(cmd), &cmd,
                          sizeof(cmd)) != NVME_SUCCESS) {
            femu_ctrl_fatal(n);
            break;
        }
        sq->head = (sq->head + 1) % sq->size;
        femu_execute(n, qid, &cmd, femu_req_alloc(n));
        fetched++;
        if (!femu_ctrl_serving(n)) {
            break;   /* the command was fatal, or a queue vanished under it */
        }
    }
    if (fetched && qid) {
        femu_poll_note_io(n, femu_now_ns());
    }
    return fetched;
}

static unsigned femu_drain_ftl(FemuCtrl *n)
{
    void *items[FEMU_COMPLETE_BATCH];
    size_t count, total = 0;

    while ((count = spsc_ring_pop_batch(n->from_ftl, items, ARRAY_SIZE(items))) > 0) {
        for (size_t i = 0; i < count; i++) {
            FemuRequest *req = items[i];

            if (req->work == FEMU_WORK_LPN_DUMP) {
                if (femu_lpn_dump_returned(n, req)) {
                    femu_ctrl_shutdown_saved(n);
                }
                femu_ctrl_shutdown_retry(n);    /* the reserved request may be back */
            } else if (req->internal || req->epoch != n->epoch) {
                /* no completion: a controller reset's RUH update (cmd/fdp/fdp.c), or a
                 * request from before a reset */
                femu_req_free(n, req);
            } else {
                femu_media_done(n, req);     /* failed flash reads, errors after fetch */
                completion_heap_push(&n->heap, req->done_ns, req);
            }
        }
        total += count;
    }
    return total;
}

/* Post one completion; a CQ the controller cannot write is fatal (CSTS.CFS). */
static void femu_post(FemuCtrl *n, FemuCQueue *cq, FemuRequest *req)
{
    NvmeCqe cqe = {
        .result = cpu_to_le32(req->result),
        .dw1 = cpu_to_le32(req->result_hi),
        .sq_head = cpu_to_le16(n->sq[req->sqid].head),
        .sq_id = cpu_to_le16(req->sqid),
        .cid = cpu_to_le16(req->cid),
        .status = cpu_to_le16(req->status),
    };

    uint16_t status = femu_cq_post(n, cq, &cqe);
    uint64_t now = femu_now_ns();

    trace_femu_cqe_post((uint16_t)(cq - n->cq), req->sqid, req->cid, req->status,
                        now - req->ftl.arrival_ns);
    if (status == NVME_SUCCESS) {
        femu_power_cut_acked(n, req);   /* an armed cut comes right after its Nth */
        if (req->sqid) {
            femu_poll_note_io(n, now);
        }
    }
    femu_req_free(n, req);
    if (status != NVME_SUCCESS) {
        femu_ctrl_fatal(n);   /* later items of this pass are stale now and get freed */
    }
}

/* Completions held back by a full CQ, oldest first, as room appears. */
static unsigned femu_post_held(FemuCtrl *n)
{
    unsigned posted = 0;

    for (unsigned qid = 0; qid <= n->queues; qid++) {
        FemuCQueue *cq = &n->cq[qid];

        while (cq->valid && cq->held_head && !qatomic_read(&n->power_cut.asked)) {
            FemuRequest *req = cq->held_head;

            if (!femu_req_stale(n, req) && femu_cq_full(n, cq)) {
                break;
            }
            femu_cq_unhold(cq);
            if (femu_req_stale(n, req)) {
                femu_req_free(n, req);
            } else {
                femu_post(n, cq, req);
                posted++;
            }
        }
    }
    return posted;
}

static unsigned femu_complete_due(FemuCtrl *n)
{
    void *items[FEMU_COMPLETE_BATCH];
    unsigned posted = femu_post_held(n);
    size_t count;

    while (!qatomic_read(&n->power_cut.asked) &&
           (count = completion_heap_pop_due(&n->heap, femu_now_ns(), items,
                                            ARRAY_SIZE(items))) > 0) {
        for (size_t i = 0; i < count; i++) {
            FemuRequest *req = items[i];
            FemuCQueue *cq;

            if (qatomic_read(&n->power_cut.asked)) {
                /* a cut came with an earlier one of the batch: nothing more is posted
                 * (these are dropped with the power cycle's reset) */
                completion_heap_push(&n->heap, req->done_ns, req);
                continue;
            }
            if (femu_req_stale(n, req)) {
                femu_req_free(n, req);
                continue;
            }
            cq = &n->cq[n->sq[req->sqid].cqid];
            if (cq->held_head || femu_cq_full(n, cq)) {
                femu_cq_hold(cq, req);
                continue;
            }
            femu_post(n, cq, req);
            posted++;
        }
    }
    return posted;
}

/* Fold how late a timed sleep ended into the running estimate (1/8 weight). */
static void femu_learn_wake_cost(FemuCtrl *n, uint64_t target, uint64_t woke)
{
    uint64_t late = woke > target ? MIN(woke - target, FEMU_SPIN_MAX_NS) : 0;

    n->wake_cost_ns = (7 * n->wake_cost_ns + late) / 8;
}

/*
 * Sleep until a doorbell, CC write or FTL wake-up, or until the next completion is due:
 * for that, a timed sleep ending wake_cost_ns early, then a spin to the due time, so a
 * completion is posted when due rather than a wake-up's latency later.
 */
static void femu_poller_sleep(FemuCtrl *n)
{
    struct pollfd pfd = { .fd = event_notifier_get_fd(&n->poller_wake), .events = POLLIN };
    struct timespec timeout, *tp = NULL;
    uint64_t due = 0, target = 0;
    bool timed = femu_ctrl_serving(n) && completion_heap_peek(&n->heap, &due, NULL);

    if (timed) {
        uint64_t now = femu_now_ns();

        if (due <= now) {
            return;
        }
        if (due - now <= n->wake_cost_ns) {
            /* No sleep to learn from: let the estimate sink a little, so that a quieter
             * host is noticed by a sleep now and then instead of spinning on old news. */
            n->wake_cost_ns -= n->wake_cost_ns / 64;
            femu_poll_spin_until(n, due);   /* only with a completion pending */
            return;
        }
        target = due - n->wake_cost_ns;
        timeout.tv_sec = (target - now) / NANOSECONDS_PER_SECOND;
        timeout.tv_nsec = (target - now) % NANOSECONDS_PER_SECOND;
        tp = &timeout;
    }
    qatomic_set(&n->poller_sleeping, 1);
    smp_mb();   /* pairs with femu_poller_kick: either we see the work or they see us */
    if (!femu_poller_has_work(n) && !(femu_ctrl_serving(n) && femu_arm_eventidx(n)) &&
        ppoll(&pfd, 1, tp, NULL) == 0 && timed) {
        femu_learn_wake_cost(n, target, femu_now_ns());
    }
    qatomic_set(&n->poller_sleeping, 0);
    event_notifier_test_and_clear(&n->poller_wake);
}

static void *femu_poller_run(void *opaque)
{
    FemuCtrl *n = opaque;

    rcu_register_thread();
    prctl(PR_SET_TIMERSLACK, 1UL);   /* wake for a completion when it is due, not 50 us late */
    while (!qatomic_read(&n->stop)) {
        bool work = femu_ctrl_poll(n) | femu_state_poll(n);   /* QMP save-state */

        if (femu_power_cut_due(n)) {    /* QMP power-cut: the power comes back at once */
            qemu_mutex_lock(&n->engine_lock);
            femu_ftl_serve_queued(n);   /* everything fetched reaches the FTL, in order */
            bool cut = femu_power_cut_take(n);
            qemu_mutex_unlock(&n->engine_lock);
            if (cut) {
                femu_ctrl_power_cycle(n);
                femu_power_cut_publish(n);
            }
            work = true;
        }

        if (femu_ctrl_serving(n)) {
            for (unsigned qid = 0; qid <= n->queues && femu_ctrl_serving(n); qid++) {
                work |= femu_fetch(n, qid) > 0;
            }
        }
        work |= femu_drain_ftl(n) > 0;
        if (femu_ctrl_serving(n)) {
            work |= femu_complete_due(n) > 0;
        }
        if (!work && !femu_poll_window(n)) {
            femu_poller_sleep(n);
        }
    }
    rcu_unregister_thread();
    return NULL;
}

bool femu_threads_start(FemuCtrl *n, Error **errp)
{
    char err[256] = "out of memory";

    femu_req_pool_init(n);
    qemu_mutex_init(&n->engine_lock);
    n->engine_lock_init = true;
    n->wake_cost_ns = 0;
    n->to_ftl = spsc_ring_create(FEMU_MAX_INFLIGHT, err, sizeof(err));
    n->from_ftl = n->to_ftl ? spsc_ring_create(FEMU_MAX_INFLIGHT, err, sizeof(err)) : NULL;
    if (!n->from_ftl || !completion_heap_init(&n->heap, FEMU_MAX_INFLIGHT) ||
        !femu_ftl_engine_create(n)) {
        error_setg(errp, "cannot allocate the request queues: %s", err);
        return false;   /* the caller's femu_threads_stop frees what was made */
    }
    prp_segments_init_growable(&n->segs);
    if (event_notifier_init(&n->poller_wake, 0)) {
        error_setg_errno(errp, errno, "cannot create the wake-up eventfds");
        return false;
    }
    if (event_notifier_init(&n->ftl_wake, 0)) {
        error_setg_errno(errp, errno, "cannot create the wake-up eventfds");
        event_notifier_cleanup(&n->poller_wake);
        return false;
    }
    n->wake_fds = true;
    qatomic_set(&n->stop, false);
    qemu_thread_create(&n->ftl_thread, "femu-ftl", femu_ftl_thread_run, n,
                       QEMU_THREAD_JOINABLE);
    qemu_thread_create(&n->poller, "femu-poller", femu_poller_run, n, QEMU_THREAD_JOINABLE);
    n->threads_running = true;
    return true;
}

/*
 * Stop both threads and free what femu_threads_start made (also after it failed part
 * way). The caller may hold the BQL (unrealize, a failed realize) and keeps it while we
 * join: neither thread ever waits for it, and letting go in the middle of an unrealize
 * would let vCPUs and the main loop run against a half-removed device.
 */
void femu_threads_stop(FemuCtrl *n)
{
    if (n->threads_running) {
        qatomic_set(&n->stop, true);
        event_notifier_set(&n->poller_wake);
        event_notifier_set(&n->ftl_wake);
        qemu_thread_join(&n->poller);
        femu_state_save_join(n);        /* it holds engine_lock: before the FTL thread */
        qemu_thread_join(&n->ftl_thread);
        n->threads_running = false;
    }
    if (n->wake_fds) {
        event_notifier_cleanup(&n->poller_wake);
        event_notifier_cleanup(&n->ftl_wake);
        n->wake_fds = false;
    }
    femu_req_pool_destroy(n);
    ftl_engine_destroy(n->engine);
    n->engine = NULL;
    spsc_ring_destroy(n->to_ftl);
    spsc_ring_destroy(n->from_ftl);
    n->to_ftl = n->from_ftl = NULL;
    completion_heap_destroy(&n->heap);
    prp_segments_free(&n->segs);
    if (n->engine_lock_init) {
        qemu_mutex_destroy(&n->engine_lock);
        n->engine_lock_init = false;
    }
}
