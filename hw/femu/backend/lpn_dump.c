/*
 * The per-LPN dump (poller thread): vendor C0h and the save a shutdown makes write
 * lpn_access_count.csv through the FTL thread, one dump at a time. Requests arriving
 * while one runs wait, and one more dump answers all of them, so a guest repeating C0h
 * costs at most two dumps, not one per command.
 */
#include "qemu/osdep.h"

#include "femu_ctrl.h"

static void femu_lpn_dump_start(FemuCtrl *n, FemuRequest *req)
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
        femu_lpn_dump_start(n, req);
        return;
    }
    while (*tail) {
        tail = &(*tail)->list_next;
    }
    req->list_next = NULL;
    *tail = req;
    /* the first waiting dump is the one that runs for all of them */
    n->dump_waiting->drain |= req->drain;
}

/* One dump request answered: a CQE for C0h, SHST complete for a current shutdown. */
static void femu_lpn_dump_answer(FemuCtrl *n, FemuRequest *req)
{
    if (req->internal) {
        femu_ctrl_shutdown_saved(n, req->shutdown_seq);
        femu_req_free(n, req);
    } else if (req->epoch != n->epoch) {
        femu_req_free(n, req);
    } else {
        completion_heap_push(&n->heap, req->done_ns, req);
    }
}

/* The FTL thread finished the dump in flight: answer it and its riders, start the next. */
void femu_lpn_dump_returned(FemuCtrl *n, FemuRequest *done)
{
    n->lpn_dump_busy = false;
    while (n->dump_riders) {
        FemuRequest *rider = n->dump_riders;

        n->dump_riders = rider->list_next;
        rider->status = done->status;
        rider->done_ns = done->done_ns;
        femu_lpn_dump_answer(n, rider);
    }
    femu_lpn_dump_answer(n, done);
    if (n->dump_waiting) {
        FemuRequest *next = n->dump_waiting;

        n->dump_riders = next->list_next;
        n->dump_waiting = NULL;
        femu_lpn_dump_start(n, next);
    }
}

/* Reset or fatal error: dumps not yet started are dropped; the one with the FTL thread
 * comes back stale. */
void femu_lpn_dump_drop_queued(FemuCtrl *n)
{
    femu_req_free_all(n, &n->dump_waiting);
    femu_req_free_all(n, &n->dump_riders);
}
