/* Request generators: synthetic (fio's meanings) and zoned; a trace opened and checked by
 * a dry run here, its records made requests in workload_trace.c. */
#include "workload.h"
#include "workload_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/error.h"
#include "femu_trace.h"
#include "input.h"
#include "scan.h"



const char *const rw_mode_names[RW_ZONE_WRITE + 1] = {
    [RW_RANDWRITE] = "randwrite", [RW_RANDREAD] = "randread", [RW_RANDRW] = "randrw",
    [RW_WRITE] = "write", [RW_READ] = "read", [RW_ZONE_APPEND] = "zone-append",
    [RW_ZONE_WRITE] = "zone-write",
};

bool rw_mode_zoned(enum rw_mode rw)
{
    return rw == RW_ZONE_APPEND || rw == RW_ZONE_WRITE;
}

const char *rw_mode_name(enum rw_mode rw)
{
    return rw_mode_names[rw];
}

/* zone-append / zone-write: whole blocks of bs per zone, from the zone --zone names. */
static int zoned_setup(struct workload *w, char *err, size_t errlen)
{
    const struct workload_spec *spec = &w->spec;
    const struct zone_layout *z = &spec->layout;
    if (z->zones == 0) {
        return ftl_error(err, errlen, "--rw %s: needs a zoned namespace (zoned=1 and its "
                         "zone keys)", rw_mode_name(spec->rw));
    }
    if (spec->bs == 0 || spec->bs % w->secsz) {
        return ftl_error(err, errlen, "--bs: %llu is not a multiple of the %llu-byte sector",
                         (unsigned long long)spec->bs, (unsigned long long)w->secsz);
    }
    w->blocks_per_zone = z->cap_sectors / (spec->bs / w->secsz);
    if (w->blocks_per_zone == 0) {
        return ftl_error(err, errlen, "--bs: %llu bytes is more than a zone's capacity (%llu "
                         "bytes)", (unsigned long long)spec->bs,
                         (unsigned long long)(z->cap_sectors * w->secsz));
    }
    if (spec->zone >= z->zones) {
        return ftl_error(err, errlen, "--zone: %llu is not below the %llu zones",
                         (unsigned long long)spec->zone, (unsigned long long)z->zones);
    }
    w->zone = spec->zone;
    if (spec->zrwa && z->zrwa_sectors == 0) {
        return ftl_error(err, errlen, "--zrwa: the configuration has no Zone Random Write "
                         "Area (zrwa_zones=0)");
    }
    if (spec->zrwa && spec->bs / w->secsz > z->zrwa_sectors) {
        return ftl_error(err, errlen, "--bs: %llu bytes is more than zrwa_size (%llu bytes)",
                         (unsigned long long)spec->bs,
                         (unsigned long long)(z->zrwa_sectors * w->secsz));
    }
    return 0;
}

bool workload_brings_phases(const struct workload *w)
{
    return w->brings_phases;
}

uint64_t workload_zone_bytes(const struct workload *w)
{
    uint64_t versions = w->spec.zrwa && w->spec.journal > 1 ? w->spec.journal : 1;
    return w->blocks_per_zone * w->spec.bs * versions;
}

/* A reader from the start of the input again, quiet, with the map's counts, the clock
 * and the record count as before any request: the replay after the dry run. */
static int reopen(struct workload *w, char *err, size_t errlen)
{
    tin_close(w->tin);
    w->tin = tin_open_input(w->input, &w->tin_opts.in, err, errlen);
    w->trace = w->tin ? tin_femu_reader(w->tin) : NULL;
    w->tin_opts.map.remapped = w->tin_opts.map.dropped = 0;
    w->tin_opts.clock.started = false;
    w->femu_records = 0;
    return w->tin ? 0 : -1;
}

/*
 * Every request the replay will be given, made now the same way but with no FTL, before
 * any output file exists: a bad line late in the trace, a refusal of the LBA map or the
 * clock, a record beyond the device, a handle beyond the placement's or a zone record
 * without zones stops the run before anything is written. *requests: the requests made.
 */
static int dry_run(struct workload *w, uint64_t *requests, char *err, size_t errlen)
{
    struct request req;
    int rc;
    *requests = 0;
    while ((rc = workload_next(w, &req, err, errlen)) == 1) {
        *requests += req.event == REPLAY_NONE;
        w->brings_phases |= req.event == REPLAY_PHASE;
    }
    return rc;
}

/*
 * The trace, opened once (a stream is spooled: input.h), its format detected or named:
 * femu's replayed from its own reader (femu_trace.h), others from tin's records. Read in
 * full up to three times: the extent --trace-lba-map scale divides by (unless
 * --trace-extent gives it), the dry run, the replay.
 */
static int open_trace(struct workload *w, char *err, size_t errlen)
{
    struct tin_settings *o = &w->tin_opts;
    if (w->spec.trace_in) {
        *o = *w->spec.trace_in;
    } else {
        tin_settings_init(o);
    }
    o->map.device_bytes = w->capacity_sectors * w->secsz;
    w->input = tin_input_open(w->spec.trace_path, err, errlen);
    if (!w->input) {
        return -1;
    }
    /* the format detected (and named) once, the extent scale needs */
    if (tin_settings_resolve(w->input, o, err, errlen)) {
        return -1;
    }
    w->foreign = o->in.format != TIN_FEMU;
    uint64_t requests;
    if (reopen(w, err, errlen) || dry_run(w, &requests, err, errlen)) {
        return -1;
    }
    if (w->foreign && requests == 0) {
        return ftl_error(err, errlen, "%s: no usable request in the trace",
                         w->spec.trace_path);
    }
    return reopen(w, err, errlen);
}

struct workload *workload_create(const struct workload_spec *spec, uint64_t secsz,
                                 uint64_t capacity_sectors, char *err, size_t errlen)
{
    struct workload *w = calloc(1, sizeof(*w));
    if (!w) {
        ftl_error(err, errlen, "out of memory");
        return NULL;
    }
    w->spec = *spec;
    w->secsz = secsz;
    w->capacity_sectors = capacity_sectors;
    rng_seed(&w->rng, spec->seed);
    if (spec->kv) {
        return w;
    }
    if (spec->trace_path) {
        if (open_trace(w, err, errlen) == 0) {
            return w;
        }
        workload_destroy(w);
        return NULL;
    }
    if (rw_mode_zoned(spec->rw)) {
        if (zoned_setup(w, err, errlen) == 0) {
            return w;
        }
        free(w);
        return NULL;
    }
    uint64_t capacity = capacity_sectors * secsz;
    if (spec->bs == 0 || spec->bs % secsz) {
        ftl_error(err, errlen, "--bs: %llu is not a multiple of the %llu-byte sector",
             (unsigned long long)spec->bs, (unsigned long long)secsz);
    } else if (spec->region_bytes > capacity) {
        ftl_error(err, errlen, "--size: %llu bytes is larger than the device (%llu bytes)",
             (unsigned long long)spec->region_bytes, (unsigned long long)capacity);
    } else if (spec->region_bytes < spec->bs) {
        ftl_error(err, errlen, "--size: the region is smaller than one block (--bs)");
    } else {
        w->nblocks = spec->region_bytes / spec->bs;
        w->dist = dist_create(&spec->dist, w->nblocks, err, errlen);
        if (w->dist) {
            w->hot_sectors = !spec->hot_split ? 0
                             : spec->hot_sectors ? spec->hot_sectors
                             : dist_hot_items(w->dist) * (spec->bs / secsz);
            return w;
        }
    }
    free(w);
    return NULL;
}

bool workload_timed(const struct workload *w)
{
    if (w->foreign) {
        return tin_timed(w->tin) && !w->tin_opts.clock.closed_loop;
    }
    return w->trace && trace_version(w->trace) >= 2 && !w->tin_opts.clock.closed_loop;
}

int workload_trace_version(const struct workload *w)
{
    /* blkparse marks FUA writes: only version 5 records them */
    if (w->foreign) {
        return tin_format_of(w->tin) == TIN_BLKPARSE ? 5 : 2;
    }
    return w->trace ? trace_version(w->trace) : 0;
}

void workload_trace_input(const struct workload *w, struct trace_input_summary *out)
{
    *out = (struct trace_input_summary){ 0 };
    if (!w->tin) {
        return;
    }
    out->format = tin_format_name(tin_format_of(w->tin));
    out->counts = *tin_counts_of(w->tin);
    if (!w->foreign) {
        out->counts.records = w->femu_records;  /* femu_trace's, not tin's: every kind */
        out->counts.bad = trace_bad_lines(w->trace);
    }
    out->sector_size = w->tin_opts.in.sector_size ? w->tin_opts.in.sector_size : 512;
    if (w->foreign || w->tin_opts.map.mode != TIN_MAP_REFUSE) {
        out->lba_map = tin_lba_map_name(w->tin_opts.map.mode);
        out->remapped = w->tin_opts.map.remapped;
        out->dropped = w->tin_opts.map.dropped;
    }
}

uint64_t workload_hot_sectors(const struct workload *w)
{
    return w->hot_sectors;
}

static void zone_request(struct request *req, enum ftl_op op, uint64_t slba, uint64_t nlb,
                         uint32_t flags, uint32_t action)
{
    /* nsid 2: the zoned namespace's in the device (the first conventional one is 1) */
    *req = (struct request){ .ftl = { .op = op, .slba = slba, .nlb = nlb, .nsid = 2,
                                      .flags = flags, .zone_action = action } };
}

/* zone-append: appends of bs into one zone; a reset when the next would not fit. */
static void next_zone_append(struct workload *w, struct request *req)
{
    uint64_t start = w->zone * w->spec.layout.zone_sectors;
    if (w->zone_blocks == w->blocks_per_zone) {
        w->zone_blocks = 0;
        zone_request(req, FTL_OP_ZONE_MGMT, start, 0, 0, FTL_ZONE_ACTION_RESET);
        return;
    }
    w->zone_blocks++;
    zone_request(req, FTL_OP_ZONE_WRITE, start, w->spec.bs / w->secsz, FTL_REQ_APPEND, 0);
}

/*
 * zone-write: bs at the write pointer, zone after zone (wrapping); a zone with capacity
 * left over that bs cannot fill is finished, and a zone written before is reset first.
 * --zrwa: each zone is opened with a ZRWA first and finished at its end (committing what
 * its window holds); with --zoned-journal N each block is written N times in place.
 */
static void next_zone_write(struct workload *w, struct request *req)
{
    const struct zone_layout *z = &w->spec.layout;
    uint64_t bs = w->spec.bs / w->secsz;
    if (w->zone_blocks == w->blocks_per_zone) {
        if (!w->zone_finished && (z->cap_sectors % bs || w->spec.zrwa)) {
            w->zone_finished = true;
            zone_request(req, FTL_OP_ZONE_MGMT, w->zone * z->zone_sectors, 0, 0,
                         FTL_ZONE_ACTION_FINISH);
            return;
        }
        w->zone = (w->zone + 1) % z->zones;
        w->zone_blocks = 0;
        w->zone_finished = false;
        w->zone_zrwa_open = false;
        w->wrapped |= w->zone == w->spec.zone;
        w->zone_needs_reset = w->wrapped;
    }
    uint64_t start = w->zone * z->zone_sectors;
    if (w->zone_needs_reset) {
        w->zone_needs_reset = false;
        zone_request(req, FTL_OP_ZONE_MGMT, start, 0, 0, FTL_ZONE_ACTION_RESET);
        return;
    }
    if (w->spec.zrwa && !w->zone_zrwa_open) {
        w->zone_zrwa_open = true;
        zone_request(req, FTL_OP_ZONE_MGMT, start, 0, 0, FTL_ZONE_ACTION_OPEN_ZRWA);
        return;
    }
    zone_request(req, FTL_OP_ZONE_WRITE, start + w->zone_blocks * bs, bs, 0, 0);
    if (w->spec.zrwa && ++w->versions < w->spec.journal) {
        return;     /* the same block again: a rewrite in the window */
    }
    w->versions = 0;
    w->zone_blocks++;
}

int workload_next(struct workload *w, struct request *req, char *err, size_t errlen)
{
    if (w->spec.kv) {
        return w->spec.kv_next(w->spec.kv, req);
    }
    if (w->foreign) {
        return replay_next_foreign(w, req, err, errlen);
    }
    if (w->trace) {
        return replay_next_femu(w, req, err, errlen);
    }
    if (w->spec.rw == RW_ZONE_APPEND) {
        next_zone_append(w, req);
        return 1;
    }
    if (w->spec.rw == RW_ZONE_WRITE) {
        next_zone_write(w, req);
        return 1;
    }
    uint64_t block;
    enum rw_mode rw = w->spec.rw;
    if (rw == RW_WRITE || rw == RW_READ) {
        block = w->seq_next;
        w->seq_next = (w->seq_next + 1) % w->nblocks;
    } else {
        block = dist_next(w->dist, &w->rng);
    }
    enum ftl_op op;
    switch (rw) {
    case RW_RANDWRITE:
    case RW_WRITE:
        op = FTL_OP_WRITE;
        break;
    case RW_RANDRW:
        op = rng_below(&w->rng, 100) < w->spec.rwmixread ? FTL_OP_READ : FTL_OP_WRITE;
        break;
    default:
        op = FTL_OP_READ;
        break;
    }
    uint64_t slba = block * (w->spec.bs / w->secsz);
    bool hot = slba < w->hot_sectors;
    *req = (struct request){ .ftl = { .op = op, .slba = slba, .nlb = w->spec.bs / w->secsz,
                                      .nsid = 1,
                                      .stream = hot ? w->spec.hot_stream
                                                    : w->spec.stream } };
    return 1;
}

void workload_destroy(struct workload *w)
{
    if (w) {
        tin_close(w->tin);     /* femu's reader, w->trace, with it */
        tin_input_close(w->input);
        dist_destroy(w->dist);
        free(w);
    }
}
