/* Garbage collection's keys: when it runs, how it picks victims, what unit it collects;
 * the GC units and thresholds they make of the geometry. */
#include "config/config_checks.h"
#include "config/config_keys.h"

#include <inttypes.h>

#include "femu_ftl/error.h"

static const char *const gc_mode_names[] = {
    [FTL_GC_PACED] = "paced",
    [FTL_GC_LINE] = "line",
};

static const char *const gc_policy_names[] = {
    [FTL_GC_GREEDY] = "greedy",
    [FTL_GC_COST_BENEFIT] = "cost_benefit",
    [FTL_GC_RANDOM] = "random",
    [FTL_GC_FIFO] = "fifo",
    [FTL_GC_DCHOICE] = "dchoice",
};

static const char *const gc_unit_names[] = {
    [FTL_GC_UNIT_LINE] = "line",
    [FTL_GC_UNIT_BLOCK] = "block",
};

static const struct config_key keys[] = {
    UKEY(gc_thres_pcent, 0, 99, "background GC when this percent of lines is in use"),
    UKEY(gc_thres_pcent_high, 0, 99, "foreground GC when this percent of lines is in use"),
    NKEY(gc_mode, gc_mode_names, "background GC: paced (page moves spread over host writes and "
         "idle LUNs) | line (a whole line after a request, as FEMU)"),
    NKEY(gc_policy, gc_policy_names, "GC victim among lines with an invalid page: greedy "
         "(fewest valid, as FEMU) | cost_benefit (largest (1-u)/2u x age since last write) | "
         "random | fifo (closed first) | dchoice (fewest valid of gc_dchoice_d random lines)"),
    UKEY(gc_dchoice_d, 2, 64, "dchoice: lines sampled per victim choice"),
    NKEY(gc_unit, gc_unit_names, "what GC collects and write pointers open: line (a block "
         "on every LUN, as FEMU) | block (one block of one LUN: per-LUN free lists, "
         "victims from the LUN shortest of free blocks, write pointers moving bank by "
         "bank; needs gc_mode=line)"),
};

const struct config_key_group config_gc_keys = KEY_GROUP(keys);

const char *ftl_gc_mode_name(enum ftl_gc_mode mode)
{
    return (unsigned)mode <= FTL_GC_LINE ? gc_mode_names[mode] : "?";
}

const char *ftl_gc_policy_name(enum ftl_gc_policy policy)
{
    return (unsigned)policy <= FTL_GC_DCHOICE ? gc_policy_names[policy] : "?";
}

const char *ftl_gc_unit_name(enum ftl_gc_unit unit)
{
    return (unsigned)unit <= FTL_GC_UNIT_BLOCK ? gc_unit_names[unit] : "?";
}

int config_check_gc(const struct ftl_config *cfg, char *err, size_t errlen)
{
    if (cfg->gc_thres_pcent > cfg->gc_thres_pcent_high) {
        return ftl_error(err, errlen, "gc_thres_pcent: %" PRIu64 " is above gc_thres_pcent_high (%"
                    PRIu64 "); background GC must start first", cfg->gc_thres_pcent,
                    cfg->gc_thres_pcent_high);
    }
    return 0;
}

/* The GC units (lines, or blocks with gc_unit=block) and the free ones each threshold
 * keeps; the zones' rows (g->zone_rows) may leave too few for foreground GC. */
int config_derive_gc_units(const struct ftl_config *cfg, struct ftl_geometry *g,
                           char *err, size_t errlen)
{
    bool blocks = cfg->gc_unit == FTL_GC_UNIT_BLOCK;
    g->units = blocks ? g->lines * g->luns : g->lines;
    g->pgs_per_unit = blocks ? cfg->pgs_per_blk : g->pgs_per_line;
    if (blocks && cfg->gc_mode != FTL_GC_LINE) {
        return ftl_error(err, errlen, "gc_unit: block needs gc_mode=line (paced GC spreads "
                         "a line's moves over its LUNs)");
    }
    g->gc_thres_lines = (100 - cfg->gc_thres_pcent) * g->units / 100;
    g->gc_thres_lines_high = (100 - cfg->gc_thres_pcent_high) * g->units / 100;
    uint64_t units_unzoned = blocks ? g->blks_per_lun * g->luns : g->blks_per_lun;
    if (g->gc_thres_lines_high < 1 &&
        (100 - cfg->gc_thres_pcent_high) * units_unzoned / 100 >= 1) {
        return ftl_error(err, errlen, "zones: the zones take %" PRIu64 " of the %" PRIu64
                         " block rows of every LUN, leaving %" PRIu64 " %s: too few for "
                         "foreground GC (gc_thres_pcent_high)", g->zone_rows,
                         g->blks_per_lun, g->units, blocks ? "blocks" : "lines");
    }
    if (g->gc_thres_lines_high < 1) {
        return ftl_error(err, errlen, "gc_thres_pcent_high: %" PRIu64 "%% of %" PRIu64 " %s "
                    "leaves no %s for foreground GC; use more blocks (blks_per_pl) or a "
                    "lower threshold", cfg->gc_thres_pcent_high, g->units,
                    blocks ? "blocks" : "lines", blocks ? "block" : "line");
    }
    return 0;
}
