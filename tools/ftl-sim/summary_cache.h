/*
 * The summary's read-cache part (read_cache_pages > 0; nothing otherwise, so runs without
 * the cache print what they did before): its hits, misses, evictions and hit rate over
 * the measured phase. summary.c calls these for --summary and stdout.
 */
#ifndef FTL_SIM_SUMMARY_CACHE_H
#define FTL_SIM_SUMMARY_CACHE_H

#include <stdio.h>

#include "femu_ftl/ftl.h"
#include "sim.h"

/* "  \"read_cache_policy\": ..., \"rcache_hits\": ..., ..., \"rcache_hit_rate\": ...,\n" */
void summary_json_read_cache(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m);
/* One line: the cache, its hits, misses, hit rate and evictions. */
void summary_print_read_cache(FILE *f, const struct ftl *ftl,
                              const struct sim_phase_result *m);

#endif
