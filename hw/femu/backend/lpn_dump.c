/*
 * The per-LPN dump (poller thread): vendor C0h and the save a shutdown makes write
 * lpn_access_count.csv through the FTL thread, one dump at a time. Requests arriving
 * while one runs wait, and one more dump answers all of them, so a guest repeating C0h
 * costs at most two dumps, not one per command.
 */
#include "qemu/osdep.h"

#include "backend/lpn_dump.h"
#include "ctrl/request.h"
#include "ctrl/wake.h"

static void femu_lpn_dump_start(FemuCtrl *n, FemuRequest *req)
{
    n->lpn_dump_busy = true;
    spsc_ring_push(n->to_ftl, req);
    femu_ftl_kick(n);
}

void femu_lpn_dump_submit(FemuCtrl *n, FemuRequest *req)
{
    FemuRequest **tail = &n->dump_waiting;

    req->work = FEMU_WORK_LPN_DUMP;
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

/*
 * One dump request answered: a CQE for C0h; for a shutdown's, true when it is the current
 * shutdown's (a newer SHN change or a reset bumped shutdown_seq otherwise).
 */
static bool femu_lpn_dump_answer(FemuCtrl *n, FemuRequest *req)
{
    bool shutdown_saved = req->internal && req->shutdown_seq == n->shutdown_seq;

    if (req->internal || req->epoch != n->epoch) {
        femu_req_free(n, req);
    } else {
        completion_heap_push(&n->heap, req->done_ns, req);
    }
    return shutdown_saved;
}

bool femu_lpn_dump_returned(FemuCtrl *n, FemuRequest *done)
{
    bool shutdown_saved = false;

    n->lpn_dump_busy = false;
    while (n->dump_riders) {
        FemuRequest *rider = n->dump_riders;

        n->dump_riders = rider->list_next;
        rider->status = done->status;
        rider->done_ns = done->done_ns;
        shutdown_saved |= femu_lpn_dump_answer(n, rider);
    }
    shutdown_saved |= femu_lpn_dump_answer(n, done);
    if (n->dump_waiting) {
        FemuRequest *next = n->dump_waiting;

        n->dump_riders = next->list_next;
        n->dump_waiting = NULL;
        femu_lpn_dump_start(n, next);
    }
    return shutdown_saved;
}

/* Reset or fatal error: dumps not yet started are dropped; the one with the FTL thread
 * comes back stale. */
void femu_lpn_dump_drop_queued(FemuCtrl *n)
{
    femu_req_free_all(n, &n->dump_waiting);
    femu_req_free_all(n, &n->dump_riders);
}
