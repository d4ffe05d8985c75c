/* The request pool (ctrl/request.c, poller; made and destroyed with the threads). */
#ifndef HW_FEMU_CTRL_REQUEST_H
#define HW_FEMU_CTRL_REQUEST_H

#include "femu.h"

void femu_req_pool_init(FemuCtrl *n);
void femu_req_pool_destroy(FemuCtrl *n);
FemuRequest *femu_req_alloc(FemuCtrl *n);              /* NULL when all are in flight */
void femu_req_free(FemuCtrl *n, FemuRequest *req);
void femu_req_free_all(FemuCtrl *n, FemuRequest **head);
bool femu_req_stale(FemuCtrl *n, const FemuRequest *req);
void femu_req_drop_inflight(FemuCtrl *n);

static inline bool femu_req_available(FemuCtrl *n)
{
    return n->free_requests != NULL;
}

#endif
