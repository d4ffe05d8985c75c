/* The statistics files' columns (STATS.md): headers, each clock's rows, phases.csv's
 * counters and the files written once at the end of the run. */
#ifndef FTL_OBS_STATS_ROWS_H
#define FTL_OBS_STATS_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#include "obs/stats_files.h"

/* Whether file i is written in this run. */
bool stats_file_wanted(const struct ftl_stats_writer *w, int i);
void stats_write_headers(struct ftl_stats_writer *w);
/* Clock c's row for the interval iv. */
void stats_write_row(struct ftl_stats_writer *w, int c, const struct interval *iv);
/* A phases.csv row up to its busy time: the time, the marker, the counters since the
 * origin (now) and each write pointer's pages. */
void stats_write_phase_counts(struct ftl_stats_writer *w, uint64_t now_ns, const char *phase,
                              const struct ftl_counters *now);
/* The end-of-run files: victims, and zones and read retries when they are written. */
void stats_write_end_files(struct ftl_stats_writer *w);

#endif
