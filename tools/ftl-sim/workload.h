/*
 * Request generators for ftl-sim: fio-like synthetic workloads (rw mode, read mix,
 * distribution, block size, region), zoned ones (appends into one zone, or sequential
 * writes zone after zone, with resets) and replay of block I/O traces
 * (hw/femu/ftl/include/femu_ftl/trace.h).
 */
#ifndef FTL_SIM_WORKLOAD_H
#define FTL_SIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist.h"
#include "options.h"
#include "femu_ftl/engine.h"
#include "rng.h"

struct kv_gen;
struct request;

enum rw_mode {
    RW_RANDWRITE, RW_RANDREAD, RW_RANDRW, RW_WRITE, RW_READ,
    RW_ZONE_APPEND,     /* Zone Appends of bs into one zone, reset when it is full */
    RW_ZONE_WRITE,      /* writes of bs at the write pointer, zone after zone; a zone is
                         * reset before it is written again (finished first if bs leaves
                         * part of its capacity unwritten) */
};

/* The zoned namespace in device sectors (zones 0: not zoned). */
struct zone_layout {
    uint64_t zones, zone_sectors, cap_sectors;
    uint64_t zrwa_sectors;      /* ZRWAS (0: no Zone Random Write Areas) */
};

struct workload_spec {
    enum rw_mode rw;
    unsigned rwmixread;         /* percent of reads for randrw */
    struct dist_spec dist;
    uint64_t bs;                /* bytes, a multiple of the sector size */
    uint64_t region_bytes;      /* I/O stays in [0, region_bytes) */
    uint64_t seed;
    const char *trace_path;     /* replay this trace instead (NULL: synthetic) */
    const struct tin_settings *trace_in;    /* its format, filters, LBA map and clock
                                             * (NULL: defaults; tools/trace-in/options.h) */
    uint32_t stream;            /* synthetic writes: their placement stream (--stream) or
                                 * FDP reclaim unit handle (--fdp) */
    bool hot_split;             /* synthetic writes below hot_sectors go to hot_stream
                                 * instead (--fdp-hot) */
    uint32_t hot_stream;
    uint64_t hot_sectors;       /* with hot_split: where the hot part ends, in device
                                 * sectors; 0: the end of the distribution's hot part
                                 * (--dist hotcold) */
    uint32_t nstreams;          /* placement=stream: a trace's write streams must be below
                                 * this; placement=fdp: its handles (0: not checked, tags
                                 * are ignored) */
    bool fdp;                   /* placement=fdp: a trace's U records are replayed (under
                                 * another placement they are dropped) */
    uint64_t zone;              /* zone-append: the zone; zone-write: the first (--zone) */
    bool zrwa;                  /* zone-write: each zone opened with a ZRWA, and finished
                                 * (committing its window) when written (--zrwa) */
    uint64_t journal;           /* zone-write with zrwa: each bs block written this many
                                 * times in place before the next (--zoned-journal; 0 and
                                 * 1: once); without zrwa each version is a new block */
    struct zone_layout layout;  /* the FTL's zoned namespace (filled by the caller) */
    /* --kv: kv_next(kv, req)'s requests instead (kv_gen.h; the caller's). A pointer, so
     * that workload.c links without the KV generator (the trace fuzz target's build) */
    struct kv_gen *kv;
    int (*kv_next)(struct kv_gen *gen, struct request *req);
};

/*
 * What a workload yields: requests for the FTL, and (from a version-2 trace) the recorded
 * run's statistics events, which are not FTL work.
 */
enum replay_event {
    REPLAY_NONE,        /* not an event: ftl is a request */
    REPLAY_PHASE,       /* a statistics phase starts: phase */
    REPLAY_ADVANCE,     /* the statistics were brought up to time_ns between requests */
    REPLAY_END,         /* the recording ended at time_ns */
};

struct request {
    enum replay_event event;
    /* REPLAY_NONE: the request (femu_ftl/engine.h), in the device's sectors; the FTL
     * admits zone requests itself (FTL_REQ_ADMITTED clear). arrival_ns is the loop's to
     * set. */
    struct ftl_request ftl;
    uint64_t time_ns;           /* version-2 trace: when, since the recording's origin */
    const char *phase;          /* REPLAY_PHASE */
    unsigned kv_kind;           /* a KV request: enum kv_kind (kv_gen.h) */
};

struct workload;

/* secsz: the device's sector size; capacity_sectors: its logical size. */
struct workload *workload_create(const struct workload_spec *spec, uint64_t secsz,
                                 uint64_t capacity_sectors, char *err, size_t errlen);
/* true for a version-2 or -3 trace: its records carry arrival times (open-loop replay). */
bool workload_timed(const struct workload *w);
/* true for a trace that records its run's statistics phases (a femu recording); the
 * caller marks the workload and its end itself for every other workload. */
bool workload_brings_phases(const struct workload *w);
/* What the trace reader saw, for the summary (format NULL: a synthetic workload). */
struct trace_input_summary {
    const char *format;
    struct tin_counts counts;
    uint64_t remapped, dropped;     /* by --trace-lba-map */
    const char *lba_map;            /* its mode; NULL for femu's own format */
    uint64_t sector_size;           /* --trace-sector-size (512 by default) */
};
void workload_trace_input(const struct workload *w, struct trace_input_summary *out);
/* The replayed trace's version (1 to 8), or for another format the version that holds
 * its requests (5 for blkparse, whose FUA writes need it, else 2); 0 for a synthetic
 * workload. */
int workload_trace_version(const struct workload *w);
/* Where the hot part of a synthetic workload ends, in device sectors: the writes that
 * spec.hot_stream takes (0 without hot_split). */
uint64_t workload_hot_sectors(const struct workload *w);
/* A zoned mode (zone-append, zone-write). */
bool rw_mode_zoned(enum rw_mode rw);
/* Zoned modes: the bytes of whole bs blocks one zone takes (before its reset). */
uint64_t workload_zone_bytes(const struct workload *w);
/* 1: *req filled (pointers valid until the next call); 0: the trace ended; -1: error in
 * err (e.g. a bad trace line). */
int workload_next(struct workload *w, struct request *req, char *err, size_t errlen);
void workload_destroy(struct workload *w);

/* --rw's spellings, rw_mode_names[mode] (ftl-sim's option table parses them). */
extern const char *const rw_mode_names[RW_ZONE_WRITE + 1];
const char *rw_mode_name(enum rw_mode rw);

#endif
