/* The DRAM read cache's keys, and the device DRAM budget it must fit in beside the map
 * and the write buffer. */
#include "config/config_checks.h"
#include "config/config_keys.h"

#include <inttypes.h>

#include "femu_ftl/error.h"

/* The read cache's size is kept below 2^30 pages so that its entries (up to twice the
 * pages, arc's ghosts) and their hash table are indexed by 32 bits. */
#define READ_CACHE_MAX_PAGES (UINT64_C(1) << 30)

static const char *const policy_names[] = {
    [FTL_RCACHE_LRU] = "lru",
    [FTL_RCACHE_CLOCK] = "clock",
    [FTL_RCACHE_2Q] = "2q",
    [FTL_RCACHE_ARC] = "arc",
};

static const struct config_key keys[] = {
    UKEY(read_cache_pages, 0, READ_CACHE_MAX_PAGES, "pages of DRAM read cache: a host read "
         "of a page there costs read_cache_lat, no flash read (0: none; at most the logical "
         "pages)"),
    NKEY(read_cache_policy, policy_names, "read cache replacement: lru | clock (second "
         "chance) | 2q (Johnson and Shasha's full version: Kin 25 %, Kout 50 %) | arc "
         "(Megiddo and Modha)"),
    UKEY(read_cache_lat, 0, MAX_LATENCY_NS, "read cache: ns a hit takes (default: a "
         "DDR4-2400 row open and read, 26.7 ns, and 4 KiB over a 32-bit bus, 426.7 ns)"),
    UKEY(dram_mb, 0, UINT64_MAX / MIB, "device DRAM in MiB: the read cache, the map "
         "and the write buffer must fit in it (0: no budget, nothing checked)"),
};

const struct config_key_group config_rcache_keys = KEY_GROUP(keys);

const char *ftl_read_cache_policy_name(enum ftl_read_cache_policy policy)
{
    return (unsigned)policy <= FTL_RCACHE_ARC ? policy_names[policy] : "?";
}

/* The cache holds logical pages, so no more than there are; with dram_mb, the cache's
 * pages, the map (config_device_map_bytes) and the write buffer fit in the DRAM. */
int config_check_read_cache(const struct ftl_config *cfg, const struct ftl_geometry *g,
                            char *err, size_t errlen)
{
    if (cfg->read_cache_pages > g->logical_pages) {
        return ftl_error(err, errlen, "read_cache_pages: %" PRIu64 " is more than the "
                         "device's %" PRIu64 " logical pages", cfg->read_cache_pages,
                         g->logical_pages);
    }
    if (cfg->dram_mb == 0) {
        return 0;
    }
    uint64_t cache = cfg->read_cache_pages * g->page_bytes;    /* <= the logical bytes */
    uint64_t map = config_device_map_bytes(cfg, g);
    uint64_t buffer = cfg->write_buffer_sectors * cfg->secsz;
    /* the Zone Random Write Areas are controller memory too: ZRWAS bytes each */
    uint64_t zrwa;
    if (!mul_ok(cfg->zrwa_zones, g->zrwa_sectors * cfg->secsz, &zrwa) ||
        zrwa > UINT64_MAX / 2) {
        zrwa = UINT64_MAX / 2;  /* more than any DRAM: the sum below still fails */
    }
    buffer += zrwa;
    uint64_t dram = cfg->dram_mb * MIB;
    if (cache + map + buffer > dram) {
        return ftl_error(err, errlen, "%s: the read cache (%" PRIu64 " bytes), the map "
                         "(%" PRIu64 " bytes) and the write buffer with any ZRWAs (%"
                         PRIu64 " bytes) "
                         "do not fit in dram_mb=%" PRIu64 " (%" PRIu64 " bytes)",
                         cfg->read_cache_pages ? "read_cache_pages" : "dram_mb", cache, map,
                         buffer, cfg->dram_mb, dram);
    }
    return 0;
}
