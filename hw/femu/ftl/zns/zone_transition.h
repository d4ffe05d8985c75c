/*
 * The zone state machine's one transition and its open-resource plan (zone_state.c),
 * shared with Zone Management Send (zone_mgmt.c) so both change zones the same way.
 */
#ifndef FEMU_FTL_ZNS_ZONE_TRANSITION_H
#define FEMU_FTL_ZNS_ZONE_TRANSITION_H

#include <stdbool.h>
#include <stdint.h>

#include "femu_ftl/zns.h"

struct zone_state;

static inline bool zone_is_open(uint8_t s)
{
    return s == FTL_ZONE_IMPLICIT_OPEN || s == FTL_ZONE_EXPLICIT_OPEN;
}

static inline bool zone_is_active(uint8_t s)
{
    return zone_is_open(s) || s == FTL_ZONE_CLOSED;
}

/* The one place a zone changes state; the open / active counts and the implicitly-open
 * FIFO follow. */
void zone_set_state(struct zone_state *zs, uint64_t zone, uint8_t to);

/* Whether a zone in state `from` may enter an open state: FTL_OK with *victim the
 * implicitly open zone to close for room (NO_ZONE: none), or the status refusing it. */
int zone_plan_open(const struct zone_state *zs, uint8_t from, uint32_t *victim);

/* Closes the victim zone_plan_open named, if any. */
void zone_close_victim(struct zone_state *zs, uint32_t victim);

#endif
