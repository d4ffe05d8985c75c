/*
 * The zoned namespace behind zns.h: its geometry, admission through the zone state
 * machine (zone_state.c), and the flash side of zones (programs, senses and erases on
 * the zone's own LUNs through the timing module).
 */
#include "ftl_internal.h"

uint64_t ftl_zone_count(const struct ftl *ftl)
{
    return ftl->cfg.zoned ? ftl->cfg.zones : 0;
}

uint64_t ftl_zone_size_sectors(const struct ftl *ftl)
{
    return ftl->geo.zone_sectors;
}

uint64_t ftl_zone_cap_sectors(const struct ftl *ftl)
{
    return ftl->geo.zone_cap_sectors;
}

uint32_t ftl_zone_luns(const struct ftl *ftl)
{
    return (uint32_t)ftl->geo.zone_luns;
}
