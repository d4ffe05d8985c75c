/* Request generators: synthetic (fio's meanings) and trace replay. */
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftl_error.h"
#include "trace.h"


struct workload {
    struct workload_spec spec;
    uint64_t secsz, capacity_sectors;
    uint64_t nblocks;           /* bs-sized blocks in the region */
    uint64_t seq_next;          /* next block for sequential modes */
    struct dist *dist;
    struct rng rng;
    struct trace_reader *trace;
    struct ftl_range ranges[IO_TRACE_MAX_RANGES];   /* the current D record's */
};

static const char *const rw_names[] = { "randwrite", "randread", "randrw", "write", "read" };

const char *rw_mode_name(enum rw_mode rw)
{
    return rw_names[rw];
}

int rw_mode_parse(const char *text, enum rw_mode *out)
{
    for (unsigned i = 0; i < sizeof(rw_names) / sizeof(rw_names[0]); i++) {
        if (strcmp(text, rw_names[i]) == 0) {
            *out = (enum rw_mode)i;
            return 0;
        }
    }
    return -1;
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
        w->trace = trace_open(spec->trace_path, err, errlen);
        if (!w->trace) {
            free(w);
            return NULL;
        }
        return w;
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
            return w;
        }
    }
    free(w);
    return NULL;
}

bool workload_timed(const struct workload *w)
{
    return w->trace && trace_version(w->trace) >= 2;
}

/* 512-byte trace sectors to device sectors, covering the whole range; -1 (with a
 * message) when the range is beyond the device. nsect 0 stays an empty range. */
static int to_device_sectors(const struct workload *w, const struct trace_record *rec,
                             uint64_t lba, uint64_t nsect, struct ftl_range *out,
                             char *err, size_t errlen)
{
    uint64_t start = lba * IO_TRACE_SECTOR, end = (lba + nsect) * IO_TRACE_SECTOR;
    uint64_t first = start / w->secsz, last = (end + w->secsz - 1) / w->secsz;
    if (lba > UINT64_MAX / IO_TRACE_SECTOR - nsect || last > w->capacity_sectors) {
        return ftl_error(err, errlen, "%s:%lu: sectors %llu..%llu are beyond the device's "
                    "%llu 512-byte sectors", w->spec.trace_path, rec->line,
                    (unsigned long long)lba, (unsigned long long)(lba + nsect - 1),
                    (unsigned long long)(w->capacity_sectors * w->secsz / IO_TRACE_SECTOR));
    }
    *out = (struct ftl_range){ .slba = first, .nlb = nsect ? last - first : 0 };
    return 0;
}

static int next_from_trace(struct workload *w, struct request *req, char *err, size_t errlen)
{
    static const enum request_op ops[] = {
        [TRACE_WRITE] = REQ_WRITE, [TRACE_READ] = REQ_READ, [TRACE_DEALLOCATE] = REQ_TRIM,
        [TRACE_FLUSH] = REQ_FLUSH, [TRACE_PHASE] = REQ_PHASE, [TRACE_ADVANCE] = REQ_ADVANCE,
        [TRACE_END] = REQ_END, [TRACE_VERIFY] = REQ_VERIFY, [TRACE_FORMAT] = REQ_FORMAT,
    };
    struct trace_record rec;
    for (;;) {
        int rc = trace_next(w->trace, &rec, err, errlen);
        if (rc <= 0) {
            return rc;
        }
        if (rec.op != TRACE_SEED) {
            break;  /* a seed line only names the generator's seed: nothing to replay */
        }
    }
    if (rec.op == TRACE_WRITE && w->spec.nstreams && rec.stream >= (int)w->spec.nstreams) {
        return ftl_error(err, errlen, "%s:%lu: stream %d is not below nstreams (%u)",
                         w->spec.trace_path, rec.line, rec.stream, w->spec.nstreams);
    }
    *req = (struct request){ .op = ops[rec.op], .nsid = rec.nsid,
                             .stream = rec.stream > 0 ? (uint32_t)rec.stream : 0,
                             .time_ns = rec.time_ns, .phase = rec.phase,
                             .flags = rec.erase ? FTL_REQ_ERASE : 0 };
    if (rec.op == TRACE_WRITE || rec.op == TRACE_READ || rec.op == TRACE_VERIFY ||
        rec.op == TRACE_FORMAT) {
        struct ftl_range r;
        if (to_device_sectors(w, &rec, rec.lba, rec.nsect, &r, err, errlen)) {
            return -1;
        }
        req->slba = r.slba;
        req->nlb = r.nlb;
    }
    for (uint32_t i = 0; i < rec.nranges; i++) {
        if (to_device_sectors(w, &rec, rec.ranges[i].lba, rec.ranges[i].nsect,
                              &w->ranges[i], err, errlen)) {
            return -1;
        }
    }
    req->ranges = w->ranges;
    req->nranges = rec.nranges;
    return 1;
}

int workload_next(struct workload *w, struct request *req, char *err, size_t errlen)
{
    if (w->trace) {
        return next_from_trace(w, req, err, errlen);
    }
    uint64_t block;
    enum rw_mode rw = w->spec.rw;
    if (rw == RW_WRITE || rw == RW_READ) {
        block = w->seq_next;
        w->seq_next = (w->seq_next + 1) % w->nblocks;
    } else {
        block = dist_next(w->dist, &w->rng);
    }
    switch (rw) {
    case RW_RANDWRITE:
    case RW_WRITE:
        req->op = REQ_WRITE;
        break;
    case RW_RANDRW:
        req->op = rng_below(&w->rng, 100) < w->spec.rwmixread ? REQ_READ : REQ_WRITE;
        break;
    default:
        req->op = REQ_READ;
        break;
    }
    *req = (struct request){ .op = req->op, .slba = block * (w->spec.bs / w->secsz),
                             .nlb = w->spec.bs / w->secsz, .nsid = 1,
                             .stream = w->spec.stream };
    return 1;
}

void workload_destroy(struct workload *w)
{
    if (w) {
        trace_close(w->trace);
        dist_destroy(w->dist);
        free(w);
    }
}
