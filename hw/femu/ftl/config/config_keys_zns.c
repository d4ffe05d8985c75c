/* The zoned namespace's keys: its zones, their LUNs, capacity and size, and the open and
 * active limits; the zone fields and block rows they make of the geometry. */
#include "config/config_checks.h"
#include "config/config_keys.h"

#include <inttypes.h>

#include "femu_ftl/error.h"

static const struct config_key keys[] = {
    SKEY(zoned, "a zoned namespace beside the conventional one: off | on (0 | 1); its zones "
         "take the top block rows of every LUN"),
    UKEY(zones, 0, UINT32_MAX - 1, "zoned: number of zones"),
    UKEY(zone_luns, 0, 1u << 20, "zoned: LUNs one zone stripes over, dividing the LUNs "
         "(0: all)"),
    BKEY(zone_cap, "zoned: writable bytes per zone (K/M/G suffixes), whole blocks on each "
         "of zone_luns LUNs (0: one block per LUN)"),
    BKEY(zone_size, "zoned: bytes of LBA space per zone (K/M/G suffixes), at least zone_cap "
         "(0: zone_cap rounded up to a power of two)"),
    UKEY(max_open, 0, UINT32_MAX, "zoned: open zones at most (0: no limit)"),
    UKEY(max_active, 0, UINT32_MAX, "zoned: open and closed zones at most (0: no limit)"),
};

const struct config_key_group config_zns_keys = KEY_GROUP(keys);

/* The smallest power of two >= v (v <= 2^63). */
static uint64_t round_up_pow2(uint64_t v)
{
    uint64_t p = 1;
    while (p < v) {
        p <<= 1;
    }
    return p;
}

/* zone_size: given, or zone_cap rounded up to a power of two; a whole number of pages and
 * at least zone_cap. */
static int derive_zone_size(const struct ftl_config *cfg, struct ftl_geometry *g,
                            uint64_t cap, char *err, size_t errlen)
{
    if (cap > UINT64_C(1) << 62) {
        return ftl_error(err, errlen, "zone_cap: %" PRIu64 " bytes is too large", cap);
    }
    uint64_t size = cfg->zone_size ? cfg->zone_size : round_up_pow2(cap);
    if (cap > size) {
        return ftl_error(err, errlen, "zone_cap: %" PRIu64 " bytes is larger than zone_size (%"
                         PRIu64 " bytes)", cap, size);
    }
    if (size % g->page_bytes) {
        return ftl_error(err, errlen, "zone_size: %" PRIu64 " bytes is not a whole number of %"
                         PRIu64 "-byte pages", size, g->page_bytes);
    }
    g->zone_sectors = size / cfg->secsz;
    g->zone_cap_sectors = cap / cfg->secsz;
    if (!mul_ok(cfg->zones, g->zone_sectors, &g->zoned_sectors)) {
        return ftl_error(err, errlen, "zones: %" PRIu64 " zones of %" PRIu64 " bytes overflow "
                         "64-bit sector numbers", cfg->zones, size);
    }
    return 0;
}

/* The open and active limits: max_open <= max_active when both are set, neither above
 * the zone count. */
static int check_zone_limits(const struct ftl_config *cfg, char *err, size_t errlen)
{
    if (cfg->max_open && cfg->max_active && cfg->max_open > cfg->max_active) {
        return ftl_error(err, errlen, "max_open: %" PRIu64 " is above max_active (%" PRIu64
                         "); open zones are active", cfg->max_open, cfg->max_active);
    }
    if (cfg->max_open > cfg->zones) {
        return ftl_error(err, errlen, "max_open: %" PRIu64 " is more than the %" PRIu64
                         " zones", cfg->max_open, cfg->zones);
    }
    if (cfg->max_active > cfg->zones) {
        return ftl_error(err, errlen, "max_active: %" PRIu64 " is more than the %" PRIu64
                         " zones", cfg->max_active, cfg->zones);
    }
    return 0;
}

/*
 * zoned=1: the zone fields of g and the block rows the zones take from the top of every
 * LUN (zone_rows); the conventional FTL keeps the lines below. A zone is zone_luns LUNs x
 * zone_blocks_per_lun blocks; zones take LUN groups in turn, so a group holds
 * ceil(zones / zone_groups) zones stacked in rows.
 */
int config_derive_zones(const struct ftl_config *cfg, struct ftl_geometry *g,
                        char *err, size_t errlen)
{
    if (!cfg->zoned) {
        return 0;
    }
    if (cfg->zones == 0) {
        return ftl_error(err, errlen, "zones: zoned=on needs at least one zone");
    }
    g->zone_luns = cfg->zone_luns ? cfg->zone_luns : g->luns;
    if (g->luns % g->zone_luns) {
        return ftl_error(err, errlen, "zone_luns: %" PRIu64 " does not divide the %" PRIu64
                         " LUNs (nchs x luns_per_ch)", g->zone_luns, g->luns);
    }
    g->zone_groups = g->luns / g->zone_luns;
    /* page_bytes <= 2^26, pgs_per_blk <= 2^16, zone_luns <= 2^20: no overflow */
    uint64_t block_bytes = g->page_bytes * cfg->pgs_per_blk;
    uint64_t stripe = g->zone_luns * block_bytes;
    uint64_t cap = cfg->zone_cap ? cfg->zone_cap : stripe;
    if (cap % stripe) {
        return ftl_error(err, errlen, "zone_cap: %" PRIu64 " bytes does not fit the flash "
                         "layout: a zone is %" PRIu64 " x N blocks of %" PRIu64 " bytes",
                         cap, g->zone_luns, block_bytes);
    }
    g->zone_blocks_per_lun = cap / stripe;
    uint64_t stacked = (cfg->zones + g->zone_groups - 1) / g->zone_groups;
    if (!mul_ok(stacked, g->zone_blocks_per_lun, &g->zone_rows) ||
        g->zone_rows >= g->blks_per_lun) {
        return ftl_error(err, errlen, "zones: %" PRIu64 " zones of %" PRIu64 " blocks on each "
                         "of %" PRIu64 " LUNs need more than the %" PRIu64 " blocks of a LUN",
                         cfg->zones, g->zone_blocks_per_lun, g->zone_luns, g->blks_per_lun);
    }
    if (derive_zone_size(cfg, g, cap, err, errlen) || check_zone_limits(cfg, err, errlen)) {
        return -1;
    }
    return 0;
}
