/*
 * Waking the poller and the FTL thread (ctrl/wake.h). The barrier orders the caller's
 * store of its work before the read of the sleeping flag; the sleeper sets the flag, then
 * looks for work once more before it sleeps (top/poller.c, backend/ftl_thread.c), so
 * either the sleeper sees the work or the waker sees the flag.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"

#include "ctrl/wake.h"

void femu_poller_kick(FemuCtrl *n)
{
    smp_mb();
    if (qatomic_read(&n->poller_sleeping)) {
        event_notifier_set(&n->poller_wake);
    }
}

void femu_ftl_kick(FemuCtrl *n)
{
    smp_mb();
    if (qatomic_read(&n->ftl_sleeping)) {
        event_notifier_set(&n->ftl_wake);
    }
}
