/* The FTL's counters, wear and gauges as the logs see them (backend/ftl_view.c). */
#ifndef HW_FEMU_BACKEND_FTL_VIEW_H
#define HW_FEMU_BACKEND_FTL_VIEW_H

#include "femu.h"

void femu_ftl_view_init(FemuCtrl *n);
void femu_ftl_view_destroy(FemuCtrl *n);
void femu_ftl_view_publish(FemuCtrl *n);    /* FTL thread, or the poller under engine_lock */
void femu_ftl_view_get(FemuCtrl *n, FemuFtlView *out);     /* poller */
void femu_ftl_view_get_gauges(FemuCtrl *n, struct ftl_gauges *out);    /* poller */

#endif
