/*
 * What workload.c (synthetic and zoned requests, opening a trace) and workload_trace.c (a
 * trace's records as requests) share: the workload's state.
 */
#ifndef FTL_SIM_WORKLOAD_PRIVATE_H
#define FTL_SIM_WORKLOAD_PRIVATE_H

#include "dist.h"
#include "femu_trace.h"
#include "options.h"
#include "rng.h"
#include "trace_in.h"
#include "workload.h"

struct workload {
    struct workload_spec spec;
    uint64_t secsz, capacity_sectors;
    uint64_t nblocks;           /* bs-sized blocks in the region */
    uint64_t hot_sectors;       /* writes below this sector go to spec.hot_stream (0: none) */
    uint64_t seq_next;          /* next block for sequential modes */
    struct dist *dist;
    struct rng rng;
    struct tin_input *input;        /* the trace, opened once: each pass reads it anew */
    struct trace_reader *trace;     /* femu's own format (the reader tin's) */
    struct tin_reader *tin;         /* the trace's reader, any format */
    bool foreign;                   /* not femu's format: records from tin directly */
    uint64_t femu_records;          /* femu's format: records read (for the summary) */
    bool brings_phases;             /* the dry run met a recorded phase */
    struct tin_settings tin_opts;   /* its options, with the device's capacity in map */
    struct ftl_range ranges[IO_TRACE_MAX_RANGES];   /* the current D or C record's */
    struct trace_range mapped[IO_TRACE_MAX_RANGES]; /* a D record's, moved by the LBA map */
    struct ftl_power_cmd power;     /* the current PS, PA or PG record's */
    /* zoned modes: the zone written now, blocks of bs written into it since its reset,
     * and what it needs before the next block */
    uint64_t zone, zone_blocks, blocks_per_zone;
    bool zone_finished, zone_needs_reset, wrapped;
    bool zone_zrwa_open;    /* --zrwa: the zone written now was opened with its ZRWA */
    uint64_t versions;      /* --zoned-journal: writes of the current block so far */
};

/* workload_next's for femu's own format and for the others (1, 0 or -1 with err). */
int replay_next_femu(struct workload *w, struct request *req, char *err, size_t errlen);
int replay_next_foreign(struct workload *w, struct request *req, char *err, size_t errlen);

#endif
