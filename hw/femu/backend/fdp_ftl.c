/*
 * FDP between the device and the FTL (femu_ftl/fdp.h).
 *
 * The FTL keeps the events it raises (an RU closed before it was full: by a Reclaim Unit
 * Handle Update, or at the handle's next write once fdp_ru_time_limit_s ran out) until
 * someone takes them. The FTL thread takes them after every request it serves, so each
 * event is known to belong to that request: a Reclaim Unit Handle Update's events get its
 * namespace and the placement identifier it named the handle by, a write's time limit
 * event likewise; a controller reset's update (an internal request) turns each into a
 * Controller Level Reset Modified Reclaim Unit Handles event, whose NSID and PID are
 * reserved, recorded where that type was enabled when the reset came (the request says
 * where: the reset has brought back the saved enables since). An event about a handle
 * the request did not name has no NSID or PID (a buffered page flushed later, say).
 * backend/fdp_events.c records what is enabled.
 *
 * A handle's status is read by the poller holding engine_lock, as zone admissions are
 * (cmd/io/zns.c): it waits at most for the batch the FTL thread is serving, and sees every
 * request served before; those still queued behind it are not in it (the spec allows
 * that of I/O Management Receive).
 */
#include "qemu/osdep.h"

#include "backend/fdp_events.h"
#include "backend/fdp_ftl.h"

void femu_fdp_ftl_events(FemuCtrl *n, const FemuRequest *req)
{
    struct ftl_fdp_event taken[FTL_FDP_EVENT_RING];
    size_t count = ftl_fdp_take_events(n->ftl, taken, ARRAY_SIZE(taken), NULL);
    bool reset = req->internal && req->ftl.op == FTL_OP_RUH_UPDATE;

    for (size_t i = 0; i < count; i++) {
        const struct ftl_fdp_event *e = &taken[i];
        FemuFdpEventInfo ev = {
            .type = e->type, .ruh = e->ruh, .time_ns = e->time_ns, .ru = e->ru,
            .unwritten_pages = e->unwritten_pages,
        };

        if (reset && e->type == FTL_FDP_EVENT_RU_NOT_FULLY_WRITTEN) {
            /* enabled or not as the handle was when the reset came */
            ev.type = FEMU_FDP_EVT_CTRL_RESET;
            if (e->ruh < FEMU_FDP_MAX_RUHS && (req->fdp_reset_report >> e->ruh & 1)) {
                femu_fdp_event_put(n, &ev);
            }
            continue;
        }
        if (e->ruh < FEMU_FDP_MAX_RUHS && (req->fdp_named >> e->ruh & 1)) {
            ev.nsid = req->ftl.nsid;
            ev.pid_valid = true;
            ev.pid = req->fdp_phndl[e->ruh];
        }
        femu_fdp_event_add(n, &ev);
    }
}

int femu_fdp_ftl_ruh_status(FemuCtrl *n, uint32_t ruh, struct ftl_ruh_status *out)
{
    int rc;

    qemu_mutex_lock(&n->engine_lock);
    rc = ftl_fdp_ruh_status(n->ftl, ruh, out);
    qemu_mutex_unlock(&n->engine_lock);
    return rc;
}
