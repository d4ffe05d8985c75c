/*
 * Submission and completion queues (poller thread): creation and deletion with the
 * spec's checks, the doorbell values the poller works from (MMIO, or the shadow
 * doorbell buffer once the host configured one), posting completion entries, and the
 * completions held back while a CQ is full.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"

#include "ctrl/dma.h"
#include "ctrl/irq.h"
#include "ctrl/queue.h"
#include "ctrl/request.h"

static bool femu_qid_ok(FemuCtrl *n, uint16_t qid)
{
    return qid >= 1 && qid <= n->queues;
}

/* Shadow doorbell / EventIdx slot of a queue: SQ tail at 2*qid, CQ head at 2*qid + 1. */
static uint64_t femu_dbbuf_offset(uint16_t qid, bool cq)
{
    return (2 * (uint64_t)qid + cq) * 4;
}

static bool femu_shadow_read(FemuCtrl *n, uint16_t qid, bool cq, uint32_t *value)
{
    uint32_t le;

    if (qid == 0 || !n->dbbuf_shadow ||
        femu_dma_read(n, n->dbbuf_shadow + femu_dbbuf_offset(qid, cq), &le, 4)) {
        return false;
    }
    *value = le32_to_cpu(le);
    return true;
}

static void femu_shadow_write(FemuCtrl *n, uint64_t base, uint16_t qid, bool cq,
                              uint32_t value)
{
    uint32_t le = cpu_to_le32(value);

    femu_dma_write(n, base + femu_dbbuf_offset(qid, cq), &le, 4);
}

uint16_t femu_cq_create(FemuCtrl *n, uint16_t qid, uint64_t addr, uint32_t size,
                        bool contiguous, bool irq_enabled, uint16_t vector)
{
    FemuCQueue *cq;

    if (!femu_qid_ok(n, qid) || n->cq[qid].valid) {
        return femu_dnr(NVME_INVALID_QID);
    }
    if (size < 2 || size > FEMU_MAX_QSIZE) {
        return femu_dnr(NVME_MAX_QSIZE_EXCEEDED);
    }
    if (!contiguous || !addr) {   /* CAP.CQR: only physically contiguous queues */
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (addr & (n->page_size - 1)) {
        return femu_dnr(NVME_INVALID_PRP_OFFSET);
    }
    if (irq_enabled && vector >= n->num_vectors) {
        return femu_dnr(NVME_INVALID_IRQ_VECTOR);
    }
    if (!femu_dma_ram(n, addr, (uint64_t)size * sizeof(NvmeCqe), true)) {
        return femu_dnr(NVME_INVALID_FIELD);   /* not guest RAM: MMIO or unassigned */
    }
    cq = &n->cq[qid];
    cq->irq_enabled = irq_enabled;
    cq->vector = vector;
    qatomic_set(&cq->size, size);   /* read by doorbell writes */
    cq->dma_addr = addr;
    cq->tail = 0;
    cq->head = 0;
    cq->phase = 1;
    cq->nsq = 0;
    cq->held_head = cq->held_tail = NULL;
    qatomic_set(&cq->db_head, 0);
    femu_dbbuf_init(n, qid, true, 0);
    qatomic_set(&cq->valid, true);
    n->io_queues_created = true;
    return NVME_SUCCESS;
}

uint16_t femu_sq_create(FemuCtrl *n, uint16_t qid, uint64_t addr, uint32_t size,
                        bool contiguous, uint16_t cqid)
{
    FemuSQueue *sq;

    if (!femu_qid_ok(n, qid) || n->sq[qid].valid) {
        return femu_dnr(NVME_INVALID_QID);
    }
    if (size < 2 || size > FEMU_MAX_QSIZE) {
        return femu_dnr(NVME_MAX_QSIZE_EXCEEDED);
    }
    if (!femu_qid_ok(n, cqid) || !n->cq[cqid].valid) {
        return femu_dnr(NVME_INVALID_CQID);
    }
    if (!contiguous || !addr) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    if (addr & (n->page_size - 1)) {
        return femu_dnr(NVME_INVALID_PRP_OFFSET);
    }
    if (!femu_dma_ram(n, addr, (uint64_t)size * sizeof(NvmeCmd), false)) {
        return femu_dnr(NVME_INVALID_FIELD);
    }
    sq = &n->sq[qid];
    sq->cqid = cqid;
    qatomic_set(&sq->size, size);
    sq->dma_addr = addr;
    sq->head = 0;
    qatomic_set(&sq->db_tail, 0);
    n->cq[cqid].nsq++;
    femu_dbbuf_init(n, qid, false, 0);
    sq->valid = true;
    n->io_queues_created = true;
    return NVME_SUCCESS;
}

uint16_t femu_sq_delete(FemuCtrl *n, uint16_t qid)
{
    FemuSQueue *sq;

    if (!femu_qid_ok(n, qid) || !n->sq[qid].valid) {
        return femu_dnr(NVME_INVALID_QID);
    }
    sq = &n->sq[qid];
    sq->valid = false;
    sq->gen++;   /* its commands still in flight complete into nothing */
    n->cq[sq->cqid].nsq--;
    return NVME_SUCCESS;
}

uint16_t femu_cq_delete(FemuCtrl *n, uint16_t qid)
{
    FemuCQueue *cq;

    if (!femu_qid_ok(n, qid) || !n->cq[qid].valid) {
        return femu_dnr(NVME_INVALID_QID);
    }
    cq = &n->cq[qid];
    if (cq->nsq) {
        return femu_dnr(NVME_INVALID_QUEUE_DEL);
    }
    femu_cq_drop_held(n, cq);
    qatomic_set(&cq->valid, false);
    return NVME_SUCCESS;
}

/* Completions due while their CQ is full wait on it, oldest first. */
void femu_cq_hold(FemuCQueue *cq, FemuRequest *req)
{
    req->list_next = NULL;
    if (cq->held_tail) {
        cq->held_tail->list_next = req;
    } else {
        cq->held_head = req;
    }
    cq->held_tail = req;
}

FemuRequest *femu_cq_unhold(FemuCQueue *cq)
{
    FemuRequest *req = cq->held_head;

    if (req) {
        cq->held_head = req->list_next;
        if (!cq->held_head) {
            cq->held_tail = NULL;
        }
    }
    return req;
}

/* The CQ is deleted or reset: its held completions are for nobody. */
void femu_cq_drop_held(FemuCtrl *n, FemuCQueue *cq)
{
    femu_req_free_all(n, &cq->held_head);
    cq->held_tail = NULL;
}

/* Controller reset: every queue goes, the admin queue included; shadow doorbells too. */
void femu_queues_reset(FemuCtrl *n)
{
    for (unsigned qid = 0; qid <= n->queues; qid++) {
        if (n->sq[qid].valid) {
            n->sq[qid].valid = false;
            n->sq[qid].gen++;
        }
        femu_cq_drop_held(n, &n->cq[qid]);
        qatomic_set(&n->cq[qid].valid, false);
    }
    n->dbbuf_shadow = n->dbbuf_eventidx = 0;
}

uint32_t femu_sq_tail(FemuCtrl *n, uint16_t qid)
{
    uint32_t tail;

    if (!femu_shadow_read(n, qid, false, &tail)) {
        tail = qatomic_read(&n->sq[qid].db_tail);
    }
    return tail;
}

/*
 * Whether the queue holds unfetched commands; *tail (if given) gets the tail. A tail
 * beyond the queue is a host error: the queue then idles until a valid value.
 */
bool femu_sq_pending(FemuCtrl *n, uint16_t qid, uint32_t *tail)
{
    FemuSQueue *sq = &n->sq[qid];
    uint32_t value;

    if (!sq->valid) {
        return false;
    }
    value = femu_sq_tail(n, qid);
    if (tail) {
        *tail = value;
    }
    return value < sq->size && value != sq->head;
}

/* Whether the CQ has no room, after taking the host's newest head (doorbell or shadow). */
bool femu_cq_full(FemuCtrl *n, FemuCQueue *cq)
{
    uint16_t qid = cq - n->cq;
    uint32_t head;

    if (!femu_shadow_read(n, qid, true, &head)) {
        head = qatomic_read(&cq->db_head);
    }
    if (head < cq->size) {
        cq->head = head;
    }
    return (cq->tail + 1) % cq->size == cq->head;
}

/*
 * Write the entry, then its last dword (command id, status and phase tag) separately:
 * the host may read the entry while it is being written, and must not see the new phase
 * before the rest of the entry.
 */
uint16_t femu_cq_post(FemuCtrl *n, FemuCQueue *cq, const NvmeCqe *cqe)
{
    NvmeCqe entry = *cqe;
    uint64_t addr = cq->dma_addr + (uint64_t)cq->tail * sizeof(NvmeCqe);
    uint16_t status;

    entry.status = cpu_to_le16((le16_to_cpu(cqe->status) << 1) | cq->phase);
    status = femu_dma_write(n, addr, &entry, offsetof(NvmeCqe, cid));
    if (status != NVME_SUCCESS) {
        return status;   /* the guest moved its memory away: never publish half an entry */
    }
    smp_wmb();
    status = femu_dma_write(n, addr + offsetof(NvmeCqe, cid), &entry.cid, 4);
    if (status != NVME_SUCCESS) {
        return status;
    }
    if (++cq->tail == cq->size) {
        cq->tail = 0;
        cq->phase ^= 1;
    }
    qatomic_set(&cq->tail, cq->tail);
    femu_irq_request(n, cq);
    return NVME_SUCCESS;
}

/*
 * Doorbell Buffer Config on existing queues (with the newest doorbell values, so
 * commands the host had already announced stay announced), or a queue created after it
 * (with 0): the queue's shadow doorbell and EventIdx (SQ tail or CQ head) start at value.
 */
void femu_dbbuf_init(FemuCtrl *n, uint16_t qid, bool cq, uint32_t value)
{
    if (qid == 0 || !n->dbbuf_shadow) {
        return;
    }
    femu_shadow_write(n, n->dbbuf_shadow, qid, cq, value);
    femu_shadow_write(n, n->dbbuf_eventidx, qid, cq, value);
}

/*
 * Before the poller sleeps with shadow doorbells on: ask the host to ring the MMIO
 * doorbell on its next update (EventIdx = the value the poller has seen), then look once
 * more, so an update made in between is not slept through. Returns true if work came in
 * that the poller can act on: submissions only while a request is free (else the poller
 * would spin on a queue it cannot fetch from), held completions once their CQ has room.
 */
bool femu_arm_eventidx(FemuCtrl *n)
{
    bool work = false;

    if (!n->dbbuf_shadow) {
        return false;
    }
    for (unsigned qid = 1; qid <= n->queues; qid++) {
        uint32_t value;

        if (n->sq[qid].valid && femu_shadow_read(n, qid, false, &value)) {
            femu_shadow_write(n, n->dbbuf_eventidx, qid, false, value);
        }
        if (n->cq[qid].valid && femu_shadow_read(n, qid, true, &value)) {
            femu_shadow_write(n, n->dbbuf_eventidx, qid, true, value);
        }
    }
    smp_mb();
    for (unsigned qid = 1; qid <= n->queues && !work; qid++) {
        FemuCQueue *cq = &n->cq[qid];

        work = (femu_may_fetch(n) && femu_sq_pending(n, qid, NULL)) ||
               (cq->valid && cq->held_head && !femu_cq_full(n, cq));
    }
    return work;
}
