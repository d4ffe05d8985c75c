/* Write placement's keys: where host pages go (one write pointer, hot and cold, host
 * streams or FDP handles), the write counts hot/cold reads and how GC scopes its victims
 * when there are several write pointers. */
#include "config/config_checks.h"
#include "config/config_keys.h"

#include <inttypes.h>

#include "femu_ftl/error.h"

static const char *const placement_names[] = {
    [FTL_PLACEMENT_SINGLE] = "single",
    [FTL_PLACEMENT_HOTCOLD] = "hotcold",
    [FTL_PLACEMENT_STREAM] = "stream",
    [FTL_PLACEMENT_FDP] = "fdp",
};

static const char *const gc_scope_names[] = {
    [FTL_GC_SCOPE_GLOBAL] = "global",
    [FTL_GC_SCOPE_STREAM] = "stream",
};

static const struct config_key keys[] = {
    NKEY(placement, placement_names, "write placement: single | hotcold | stream | fdp "
         "(Flexible Data Placement: one write pointer per reclaim unit handle)"),
    UKEY(hot_threshold, 0, UINT32_MAX, "hotcold: a page is hot when its write count exceeds this"),
    { "hot_decay", NULL, KEY_COUNT, offsetof(struct ftl_config, hot_decay), 0, UINT32_MAX,
      "hotcold: every this many host page writes, halve each page's count placement reads "
      "(counts that age; at least 1024), or off: exact write counts that never age", NULL },
    UKEY(nstreams, 1, 16, "stream: number of host streams, one write pointer each"),
    NKEY(gc_scope, gc_scope_names, "victims with several write pointers: global (each "
         "handle's best by gc_policy, then the one most worth collecting; moved pages stay "
         "in their handle) | stream (foreground GC takes the writing stream's only, with "
         "the defragmenting fallback: the multi-stream DFTL lab's rule)"),
};

const struct config_key_group config_placement_keys = KEY_GROUP(keys);

const char *ftl_placement_name(enum ftl_placement placement)
{
    return (unsigned)placement <= FTL_PLACEMENT_FDP ? placement_names[placement] : "?";
}

const char *ftl_gc_scope_name(enum ftl_gc_scope scope)
{
    return (unsigned)scope <= FTL_GC_SCOPE_STREAM ? gc_scope_names[scope] : "?";
}

int config_check_placement(const struct ftl_config *cfg, char *err, size_t errlen)
{
    if (cfg->hot_decay && cfg->hot_decay < 1024) {
        return ftl_error(err, errlen, "hot_decay: %" PRIu64 " host page writes between halvings "
                         "is below 1024 (each halving touches every logical page)",
                         cfg->hot_decay);
    }
    if (cfg->hot_decay && cfg->hot_threshold >= UINT16_MAX) {
        return ftl_error(err, errlen, "hot_threshold: %" PRIu64 " is not below %u, where aged "
                         "counts (hot_decay) saturate", cfg->hot_threshold, UINT16_MAX);
    }
    return 0;
}

/* The host's write pointers the placement opens (g->write_pointers). */
int config_derive_write_pointers(const struct ftl_config *cfg, struct ftl_geometry *g,
                                 char *err, size_t errlen)
{
    switch (cfg->placement) {
    case FTL_PLACEMENT_SINGLE: g->write_pointers = 1; break;
    case FTL_PLACEMENT_HOTCOLD: g->write_pointers = 2; break;
    case FTL_PLACEMENT_STREAM: g->write_pointers = cfg->nstreams; break;
    case FTL_PLACEMENT_FDP: return config_fdp_write_pointers(cfg, g, err, errlen);
    }
    return 0;
}
