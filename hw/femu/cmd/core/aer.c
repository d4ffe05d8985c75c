/*
 * Asynchronous events (poller thread). An Asynchronous Event Request is held, with its
 * request, until an event completes it; an event with no request waiting is queued
 * until one arrives. A controller reset drops both. Which events are raised at all is
 * decided where they happen (the namespace-changed notice: cmd/admin/ns.c, masked until the
 * host reads its log, as the spec asks).
 */
#include "qemu/osdep.h"

#include "cmd/core/aer.h"
#include "ctrl/request.h"

static void femu_aer_complete(FemuCtrl *n, FemuRequest *req, uint32_t result)
{
    req->status = NVME_SUCCESS;
    req->result = result;
    req->work = FEMU_WORK_NONE;
    req->done_ns = femu_now_ns();
    completion_heap_push(&n->heap, req->done_ns, req);
    n->aer_outstanding--;
}

/* The oldest queued event, taken off the queue. */
static uint32_t femu_aer_pop(FemuCtrl *n)
{
    uint32_t result = n->aer_events[0];

    n->aer_queued--;
    memmove(n->aer_events, n->aer_events + 1, n->aer_queued * sizeof(n->aer_events[0]));
    return result;
}

/* Pair queued events with held requests, oldest first. */
static void femu_aer_deliver(FemuCtrl *n)
{
    while (n->aer_waiting && n->aer_queued > 0) {
        FemuRequest *req = n->aer_waiting;

        n->aer_waiting = req->list_next;
        req->list_next = NULL;
        femu_aer_complete(n, req, femu_aer_pop(n));
    }
}

uint16_t femu_aer_request(FemuCtrl *n, const NvmeCmd *cmd, FemuRequest *req)
{
    FemuRequest **tail = &n->aer_waiting;

    if (n->aer_outstanding > FEMU_AERL) {
        return femu_dnr(NVME_AER_LIMIT_EXCEEDED);
    }
    if (n->aer_queued > 0) {
        /* An event waited for a request (so none is held): this one reports it now,
         * completed by the caller like any command. */
        req->result = femu_aer_pop(n);
        return NVME_SUCCESS;
    }
    n->aer_outstanding++;
    while (*tail) {
        tail = &(*tail)->list_next;
    }
    req->list_next = NULL;
    *tail = req;
    return NVME_NO_COMPLETE;    /* the request is ours until an event completes it */
}

void femu_aer_post(FemuCtrl *n, uint8_t type, uint8_t info, uint8_t log_page)
{
    uint32_t result = type | (uint32_t)info << 8 | (uint32_t)log_page << 16;

    for (unsigned i = 0; i < n->aer_queued; i++) {
        if (n->aer_events[i] == result) {
            return;             /* already waiting to be reported */
        }
    }
    if (n->aer_queued < ARRAY_SIZE(n->aer_events)) {
        n->aer_events[n->aer_queued++] = result;
    }
    femu_aer_deliver(n);
}

void femu_aer_reset(FemuCtrl *n)
{
    femu_req_free_all(n, &n->aer_waiting);
    n->aer_outstanding = 0;
    n->aer_queued = 0;
}
