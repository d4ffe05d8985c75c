/*
 * The summary's merge counters under a block-level mapping (mapping=block|bast|fast):
 * merges by type, the pages they copied, the blocks they erased. Nothing otherwise, so
 * other runs' summaries are unchanged. summary.c calls these for --summary and stdout.
 */
#ifndef FTL_SIM_SUMMARY_HYBRID_H
#define FTL_SIM_SUMMARY_HYBRID_H

#include <stdio.h>

#include "femu_ftl/ftl.h"
#include "sim.h"

/* "  \"merge_switch\": N,\n" and the other four */
void summary_json_hybrid(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m);
/* One line: the merges by type, pages copied, blocks erased. */
void summary_print_hybrid(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m);

#endif
