/*
 * The statistics writer's state, shared by the writer (stats_writer.c: the interval
 * clocks, files opened, flushed and closed) and the rows it writes (stats_rows.c: every
 * file's columns).
 */
#ifndef FTL_OBS_STATS_FILES_H
#define FTL_OBS_STATS_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "femu_ftl/stats.h"

#define NS_PER_S 1000000000ull
#define NS_PER_TENTH (NS_PER_S / 10)

enum stats_file {
    FILE_IOPS, FILE_THROUGHPUT, FILE_GC, FILE_WAF, FILE_STATISTICS, FILE_STATS, FILE_PHASES,
    FILE_VICTIMS, FILE_NAND, FILE_CH_UTIL, FILE_ZONES, FILE_RETRIES, NFILES
};

/* Every row interval ends on a 0.1 s boundary, so the tenth clock drives the others. */
enum stats_clock { CLOCK_TENTH, CLOCK_SECOND, CLOCK_TEN_SECONDS, NCLOCKS };

struct interval_clock {
    uint64_t length_ns;
    uint64_t started_ns;        /* start of the interval being accumulated */
    uint64_t busy_at_start;     /* ftl_lun_busy_ns(started_ns) */
    struct ftl_counters at_start;
};

/* The interval one row covers. */
struct interval {
    double end_s, len_s;
    uint64_t len_ns;                    /* len_s exactly (the energy model's time) */
    const struct ftl_counters *a, *b;   /* counters at its start and at its end */
    uint64_t busy_ns;                   /* busy-LUN time inside it */
};

struct ftl_stats_writer {
    struct ftl *ftl;
    uint64_t origin_ns;
    FILE *files[NFILES];        /* FILE_ZONES only for a zoned FTL */
    struct interval_clock clocks[NCLOCKS];
    unsigned nwps;
    /* phases.csv's snapshots count from here: the counters and busy time at the origin */
    struct ftl_counters at_origin;
    uint64_t busy_at_origin;
    uint64_t busy_asked_ns;     /* the latest time ftl_lun_busy_ns was asked about */
    bool any_phase, last_phase_is_end;
};

static inline double seconds(uint64_t ns)
{
    return (double)ns / (double)NS_PER_S;
}

#endif
