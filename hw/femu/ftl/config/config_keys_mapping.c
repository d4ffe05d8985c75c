/* The mapping's keys: the whole page map in RAM, or DFTL's cached mapping table over
 * translation pages on flash. */
#include "config/config_checks.h"
#include "config/config_keys.h"

#include <inttypes.h>

#include "femu_ftl/error.h"

static const char *const mapping_names[] = {
    [FTL_MAPPING_PAGE] = "page",
    [FTL_MAPPING_DFTL] = "dftl",
};

static const struct config_key keys[] = {
    NKEY(mapping, mapping_names, "page (the whole map in RAM, as FEMU) | dftl (cached "
         "mapping table over translation pages on flash)"),
    UKEY(cmt_entries, 1, UINT32_MAX, "dftl: entries of the cached mapping table (LRU), at "
         "least one translation page's worth (page bytes / 4)"),
};

const struct config_key_group config_mapping_keys = KEY_GROUP(keys);

const char *ftl_mapping_name(enum ftl_mapping mapping)
{
    return (unsigned)mapping <= FTL_MAPPING_DFTL ? mapping_names[mapping] : "?";
}

uint64_t config_device_map_bytes(const struct ftl_config *cfg, const struct ftl_geometry *g)
{
    if (cfg->mapping == FTL_MAPPING_DFTL) {
        return cfg->cmt_entries * 8 + g->translation_pages * 4;
    }
    return g->logical_pages * 4;
}

/* dftl: translation pages and a CMT holding at least one of them. */
int config_check_mapping(const struct ftl_config *cfg, struct ftl_geometry *g,
                         char *err, size_t errlen)
{
    if (cfg->mapping != FTL_MAPPING_DFTL) {
        return 0;
    }
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
