/*
 * The zoned namespace's record (zns.c), shared only with its state section
 * (state/ftl_state_zns.c), which saves and restores it; everything else goes through
 * femu_ftl/zns.h and the zns_* calls in zns/zns.h.
 */
#ifndef FEMU_FTL_ZNS_ZNS_TABLES_H
#define FEMU_FTL_ZNS_ZNS_TABLES_H

#include <stdbool.h>
#include <stdint.h>

struct zone_flash {
    uint64_t written;   /* sectors from the zone start that reached the device (with a
                         * ZRWA: the committed ones, programmed) */
    uint64_t zrwa_hi;   /* with a ZRWA: the end of the highest sector the window holds
                         * (zone-relative, written..written + ZRWAS; written when empty) */
    bool zrwa;          /* the zone holds a ZRWA (opened with ZRWAA, not yet full or reset) */
};

struct zns {
    struct zone_state *state;
    struct zone_flash *zones;   /* [zones] */
    uint64_t *changed;          /* [zones] the engine's list of zones a Send changed */
};

#endif
