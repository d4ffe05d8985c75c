/*
 * The summary's key-value part (ftl-sim --kv): the measured part's operations per
 * simulated second, each command's latency percentiles and statuses, the index hit rate,
 * the KV WAF, the kv_* counters, and the load phase apart. Nothing without --kv, so other
 * runs' summaries are unchanged. summary.c calls the JSON part, main.c the text.
 */
#ifndef FTL_SIM_SUMMARY_KV_H
#define FTL_SIM_SUMMARY_KV_H

#include <stdio.h>

#include "femu_ftl/ftl.h"
#include "sim.h"

struct kv_run;

/* "  \"kv\": {...},\n" (docs/kv.md names its fields) */
void summary_json_kv(FILE *f, const struct ftl *ftl, const struct kv_run *kv,
                     const struct sim_phase_result *m);
/* A few lines: throughput, latencies, index hit rate, KV WAF, compactions, failures. */
void summary_print_kv(FILE *f, const struct ftl *ftl, const struct kv_run *kv,
                      const struct sim_phase_result *m);

#endif
