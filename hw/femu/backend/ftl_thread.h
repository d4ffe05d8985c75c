/*
 * The FTL thread (backend/ftl_thread.c): the FTL engine's only user, apart from the poller
 * holding engine_lock to serve a read inline or to save a state.
 */
#ifndef HW_FEMU_BACKEND_FTL_THREAD_H
#define HW_FEMU_BACKEND_FTL_THREAD_H

#include "femu.h"

void *femu_ftl_thread_run(void *opaque);
bool femu_ftl_engine_create(FemuCtrl *n);   /* before the FTL thread starts */
/* Poller: serve a read or an FTL_OP_ADMIN now when the FTL thread is idle (true), else
 * leave it (false). */
bool femu_ftl_serve_inline(FemuCtrl *n, FemuRequest *req);
/* Serve what waits in the poller's ring now, as the FTL thread would; the caller holds
 * engine_lock (the poller, before a save). */
void femu_ftl_serve_queued(FemuCtrl *n);
/* Namespace nsid's KV store: made by the caller (create: ftl_kv_create), or to end. The
 * caller holds engine_lock. What waits in the ring is served first, then the engine
 * records the store made (FTL_OP_KV_CREATE, admitted) or ends it (FTL_OP_KV_DESTROY), at
 * now. Before the engine exists (realize): an end is ftl_kv_destroy, a create nothing. */
void femu_ftl_kv_life(FemuCtrl *n, uint32_t nsid, bool create, uint64_t now);

#endif
