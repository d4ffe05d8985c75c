/* A trace's records as the FTL's requests: femu's own (zone, copy, FDP and KV records
 * included) and other formats' (tools/trace-in), mapped into the device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_range.h"
#include "femu_ftl/error.h"
#include "femu_trace.h"
#include "workload.h"
#include "workload_private.h"

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

/* The next femu record to replay: seeds and handle updates without FDP skipped, zone
 * records refused without zones, --trace-lba-map applied (a dropped one skipped). */
static int read_femu_record(struct workload *w, struct trace_record *out, char *err,
                            size_t errlen)
{
    for (;;) {
        int rc = trace_next(w->trace, out, err, errlen);
        if (rc <= 0) {
            return rc;
        }
        w->femu_records++;
        /* a seed line only names the generator's seed: nothing to replay; a RUH update
         * without FDP handles names a handle that does not exist: nothing to do */
        if (out->op == TRACE_SEED || (out->op == TRACE_RUH_UPDATE && !w->spec.fdp)) {
            continue;
        }
        if (record_zoned(out) && w->spec.layout.zones == 0) {
            return ftl_error(err, errlen, "%s:%lu: a zone record needs a zoned namespace "
                             "(zoned=1 and its zone keys)", w->spec.trace_path, out->line);
        }
        rc = map_femu(w, out, err, errlen);
        if (rc < 0) {
            return -1;
        }
        if (rc == 0) {
            return 1;
        }
    }
}

/* The FTL operation of each request record (ZA: a zone write with FTL_REQ_APPEND). */
static const enum ftl_op femu_ops[] = {
    [TRACE_WRITE] = FTL_OP_WRITE, [TRACE_READ] = FTL_OP_READ,
    [TRACE_DEALLOCATE] = FTL_OP_TRIM, [TRACE_FLUSH] = FTL_OP_FLUSH,
    [TRACE_VERIFY] = FTL_OP_VERIFY, [TRACE_FORMAT] = FTL_OP_FORMAT,
    [TRACE_ZONE_WRITE] = FTL_OP_ZONE_WRITE, [TRACE_ZONE_APPEND] = FTL_OP_ZONE_WRITE,
    [TRACE_ZONE_READ] = FTL_OP_ZONE_READ, [TRACE_ZONE_MGMT] = FTL_OP_ZONE_MGMT,
    [TRACE_COPY] = FTL_OP_COPY, [TRACE_RUH_UPDATE] = FTL_OP_RUH_UPDATE,
    [TRACE_WRITE_CACHE] = FTL_OP_SET_WRITE_CACHE,
    [TRACE_KV_STORE] = FTL_OP_KV_STORE, [TRACE_KV_RETRIEVE] = FTL_OP_KV_RETRIEVE,
    [TRACE_KV_DELETE] = FTL_OP_KV_DELETE, [TRACE_KV_EXIST] = FTL_OP_KV_EXIST,
    [TRACE_KV_LIST] = FTL_OP_KV_LIST, [TRACE_KV_CREATE] = FTL_OP_KV_CREATE,
    [TRACE_KV_DESTROY] = FTL_OP_KV_DESTROY, [TRACE_ADMIN] = FTL_OP_ADMIN,
    [TRACE_POWER] = FTL_OP_POWER,
};

int replay_next_femu(struct workload *w, struct request *req, char *err, size_t errlen)
{
    struct trace_record rec;
    int got = read_femu_record(w, &rec, err, errlen);
    if (got <= 0) {
        return got;
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
        .ftl = { .op = femu_ops[rec.op], .nsid = rec.nsid,
                 .stream = rec.stream > 0 ? (uint32_t)rec.stream : 0,
                 .flags = (rec.erase ? FTL_REQ_ERASE : 0) | (rec.fua ? FTL_REQ_FUA : 0) |
                          (rec.wce ? FTL_REQ_WCE : 0) },
        .time_ns = rec.time_ns,
    };
    if (rec.op == TRACE_KV_DESTROY) {
        return 1;
    }
    if (rec.op == TRACE_POWER) {    /* the engine checks the states against ps_count */
        w->power = rec.power;
        req->ftl.power = &w->power;
        return 1;
    }
    if (rec.op == TRACE_ADMIN) {    /* only the link and the controller charge it */
        req->ftl.flags = rec.io ? FTL_REQ_IO : 0;
        req->ftl.data_in = rec.data_in;
        req->ftl.data_out = rec.data_out;
        return 1;
    }
    if (rec.op >= TRACE_KV_STORE && rec.op <= TRACE_KV_LIST) {
        /* the engine admits it again (FTL_REQ_ADMITTED clear), as the recording's FTL did
         * or its device did at fetch */
        req->ftl.key = rec.key;
        req->ftl.kv_bytes = rec.kv_bytes;
        req->ftl.value_tag = rec.value_tag;
        req->ftl.flags = rec.kv_flags;
        return 1;
    }
    if (rec.op == TRACE_WRITE || rec.op == TRACE_READ || rec.op == TRACE_VERIFY ||
        rec.op == TRACE_FORMAT || rec.op == TRACE_KV_CREATE) {
        struct ftl_range r;
        if (to_device_sectors(w, &rec, rec.lba, rec.nsect, &r, err, errlen)) {
            return -1;
        }
        req->ftl.slba = r.slba;
        req->ftl.nlb = r.nlb;
        req->ftl.kv_capacity = rec.kv_capacity;     /* KC: the engine makes the store */
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
int replay_next_foreign(struct workload *w, struct request *req, char *err,
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

