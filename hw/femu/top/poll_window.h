/*
 * The poller's bounded busy-waits (top/poll_window.c): the adaptive poll window, which
 * keeps the poller awake for a short, self-tuning time after I/O so the next submission
 * is seen in the shadow doorbells without an MMIO doorbell or a wake-up, and the spin
 * before a due completion. Both are bounded by the clock, never by the guest, and counted
 * in FemuCtrl.poll (QOM property poll-counters).
 */
#ifndef HW_FEMU_TOP_POLL_WINDOW_H
#define HW_FEMU_TOP_POLL_WINDOW_H

#include "femu.h"

/* The longest poll window, whatever the tuning learnt (property poll_window_us, in us,
 * may lower it). */
#define FEMU_POLL_WINDOW_CAP_NS   200000
/* The longest the poller spins to a due completion instead of sleeping (top/poller.c
 * learns how early to wake, up to this). */
#define FEMU_SPIN_MAX_NS          50000
/* Clock reads: one every this many iterations of a busy-wait. */
#define FEMU_POLL_CLOCK_EVERY     8

/* The poller fetched or posted on an I/O queue at now: the window is counted from here,
 * and learns the gap since the previous such event. */
void femu_poll_note_io(FemuCtrl *n, uint64_t now);

/* A pass found nothing to do: stay awake for what is left of the window, watching for
 * work; true if the poll ended on work (or a completion came due), false if there was
 * no window or it expired. */
bool femu_poll_window(FemuCtrl *n);

/* Whether the poller has something to do now: what the busy-waits and the sleep watch. */
bool femu_poller_has_work(FemuCtrl *n);

/* Wait awake until due, still watching for new work: the last stretch before a completion,
 * shorter than a timed sleep overshoots by (top/poller.c); never without one pending. */
void femu_poll_spin_until(FemuCtrl *n, uint64_t due);

void femu_poll_instance_init(FemuCtrl *n);
/* Realize: poll_window_us within its cap, else false with errp set. */
bool femu_poll_check_props(FemuCtrl *n, Error **errp);
/* The class's description of poll_window_us. */
void femu_poll_class_init(ObjectClass *oc);

#endif
