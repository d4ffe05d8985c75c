/*
 * The zoned namespace's record (zns.c), shared only with its state section
 * (state/ftl_state_zns.c), which saves and restores it; everything else goes through
 * femu_ftl/zns.h and the zns_* calls in zns/zns.h.
 */
#ifndef FEMU_FTL_ZNS_ZNS_TABLES_H
#define FEMU_FTL_ZNS_ZNS_TABLES_H

#include <stdint.h>

struct zone_flash {
    uint64_t written;   /* sectors from the zone start that reached the device */
};

struct zns {
    struct zone_state *state;
    struct zone_flash *zones;   /* [zones] */
    uint64_t *changed;          /* [zones] the engine's list of zones a Send changed */
};

#endif
