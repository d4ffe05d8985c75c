/* The mapping's keys: the whole page map in RAM, DFTL's cached mapping table over
 * translation pages on flash, or a block-level mapping (block, and the hybrid log-block
 * schemes BAST and FAST) over whole physical blocks. */
#include "config/config_checks.h"
#include "config/config_keys.h"

#include <inttypes.h>

#include "femu_ftl/error.h"

static const char *const mapping_names[] = {
    [FTL_MAPPING_PAGE] = "page",
    [FTL_MAPPING_DFTL] = "dftl",
    [FTL_MAPPING_BLOCK] = "block",
    [FTL_MAPPING_BAST] = "bast",
    [FTL_MAPPING_FAST] = "fast",
};

static const struct config_key keys[] = {
    NKEY(mapping, mapping_names, "page (the whole map in RAM, as FEMU) | dftl (cached "
         "mapping table over translation pages on flash) | block (one physical block per "
         "logical block; an overwrite copies the block) | bast (a log block per data "
         "block, log_blocks of them) | fast (one sequential log block and log_blocks - 1 "
         "shared random ones); block, bast and fast need gc_unit=block"),
    UKEY(cmt_entries, 1, UINT32_MAX, "dftl: entries of the cached mapping table (LRU), at "
         "least one translation page's worth (page bytes / 4)"),
    UKEY(log_blocks, 1, UINT32_MAX, "bast, fast: log blocks (bast at least 1, fast at "
         "least 2: 1 sequential + log_blocks - 1 random); logical blocks + log_blocks + 1 "
         "spare must fit the good blocks (default 8)"),
};

const struct config_key_group config_mapping_keys = KEY_GROUP(keys);

const char *ftl_mapping_name(enum ftl_mapping mapping)
{
    return (unsigned)mapping <= FTL_MAPPING_FAST ? mapping_names[mapping] : "?";
}

bool ftl_mapping_is_hybrid(enum ftl_mapping mapping)
{
    return mapping == FTL_MAPPING_BLOCK || mapping == FTL_MAPPING_BAST ||
           mapping == FTL_MAPPING_FAST;
}

uint64_t config_device_map_bytes(const struct ftl_config *cfg, const struct ftl_geometry *g)
{
    if (cfg->mapping == FTL_MAPPING_DFTL) {
        return cfg->cmt_entries * 8 + g->translation_pages * 4;
    }
    if (ftl_mapping_is_hybrid(cfg->mapping)) {
        /* 4 bytes per logical block (its data block), a page map of each log block */
        uint64_t lbns = (g->logical_pages + cfg->pgs_per_blk - 1) / cfg->pgs_per_blk;
        uint64_t logs = cfg->mapping == FTL_MAPPING_BLOCK ? 0 : cfg->log_blocks;
        return lbns * 4 + logs * cfg->pgs_per_blk * 4;
    }
    return g->logical_pages * 4;
}

uint64_t config_kv_index_cache_bytes(const struct ftl_geometry *g, uint64_t cache_pages)
{
    return cache_pages * g->page_bytes;     /* pages < 2^32, page_bytes <= 2^26 */
}

/* dftl: translation pages and a CMT holding at least one of them. */
static int check_dftl(const struct ftl_config *cfg, struct ftl_geometry *g,
                      char *err, size_t errlen)
{
    g->entries_per_tpage = g->page_bytes / 4;
    if (g->entries_per_tpage == 0) {
        return ftl_error(err, errlen, "mapping: dftl needs pages of at least 4 bytes");
    }
    g->translation_pages = (g->logical_pages + g->entries_per_tpage - 1) / g->entries_per_tpage;
    if (cfg->cmt_entries < g->entries_per_tpage) {
        return ftl_error(err, errlen, "cmt_entries: %" PRIu64 " is smaller than one translation "
                         "page's %" PRIu64 " entries", cfg->cmt_entries, g->entries_per_tpage);
    }
    return 0;
}

/* block, bast, fast work on whole blocks: one unit per block, one write pointer of their
 * own, no zones, no SLC mode. */
static int check_hybrid_keys(const struct ftl_config *cfg, char *err, size_t errlen)
{
    const char *name = ftl_mapping_name(cfg->mapping);
    if (cfg->gc_unit != FTL_GC_UNIT_BLOCK) {
        return ftl_error(err, errlen, "mapping: %s works on blocks and needs gc_unit=block",
                         name);
    }
    if (cfg->placement != FTL_PLACEMENT_SINGLE) {
        return ftl_error(err, errlen, "placement: mapping=%s places every page itself and "
                         "needs placement=single", name);
    }
    if (cfg->zoned) {
        return ftl_error(err, errlen, "zoned: mapping=%s cannot share the flash with zones",
                         name);
    }
    if (cfg->slc_cache) {
        return ftl_error(err, errlen, "slc_cache: mapping=%s cannot combine with the SLC "
                         "cache", name);
    }
    uint64_t least = cfg->mapping == FTL_MAPPING_FAST ? 2 : 1;
    if (cfg->mapping != FTL_MAPPING_BLOCK && cfg->log_blocks < least) {
        return ftl_error(err, errlen, "log_blocks: %s needs at least %" PRIu64 ", not %" PRIu64,
                         name, least, cfg->log_blocks);
    }
    return 0;
}

uint64_t config_hybrid_units_needed(const struct ftl_config *cfg, uint64_t logical_pages)
{
    uint64_t lbns = (logical_pages + cfg->pgs_per_blk - 1) / cfg->pgs_per_blk;
    uint64_t logs = cfg->mapping == FTL_MAPPING_BLOCK ? 0 : cfg->log_blocks;
    return lbns + logs + 1;
}

int config_check_hybrid_room(const struct ftl_config *cfg, uint64_t logical_pages,
                             uint64_t good_units, char *err, size_t errlen)
{
    uint64_t need = config_hybrid_units_needed(cfg, logical_pages);
    if (need <= good_units) {
        return 0;
    }
    uint64_t lbns = need - 1 - (cfg->mapping == FTL_MAPPING_BLOCK ? 0 : cfg->log_blocks);
    if (cfg->mapping == FTL_MAPPING_BLOCK) {
        return ftl_error(err, errlen, "mapping: block needs %" PRIu64 " logical blocks + 1 "
                         "spare = %" PRIu64 " good blocks, the flash has %" PRIu64, lbns, need,
                         good_units);
    }
    return ftl_error(err, errlen, "log_blocks: %" PRIu64 " logical blocks + %" PRIu64 " log "
                     "blocks + 1 spare = %" PRIu64 " blocks, more than the %" PRIu64 " good "
                     "blocks", lbns, cfg->log_blocks, need, good_units);
}

int config_check_mapping(const struct ftl_config *cfg, struct ftl_geometry *g,
                         char *err, size_t errlen)
{
    if (cfg->mapping == FTL_MAPPING_DFTL) {
        return check_dftl(cfg, g, err, errlen);
    }
    if (!ftl_mapping_is_hybrid(cfg->mapping)) {
        return 0;
    }
    if (check_hybrid_keys(cfg, err, errlen)) {
        return -1;
    }
    return config_check_hybrid_room(cfg, g->logical_pages, g->good_pages / cfg->pgs_per_blk,
                                    err, errlen);
}
