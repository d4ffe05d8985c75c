/*
 * The poller thread: the controller's engine. Each pass it applies CC changes, fetches
 * commands from every submission queue, executes them (data moves between guest memory
 * and the data store at once), hands flash work to the FTL thread, takes back what the
 * FTL finished, and posts the completions whose time has come. It sleeps whenever a pass
 * found nothing to do: until the next completion is due, or until a doorbell, CC write or
 * the FTL thread wakes it. An idle controller therefore costs no CPU.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "qemu/timer.h"
#include "qapi/error.h"

#include <poll.h>
#include <sys/prctl.h>

#include "femu_ctrl.h"
#include "trace.h"

#define FEMU_COMPLETE_BATCH 64
#define FEMU_CMD_FUSE_MASK  0x03    /* CDW0 bits 9:8 */
#define FEMU_CMD_PSDT_MASK  0xc0    /* CDW0 bits 15:14 */

uint64_t femu_now_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
}

void femu_poller_kick(FemuCtrl *n)
{
    smp_mb();   /* publish the caller's store before reading the sleeping flag */
    if (qatomic_read(&n->poller_sleeping)) {
        event_notifier_set(&n->poller_wake);
    }
}

static FemuRequest *femu_req_alloc(FemuCtrl *n)
{
    FemuRequest *req = n->free_list;

    if (req) {
        n->free_list = req->next_free;
    }
    return req;
}

static void femu_req_free(FemuCtrl *n, FemuRequest *req)
{
    g_free(req->ranges);
    req->ranges = NULL;
    req->next_free = n->free_list;
    n->free_list = req;
}

static void femu_csts_set(FemuCtrl *n, uint32_t csts)
{
    femu_reg_write32(n, NVME_REG_CSTS, csts);
}

static uint32_t femu_csts(FemuCtrl *n)
{
    return femu_reg_read32(n, NVME_REG_CSTS);
}

static void femu_set_shst(FemuCtrl *n, uint32_t shst)
{
    femu_csts_set(n, (femu_csts(n) & ~(CSTS_SHST_MASK << CSTS_SHST_SHIFT)) | shst);
}

static void femu_enable(FemuCtrl *n)
{
    uint32_t cc = n->cc_seen;
    uint32_t aqa = femu_reg_read32(n, NVME_REG_AQA);
    uint64_t asq = femu_reg_read64(n, NVME_REG_ASQ);
    uint64_t acq = femu_reg_read64(n, NVME_REG_ACQ);
    unsigned mps = NVME_CC_MPS(cc);
    uint32_t page_size = 1u << (12 + MIN(mps, 15u));
    FemuSQueue *sq = &n->sq[0];
    FemuCQueue *cq = &n->cq[0];

    if (NVME_AQA_ASQS(aqa) == 0 || NVME_AQA_ACQS(aqa) == 0 || !asq || !acq ||
        mps > FEMU_MPSMAX || (asq & (page_size - 1)) || (acq & (page_size - 1)) ||
        NVME_CC_CSS(cc) != 0 || NVME_CC_AMS(cc) != 0 ||
        !femu_dma_ram(n, asq, (uint64_t)(NVME_AQA_ASQS(aqa) + 1) * sizeof(NvmeCmd), false) ||
        !femu_dma_ram(n, acq, (uint64_t)(NVME_AQA_ACQS(aqa) + 1) * sizeof(NvmeCqe), true)) {
        trace_femu_enable_failed(cc, aqa, asq, acq);
        qemu_log_mask(LOG_GUEST_ERROR, "femu: enable refused (CC 0x%x, AQA 0x%x, ASQ 0x%"
                      PRIx64 ", ACQ 0x%" PRIx64 "): controller fatal until CC.EN is "
                      "cleared\n", cc, aqa, asq, acq);
        femu_csts_set(n, NVME_CSTS_FAILED);   /* stays until the host clears CC.EN */
        return;
    }
    trace_femu_enable(cc, aqa, asq, acq);
    n->page_size = page_size;
    sq->cqid = 0;
    qatomic_set(&sq->size, NVME_AQA_ASQS(aqa) + 1);
    sq->dma_addr = asq;
    sq->head = 0;
    qatomic_set(&sq->db_tail, 0);
    sq->valid = true;
    cq->irq_enabled = true;
    cq->vector = 0;
    qatomic_set(&cq->size, NVME_AQA_ACQS(aqa) + 1);
    cq->dma_addr = acq;
    cq->tail = cq->head = 0;
    cq->phase = 1;
    cq->nsq = 1;
    qatomic_set(&cq->db_head, 0);
    qatomic_set(&cq->valid, true);
    n->ready = true;
    femu_csts_set(n, NVME_CSTS_READY);
}

void femu_cq_drop_pending(FemuCtrl *n, FemuCQueue *cq)
{
    while (cq->pending_head) {
        FemuRequest *req = cq->pending_head;

        cq->pending_head = req->next_free;
        femu_req_free(n, req);
    }
    cq->pending_tail = NULL;
}

static void femu_free_list(FemuCtrl *n, FemuRequest **head)
{
    while (*head) {
        FemuRequest *req = *head;

        *head = req->next_free;
        femu_req_free(n, req);
    }
}

/*
 * Forget every command in flight: the heap's now, the FTL thread's when they come back
 * (their epoch is stale). Used by a reset and by a fatal error.
 */
static void femu_drop_inflight(FemuCtrl *n)
{
    void *item;

    qatomic_set(&n->epoch, n->epoch + 1);
    while (completion_heap_pop(&n->heap, NULL, &item)) {
        femu_req_free(n, item);
    }
    /* Dumps not yet started are dropped; the one with the FTL thread comes back stale. */
    femu_free_list(n, &n->dump_waiting);
    femu_free_list(n, &n->dump_riders);
    n->ready = false;
}

/* Controller reset: queues, held AERs, features and status go back to their defaults. */
static void femu_reset(FemuCtrl *n)
{
    femu_drop_inflight(n);
    trace_femu_reset(n->epoch);
    femu_queues_reset(n);
    n->aer_outstanding = 0;
    n->shutdown_seq++;   /* a save still running no longer completes a shutdown */
    femu_features_reset(n);
    femu_csts_set(n, 0);
    qemu_bh_schedule(n->irq_bh);   /* the pin level may drop */
}

/*
 * The per-LPN dump (C0h, and the save a shutdown makes): one with the FTL thread at a
 * time. Requests arriving meanwhile wait, and one more dump answers all of them, so a
 * guest repeating C0h costs at most two dumps, not one per command.
 */
static void femu_dump_start(FemuCtrl *n, FemuRequest *req)
{
    n->lpn_dump_busy = true;
    spsc_ring_push(n->to_ftl, req);
    femu_ftl_kick(n);
}

void femu_lpn_dump_submit(FemuCtrl *n, FemuRequest *req)
{
    FemuRequest **tail = &n->dump_waiting;

    req->op = FEMU_OP_LPN_DUMP;
    if (!n->lpn_dump_busy) {
        femu_dump_start(n, req);
        return;
    }
    while (*tail) {
        tail = &(*tail)->next_free;
    }
    req->next_free = NULL;
    *tail = req;
}

/* One dump request answered: a CQE for C0h, SHST complete for a current shutdown. */
static void femu_dump_answer(FemuCtrl *n, FemuRequest *req)
{
    if (req->internal) {
        if (req->shutdown_seq == n->shutdown_seq &&
            NVME_CC_SHN(femu_reg_read32(n, NVME_REG_CC))) {
            femu_set_shst(n, NVME_CSTS_SHST_COMPLETE);
        }
        femu_req_free(n, req);
    } else if (req->epoch != n->epoch) {
        femu_req_free(n, req);
    } else {
        completion_heap_push(&n->heap, req->done_ns, req);
    }
}

static void femu_dump_returned(FemuCtrl *n, FemuRequest *done)
{
    n->lpn_dump_busy = false;
    while (n->dump_riders) {
        FemuRequest *rider = n->dump_riders;

        n->dump_riders = rider->next_free;
        rider->status = done->status;
        rider->done_ns = done->done_ns;
        femu_dump_answer(n, rider);
    }
    femu_dump_answer(n, done);
    if (n->dump_waiting) {
        FemuRequest *next = n->dump_waiting;

        n->dump_riders = next->next_free;
        n->dump_waiting = NULL;
        femu_dump_start(n, next);
    }
}

static void femu_shutdown(FemuCtrl *n)
{
    FemuRequest *req = n->stats_dir ? femu_req_alloc(n) : NULL;

    trace_femu_shutdown(req != NULL);
    n->shutdown_seq++;
    if (!req) {
        femu_set_shst(n, NVME_CSTS_SHST_COMPLETE);
        return;
    }
    /* Complete once the FTL thread has saved the per-LPN counts. */
    femu_set_shst(n, NVME_CSTS_SHST_PROGRESS);
    memset(req, 0, sizeof(*req));
    req->internal = true;
    req->shutdown_seq = n->shutdown_seq;
    femu_lpn_dump_submit(n, req);
}

static bool femu_process_cc(FemuCtrl *n)
{
    uint32_t cc, old;

    if (!qatomic_xchg(&n->cc_changed, false)) {
        return false;
    }
    cc = femu_reg_read32(n, NVME_REG_CC);
    old = n->cc_seen;
    n->cc_seen = cc;
    if (NVME_CC_EN(old) && !NVME_CC_EN(cc)) {
        femu_reset(n);
    } else if (!NVME_CC_EN(old) && NVME_CC_EN(cc)) {
        femu_enable(n);
    }
    if (NVME_CC_SHN(cc) && !NVME_CC_SHN(old)) {
        femu_shutdown(n);
    } else if (!NVME_CC_SHN(cc) && NVME_CC_SHN(old)) {
        n->shutdown_seq++;   /* a save still running must not report "complete" */
        femu_set_shst(n, NVME_CSTS_SHST_NORMAL);
    }
    return true;
}

/*
 * A reset asked for by femu_reset_sync: done here, between two commands, and confirmed
 * to the waiting thread. The CC write that asked is seen as already applied.
 */
static bool femu_serve_reset(FemuCtrl *n)
{
    uint32_t asked = qatomic_load_acquire(&n->reset_requested);

    if (asked == n->reset_seen) {
        return false;
    }
    n->reset_seen = asked;
    femu_reset(n);
    n->cc_seen &= ~(uint32_t)CC_EN_MASK;
    qemu_mutex_lock(&n->reset_lock);
    n->reset_done = asked;
    qemu_cond_broadcast(&n->reset_cond);
    qemu_mutex_unlock(&n->reset_lock);
    return true;
}

/*
 * Called with the BQL held (a CC.EN 1->0 write, a machine or function reset): returns
 * once the poller has reset the controller, so no DMA, CQE or interrupt of the old epoch
 * follows. The poller never takes the BQL (its DMA touches only RAM QEMU copies
 * directly, femu_dma.c), so waiting here cannot deadlock.
 */
void femu_reset_sync(FemuCtrl *n)
{
    uint32_t ticket;

    if (!n->threads_running) {
        return;
    }
    qemu_mutex_lock(&n->reset_lock);
    ticket = n->reset_requested + 1;
    qatomic_store_release(&n->reset_requested, ticket);
    event_notifier_set(&n->poller_wake);
    while ((int32_t)(n->reset_done - ticket) < 0 && !qatomic_read(&n->stop)) {
        qemu_cond_timedwait(&n->reset_cond, &n->reset_lock, 100);
    }
    qemu_mutex_unlock(&n->reset_lock);
    /* Interrupts the poller asked for before the reset are void now. */
    for (unsigned word = 0; word < ARRAY_SIZE(n->irq_pending); word++) {
        qatomic_set(&n->irq_pending[word], 0);
    }
    femu_irq_update_pin(n);
}

/* A queue the controller cannot read or write: fatal, until the host resets it. */
static void femu_fatal(FemuCtrl *n)
{
    trace_femu_fatal();
    qemu_log_mask(LOG_GUEST_ERROR, "femu: a queue could not be read or written: controller "
                  "fatal (CSTS.CFS) until reset\n");
    femu_drop_inflight(n);
    femu_csts_set(n, femu_csts(n) | NVME_CSTS_FAILED);
}

static void femu_execute(FemuCtrl *n, uint16_t qid, const NvmeCmd *cmd, FemuRequest *req)
{
    memset(req, 0, offsetof(FemuRequest, next_free));
    req->sqid = qid;
    req->cid = le16_to_cpu(cmd->cid);
    req->sq_gen = n->sq[qid].gen;
    req->epoch = n->epoch;
    req->io.now_ns = femu_now_ns();

    if (cmd->flags & (FEMU_CMD_FUSE_MASK | FEMU_CMD_PSDT_MASK)) {
        req->status = femu_err(NVME_INVALID_FIELD);   /* no fused commands, PRPs only */
    } else {
        req->status = qid == 0 ? femu_admin_cmd(n, cmd, req) : femu_io_cmd(n, cmd, req);
    }
    if (req->status == NVME_NO_COMPLETE) {
        femu_req_free(n, req);   /* an AER: held until a reset, nothing to keep */
        return;
    }
    trace_femu_cmd(qid, req->cid, cmd->opcode, le32_to_cpu(cmd->nsid), req->status);
    if (req->status != NVME_SUCCESS) {
        uint64_t slba = le32_to_cpu(cmd->cdw10) | (uint64_t)le32_to_cpu(cmd->cdw11) << 32;

        qemu_log_mask(LOG_GUEST_ERROR, "femu: sqid %u cid %u opcode 0x%x nsid %u: status "
                      "0x%x\n", qid, req->cid, cmd->opcode, le32_to_cpu(cmd->nsid),
                      req->status);
        femu_error_log_add(n, req, le32_to_cpu(cmd->nsid), qid ? slba : 0);
        req->op = FEMU_OP_NONE;
    }
    if (req->op == FEMU_OP_LPN_DUMP) {
        femu_lpn_dump_submit(n, req);
        return;
    }
    if (req->op != FEMU_OP_NONE) {
        spsc_ring_push(n->to_ftl, req);   /* cannot fail: the ring holds the whole pool */
        femu_ftl_kick(n);
        return;
    }
    req->done_ns = req->io.now_ns;
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
    while (sq->valid && sq->head != tail && fetched < FEMU_FETCH_BURST && n->free_list) {
        NvmeCmd cmd;

        if (femu_dma_read(n, sq->dma_addr + (uint64_t)sq->head * sizeof(cmd), &cmd,
                          sizeof(cmd)) != NVME_SUCCESS) {
            femu_fatal(n);
            break;
        }
        sq->head = (sq->head + 1) % sq->size;
        femu_execute(n, qid, &cmd, femu_req_alloc(n));
        fetched++;
        if (!n->ready) {
            break;   /* the command was fatal, or a queue vanished under it */
        }
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

            if (req->op == FEMU_OP_LPN_DUMP) {
                femu_dump_returned(n, req);
            } else if (req->epoch != n->epoch) {
                femu_req_free(n, req);   /* from before a reset */
            } else {
                completion_heap_push(&n->heap, req->done_ns, req);
            }
        }
        total += count;
    }
    return total;
}

static bool femu_req_stale(FemuCtrl *n, const FemuRequest *req)
{
    const FemuSQueue *sq = &n->sq[req->sqid];

    return req->epoch != n->epoch || !sq->valid || sq->gen != req->sq_gen;
}

/* Post one completion; a CQ the controller cannot write is fatal (CSTS.CFS). */
static void femu_post(FemuCtrl *n, FemuCQueue *cq, FemuRequest *req)
{
    NvmeCqe cqe = {
        .result = cpu_to_le32(req->result),
        .sq_head = cpu_to_le16(n->sq[req->sqid].head),
        .sq_id = cpu_to_le16(req->sqid),
        .cid = cpu_to_le16(req->cid),
        .status = cpu_to_le16(req->status),
    };

    uint16_t status = femu_cq_post(n, cq, &cqe);

    trace_femu_cqe_post((uint16_t)(cq - n->cq), req->sqid, req->cid, req->status,
                        femu_now_ns() - req->io.now_ns);
    femu_req_free(n, req);
    if (status != NVME_SUCCESS) {
        femu_fatal(n);   /* later items of this pass are stale now and get freed */
    }
}

/* Completions held back by a full CQ, oldest first, as room appears. */
static unsigned femu_flush_pending(FemuCtrl *n)
{
    unsigned posted = 0;

    for (unsigned qid = 0; qid <= n->queues; qid++) {
        FemuCQueue *cq = &n->cq[qid];

        while (cq->valid && cq->pending_head) {
            FemuRequest *req = cq->pending_head;

            if (!femu_req_stale(n, req) && femu_cq_full(n, cq)) {
                break;
            }
            cq->pending_head = req->next_free;
            if (!cq->pending_head) {
                cq->pending_tail = NULL;
            }
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
    unsigned posted = femu_flush_pending(n);
    size_t count;

    while ((count = completion_heap_pop_due(&n->heap, femu_now_ns(), items,
                                            ARRAY_SIZE(items))) > 0) {
        for (size_t i = 0; i < count; i++) {
            FemuRequest *req = items[i];
            FemuCQueue *cq;

            if (femu_req_stale(n, req)) {
                femu_req_free(n, req);
                continue;
            }
            cq = &n->cq[n->sq[req->sqid].cqid];
            if (cq->pending_head || femu_cq_full(n, cq)) {
                req->next_free = NULL;
                if (cq->pending_tail) {
                    cq->pending_tail->next_free = req;
                } else {
                    cq->pending_head = req;
                }
                cq->pending_tail = req;
                continue;
            }
            femu_post(n, cq, req);
            posted++;
        }
    }
    return posted;
}

static bool femu_poller_has_work(FemuCtrl *n)
{
    if (qatomic_read(&n->stop) || qatomic_read(&n->cc_changed) ||
        qatomic_read(&n->reset_requested) != n->reset_seen ||
        spsc_ring_count(n->from_ftl) > 0) {
        return true;
    }
    if (!n->ready) {
        return false;
    }
    for (unsigned qid = 0; qid <= n->queues; qid++) {
        FemuCQueue *cq = &n->cq[qid];

        if ((n->free_list && femu_sq_pending(n, qid, NULL)) ||
            (cq->valid && cq->pending_head && !femu_cq_full(n, cq))) {
            return true;
        }
    }
    return false;
}

static void femu_poller_sleep(FemuCtrl *n)
{
    struct pollfd pfd = { .fd = event_notifier_get_fd(&n->poller_wake), .events = POLLIN };
    struct timespec timeout, *tp = NULL;
    uint64_t due;

    if (n->ready && completion_heap_peek(&n->heap, &due, NULL)) {
        uint64_t now = femu_now_ns();

        if (due <= now) {
            return;
        }
        timeout.tv_sec = (due - now) / NANOSECONDS_PER_SECOND;
        timeout.tv_nsec = (due - now) % NANOSECONDS_PER_SECOND;
        tp = &timeout;
    }
    qatomic_set(&n->poller_sleeping, 1);
    smp_mb();   /* pairs with femu_poller_kick: either we see the work or they see us */
    if (!femu_poller_has_work(n) && !(n->ready && femu_arm_eventidx(n))) {
        ppoll(&pfd, 1, tp, NULL);
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
        bool work = femu_serve_reset(n);

        work |= femu_process_cc(n);

        if (n->ready) {
            for (unsigned qid = 0; qid <= n->queues && n->ready; qid++) {
                work |= femu_fetch(n, qid) > 0;
            }
        }
        work |= femu_drain_ftl(n) > 0;
        if (n->ready) {
            work |= femu_complete_due(n) > 0;
        }
        if (!work) {
            femu_poller_sleep(n);
        }
    }
    rcu_unregister_thread();
    return NULL;
}

bool femu_threads_start(FemuCtrl *n, Error **errp)
{
    char err[256] = "out of memory";

    n->pool = g_new0(FemuRequest, FEMU_MAX_INFLIGHT);
    for (unsigned i = 0; i < FEMU_MAX_INFLIGHT; i++) {
        n->pool[i].next_free = n->free_list;
        n->free_list = &n->pool[i];
    }
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
        qemu_thread_join(&n->ftl_thread);
        n->threads_running = false;
    }
    if (n->wake_fds) {
        event_notifier_cleanup(&n->poller_wake);
        event_notifier_cleanup(&n->ftl_wake);
        n->wake_fds = false;
    }
    if (n->pool) {
        for (unsigned i = 0; i < FEMU_MAX_INFLIGHT; i++) {
            g_free(n->pool[i].ranges);
        }
        g_free(n->pool);
        n->pool = NULL;
        n->free_list = NULL;
    }
    n->dump_waiting = n->dump_riders = NULL;   /* pool entries, gone with it */
    ftl_engine_destroy(n->engine);
    n->engine = NULL;
    spsc_ring_destroy(n->to_ftl);
    spsc_ring_destroy(n->from_ftl);
    n->to_ftl = n->from_ftl = NULL;
    completion_heap_destroy(&n->heap);
    prp_segments_free(&n->segs);
}
