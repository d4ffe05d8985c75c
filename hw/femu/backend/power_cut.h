/*
 * Power loss in the device (backend/power_cut.c; the model: docs/ftl.md "Power loss").
 * QMP `qom-set DEV power-cut now|after-writes=N|after-flushes=N|off` cuts (or arms a cut);
 * `power-cut-status` tells what happened. A guest can never cut.
 */
#ifndef HW_FEMU_BACKEND_POWER_CUT_H
#define HW_FEMU_BACKEND_POWER_CUT_H

#include "femu.h"

void femu_power_cut_instance_init(FemuCtrl *n);     /* the QOM properties */
void femu_power_cut_instance_finalize(FemuCtrl *n);
/* Realize: the pre-images, when a cut can lose buffered data (a buffer, plp off). */
bool femu_power_cut_realize(FemuCtrl *n, Error **errp);
void femu_power_cut_release(FemuCtrl *n);

/* Poller, at fetch, before a write overwrites FTL sectors [first, first + count) of the
 * store: keep their bytes with the request (only when pre-images are kept). */
void femu_power_cut_capture(FemuCtrl *n, FemuRequest *req, uint64_t first, uint64_t count);
/* FTL thread, around serving a request that captured bytes (req->pre_data), and after
 * every request: keep the bytes of the sectors that entered the write buffer. */
void femu_power_cut_before_serve(FemuCtrl *n, const FemuRequest *req);
void femu_power_cut_after_serve(FemuCtrl *n, FemuRequest *req);
/* Poller, posting a completion: count it toward an armed cut. */
void femu_power_cut_acked(FemuCtrl *n, const FemuRequest *req);
/* Poller, every pass: whether a cut is asked for (and no state save is being written). */
bool femu_power_cut_due(FemuCtrl *n);
/* Poller, holding engine_lock, every fetched request served: cut (the FTL loses per the
 * model, the store reads back what flash holds, the files are written). true: the
 * controller must now be power cycled. */
bool femu_power_cut_take(FemuCtrl *n);
/* Poller, once the controller is power cycled: power-cut-status and power-cuts tell it. */
void femu_power_cut_publish(FemuCtrl *n);

#endif
