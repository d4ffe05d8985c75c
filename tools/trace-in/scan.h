/*
 * scan.h - one pass over a whole trace before it is used: every line read and the extent
 * (highest end offset) that --trace-lba-map scale divides by. The input (input.h) is
 * read from its start, so a stream works too.
 */
#ifndef TRACE_IN_SCAN_H
#define TRACE_IN_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "trace_in.h"

struct tin_scan {
    uint64_t records;
    uint64_t extent;        /* max offset + length over reads, writes and trims */
};

/* 0, or -1 with the reader's error (FILE:LINE) in err. opt->quiet is forced. */
int tin_scan_input(struct tin_input *in, const struct tin_options *opt,
                   struct tin_scan *out, char *err, size_t errlen);

/*
 * What a trace's passes need to know before the first request, found once: the format
 * (detected by a first reader, named on stderr then, and set in s->in with quiet on for
 * every later reader) and, for --trace-lba-map scale without --trace-extent, the extent
 * (a pass of its own). 0, or -1 with the reader's error in err.
 */
int tin_settings_resolve(struct tin_input *in, struct tin_settings *s, char *err,
                         size_t errlen);

#endif
