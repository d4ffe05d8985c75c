/*
 * femu_ftl/fdp.h - Flexible Data Placement (NVMe TP4146, NVMe 2.1) in the FTL.
 *
 * With placement=fdp the FTL models one endurance group with one reclaim group: its
 * reclaim unit handles (RUHs) are the data write pointers, fdp_ruhs of them, and a
 * reclaim unit (RU) is a GC unit (a line, or a block with gc_unit=block). A write names
 * its RUH in ftl_io.stream / ftl_request.stream (the device resolves a namespace's
 * placement handle to it). GC follows the handles' isolation (fdp_ruh_type):
 * persistently isolated, a unit's valid pages go back to the open RU of their own handle;
 * initially isolated, GC may mix them: every handle's moved pages share one GC write
 * pointer (the write pointer after the handles). The device builds the NVMe logs and
 * commands on the calls below; ftl-sim reports the same.
 */
#ifndef FEMU_FTL_FDP_H
#define FEMU_FTL_FDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "femu_ftl/ftl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reclaim unit handles: 0 without placement=fdp. */
uint32_t ftl_fdp_ruhs(const struct ftl *ftl);
/* Pages of one reclaim unit (the GC unit) without bad blocks: its nominal size. */
uint64_t ftl_fdp_ru_pages(const struct ftl *ftl);

/* One handle now: the RU it references and how much of it is left to write. */
struct ftl_ruh_status {
    uint32_t ru;                /* the GC unit written now; UINT32_MAX: none open yet (the
                                 * next write opens one) */
    uint64_t available_pages;   /* pages the host can still write before the handle moves
                                 * to a new RU (a whole RU's good pages when none is open) */
    uint64_t opened_ns;         /* when the open RU received its first page (0: none) */
};

/* FTL_E_INVAL for a handle out of range or without placement=fdp. */
int ftl_fdp_ruh_status(const struct ftl *ftl, uint32_t ruh, struct ftl_ruh_status *out);

/*
 * Reclaim Unit Handle Update: the handle's open RU, if it holds any page, is closed as it
 * is (its unwritten pages are never programmed: they count in fdp_unwritten_pages and
 * the RU becomes a GC victim like any other) and the next write opens a new one. A
 * handle whose RU is still empty keeps it. *unwritten_pages (NULL: not wanted) is what
 * was left unwritten, 0 when nothing changed. Costs no flash time. FTL_E_INVAL for a bad
 * handle.
 */
int ftl_fdp_ruh_update(struct ftl *ftl, uint32_t ruh, uint64_t now_ns,
                       uint64_t *unwritten_pages);

/* What the FTL did to a handle on its own: the FDP events it can truthfully raise. */
enum ftl_fdp_event_type {
    /* An RU was closed before it was full, by ftl_fdp_ruh_update (the host asked). */
    FTL_FDP_EVENT_RU_NOT_FULLY_WRITTEN = 0x00,
    /* An RU stayed open past fdp_ru_time_limit_s: the FTL closed it as it was, at the
     * handle's next write, and that write went to a new RU. */
    FTL_FDP_EVENT_RU_TIME_LIMIT = 0x01,
};

struct ftl_fdp_event {
    uint64_t time_ns;           /* the caller's time when it happened */
    uint64_t unwritten_pages;   /* pages of the RU left unwritten */
    uint32_t ruh;
    uint32_t ru;                /* the RU (GC unit) closed */
    uint8_t type;               /* enum ftl_fdp_event_type */
};

#define FTL_FDP_EVENT_RING 64   /* events kept until taken; older ones are dropped */

/* Take up to max events, oldest first; returns how many. *lost (NULL: not wanted) gets
 * the events dropped since the last call because the ring was full. */
size_t ftl_fdp_take_events(struct ftl *ftl, struct ftl_fdp_event *out, size_t max,
                           uint64_t *lost);

#ifdef __cplusplus
}
#endif

#endif
