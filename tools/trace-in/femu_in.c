/* femu_in.c - femu's trace records as trace_in records (femu_in.h). */
#include "femu_in.h"

#include <stdlib.h>

#include "byte_range.h"

struct femu_in {
    struct trace_reader *t;
    const char *path;           /* the caller's, for messages */
    struct trace_record cur;    /* a D record whose ranges are being handed out */
    uint32_t next_range;
    uint64_t not_block;         /* requests passed over: not block requests */
};

struct femu_in *femu_in_open(FILE *stream, const char *path, bool skip_bad, char *err,
                             size_t errlen)
{
    struct femu_in *r = calloc(1, sizeof(*r));
    if (!r) {
        fclose(stream);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->path = path;
    r->t = trace_open_stream(stream, path, skip_bad, err, errlen);
    if (!r->t) {
        free(r);
        return NULL;
    }
    return r;
}

/* The next range of the current D record as a trim; false when there is none left. The
 * ranges were checked (byte_range.h) when the record was read. */
static bool next_range(struct femu_in *r, struct tin_record *rec)
{
    if (r->cur.op != TRACE_DEALLOCATE || r->next_range >= r->cur.nranges) {
        return false;
    }
    const struct trace_range *range = &r->cur.ranges[r->next_range++];
    *rec = (struct tin_record){ .op = TIN_TRIM, .timed = trace_version(r->t) >= 2,
                                .time_ns = r->cur.time_ns, .stream = -1, .line = r->cur.line };
    tin_byte_range(range->lba, range->nsect, IO_TRACE_SECTOR, &rec->offset, &rec->length);
    return true;
}

int femu_in_next(struct femu_in *r, struct tin_record *rec, char *err, size_t errlen)
{
    for (;;) {
        if (next_range(r, rec)) {
            return 1;
        }
        int rc = trace_next(r->t, &r->cur, err, errlen);
        if (rc <= 0) {
            return rc;
        }
        const struct trace_record *t = &r->cur;
        r->next_range = 0;
        *rec = (struct tin_record){ .timed = trace_version(r->t) >= 2, .time_ns = t->time_ns,
                                    .stream = t->stream, .fua = t->fua, .line = t->line };
        switch (t->op) {
        case TRACE_WRITE:
        case TRACE_READ:
            if (!tin_byte_range(t->lba, t->nsect, IO_TRACE_SECTOR, &rec->offset,
                                &rec->length)) {
                snprintf(err, errlen, "%s:%lu: lba %llu + nsect %llu is beyond 2^64 bytes",
                         r->path, t->line, (unsigned long long)t->lba,
                         (unsigned long long)t->nsect);
                return -1;
            }
            rec->op = t->op == TRACE_WRITE ? TIN_WRITE : TIN_READ;
            return 1;
        case TRACE_FLUSH:
            rec->op = TIN_FLUSH;
            return 1;
        case TRACE_DEALLOCATE:
            for (uint32_t i = 0; i < t->nranges; i++) {
                uint64_t offset, length;
                if (!tin_byte_range(t->ranges[i].lba, t->ranges[i].nsect, IO_TRACE_SECTOR,
                                    &offset, &length)) {
                    snprintf(err, errlen, "%s:%lu: a range is beyond 2^64 bytes", r->path,
                             t->line);
                    return -1;
                }
            }
            continue;
        case TRACE_SEED:
        case TRACE_PHASE:
        case TRACE_ADVANCE:
        case TRACE_END:
            continue;   /* markers, not requests */
        default:
            r->not_block++;     /* a request, but not a block one: counted */
            continue;
        }
    }
}

struct trace_reader *femu_in_reader(struct femu_in *r)
{
    return r->t;
}

int femu_in_version(const struct femu_in *r)
{
    return trace_version(r->t);
}

uint64_t femu_in_not_block(const struct femu_in *r)
{
    return r->not_block;
}

uint64_t femu_in_bad_lines(const struct femu_in *r)
{
    return trace_bad_lines(r->t);
}

void femu_in_close(struct femu_in *r)
{
    if (r) {
        trace_close(r->t);
        free(r);
    }
}
