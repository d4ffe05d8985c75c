/*
 * The zone state machine of the NVMe Zoned Namespace command set: states and their
 * transitions, write pointers, the open and active resource limits, and the status of
 * every violation. Pure logic over sectors: no flash, no time. zns.c puts it behind the
 * ftl_zone_admit_* API (femu_ftl/zns.h); the tests drive it directly.
 *
 * Plain C11, no globals; one caller at a time per handle.
 */
#ifndef FEMU_FTL_ZNS_ZONE_STATE_H
#define FEMU_FTL_ZNS_ZONE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "femu_ftl/zns.h"

struct zone_state;

struct zone_state_params {
    uint64_t zones;
    uint64_t zone_sectors;  /* zone size (ZSZE) */
    uint64_t cap_sectors;   /* writable sectors per zone (ZCAP), 1..zone_sectors */
    uint32_t max_open;      /* 0: no limit */
    uint32_t max_active;    /* 0: no limit; max_open <= max_active when both are set */
    uint64_t reset_limit;   /* a reset bringing a zone's resets to this makes it read only
                             * (pe_cycles); 0: never */
    /* Zone Random Write Areas (NUMZRWA; 0: none), their size and commit unit (ZRWAS, a
     * multiple of ZRWAFG, at most cap_sectors) */
    uint32_t zrwa_resources;
    uint64_t zrwa_sectors, zrwa_fg_sectors;
};

/* NULL when out of memory or when the parameters break the rules above. */
struct zone_state *zone_state_create(const struct zone_state_params *p);
void zone_state_destroy(struct zone_state *zs);

/* ftl_zone_info of one zone (zone < zones). */
void zone_state_get(const struct zone_state *zs, uint64_t zone, struct ftl_zone_info *out);
void zone_state_counts(const struct zone_state *zs, uint64_t counts[FTL_ZONE_STATES]);
uint32_t zone_state_open(const struct zone_state *zs);     /* implicitly + explicitly open */
uint32_t zone_state_active(const struct zone_state *zs);   /* open + closed */
/* Resets the zone has had (the erase count of its blocks). */
uint64_t zone_state_resets(const struct zone_state *zs, uint64_t zone);
uint32_t zone_state_zrwa_used(const struct zone_state *zs);     /* ZRWAs held */

/* The semantics and statuses of ftl_zone_admit_write / _read / _mgmt / _copy
 * (femu_ftl/zns.h); zone_state_mgmt, Zone Management Send, is zone_mgmt.c. */
int zone_state_write(struct zone_state *zs, uint64_t slba, uint64_t nlb, bool append,
                     uint64_t *assigned);
int zone_state_read(const struct zone_state *zs, uint64_t slba, uint64_t nlb);
int zone_state_mgmt(struct zone_state *zs, uint64_t slba, enum ftl_zone_action action,
                    bool all, uint64_t *zones, size_t *nzones);
struct ftl_range;
int zone_state_copy(struct zone_state *zs, const struct ftl_range *src, uint32_t nsrc,
                    uint64_t dest);

/*
 * Consistency of the open / active counts with the states and of every write pointer
 * with its state; 0, or -1 with the first inconsistency in err.
 */
int zone_state_check(const struct zone_state *zs, char *err, size_t errlen);

#endif
