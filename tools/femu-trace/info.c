/*
 * info.c - femu-trace info: one pass over a trace counting what it holds. The size
 * histogram's buckets are powers of two: a request of n bytes counts in the smallest
 * 2^k >= n, the JSON key being 2^k in bytes. The extent is the end of the highest request
 * (offset + length over reads, writes and trims): what a device must hold for the trace to
 * fit, and what --trace-lba-map scale divides by.
 */
#include "info.h"

#include <inttypes.h>
#include <stdio.h>

#include "footprint.h"
#include "one_line.h"

#define BUCKETS 65

struct facts {
    uint64_t records, ops[4], bytes[4];
    bool timed_seen;
    uint64_t first_ns, last_ns;
    uint64_t extent;
    uint64_t sizes[BUCKETS];
    struct footprint fp;
};

static unsigned bucket_of(uint64_t n)
{
    unsigned k = 0;
    while (k < 64 && (UINT64_C(1) << k) < n) {
        k++;
    }
    return k;   /* 64: beyond 2^63, the last bucket */
}

static bool take(struct facts *f, const struct tin_record *rec)
{
    f->records++;
    f->ops[rec->op]++;
    f->bytes[rec->op] += rec->length;
    if (rec->timed) {
        if (!f->timed_seen || rec->time_ns < f->first_ns) {
            f->first_ns = rec->time_ns;
        }
        if (!f->timed_seen || rec->time_ns > f->last_ns) {
            f->last_ns = rec->time_ns;
        }
        f->timed_seen = true;
    }
    if (rec->op == TIN_FLUSH) {
        return true;
    }
    if (rec->offset + rec->length > f->extent) {
        f->extent = rec->offset + rec->length;
    }
    f->sizes[bucket_of(rec->length)]++;
    return footprint_add(&f->fp, rec->offset, rec->length);
}

static void print_json(const struct facts *f, enum tin_format format,
                       const struct tin_counts *c)
{
    printf("{\"format\": \"%s\", \"records\": %" PRIu64 ", \"span_ns\": %" PRIu64 ", "
           "\"reads\": %" PRIu64 ", \"writes\": %" PRIu64 ", \"trims\": %" PRIu64 ", "
           "\"flushes\": %" PRIu64 ", \"bytes_read\": %" PRIu64 ", \"bytes_written\": %"
           PRIu64 ", \"bytes_trimmed\": %" PRIu64 ", \"footprint_bytes\": %" PRIu64 ", "
           "\"footprint_approximate\": %s, \"extent_bytes\": %" PRIu64 ", \"skipped_bad\": %"
           PRIu64 ", \"zero_length\": %" PRIu64 ", \"filtered\": %" PRIu64 ", "
           "\"not_block\": %" PRIu64 ", \"size_histogram\": {",
           tin_format_name(format), f->records, f->last_ns - f->first_ns, f->ops[TIN_READ],
           f->ops[TIN_WRITE], f->ops[TIN_TRIM], f->ops[TIN_FLUSH], f->bytes[TIN_READ],
           f->bytes[TIN_WRITE], f->bytes[TIN_TRIM], f->fp.pages * FOOTPRINT_PAGE,
           f->fp.approximate ? "true" : "false", f->extent, c->bad, c->zero_length,
           c->filtered, c->not_block);
    const char *sep = "";
    for (unsigned k = 0; k < BUCKETS; k++) {
        if (f->sizes[k]) {
            /* 2^64 does not fit: the last bucket's key is spelt out */
            if (k == 64) {
                printf("%s\"18446744073709551616\": %" PRIu64, sep, f->sizes[k]);
            } else {
                printf("%s\"%" PRIu64 "\": %" PRIu64, sep, UINT64_C(1) << k, f->sizes[k]);
            }
            sep = ", ";
        }
    }
    printf("}}\n");
}

static void print_text(const struct facts *f, enum tin_format format,
                       const struct tin_counts *c)
{
    printf("format          %s\n", tin_format_name(format));
    printf("records         %" PRIu64 " (%" PRIu64 " bad skipped, %" PRIu64 " of zero length, "
           "%" PRIu64 " filtered out)\n", f->records, c->bad, c->zero_length, c->filtered);
    if (c->not_block) {
        printf("not block       %" PRIu64 " (verify, format, zone, copy, FDP, write cache, "
               "key-value, admin or power requests: not counted above)\n", c->not_block);
    }
    printf("span            %.6f s\n", (double)(f->last_ns - f->first_ns) / 1e9);
    printf("reads / writes  %" PRIu64 " / %" PRIu64 " (%.1f / %.1f MiB)\n", f->ops[TIN_READ],
           f->ops[TIN_WRITE], (double)f->bytes[TIN_READ] / 1048576.0,
           (double)f->bytes[TIN_WRITE] / 1048576.0);
    printf("trims / flushes %" PRIu64 " / %" PRIu64 "\n", f->ops[TIN_TRIM], f->ops[TIN_FLUSH]);
    printf("footprint       %.1f MiB (%" PRIu64 " distinct 4 KiB pages%s)\n",
           (double)(f->fp.pages * FOOTPRINT_PAGE) / 1048576.0, f->fp.pages,
           f->fp.approximate ? ", a lower bound: addresses beyond 4 TiB" : "");
    printf("extent          %" PRIu64 " bytes (%.1f MiB: the end of the highest request)\n",
           f->extent, (double)f->extent / 1048576.0);
    printf("sizes (<= bytes: requests)\n");
    for (unsigned k = 0; k < BUCKETS; k++) {
        if (f->sizes[k]) {
            printf("  %20.0f  %" PRIu64 "\n", k == 64 ? 18446744073709551616.0
                                                     : (double)(UINT64_C(1) << k),
                   f->sizes[k]);
        }
    }
}

int info_run(const char *path, const struct tin_settings *s, bool json)
{
    char err[512];
    struct tin_reader *r = tin_open(path, &s->in, err, sizeof(err));
    if (!r) {
        one_line(stderr, "femu-trace", "%s", err);
        return 2;
    }
    struct facts f = { 0 };
    struct tin_record rec;
    int rc;
    while ((rc = tin_next(r, &rec, err, sizeof(err))) == 1) {
        if (!take(&f, &rec)) {
            snprintf(err, sizeof(err), "out of memory for the footprint bitmap");
            rc = -2;
            break;
        }
    }
    int status = 0;
    if (rc < 0) {
        one_line(stderr, "femu-trace", "%s", err);
        status = rc == -2 ? 1 : 2;
    } else if (json) {
        print_json(&f, tin_format_of(r), tin_counts_of(r));
    } else {
        print_text(&f, tin_format_of(r), tin_counts_of(r));
    }
    footprint_free(&f.fp);
    tin_close(r);
    return status == 0 && fflush(stdout) ? 1 : status;
}
