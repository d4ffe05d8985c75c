/*
 * The summary's per-write-pointer part (per stream, hot/cold pointer or FDP reclaim unit
 * handle): host pages, media pages (host + GC pages programmed into its units) and its WAF,
 * and FDP's counters and events. summary.c calls these for --summary and stdout.
 */
#ifndef FTL_SIM_SUMMARY_PLACEMENT_H
#define FTL_SIM_SUMMARY_PLACEMENT_H

#include <stdio.h>

#include "femu_ftl/ftl.h"
#include "sim.h"

/* "  \"write_pointers\": [...],\n  \"fdp\": {...},\n" */
void summary_json_placement(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m);
/* One line per write pointer, then (placement=fdp) one line of FDP counters. */
void summary_print_placement(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m);

#endif
