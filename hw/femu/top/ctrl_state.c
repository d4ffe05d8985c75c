/*
 * The controller's state machine: what CC writes and machine resets do to the controller,
 * and the CSTS bits that report it. CSTS is written here and nowhere else.
 *
 * The poller thread owns the state and runs every transition, between two commands. The
 * vCPU side (femu_ctrl_cc_written, femu_ctrl_machine_reset, with the BQL held) only stores
 * and asks: CC through the register file and cc_changed, a reset through a ticket it then
 * waits for, so a reset is over when the register write returns (CONTROLLER.md).
 *
 *   state          CSTS.RDY  CSTS.CFS  serves commands
 *   DISABLED       0         0         no
 *   ENABLING       0         0         no    (checks CC/AQA/ASQ/ACQ, latches the admin queues)
 *   READY          1         0         yes
 *   SHUTTING_DOWN  1         0         yes   (CC.SHN set while ready; femu keeps serving)
 *   FATAL          as it was 1         no    (an enable refused, or a queue unreachable)
 *   RESETTING      0         0         no    (queues, held AERs and features go)
 *
 *   from                    event (function)                              to
 *   DISABLED                CC.EN 0->1 (femu_ctrl_enable)                 ENABLING
 *   ENABLING                checks pass                                   READY
 *   ENABLING                checks fail                                   FATAL
 *   READY                   CC.SHN 0->1 (femu_ctrl_shutdown)              SHUTTING_DOWN
 *   SHUTTING_DOWN           CC.SHN 1->0 (femu_ctrl_shutdown_cancel)       READY
 *   READY, SHUTTING_DOWN    a queue unreachable (femu_ctrl_fatal)         FATAL
 *   any                     CC.EN 1->0, machine/function reset            RESETTING
 *                           (femu_ctrl_reset)
 *   RESETTING               reset done                                    DISABLED
 *
 * CSTS.SHST is reported apart from the state, as the spec has it: CC.SHN 0->1 sets it to 1
 * (in progress) and to 2 (complete) once lpn_access_count.csv is saved, whatever the
 * state; CC.SHN 1->0, an enable and a reset set it back to 0, and a save still running
 * then reports nothing (shutdown_seq tells the saves apart).
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"

#include "backend/lpn_dump.h"
#include "cmd/admin/features.h"
#include "cmd/admin/ns.h"
#include "cmd/core/aer.h"
#include "cmd/fdp/fdp_features.h"
#include "cmd/health/media.h"
#include "ctrl/dma.h"
#include "ctrl/irq.h"
#include "ctrl/queue.h"
#include "ctrl/regs.h"
#include "ctrl/request.h"
#include "ctrl/wake.h"
#include "top/ctrl_state.h"
#include "trace.h"

#define FEMU_CTRL_TO(state) (1u << (state))

/* Legal transitions: bit `to` of femu_ctrl_next[from]. */
static const unsigned femu_ctrl_next[] = {
    [FEMU_CTRL_DISABLED] = FEMU_CTRL_TO(FEMU_CTRL_ENABLING) |
                           FEMU_CTRL_TO(FEMU_CTRL_RESETTING),
    [FEMU_CTRL_ENABLING] = FEMU_CTRL_TO(FEMU_CTRL_READY) | FEMU_CTRL_TO(FEMU_CTRL_FATAL) |
                           FEMU_CTRL_TO(FEMU_CTRL_RESETTING),
    [FEMU_CTRL_READY] = FEMU_CTRL_TO(FEMU_CTRL_SHUTTING_DOWN) | FEMU_CTRL_TO(FEMU_CTRL_FATAL) |
                        FEMU_CTRL_TO(FEMU_CTRL_RESETTING),
    [FEMU_CTRL_SHUTTING_DOWN] = FEMU_CTRL_TO(FEMU_CTRL_READY) | FEMU_CTRL_TO(FEMU_CTRL_FATAL) |
                                FEMU_CTRL_TO(FEMU_CTRL_RESETTING),
    [FEMU_CTRL_FATAL] = FEMU_CTRL_TO(FEMU_CTRL_RESETTING),
    [FEMU_CTRL_RESETTING] = FEMU_CTRL_TO(FEMU_CTRL_DISABLED),
};

/*
 * A transition outside the table would be a bug in this file, not something a guest can
 * cause: say so once and carry on, rather than abort the guest's whole machine.
 */
static void femu_ctrl_enter(FemuCtrl *n, FemuCtrlState to)
{
    if (!(femu_ctrl_next[n->state] & FEMU_CTRL_TO(to))) {
        error_report_once("femu: internal error: controller state %d -> %d is not a "
                          "listed transition", n->state, to);
    }
    n->state = to;
}

static uint32_t femu_csts(FemuCtrl *n)
{
    return femu_reg_read32(n, NVME_REG_CSTS);
}

static void femu_csts_set(FemuCtrl *n, uint32_t csts)
{
    femu_reg_write32(n, NVME_REG_CSTS, csts);
}

static void femu_csts_set_shst(FemuCtrl *n, uint32_t shst)
{
    femu_csts_set(n, (femu_csts(n) & ~(CSTS_SHST_MASK << CSTS_SHST_SHIFT)) | shst);
}

/*
 * CC.CSS selects what CAP.CSS offers, bit for value: 000b the NVM command set (bit 0),
 * 110b all I/O command sets (bit 6, with zoned=on). Another value fails the enable.
 */
static bool femu_ctrl_css_supported(FemuCtrl *n, uint32_t cc)
{
    uint64_t cap = femu_reg_read64(n, NVME_REG_CAP);

    return NVME_CAP_CSS(cap) & (1u << NVME_CC_CSS(cc));
}

/* CC.EN 0->1: check what the host set up, latch the admin queues, report ready. */
static void femu_ctrl_enable(FemuCtrl *n)
{
    uint32_t cc = n->cc_seen;
    uint32_t aqa = femu_reg_read32(n, NVME_REG_AQA);
    uint64_t asq = femu_reg_read64(n, NVME_REG_ASQ);
    uint64_t acq = femu_reg_read64(n, NVME_REG_ACQ);
    unsigned mps = NVME_CC_MPS(cc);
    uint32_t page_size = 1u << (12 + MIN(mps, 15u));
    FemuSQueue *sq = &n->sq[0];
    FemuCQueue *cq = &n->cq[0];

    femu_ctrl_enter(n, FEMU_CTRL_ENABLING);
    if (NVME_AQA_ASQS(aqa) == 0 || NVME_AQA_ACQS(aqa) == 0 || !asq || !acq ||
        mps > FEMU_MPSMAX || (asq & (page_size - 1)) || (acq & (page_size - 1)) ||
        !femu_ctrl_css_supported(n, cc) || NVME_CC_AMS(cc) != 0 ||
        !femu_dma_ram(n, asq, (uint64_t)(NVME_AQA_ASQS(aqa) + 1) * sizeof(NvmeCmd), false) ||
        !femu_dma_ram(n, acq, (uint64_t)(NVME_AQA_ACQS(aqa) + 1) * sizeof(NvmeCqe), true)) {
        trace_femu_enable_failed(cc, aqa, asq, acq);
        qemu_log_mask(LOG_GUEST_ERROR, "femu: enable refused (CC 0x%x, AQA 0x%x, ASQ 0x%"
                      PRIx64 ", ACQ 0x%" PRIx64 "): controller fatal until CC.EN is "
                      "cleared\n", cc, aqa, asq, acq);
        femu_ctrl_enter(n, FEMU_CTRL_FATAL);
        femu_csts_set(n, NVME_CSTS_FAILED);   /* stays until the host clears CC.EN */
        return;
    }
    trace_femu_enable(cc, aqa, asq, acq);
    n->page_size = page_size;
    n->css_all = NVME_CC_CSS(cc) == NVME_CC_CSS_ALL;
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
    femu_ctrl_enter(n, FEMU_CTRL_READY);
    femu_csts_set(n, NVME_CSTS_READY);
}

/* Controller reset: queues, held AERs, features and status go back to their defaults
 * (FDP's saveable features to their saved values); with FDP on, every handle's open RU
 * is closed (cmd/fdp/fdp_features.c, cmd/fdp/fdp.c). */
static void femu_ctrl_reset(FemuCtrl *n)
{
    femu_ctrl_enter(n, FEMU_CTRL_RESETTING);
    femu_req_drop_inflight(n);
    femu_lpn_dump_drop_queued(n);
    trace_femu_reset(n->epoch);
    femu_queues_reset(n);
    femu_aer_reset(n);
    femu_ns_reset(n);
    femu_media_reset(n);
    femu_fdp_features_reset(n);
    n->shutdown_seq++;   /* a save still running no longer completes a shutdown */
    n->shutdown_retry = false;
    femu_features_reset(n);
    femu_csts_set(n, 0);
    qemu_bh_schedule(n->irq_bh);   /* the pin level may drop */
    femu_ctrl_enter(n, FEMU_CTRL_DISABLED);
}

/* CC.SHN 0->1: drain the FTL's write buffer (write_buffer_sectors) and save the per-LPN
 * counts (with stats_dir), then report the shutdown done. */
/* Start the current shutdown's save with req (the buffer drained, the per-LPN counts). */
static void femu_ctrl_shutdown_save(FemuCtrl *n, FemuRequest *req)
{
    bool buffered = femu_has_write_cache(n);

    memset(req, 0, sizeof(*req));
    req->internal = true;
    req->drain = buffered;
    req->shutdown_seq = n->shutdown_seq;
    femu_lpn_dump_submit(n, req);
}

static void femu_ctrl_shutdown(FemuCtrl *n)
{
    /* the configuration never changes after realize: safe to read from this thread */
    bool save = n->stats_dir || femu_has_write_cache(n);
    FemuRequest *req = save ? femu_req_alloc_shutdown(n) : NULL;

    trace_femu_shutdown(save);
    if (n->state == FEMU_CTRL_READY) {
        femu_ctrl_enter(n, FEMU_CTRL_SHUTTING_DOWN);
    }
    n->shutdown_seq++;
    n->shutdown_retry = false;
    if (!save) {
        femu_csts_set_shst(n, NVME_CSTS_SHST_COMPLETE);
        return;
    }
    /* Complete once the FTL thread has drained the buffer and saved the per-LPN counts;
     * with every request out (the reserved one for an earlier shutdown), once that one is
     * back (femu_ctrl_shutdown_retry). */
    femu_csts_set_shst(n, NVME_CSTS_SHST_PROGRESS);
    if (!req) {
        n->shutdown_retry = true;
        return;
    }
    femu_ctrl_shutdown_save(n, req);
}

void femu_ctrl_shutdown_retry(FemuCtrl *n)
{
    if (n->shutdown_retry && !n->shutdown_req_busy) {
        n->shutdown_retry = false;
        femu_ctrl_shutdown_save(n, femu_req_alloc_shutdown(n));
    }
}

/* CC.SHN 1->0: back to normal operation; a save still running must not report "complete". */
static void femu_ctrl_shutdown_cancel(FemuCtrl *n)
{
    if (n->state == FEMU_CTRL_SHUTTING_DOWN) {
        femu_ctrl_enter(n, FEMU_CTRL_READY);
    }
    n->shutdown_seq++;
    n->shutdown_retry = false;
    femu_csts_set_shst(n, NVME_CSTS_SHST_NORMAL);
}

/* The save the current shutdown asked for is written (backend/lpn_dump.c tells which). */
void femu_ctrl_shutdown_saved(FemuCtrl *n)
{
    if (NVME_CC_SHN(femu_reg_read32(n, NVME_REG_CC))) {
        femu_csts_set_shst(n, NVME_CSTS_SHST_COMPLETE);
    }
}

/*
 * After a power cut (backend/power_cut.c): the controller as at power-on, its registers
 * cleared and every command in flight dropped unanswered; the host finds CSTS.RDY 0 and
 * must enable it again (a rebooted guest does; a running driver resets it on timeout).
 */
void femu_ctrl_power_cycle(FemuCtrl *n)
{
    femu_regs_clear(n);
    qatomic_set(&n->cc_changed, false);
    n->cc_seen = 0;
    femu_irq_forget_pending(n);
    femu_ctrl_reset(n);
}

/* A queue the controller cannot read or write: fatal, until the host resets it. */
void femu_ctrl_fatal(FemuCtrl *n)
{
    trace_femu_fatal();
    qemu_log_mask(LOG_GUEST_ERROR, "femu: a queue could not be read or written: controller "
                  "fatal (CSTS.CFS) until reset\n");
    femu_req_drop_inflight(n);
    femu_lpn_dump_drop_queued(n);
    femu_ctrl_enter(n, FEMU_CTRL_FATAL);
    femu_csts_set(n, femu_csts(n) | NVME_CSTS_FAILED);
}

/* The transitions a CC write asked for, in the order enable/reset, then shutdown. */
static bool femu_ctrl_process_cc(FemuCtrl *n)
{
    uint32_t cc, old;

    if (!qatomic_xchg(&n->cc_changed, false)) {
        return false;
    }
    cc = femu_reg_read32(n, NVME_REG_CC);
    old = n->cc_seen;
    n->cc_seen = cc;
    if (NVME_CC_EN(old) && !NVME_CC_EN(cc)) {
        femu_ctrl_reset(n);
    } else if (!NVME_CC_EN(old) && NVME_CC_EN(cc)) {
        femu_ctrl_enable(n);
    }
    if (NVME_CC_SHN(cc) && !NVME_CC_SHN(old)) {
        femu_ctrl_shutdown(n);
    } else if (!NVME_CC_SHN(cc) && NVME_CC_SHN(old)) {
        femu_ctrl_shutdown_cancel(n);
    }
    return true;
}

/*
 * A reset asked for by femu_ctrl_reset_sync: done here, between two commands, and
 * confirmed to the waiting thread. The CC write that asked is seen as already applied.
 */
static bool femu_ctrl_serve_reset(FemuCtrl *n)
{
    uint32_t asked = qatomic_load_acquire(&n->reset_requested);

    if (asked == n->reset_seen) {
        return false;
    }
    n->reset_seen = asked;
    femu_ctrl_reset(n);
    n->cc_seen &= ~(uint32_t)CC_EN_MASK;
    qemu_mutex_lock(&n->reset_lock);
    n->reset_done = asked;
    qemu_cond_broadcast(&n->reset_cond);
    qemu_mutex_unlock(&n->reset_lock);
    return true;
}

bool femu_ctrl_poll(FemuCtrl *n)
{
    bool work = femu_ctrl_serve_reset(n);

    work |= femu_ctrl_process_cc(n);
    return work;
}

bool femu_ctrl_work_pending(FemuCtrl *n)
{
    return qatomic_read(&n->cc_changed) ||
           (qatomic_read(&n->power_cut.asked) && !n->save_running) ||
           qatomic_read(&n->reset_requested) != n->reset_seen;
}

/*
 * Called with the BQL held (a CC.EN 1->0 write, a machine or function reset): returns
 * once the poller has reset the controller, so no DMA, CQE or interrupt of the old epoch
 * follows. The poller never takes the BQL (its DMA touches only RAM QEMU copies
 * directly, ctrl/dma.c), so waiting here cannot deadlock.
 */
static void femu_ctrl_reset_sync(FemuCtrl *n)
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
    femu_irq_discard_pending(n);   /* those the poller asked for before the reset are void */
}

void femu_ctrl_cc_written(FemuCtrl *n, uint32_t old_cc, uint32_t cc)
{
    qatomic_set(&n->cc_changed, true);
    femu_poller_kick(n);
    /* EN 1->0 resets before the write completes: a fast 1->0->1 still resets. */
    if (NVME_CC_EN(old_cc) && !NVME_CC_EN(cc)) {
        femu_ctrl_reset_sync(n);
    }
}

/*
 * Machine or function reset: registers back to their reset values and a controller reset
 * the poller has finished when this returns, whatever state the controller was in.
 */
void femu_ctrl_machine_reset(FemuCtrl *n)
{
    femu_regs_clear(n);
    qatomic_set(&n->cc_changed, true);   /* CC is 0 again: SHN may have gone 1->0 */
    femu_ctrl_reset_sync(n);
}
