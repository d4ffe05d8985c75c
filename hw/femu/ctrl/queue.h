/*
 * Submission and completion queues (ctrl/queue.c, poller): create and delete, the doorbell
 * values (MMIO or shadow), posting CQEs, completions held while a CQ is full.
 */
#ifndef HW_FEMU_CTRL_QUEUE_H
#define HW_FEMU_CTRL_QUEUE_H

#include "femu.h"

uint16_t femu_cq_create(FemuCtrl *n, uint16_t qid, uint64_t addr, uint32_t size,
                        bool contiguous, bool irq_enabled, uint16_t vector);
uint16_t femu_sq_create(FemuCtrl *n, uint16_t qid, uint64_t addr, uint32_t size,
                        bool contiguous, uint16_t cqid);
uint16_t femu_cq_delete(FemuCtrl *n, uint16_t qid);
uint16_t femu_sq_delete(FemuCtrl *n, uint16_t qid);
void femu_queues_reset(FemuCtrl *n);
void femu_cq_hold(FemuCQueue *cq, FemuRequest *req);    /* a due completion, CQ full */
FemuRequest *femu_cq_unhold(FemuCQueue *cq);            /* the oldest held one */
void femu_cq_drop_held(FemuCtrl *n, FemuCQueue *cq);
uint32_t femu_sq_tail(FemuCtrl *n, uint16_t qid);
bool femu_cq_full(FemuCtrl *n, FemuCQueue *cq);
uint16_t femu_cq_post(FemuCtrl *n, FemuCQueue *cq, const NvmeCqe *cqe);
bool femu_sq_pending(FemuCtrl *n, uint16_t qid, uint32_t *tail);
void femu_dbbuf_init(FemuCtrl *n, uint16_t qid, bool cq, uint32_t value);
bool femu_arm_eventidx(FemuCtrl *n);

#endif
