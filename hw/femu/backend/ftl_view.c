/*
 * The FTL's counters, wear and gauges as the logs see them (SMART 02h, OCP C0h).
 *
 * The FTL belongs to the FTL thread (or to the poller while it holds engine_lock), so the
 * poller, which builds the log pages, never reads it directly: whoever just ran the FTL
 * publishes a copy under view_lock, and the poller copies that out. Both copies are a few
 * hundred bytes; ftl_get_wear and ftl_get_gauges are O(1) in the FTL's size.
 */
#include "qemu/osdep.h"

#include "backend/ftl_view.h"

void femu_ftl_view_init(FemuCtrl *n)
{
    qemu_mutex_init(&n->view_lock);
    n->view_lock_init = true;
    femu_ftl_view_publish(n);   /* the logs have something before the first command */
}

void femu_ftl_view_destroy(FemuCtrl *n)
{
    if (n->view_lock_init) {
        qemu_mutex_destroy(&n->view_lock);
        n->view_lock_init = false;
    }
}

void femu_ftl_view_publish(FemuCtrl *n)
{
    FemuFtlView view;
    struct ftl_gauges gauges;

    ftl_get_counters(n->ftl, &view.ctr);
    ftl_get_wear(n->ftl, &view.wear);
    ftl_get_gauges(n->ftl, &gauges);
    qemu_mutex_lock(&n->view_lock);
    n->view = view;
    n->view_gauges = gauges;
    qemu_mutex_unlock(&n->view_lock);
}

void femu_ftl_view_get(FemuCtrl *n, FemuFtlView *out)
{
    qemu_mutex_lock(&n->view_lock);
    *out = n->view;
    qemu_mutex_unlock(&n->view_lock);
}

void femu_ftl_view_get_gauges(FemuCtrl *n, struct ftl_gauges *out)
{
    qemu_mutex_lock(&n->view_lock);
    *out = n->view_gauges;
    qemu_mutex_unlock(&n->view_lock);
}
