/*
 * The poller's busy-waits, each bounded by the clock and counted (top/poll_window.h).
 *
 * The poll window: at QD1 the guest's next command comes a few tens of microseconds after
 * the completion it waited for. A poller that slept there costs that command an MMIO
 * doorbell (the EventIdx it armed asks for one), an eventfd write and a thread wake-up.
 * So after each I/O event (a fetch or a post on an I/O queue) the poller stays awake for
 * a window, reading the SQ tails (shadow doorbells, which the guest then writes without
 * ringing, as EventIdx is not re-armed while polling). The window learns from the gaps
 * between I/O events: it grows to cover one and a half times a gap seen (up to the cap),
 * shrinks by a quarter after each poll that found nothing, and starts from zero after a
 * quiet period. After a poll the host preempted, the next FEMU_POLL_BACKOFF are skipped.
 * The window is counted from the last event, so an idle controller sleeps at once.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qapi/error.h"
#include "qapi/visitor.h"

#include "ctrl/queue.h"
#include "ctrl/request.h"
#include "top/ctrl_state.h"
#include "top/poll_window.h"
#include "trace.h"

/* Added to a learnt gap: the poll's own reaction time. */
#define FEMU_POLL_MARGIN_NS     2000
/* A window shrunk below this is no window. */
#define FEMU_POLL_MIN_NS        1000
/* A gap this long between two clock reads of a poll (FEMU_POLL_CLOCK_EVERY iterations,
 * a few microseconds) means the host took the CPU away. */
#define FEMU_POLL_PREEMPTED_NS  50000
/* Polls skipped after a preempted one. */
#define FEMU_POLL_BACKOFF       64
/* I/O after this long without any starts the learning afresh. */
#define FEMU_POLL_FORGET_NS     (100 * 1000 * 1000)

bool femu_poller_has_work(FemuCtrl *n)
{
    if (qatomic_read(&n->stop) || femu_ctrl_work_pending(n) ||
        spsc_ring_count(n->from_ftl) > 0) {
        return true;
    }
    if (!femu_ctrl_serving(n)) {
        return false;
    }
    for (unsigned qid = 0; qid <= n->queues; qid++) {
        FemuCQueue *cq = &n->cq[qid];

        if ((femu_may_fetch(n) && femu_sq_pending(n, qid, NULL)) ||
            (cq->valid && cq->held_head && !femu_cq_full(n, cq))) {
            return true;
        }
    }
    return false;
}

/* The poller is the counters' only writer; QOM reads them from the main loop. */
static void femu_poll_count(uint64_t *counter, uint64_t by)
{
    qatomic_set__nocheck(counter, *counter + by);
}

void femu_poll_note_io(FemuCtrl *n, uint64_t now)
{
    FemuPoll *p = &n->poll;
    uint64_t cap = (uint64_t)p->cap_us * 1000;

    if (p->last_io_ns && now >= p->last_io_ns) {
        uint64_t gap = now - p->last_io_ns;

        if (gap > FEMU_POLL_FORGET_NS) {
            p->window_ns = 0;
        } else if (gap <= cap) {
            uint64_t want = MIN(gap + gap / 2 + FEMU_POLL_MARGIN_NS, cap);

            p->window_ns = MAX(p->window_ns, want);
        }
    }
    p->last_io_ns = now;
}

bool femu_poll_window(FemuCtrl *n)
{
    FemuPoll *p = &n->poll;
    uint64_t start, end, due, now;
    uint64_t iters = 0;
    bool work = false, until_due = false, preempted = false;
    const char *outcome;

    if (!p->window_ns || !femu_ctrl_serving(n)) {
        return false;
    }
    start = femu_now_ns();
    end = p->last_io_ns + p->window_ns;
    if (start >= end) {
        return false;
    }
    if (p->backoff) {
        p->backoff--;        /* the host preempted a poll lately: sleep instead */
        return false;
    }
    if (completion_heap_peek(&n->heap, &due, NULL)) {
        if (due > end || due <= start) {
            return false;    /* a longer wait: the timed sleep's (top/poller.c); or one
                                held back (a power cut asked), which no poll helps */
        }
        end = due;           /* poll up to it; the completion is posted at once then */
        until_due = true;
    }
    for (uint64_t seen = start;;) {
        if (femu_poller_has_work(n)) {
            work = true;
            break;
        }
        cpu_relax();
        if (++iters % FEMU_POLL_CLOCK_EVERY) {
            continue;
        }
        now = femu_now_ns();
        if (now - seen > FEMU_POLL_PREEMPTED_NS) {
            preempted = true;    /* the host ran something else meanwhile */
            break;
        }
        seen = now;
        if (now >= end) {
            break;
        }
    }
    now = femu_now_ns();

    femu_poll_count(&p->ctr.windows, 1);
    femu_poll_count(&p->ctr.window_ns, MIN(now, end) - start);
    femu_poll_count(&p->ctr.window_iters, iters);
    if (work) {
        femu_poll_count(&p->ctr.found, 1);
        outcome = "found";
    } else if (preempted) {
        /* A busy host: a sleeping poller, which a doorbell wakes with the scheduler's
         * priority for a woken thread, waits less than one the host keeps off its CPU. */
        femu_poll_count(&p->ctr.preempted, 1);
        p->backoff = FEMU_POLL_BACKOFF;
        outcome = "preempted";
    } else if (until_due) {
        femu_poll_count(&p->ctr.due, 1);
        outcome = "due";
    } else {
        femu_poll_count(&p->ctr.expired, 1);
        p->window_ns -= p->window_ns / 4;
        if (p->window_ns < FEMU_POLL_MIN_NS) {
            p->window_ns = 0;
        }
        outcome = "expired";
    }
    trace_femu_poll_window(outcome, MIN(now, end) - start, iters, p->window_ns);
    return work || (until_due && !preempted);
}

void femu_poll_spin_until(FemuCtrl *n, uint64_t due)
{
    FemuPoll *p = &n->poll;
    uint64_t start = femu_now_ns(), now = start, iters = 0;
    bool work = false;

    while (now < due) {
        if (femu_poller_has_work(n)) {
            work = true;
            break;
        }
        cpu_relax();
        if (++iters % FEMU_POLL_CLOCK_EVERY == 0) {
            now = femu_now_ns();
        }
    }
    now = femu_now_ns();
    femu_poll_count(&p->ctr.spins, 1);
    femu_poll_count(&p->ctr.spin_found, work);
    femu_poll_count(&p->ctr.spin_ns, MIN(now, due) - MIN(start, due));
    femu_poll_count(&p->ctr.spin_iters, iters);
}

static void femu_poll_get_counters(Object *obj, Visitor *v, const char *name, void *opaque,
                                   Error **errp)
{
    FemuCtrl *n = FEMU(obj);
    const FemuPollCounters *c = &n->poll.ctr;
    g_autofree char *text = g_strdup_printf(
        "windows=%" PRIu64 " found=%" PRIu64 " due=%" PRIu64 " expired=%" PRIu64
        " preempted=%" PRIu64
        " window_ns=%" PRIu64 " window_iters=%" PRIu64 " spins=%" PRIu64
        " spin_found=%" PRIu64 " spin_ns=%" PRIu64 " spin_iters=%" PRIu64
        " cap_ns=%" PRIu64 " spin_cap_ns=%u",
        qatomic_read__nocheck(&c->windows), qatomic_read__nocheck(&c->found),
        qatomic_read__nocheck(&c->due), qatomic_read__nocheck(&c->expired),
        qatomic_read__nocheck(&c->preempted),
        qatomic_read__nocheck(&c->window_ns), qatomic_read__nocheck(&c->window_iters),
        qatomic_read__nocheck(&c->spins), qatomic_read__nocheck(&c->spin_found),
        qatomic_read__nocheck(&c->spin_ns), qatomic_read__nocheck(&c->spin_iters),
        (uint64_t)n->poll.cap_us * 1000, FEMU_SPIN_MAX_NS);

    visit_type_str(v, name, &text, errp);
}

void femu_poll_instance_init(FemuCtrl *n)
{
    Object *obj = OBJECT(n);

    object_property_add(obj, "poll-counters", "str", femu_poll_get_counters, NULL, NULL,
                        NULL);
    object_property_set_description(obj, "poll-counters",
        "the poller's busy-waits since the device started: poll windows (found, due, "
        "expired, preempted, time, iterations), spins to a due completion (found, time, iterations), "
        "and the caps of both, as KEY=VALUE words");
}

bool femu_poll_check_props(FemuCtrl *n, Error **errp)
{
    if (n->poll.cap_us > FEMU_POLL_WINDOW_CAP_NS / 1000) {
        error_setg(errp, "poll_window_us: %" PRIu32 " is out of range [0, %d] (0: no poll "
                   "window)", n->poll.cap_us, FEMU_POLL_WINDOW_CAP_NS / 1000);
        return false;
    }
    return true;
}

void femu_poll_class_init(ObjectClass *oc)
{
    object_class_property_set_description(oc, "poll_window_us",
        "longest the poller stays awake for more I/O after a fetch or a completion, in us "
        "(0: it sleeps at once, as before the poll window)");
}
