/*
 * Requests (poller thread): a fixed pool of FEMU_MAX_INFLIGHT, made when the threads
 * start, so the rings and the completion heap, sized for the whole pool, never fill. A
 * request is free, or on exactly one of: the FTL thread's rings, the completion heap, its
 * CQ's held completions, the LPN dump lists. The controller's epoch voids requests in
 * flight at a reset or a fatal error; they come back to the free list as they surface.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"

#include "ctrl/request.h"

/*
 * What a request owns besides itself: the ranges a command gave its FTL work and a power
 * command's (femu.h, always its own g_new memory, const only for the engine's sake) and
 * a write's pre-image.
 */
static void femu_req_free_owned(FemuCtrl *n, FemuRequest *req)
{
    g_free((struct ftl_range *)req->ftl.ranges);
    req->ftl.ranges = NULL;
    req->ftl.nranges = 0;
    g_free((struct ftl_power_cmd *)req->ftl.power);
    req->ftl.power = NULL;
    if (req->pre_data) {        /* a write's pre-image bytes (backend/power_cut.c) */
        qatomic_sub(&n->power_cut.captured, req->pre_count * n->secsz);
        g_free(req->pre_data);
        req->pre_data = NULL;
    }
}

void femu_req_pool_init(FemuCtrl *n)
{
    n->pool = g_new0(FemuRequest, FEMU_MAX_INFLIGHT);
    for (unsigned i = 0; i < FEMU_MAX_INFLIGHT - 1; i++) {
        n->pool[i].list_next = n->free_requests;
        n->free_requests = &n->pool[i];
    }
    n->shutdown_req = &n->pool[FEMU_MAX_INFLIGHT - 1];
    n->shutdown_req_busy = false;
    n->shutdown_retry = false;
}

/* Once the threads are stopped: every request goes, wherever it was. */
void femu_req_pool_destroy(FemuCtrl *n)
{
    if (n->pool) {
        for (unsigned i = 0; i < FEMU_MAX_INFLIGHT; i++) {
            femu_req_free_owned(n, &n->pool[i]);
        }
        g_free(n->pool);
        n->pool = NULL;
        n->free_requests = NULL;
        n->shutdown_req = NULL;
    }
    n->dump_waiting = n->dump_riders = NULL;   /* pool entries, gone with it */
    n->aer_waiting = NULL;
}

FemuRequest *femu_req_alloc(FemuCtrl *n)
{
    FemuRequest *req = n->free_requests;

    if (req) {
        n->free_requests = req->list_next;
    }
    return req;
}

FemuRequest *femu_req_alloc_shutdown(FemuCtrl *n)
{
    if (!n->shutdown_req_busy) {
        n->shutdown_req_busy = true;
        return n->shutdown_req;
    }
    return femu_req_alloc(n);
}

void femu_req_free(FemuCtrl *n, FemuRequest *req)
{
    femu_req_free_owned(n, req);
    if (req == n->shutdown_req) {
        n->shutdown_req_busy = false;   /* back to its own slot, not the free list */
        return;
    }
    req->list_next = n->free_requests;
    n->free_requests = req;
}

/* Free every request of a list linked through list_next; the list is empty after. */
void femu_req_free_all(FemuCtrl *n, FemuRequest **head)
{
    while (*head) {
        FemuRequest *req = *head;

        *head = req->list_next;
        femu_req_free(n, req);
    }
}

/* A request whose completion nobody expects: a reset came, or its SQ was deleted. */
bool femu_req_stale(FemuCtrl *n, const FemuRequest *req)
{
    const FemuSQueue *sq = &n->sq[req->sqid];

    return req->epoch != n->epoch || !sq->valid || sq->gen != req->sq_gen;
}

/*
 * Forget every request in flight: the heap's now, the FTL thread's when they come back
 * (their epoch is stale). Part of a reset and of a fatal error.
 */
void femu_req_drop_inflight(FemuCtrl *n)
{
    void *item;

    qatomic_set(&n->epoch, n->epoch + 1);
    while (completion_heap_pop(&n->heap, NULL, &item)) {
        femu_req_free(n, item);
    }
}
