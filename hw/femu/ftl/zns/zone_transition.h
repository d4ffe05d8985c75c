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

/* Whether the zone holds a ZRWA; and dropping it (the zone left the active states). */
bool zone_has_zrwa(const struct zone_state *zs, uint64_t zone);
void zone_drop_zrwa(struct zone_state *zs, uint64_t zone);

/* A ZRWA zone's window: commit n sectors of it (the zone full, its ZRWA freed, when they
 * reach the capacity), and open a closed zone implicitly for a write or a flush. */
void zone_zrwa_commit(struct zone_state *zs, uint64_t zone, uint64_t n);
int zone_open_for_io(struct zone_state *zs, uint64_t zone, uint32_t *victim);

/* ZRWA admission (zone_state.c for a write, zone_zrwa.c for the actions). A write in a
 * zone holding one, the zone's state already checked writable: the statuses and effects
 * of ftl_zone_admit_write there. */
int zrwa_admit_write(struct zone_state *zs, uint64_t zone, uint64_t slba, uint64_t nlb,
                     bool append, uint64_t *assigned);
/* Open with ZRWAA of one zone, and the explicit flush to LBA elba: the statuses of
 * ftl_zone_admit_mgmt; *changed set when the zone's state changed (and *victim to a zone
 * closed for room, else NO_ZONE). */
int zrwa_admit_open(struct zone_state *zs, uint64_t zone, bool *changed, uint32_t *victim);
int zrwa_admit_flush(struct zone_state *zs, uint64_t elba, bool *changed, uint32_t *victim);
/* Sectors an implicit commit takes when a write in the window [w, w + zrwas) ends at end
 * (zone-relative, w <= end <= w + 2 zrwas): the fewest ZRWAFG units bringing end inside,
 * up to the capacity. Shared with the flash side (zns.c), which commits the same. */
uint64_t zrwa_implicit_commit(uint64_t w, uint64_t end, uint64_t zrwas, uint64_t fg,
                              uint64_t cap);

#endif
