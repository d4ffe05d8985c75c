/*
 * femu_in.h - femu's own traces (femu_ftl/trace.h) as trace_in records, read by
 * the femu reader (femu_trace.c) over a decompressing stream: W and R as
 * writes and reads, each range of a D as a trim, F as a flush; the other records (seed,
 * phases, verify, format, zone and copy records, handle updates, write cache switches)
 * are not block requests and are passed over.
 */
#ifndef TRACE_IN_FEMU_IN_H
#define TRACE_IN_FEMU_IN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "femu_trace.h"
#include "trace_in.h"

struct femu_in;

/* Over stream (owned from here on), named path; skip_bad: bad lines are counted and
 * passed over. NULL with a reason. */
struct femu_in *femu_in_open(FILE *stream, const char *path, bool skip_bad, char *err,
                             size_t errlen);
/* 1 record, 0 end, -1 error. */
int femu_in_next(struct femu_in *r, struct tin_record *rec, char *err, size_t errlen);
/* The underlying reader, for ftl-sim's own replay of every record kind. */
struct trace_reader *femu_in_reader(struct femu_in *r);
int femu_in_version(const struct femu_in *r);
/* Bad lines passed over so far (skip_bad). */
uint64_t femu_in_bad_lines(const struct femu_in *r);
/* The requests passed over so far that are not block requests (tin_counts.not_block). */
uint64_t femu_in_not_block(const struct femu_in *r);
void femu_in_close(struct femu_in *r);

#endif
