/*
 * scan.h - one pass over a whole trace before it is used: every line checked (a bad one
 * is reported before any output exists) and the extent (highest end offset) that
 * --trace-lba-map scale divides by. Needs a file: standard input cannot be read twice.
 */
#ifndef TRACE_IN_SCAN_H
#define TRACE_IN_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "trace_in.h"

struct tin_scan {
    uint64_t records;
    uint64_t extent;        /* max offset + length over reads, writes and trims */
};

/* 0, or -1 with the reader's error (FILE:LINE) in err. opt->quiet is forced. */
int tin_scan_file(const char *path, const struct tin_options *opt, struct tin_scan *out,
                  char *err, size_t errlen);

#endif
