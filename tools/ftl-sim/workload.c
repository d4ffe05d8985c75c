/* Request generators: synthetic (fio's meanings), zoned, and trace replay. */
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_range.h"
#include "femu_ftl/error.h"
#include "femu_trace.h"
#include "input.h"
#include "scan.h"


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
    /* zoned modes: the zone written now, blocks of bs written into it since its reset,
     * and what it needs before the next block */
    uint64_t zone, zone_blocks, blocks_per_zone;
    bool zone_finished, zone_needs_reset, wrapped;
};

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
    return 0;
}

bool workload_brings_phases(const struct workload *w)
{
    return w->brings_phases;
}

uint64_t workload_zone_bytes(const struct workload *w)
{
    return w->blocks_per_zone * w->spec.bs;
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

/* A write's stream or a U record's handle must exist: the placement's count names it. */
static int check_handle(const struct workload *w, const struct trace_record *rec,
                        char *err, size_t errlen)
{
    if (!w->spec.nstreams || rec->stream < (int)w->spec.nstreams) {
        return 0;
    }
    if (w->spec.fdp) {
        return ftl_error(err, errlen, "%s:%lu: %s handle %d is not below fdp_ruhs (%u)",
                         w->spec.trace_path, rec->line,
                         rec->op == TRACE_RUH_UPDATE ? "reclaim unit" : "the write's",
                         rec->stream, w->spec.nstreams);
    }
    return ftl_error(err, errlen, "%s:%lu: stream %d is not below nstreams (%u)",
                     w->spec.trace_path, rec->line, rec->stream, w->spec.nstreams);
}

/* Whether a trace record addresses the zoned namespace (else the conventional space). */
static bool record_zoned(const struct trace_record *rec)
{
    return rec->op == TRACE_ZONE_WRITE || rec->op == TRACE_ZONE_APPEND ||
           rec->op == TRACE_ZONE_READ || rec->op == TRACE_ZONE_MGMT ||
           (rec->op == TRACE_COPY && rec->zoned);
}

/* 512-byte trace sectors to device sectors, covering the whole range; -1 (with a
 * message) when the range is beyond the device (or, zoned, beyond the zoned namespace).
 * nsect 0 stays an empty range. */
static int to_device_sectors(const struct workload *w, const struct trace_record *rec,
                             uint64_t lba, uint64_t nsect, struct ftl_range *out,
                             char *err, size_t errlen)
{
    bool zoned = record_zoned(rec);
    uint64_t limit = zoned ? w->spec.layout.zones * w->spec.layout.zone_sectors
                           : w->capacity_sectors;
    /* in range before any arithmetic: a count near 2^64 / 512 must not wrap to a small one */
    uint64_t max_sectors = UINT64_MAX / IO_TRACE_SECTOR - w->secsz;
    uint64_t first = 0, last = 0;
    bool fits = nsect <= max_sectors && lba <= max_sectors - nsect;
    if (fits) {
        first = lba * IO_TRACE_SECTOR / w->secsz;
        last = ((lba + nsect) * IO_TRACE_SECTOR + w->secsz - 1) / w->secsz;
    }
    if (!fits || last > limit) {
        return ftl_error(err, errlen, "%s:%lu: sectors %llu..%llu are beyond the %s's "
                    "%llu 512-byte sectors", w->spec.trace_path, rec->line,
                    (unsigned long long)lba, (unsigned long long)(lba + nsect - 1),
                    zoned ? "zoned namespace" : "device",
                    (unsigned long long)(limit * w->secsz / IO_TRACE_SECTOR));
    }
    *out = (struct ftl_range){ .slba = first, .nlb = nsect ? last - first : 0 };
    return 0;
}

/* A zone or copy record: its addresses in device sectors, the copy's total length. */
static int zone_record(struct workload *w, const struct trace_record *rec,
                       struct request *req, char *err, size_t errlen)
{
    struct ftl_range r = { 0 };
    switch (rec->op) {
    case TRACE_ZONE_MGMT:
        req->ftl.zone_action = rec->zone_action;
        req->ftl.flags = rec->all ? FTL_REQ_ZONE_ALL : 0;
        if (!rec->all && to_device_sectors(w, rec, rec->lba, 0, &r, err, errlen)) {
            return -1;
        }
        req->ftl.slba = r.slba;
        return 0;
    case TRACE_COPY: {
        uint64_t total = 0;
        req->ftl.flags = rec->zoned ? FTL_REQ_ZONED : 0;
        for (uint32_t i = 0; i < rec->nranges; i++) {
            total += w->ranges[i].nlb;  /* each range is inside the namespace: no overflow */
        }
        uint64_t dest_sectors = total * w->secsz / IO_TRACE_SECTOR;
        if (to_device_sectors(w, rec, rec->lba, dest_sectors, &r, err, errlen)) {
            return -1;
        }
        req->ftl.slba = r.slba;
        req->ftl.nlb = total;
        return 0;
    }
    default:
        req->ftl.flags = rec->op == TRACE_ZONE_APPEND ? FTL_REQ_APPEND : 0;
        if (to_device_sectors(w, rec, rec->lba, rec->nsect, &r, err, errlen)) {
            return -1;
        }
        req->ftl.slba = r.slba;
        req->ftl.nlb = r.nlb;
        return 0;
    }
}

/* One range of 512-byte sectors through --trace-lba-map, as another format's request
 * would go: 0 kept (*lba perhaps moved), 1 dropped (longer than the device), -1 refused. */
static int map_sectors(struct workload *w, unsigned long line, uint64_t *lba,
                       uint64_t nsect, char *err, size_t errlen)
{
    struct tin_record r = { .op = TIN_WRITE, .line = line };
    if (nsect == 0) {
        return 0;   /* an empty range: skipped anyway */
    }
    if (!tin_byte_range(*lba, nsect, IO_TRACE_SECTOR, &r.offset, &r.length)) {
        return ftl_error(err, errlen, "%s:%lu: lba %llu + nsect %llu is beyond 2^64 bytes",
                         w->spec.trace_path, line, (unsigned long long)*lba,
                         (unsigned long long)nsect);
    }
    int rc = tin_map_apply(&w->tin_opts.map, w->spec.trace_path, &r, err, errlen);
    if (rc == 0) {
        *lba = r.offset / IO_TRACE_SECTOR;  /* the map keeps 512-byte alignment */
    }
    return rc;
}

/*
 * --trace-lba-map on a femu record of the conventional namespace (W, R, Y, X, each range
 * of a D; a dropped range of a D becomes empty): 0 kept, 1 dropped, -1 refused. Zone and
 * copy records address zones and their contents, which no map can move: refused.
 * Without a map (refuse) to_device_sectors refuses what is beyond the device.
 */
static int map_femu(struct workload *w, struct trace_record *rec, char *err, size_t errlen)
{
    if (w->tin_opts.map.mode == TIN_MAP_REFUSE) {
        return 0;
    }
    if (record_zoned(rec) || rec->op == TRACE_COPY) {
        return ftl_error(err, errlen, "%s:%lu: --trace-lba-map cannot move zone/copy records",
                         w->spec.trace_path, rec->line);
    }
    switch (rec->op) {
    case TRACE_WRITE:
    case TRACE_READ:
    case TRACE_VERIFY:
    case TRACE_FORMAT:
        return map_sectors(w, rec->line, &rec->lba, rec->nsect, err, errlen);
    case TRACE_DEALLOCATE:
        for (uint32_t i = 0; i < rec->nranges; i++) {
            w->mapped[i] = rec->ranges[i];
            int rc = map_sectors(w, rec->line, &w->mapped[i].lba, w->mapped[i].nsect, err,
                                 errlen);
            if (rc < 0) {
                return -1;
            }
            if (rc > 0) {
                w->mapped[i].nsect = 0;
            }
        }
        rec->ranges = w->mapped;
        return 0;
    default:
        return 0;
    }
}

static int next_from_trace(struct workload *w, struct request *req, char *err, size_t errlen)
{
    /* The FTL operation of each request record (ZA: a zone write with FTL_REQ_APPEND). */
    static const enum ftl_op ops[] = {
        [TRACE_WRITE] = FTL_OP_WRITE, [TRACE_READ] = FTL_OP_READ,
        [TRACE_DEALLOCATE] = FTL_OP_TRIM, [TRACE_FLUSH] = FTL_OP_FLUSH,
        [TRACE_VERIFY] = FTL_OP_VERIFY, [TRACE_FORMAT] = FTL_OP_FORMAT,
        [TRACE_ZONE_WRITE] = FTL_OP_ZONE_WRITE, [TRACE_ZONE_APPEND] = FTL_OP_ZONE_WRITE,
        [TRACE_ZONE_READ] = FTL_OP_ZONE_READ, [TRACE_ZONE_MGMT] = FTL_OP_ZONE_MGMT,
        [TRACE_COPY] = FTL_OP_COPY, [TRACE_RUH_UPDATE] = FTL_OP_RUH_UPDATE,
        [TRACE_WRITE_CACHE] = FTL_OP_SET_WRITE_CACHE,
    };
    struct trace_record rec;
    for (;;) {
        int rc = trace_next(w->trace, &rec, err, errlen);
        if (rc <= 0) {
            return rc;
        }
        w->femu_records++;
        /* a seed line only names the generator's seed: nothing to replay; a RUH update
         * without FDP handles names a handle that does not exist: nothing to do */
        if (rec.op == TRACE_SEED || (rec.op == TRACE_RUH_UPDATE && !w->spec.fdp)) {
            continue;
        }
        if (record_zoned(&rec) && w->spec.layout.zones == 0) {
            return ftl_error(err, errlen, "%s:%lu: a zone record needs a zoned namespace "
                             "(zoned=1 and its zone keys)", w->spec.trace_path, rec.line);
        }
        rc = map_femu(w, &rec, err, errlen);
        if (rc < 0) {
            return -1;
        }
        if (rc == 0) {
            break;
        }
    }
    /* --trace-time scale=F: the recording's own clock, which its phase records share */
    if (tin_clock_scale(&w->tin_opts.clock, w->spec.trace_path, rec.line, rec.time_ns,
                        &rec.time_ns, err, errlen)) {
        return -1;
    }
    if ((rec.op == TRACE_WRITE || rec.op == TRACE_RUH_UPDATE) &&
        check_handle(w, &rec, err, errlen) != 0) {
        return -1;
    }
    switch (rec.op) {
    case TRACE_PHASE:
    case TRACE_ADVANCE:
    case TRACE_END:
        *req = (struct request){ .time_ns = rec.time_ns, .phase = rec.phase,
                                 .event = rec.op == TRACE_PHASE ? REPLAY_PHASE
                                        : rec.op == TRACE_ADVANCE ? REPLAY_ADVANCE
                                                                  : REPLAY_END };
        return 1;
    default:
        break;
    }
    *req = (struct request){
        .ftl = { .op = ops[rec.op], .nsid = rec.nsid,
                 .stream = rec.stream > 0 ? (uint32_t)rec.stream : 0,
                 .flags = (rec.erase ? FTL_REQ_ERASE : 0) | (rec.fua ? FTL_REQ_FUA : 0) |
                          (rec.wce ? FTL_REQ_WCE : 0) },
        .time_ns = rec.time_ns,
    };
    if (rec.op == TRACE_WRITE || rec.op == TRACE_READ || rec.op == TRACE_VERIFY ||
        rec.op == TRACE_FORMAT) {
        struct ftl_range r;
        if (to_device_sectors(w, &rec, rec.lba, rec.nsect, &r, err, errlen)) {
            return -1;
        }
        req->ftl.slba = r.slba;
        req->ftl.nlb = r.nlb;
    }
    for (uint32_t i = 0; i < rec.nranges; i++) {
        if (to_device_sectors(w, &rec, rec.ranges[i].lba, rec.ranges[i].nsect,
                              &w->ranges[i], err, errlen)) {
            return -1;
        }
    }
    req->ftl.ranges = w->ranges;
    req->ftl.nranges = rec.nranges;
    if (record_zoned(&rec) || rec.op == TRACE_COPY) {
        return zone_record(w, &rec, req, err, errlen) ? -1 : 1;
    }
    return 1;
}

/*
 * A request of another format's trace: folded into the device (--trace-lba-map), widened
 * to whole device sectors, its arrival relative to the first request's (--trace-time).
 * Its ASU or stream picks a placement stream modulo the streams there are.
 */
static int next_from_foreign(struct workload *w, struct request *req, char *err,
                             size_t errlen)
{
    static const enum ftl_op ops[] = { [TIN_READ] = FTL_OP_READ, [TIN_WRITE] = FTL_OP_WRITE,
                                       [TIN_TRIM] = FTL_OP_TRIM, [TIN_FLUSH] = FTL_OP_FLUSH };
    struct tin_record rec;
    int mapped;
    do {
        int rc = tin_next(w->tin, &rec, err, errlen);
        if (rc <= 0) {
            return rc;
        }
        mapped = tin_map_apply(&w->tin_opts.map, w->spec.trace_path, &rec, err, errlen);
        if (mapped < 0) {
            return -1;
        }
    } while (mapped > 0);
    uint64_t time_ns, slba = 0, nlb = 0;
    if (tin_clock_ns(&w->tin_opts.clock, w->spec.trace_path, &rec, &time_ns, err, errlen)) {
        return -1;
    }
    if (rec.op != TIN_FLUSH) {
        tin_align(rec.offset, rec.length, w->secsz, &slba, &nlb);
    }
    uint32_t stream = rec.stream > 0 && w->spec.nstreams ? (uint32_t)rec.stream %
                                                           w->spec.nstreams : 0;
    *req = (struct request){
        .ftl = { .op = ops[rec.op], .slba = slba, .nlb = nlb, .nsid = 1,
                 .stream = rec.op == TIN_WRITE ? stream : 0,
                 .flags = rec.fua && rec.op == TIN_WRITE ? FTL_REQ_FUA : 0 },
        .time_ns = time_ns,
    };
    return 1;
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
 */
static void next_zone_write(struct workload *w, struct request *req)
{
    const struct zone_layout *z = &w->spec.layout;
    uint64_t bs = w->spec.bs / w->secsz;
    if (w->zone_blocks == w->blocks_per_zone) {
        if (!w->zone_finished && z->cap_sectors % bs) {
            w->zone_finished = true;
            zone_request(req, FTL_OP_ZONE_MGMT, w->zone * z->zone_sectors, 0, 0,
                         FTL_ZONE_ACTION_FINISH);
            return;
        }
        w->zone = (w->zone + 1) % z->zones;
        w->zone_blocks = 0;
        w->zone_finished = false;
        w->wrapped |= w->zone == w->spec.zone;
        w->zone_needs_reset = w->wrapped;
    }
    uint64_t start = w->zone * z->zone_sectors;
    if (w->zone_needs_reset) {
        w->zone_needs_reset = false;
        zone_request(req, FTL_OP_ZONE_MGMT, start, 0, 0, FTL_ZONE_ACTION_RESET);
        return;
    }
    zone_request(req, FTL_OP_ZONE_WRITE, start + w->zone_blocks * bs, bs, 0, 0);
    w->zone_blocks++;
}

int workload_next(struct workload *w, struct request *req, char *err, size_t errlen)
{
    if (w->foreign) {
        return next_from_foreign(w, req, err, errlen);
    }
    if (w->trace) {
        return next_from_trace(w, req, err, errlen);
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
