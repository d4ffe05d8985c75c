/*
 * Tells ftl_set_unit_observer's observer about a unit (femu_ftl/ftl.h): opened by a write
 * pointer (map/write_pointers.c) or chosen as a GC victim (gc/gc.c), with its counts now.
 */
#ifndef FEMU_FTL_FLASH_UNIT_EVENTS_H
#define FEMU_FTL_FLASH_UNIT_EVENTS_H

#include "flash/ftl_handle.h"
#include "flash/geometry.h"

static inline void unit_event(const struct ftl *ftl, enum ftl_unit_event_kind kind,
                              uint32_t unit, uint64_t now_ns)
{
    if (!ftl->unit_observer) {
        return;
    }
    const struct line *l = &ftl->lines[unit];
    struct ftl_unit_event event = {
        .kind = kind, .unit = unit, .pool = unit_pool(ftl, unit), .wp = l->wp,
        .valid = l->valid, .invalid = l->invalid, .capacity = l->capacity,
        .free_units = ftl->free_count, .host_pages = ftl->ctr.host_write_pages,
        .now_ns = now_ns,
    };
    ftl->unit_observer(ftl->unit_observer_ctx, &event);
}

#endif
