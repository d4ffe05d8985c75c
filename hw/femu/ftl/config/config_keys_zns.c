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
    /* NVMe ZNS 1.1+ Identify Namespace (zoned): NUMZRWA, ZRWAS, ZRWAFG */
    UKEY(zrwa_zones, 0, UINT32_MAX, "zoned: zones that may hold a Zone Random Write Area "
         "at once (NUMZRWA; 0: no ZRWA), at most max_open when that is set"),
    BKEY(zrwa_size, "zoned: bytes of one Zone Random Write Area (ZRWAS, K/M suffixes), a "
         "multiple of zrwa_flush_gran, at most zone_cap (0: 16 x zrwa_flush_gran)"),
    BKEY(zrwa_flush_gran, "zoned: the ZRWA's commit unit in bytes (ZRWAFG), a multiple of "
         "the flash page (0: one page)"),
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

/* The ZRWA keys: without zoned=on none may be set; with zrwa_zones = 0 the other two
 * must be 0 too (a size without areas is a mistake, not a no-op). */
static int check_zrwa_needs(const struct ftl_config *cfg, char *err, size_t errlen)
{
    const char *set = cfg->zrwa_zones ? "zrwa_zones" : cfg->zrwa_size ? "zrwa_size" :
                      cfg->zrwa_flush_gran ? "zrwa_flush_gran" : NULL;
    if (set && !cfg->zoned) {
        return ftl_error(err, errlen, "%s: a Zone Random Write Area needs zoned=on", set);
    }
    if (set && !cfg->zrwa_zones) {
        return ftl_error(err, errlen, "%s: set without zrwa_zones (0: no ZRWA)", set);
    }
    return 0;
}

/* ZRWAFG whole pages (the commit programs them), ZRWAS whole ZRWAFG units and no more
 * than a zone's capacity, zrwa_zones no more than the zones nor max_open (a ZRWA zone is
 * opened explicitly, so it takes an open resource). */
static int derive_zrwa(const struct ftl_config *cfg, struct ftl_geometry *g, uint64_t cap,
                       char *err, size_t errlen)
{
    if (!cfg->zrwa_zones) {
        return 0;
    }
    if (cfg->zrwa_zones > cfg->zones) {
        return ftl_error(err, errlen, "zrwa_zones: %" PRIu64 " is more than the %" PRIu64
                         " zones", cfg->zrwa_zones, cfg->zones);
    }
    if (cfg->max_open && cfg->zrwa_zones > cfg->max_open) {
        return ftl_error(err, errlen, "zrwa_zones: %" PRIu64 " is more than max_open (%"
                         PRIu64 "); a zone with a ZRWA is open", cfg->zrwa_zones,
                         cfg->max_open);
    }
    uint64_t fg = cfg->zrwa_flush_gran ? cfg->zrwa_flush_gran : g->page_bytes;
    if (fg % g->page_bytes || fg > cap) {
        return ftl_error(err, errlen, "zrwa_flush_gran: %" PRIu64 " bytes is not a whole "
                         "number of %" PRIu64 "-byte flash pages up to zone_cap (%" PRIu64
                         " bytes)", fg, g->page_bytes, cap);
    }
    if (!cfg->zrwa_size && fg > cap / 16) {
        return ftl_error(err, errlen, "zrwa_size: the default, 16 x zrwa_flush_gran (%"
                         PRIu64 " bytes), is more than zone_cap (%" PRIu64 " bytes)", fg, cap);
    }
    uint64_t size = cfg->zrwa_size ? cfg->zrwa_size : 16 * fg;
    if (size % fg || size > cap) {
        return ftl_error(err, errlen, "zrwa_size: %" PRIu64 " bytes is not a whole number "
                         "of zrwa_flush_gran (%" PRIu64 " bytes) units up to zone_cap (%"
                         PRIu64 " bytes)", size, fg, cap);
    }
    g->zrwa_sectors = size / cfg->secsz;
    g->zrwa_fg_sectors = fg / cfg->secsz;
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
    if (check_zrwa_needs(cfg, err, errlen)) {
        return -1;
    }
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
    return derive_zrwa(cfg, g, cap, err, errlen);
}
