/* The request pool (ctrl/request.c, poller; made and destroyed with the threads). */
#ifndef HW_FEMU_CTRL_REQUEST_H
#define HW_FEMU_CTRL_REQUEST_H

#include "femu.h"

void femu_req_pool_init(FemuCtrl *n);
void femu_req_pool_destroy(FemuCtrl *n);
FemuRequest *femu_req_alloc(FemuCtrl *n);              /* NULL when all are in flight */
/* For a shutdown's save: the reserved request, else one from the pool; NULL only while
 * the reserved one is still out for an earlier shutdown and the pool is empty. */
FemuRequest *femu_req_alloc_shutdown(FemuCtrl *n);
void femu_req_free(FemuCtrl *n, FemuRequest *req);
void femu_req_free_all(FemuCtrl *n, FemuRequest **head);
bool femu_req_stale(FemuCtrl *n, const FemuRequest *req);
void femu_req_drop_inflight(FemuCtrl *n);

/* Whether the poller may fetch a command: a request is free, and no save is being
 * written (top/state_save.c: the device holds still until it is). */
static inline bool femu_may_fetch(FemuCtrl *n)
{
    return n->free_requests != NULL && !n->save_running;
}

#endif
