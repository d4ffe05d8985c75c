/* The physical layout a configuration makes, and whether its logical capacity fits:
 * the raw capacity, then the over-provisioning GC needs, naming the key to blame. */
#include "config/config_checks.h"

#include <inttypes.h>
#include <string.h>

#include "config/config_keys.h"
#include "femu_ftl/error.h"

/* 32-bit page addresses in the maps; two values are reserved as markers. */
#define MAX_PAGES (UINT32_MAX - 2ull)

/* The physical layout, checked for overflow step by step. */
int config_derive_layout(const struct ftl_config *cfg, struct ftl_geometry *g,
                         char *err, size_t errlen)
{
    memset(g, 0, sizeof(*g));
    g->page_bytes = cfg->secsz * cfg->secs_per_pg;  /* both capped: cannot overflow */
    g->luns = cfg->nchs * cfg->luns_per_ch;
    g->blks_per_lun = cfg->blks_per_pl * cfg->pls_per_lun;
    if (config_derive_zones(cfg, g, err, errlen)) {
        return -1;
    }
    g->lines = g->blks_per_lun - g->zone_rows;  /* the conventional FTL's block rows */
    if (!mul_ok(g->luns, cfg->pgs_per_blk, &g->pgs_per_line) ||
        !mul_ok(g->luns, g->blks_per_lun, &g->blocks) ||
        !mul_ok(g->lines, g->pgs_per_line, &g->phys_pages) || g->phys_pages > MAX_PAGES) {
        return ftl_error(err, errlen, "blks_per_pl: the geometry has more than %llu physical pages "
                    "(32-bit page addresses)", (unsigned long long)MAX_PAGES);
    }
    /* factory bad blocks only among the conventional lines: zones have no spare blocks */
    g->bad_blocks_per_lun = g->lines * cfg->bad_blk_pcent / 100;  /* both capped */
    g->good_pages = g->phys_pages - g->bad_blocks_per_lun * g->luns * cfg->pgs_per_blk;
    if (config_derive_write_pointers(cfg, g, err, errlen)) {
        return -1;
    }
    g->map_write_pointers = cfg->mapping == FTL_MAPPING_DFTL;
    if (config_derive_gc_units(cfg, g, err, errlen)) {
        return -1;
    }
    return config_derive_slc(cfg, g, err, errlen);
}

/* Whether the logical capacity would fit the GC reserve if the zones took no rows: then
 * the zones are the key to blame. */
static bool fits_without_zones(const struct ftl_config *cfg, const struct ftl_geometry *g)
{
    if (!g->zone_rows) {
        return false;
    }
    struct ftl_config plain = *cfg;
    struct ftl_geometry whole;
    plain.zoned = 0;
    if (config_derive_layout(&plain, &whole, NULL, 0)) {
        return false;
    }
    whole.translation_pages = g->translation_pages;
    uint64_t limit = config_max_logical_pages(&whole, whole.phys_pages);
    limit -= limit > whole.translation_pages ? whole.translation_pages : limit;
    return g->logical_pages <= limit;
}

/* The logical capacity fits the good blocks with the GC reserve; the message names the
 * key to change: devsz_mb, or bad_blk_pcent when only the bad blocks make it too big. */
static int check_over_provisioning(const struct ftl_config *cfg, const struct ftl_geometry *g,
                                   char *err, size_t errlen)
{
    uint64_t limit = config_max_logical_pages(g, g->phys_pages);
    limit -= limit > g->translation_pages ? g->translation_pages : limit;
    /* dftl: the translation pages and the map line share the flash with the data; when
     * only they make the data not fit, the key to blame is mapping */
    struct ftl_geometry page_mapped = *g;
    page_mapped.map_write_pointers = 0;
    if (g->translation_pages && g->logical_pages > limit &&
        g->logical_pages <= config_max_logical_pages(&page_mapped, g->phys_pages)) {
        return ftl_error(err, errlen, "mapping: dftl's %" PRIu64 " translation pages and its "
                    "map line do not fit beside %" PRIu64 " MiB of data and the GC reserve: "
                    "at most %" PRIu64 " MiB with dftl", g->translation_pages, cfg->devsz_mb,
                    (uint64_t)(limit * g->page_bytes / MIB));
    }
    if (g->logical_pages > limit && fits_without_zones(cfg, g)) {
        return ftl_error(err, errlen, "zones: the zones take %" PRIu64 " of the %" PRIu64
                         " block rows of every LUN, leaving %" PRIu64 " lines: too few for %"
                         PRIu64 " MiB and the GC reserve (at most %" PRIu64 " MiB)",
                         g->zone_rows, g->blks_per_lun, g->lines, cfg->devsz_mb,
                         (uint64_t)(limit * g->page_bytes / MIB));
    }
    if (g->logical_pages > limit && config_check_slc_room(cfg, g, err, errlen)) {
        return -1;
    }
    if (g->logical_pages > limit) {
        return ftl_error(err, errlen, "devsz_mb: %" PRIu64 " MiB leaves too little over-provisioning "
                    "for GC (%" PRIu64 " %s, %" PRIu64 " kept free for foreground GC, %"
                    PRIu64 " write pointers): at most %" PRIu64 " MiB", cfg->devsz_mb, g->units,
                    cfg->gc_unit == FTL_GC_UNIT_BLOCK ? "blocks" : "lines",
                    g->gc_thres_lines_high, g->write_pointers,
                    (uint64_t)(limit * g->page_bytes / MIB));
    }
    uint64_t good_limit = config_max_logical_pages(g, g->good_pages);
    good_limit -= good_limit > g->translation_pages ? g->translation_pages : good_limit;
    if (g->logical_pages > good_limit) {
        return ftl_error(err, errlen, "bad_blk_pcent: %" PRIu64 "%% bad blocks (%" PRIu64 " per "
                    "LUN) leave too few good blocks for %" PRIu64 " MiB and the GC reserve: "
                    "at most %" PRIu64 " MiB", cfg->bad_blk_pcent, g->bad_blocks_per_lun,
                    cfg->devsz_mb, (uint64_t)(good_limit * g->page_bytes / MIB));
    }
    return 0;
}

/* The logical capacity fits the raw capacity (the zones' rows to blame when only they
 * make it not), then the over-provisioning. */
int config_check_capacity(const struct ftl_config *cfg, const struct ftl_geometry *g,
                          char *err, size_t errlen)
{
    /* phys_pages < 2^32 and page_bytes <= 2^26: the product cannot overflow. */
    uint64_t raw_mib = g->phys_pages * g->page_bytes / MIB;
    if (g->logical_pages >= g->phys_pages && g->zone_rows &&
        g->logical_pages < g->blks_per_lun * g->pgs_per_line) {
        return ftl_error(err, errlen, "zones: the zones take %" PRIu64 " of the %" PRIu64
                         " block rows of every LUN, leaving %" PRIu64 " MiB raw: less than "
                         "devsz_mb (%" PRIu64 " MiB)", g->zone_rows, g->blks_per_lun, raw_mib,
                         cfg->devsz_mb);
    }
    if (g->logical_pages >= g->phys_pages) {
        return ftl_error(err, errlen, "devsz_mb: logical size %" PRIu64 " MiB must be smaller than "
                    "the raw capacity (%" PRIu64 " MiB)", cfg->devsz_mb, raw_mib);
    }
    if (ftl_mapping_is_hybrid(cfg->mapping)) {
        return 0;   /* no page GC: config_check_mapping counted the blocks it needs */
    }
    return check_over_provisioning(cfg, g, err, errlen);
}
