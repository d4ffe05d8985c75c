/* The pseudo-SLC write cache's keys: the media's bits per cell, the SLC-mode latencies,
 * the cache's static and dynamic room and what a write finding it full does; the SLC unit
 * and reserve they make of the geometry, and the cache's share of the capacity blame. */
#include "config/config_checks.h"
#include "config/config_keys.h"

#include <inttypes.h>

#include "femu_ftl/error.h"

static const char *const slc_when_full_names[] = {
    [FTL_SLC_DIRECT] = "direct",
    [FTL_SLC_FOLD] = "fold",
};

static const struct config_key keys[] = {
    UKEY(cell_bits, 0, 4, "bits per cell of the media: 1 SLC, 2 MLC, 3 TLC, 4 QLC (0: not "
         "stated)"),
    UKEY(slc_pg_rd_lat, 0, MAX_LATENCY_NS, "page read latency of a block used in SLC mode, "
         "ns (0: not given)"),
    UKEY(slc_pg_wr_lat, 0, MAX_LATENCY_NS, "page program latency of a block used in SLC "
         "mode, ns (0: not given)"),
    UKEY(slc_blk_er_lat, 0, MAX_LATENCY_NS, "erase latency of a block used in SLC mode, ns "
         "(0: not given)"),
    SKEY(slc_cache, "pseudo-SLC write cache: off | on (host pages go to units used in SLC "
         "mode, 1/cell_bits of their pages, while it has room, and are folded later; needs "
         "cell_bits >= 2 and the slc_* latencies)"),
    UKEY(slc_static_units, 0, UINT32_MAX, "slc_cache: GC units the cache may always use"),
    UKEY(slc_dynamic_pcent, 0, 100, "slc_cache: percent of the free user space (logical "
         "pages not valid) the cache may also use, in whole units"),
    NKEY(slc_when_full, slc_when_full_names, "slc_cache: a host write finding the cache "
         "full goes direct (to a normal unit at pg_wr_lat: the write cliff) | fold (the "
         "oldest SLC unit is folded first, then the write goes to the cache)"),
};

const struct config_key_group config_slc_keys = KEY_GROUP(keys);

const char *ftl_slc_when_full_name(enum ftl_slc_when_full when)
{
    return (unsigned)when <= FTL_SLC_FOLD ? slc_when_full_names[when] : "?";
}

/* slc_cache=on: what the cache needs (bits per cell, the SLC latencies) and supports;
 * the SLC unit's size and the cache's reserve in g. */
int config_derive_slc(const struct ftl_config *cfg, struct ftl_geometry *g,
                      char *err, size_t errlen)
{
    if (!cfg->slc_cache) {
        return 0;
    }
    if (cfg->cell_bits < 2) {
        return ftl_error(err, errlen, "cell_bits: slc_cache=on needs media of 2 to 4 bits "
                         "per cell (cell_bits is %" PRIu64 ")", cfg->cell_bits);
    }
    const char *missing = !cfg->slc_pg_rd_lat ? "slc_pg_rd_lat" :
                          !cfg->slc_pg_wr_lat ? "slc_pg_wr_lat" :
                          !cfg->slc_blk_er_lat ? "slc_blk_er_lat" : NULL;
    if (missing) {
        return ftl_error(err, errlen, "%s: slc_cache=on with a profile without the SLC "
                         "latencies (slc_pg_rd_lat, slc_pg_wr_lat, slc_blk_er_lat)", missing);
    }
    if (cfg->pgs_per_blk < cfg->cell_bits) {
        return ftl_error(err, errlen, "pgs_per_blk: %" PRIu64 " pages hold no whole SLC page "
                         "at %" PRIu64 " bits per cell", cfg->pgs_per_blk, cfg->cell_bits);
    }
    if (cfg->placement == FTL_PLACEMENT_STREAM || cfg->placement == FTL_PLACEMENT_FDP) {
        return ftl_error(err, errlen, "placement: slc_cache=on supports placement=single or "
                         "hotcold (one cache has no stream or reclaim unit of its own)");
    }
    if (cfg->zoned) {
        return ftl_error(err, errlen, "zoned: slc_cache=on is not modelled with a zoned "
                         "namespace");
    }
    if (cfg->mapping == FTL_MAPPING_DFTL) {
        return ftl_error(err, errlen, "mapping: slc_cache=on is not modelled with dftl");
    }
    g->slc_pgs_per_blk = cfg->pgs_per_blk / cfg->cell_bits;
    g->slc_pgs_per_unit = g->slc_pgs_per_blk * (g->pgs_per_unit / cfg->pgs_per_blk);
    g->slc_reserved_units = 1 + cfg->slc_static_units;
    return 0;
}

/* The logical pages fit beside the GC reserve with the SLC cache's reserve of `units`. */
static bool fits_with_slc_units(const struct ftl_geometry *g, uint64_t units)
{
    struct ftl_geometry with = *g;
    with.slc_reserved_units = units;
    uint64_t limit = config_max_logical_pages(&with, with.phys_pages);
    limit -= limit > g->translation_pages ? g->translation_pages : limit;
    return g->logical_pages <= limit;
}

/* The logical capacity does not fit beside the GC reserve: -1 naming slc_static_units
 * or slc_cache when the cache's reserve is what makes it not fit, else 0 (another key
 * is to blame). */
int config_check_slc_room(const struct ftl_config *cfg, const struct ftl_geometry *g,
                          char *err, size_t errlen)
{
    if (!g->slc_reserved_units || !fits_with_slc_units(g, 0)) {
        return 0;
    }
    if (fits_with_slc_units(g, 1)) {
        uint64_t most = 0;
        while (fits_with_slc_units(g, most + 2)) {  /* the open unit, then static ones */
            most++;
        }
        return ftl_error(err, errlen, "slc_static_units: %" PRIu64 " static units (%" PRIu64
                         " pages each, taken from the over-provisioning) are a cache larger "
                         "than the free space can ever hold beside %" PRIu64 " MiB and the GC "
                         "reserve: at most %" PRIu64, cfg->slc_static_units, g->pgs_per_unit,
                         cfg->devsz_mb, most);
    }
    return ftl_error(err, errlen, "slc_cache: the cache's open unit leaves too little "
                     "over-provisioning for %" PRIu64 " MiB and the GC reserve",
                     cfg->devsz_mb);
}
