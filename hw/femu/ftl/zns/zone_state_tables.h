/*
 * The zone state machine's tables (zone_state.c), shared only with the zoned namespace's
 * state section (state/ftl_state_zns.c), which saves and restores them; everything else
 * goes through zns/zone_state.h.
 */
#ifndef FEMU_FTL_ZNS_ZONE_STATE_TABLES_H
#define FEMU_FTL_ZNS_ZONE_STATE_TABLES_H

#include "zns/zone_state.h"

#define NO_ZONE UINT32_MAX  /* end of the implicitly-open FIFO; zones < UINT32_MAX */

struct zone_state {
    struct zone_state_params p;
    uint64_t sectors;       /* zones * zone_sectors */
    uint8_t *state;         /* enum ftl_zone_state per zone */
    uint64_t *written;      /* wp - start: cap when full, 0 when read only / offline */
    uint64_t *resets;
    /* Implicitly open zones, oldest first, linked through per-zone prev/next; only kept
     * when max_open is set (nothing is ever closed implicitly without it). */
    uint32_t *imp_prev, *imp_next;
    uint32_t imp_head, imp_tail;
    uint32_t open, active;
    uint64_t counts[FTL_ZONE_STATES];
    /* zrwa_resources > 0: 1 for a zone holding a ZRWA (always an active one), and how
     * many do; NULL without */
    uint8_t *zrwa;
    uint32_t zrwa_used;
};

#endif
