/* Flexible Data Placement's keys: reclaim unit handles, their isolation, the reclaim unit's
 * time limit and size; the write pointers and reclaim unit size they make. */
#include "config/config_checks.h"
#include "config/config_keys.h"

#include <inttypes.h>

#include "femu_ftl/error.h"

static const char *const ruh_type_names[] = {
    [FTL_RUH_PERSISTENT] = "persistent",
    [FTL_RUH_INITIAL] = "initial",
};

static const struct config_key keys[] = {
    UKEY(fdp_ruhs, 1, 16, "fdp: reclaim unit handles, one write pointer each (15 at most "
         "with fdp_ruh_type=initial, whose GC takes one more)"),
    NKEY(fdp_ruh_type, ruh_type_names, "fdp: persistent (persistently isolated: GC keeps "
         "a handle's pages in its own reclaim units) | initial (initially isolated: GC "
         "moves every handle's pages into shared units)"),
    UKEY(fdp_ru_time_limit_s, 0, 1u << 30, "fdp: a reclaim unit open longer than this many "
         "seconds is closed as it is at its handle's next write (0: no limit)"),
    BKEY(fdp_ru_size, "fdp: bytes of a reclaim unit (K/M/G suffixes), which is the GC unit: "
         "a line, or a block with gc_unit=block; 0 takes the geometry's, another size is "
         "refused"),
    UKEY(fdp_nrg, 1, 1, "fdp: reclaim groups: 1 (one group over every LUN; Linux needs "
         "NRG = 1 too)"),
};

const struct config_key_group config_fdp_keys = KEY_GROUP(keys);

const char *ftl_ruh_type_name(enum ftl_ruh_type type)
{
    return (unsigned)type <= FTL_RUH_INITIAL ? ruh_type_names[type] : "?";
}

/* One write pointer per handle, and one more for GC's shared units when initially
 * isolated: at most the FTL's 16. */
int config_fdp_write_pointers(const struct ftl_config *cfg, struct ftl_geometry *g,
                              char *err, size_t errlen)
{
    g->write_pointers = cfg->fdp_ruhs + (cfg->fdp_ruh_type == FTL_RUH_INITIAL);
    if (g->write_pointers > 16) {
        return ftl_error(err, errlen, "fdp_ruhs: %" PRIu64 " initially isolated handles "
                         "and their GC write pointer are more than the FTL's 16 write "
                         "pointers (at most 15 handles)", cfg->fdp_ruhs);
    }
    return 0;
}

/* fdp: a reclaim unit is a GC unit; a configuration that names another size is wrong. */
int config_check_fdp(const struct ftl_config *cfg, const struct ftl_geometry *g,
                     char *err, size_t errlen)
{
    uint64_t ru = g->pgs_per_unit * g->page_bytes;     /* < 2^32 pages of <= 2^26 bytes */
    if (cfg->placement != FTL_PLACEMENT_FDP || cfg->fdp_ru_size == 0 ||
        cfg->fdp_ru_size == ru) {
        return 0;
    }
    return ftl_error(err, errlen, "fdp_ru_size: %" PRIu64 " bytes is not this geometry's "
                     "reclaim unit, its GC unit (%s of %" PRIu64 " pages): %" PRIu64 " bytes",
                     cfg->fdp_ru_size, cfg->gc_unit == FTL_GC_UNIT_BLOCK ? "a block" : "a line",
                     g->pgs_per_unit, ru);
}
