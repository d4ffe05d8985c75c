/*
 * femu_trace_reader.h - the trace reader's state, shared by its line reader (femu_trace.c)
 * and its record parsers (femu_trace_records.c); callers see only femu_trace.h.
 */
#ifndef TRACE_IN_FEMU_TRACE_READER_H
#define TRACE_IN_FEMU_TRACE_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "femu_trace.h"

struct trace_reader {
    FILE *f;
    int close_f;            /* 0 for stdin */
    int state;              /* 0 reading, 1 at EOF, -1 failed */
    int version;            /* 1 to 8 */
    bool ended;             /* version 2: the E record was read */
    bool skip_bad;          /* a line that does not parse is counted and passed over */
    uint64_t bad_lines;
    int ahead_rc;           /* the first record, read by trace_open: 1, 0 or -1 ... */
    bool ahead_pending;     /* ... until trace_next hands it out */
    struct trace_record ahead;
    unsigned long line;
    char *path;
    char msg[640];          /* the final error, repeated on later calls */
    char buf[TRACE_MAX_LINE + 1];
    struct trace_range ranges[IO_TRACE_MAX_RANGES];
    char phase[IO_TRACE_MAX_PHASE + 1];
};

/* Record a final error "FILE:LINE: why" and return -1. */
int trace_fail(struct trace_reader *t, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The version line (V n); a version-1 record; a record of version 2 to 8. Each parses the
 * line's n fields f into r: 0, or -1 after trace_fail. */
int trace_parse_version(struct trace_reader *t, char **f, int n, char *err, size_t errlen);
int trace_parse_v1(struct trace_reader *t, char **f, int n, struct trace_record *r,
                   char *err, size_t errlen);
int trace_parse_v2(struct trace_reader *t, char **f, int n, struct trace_record *r,
                   char *err, size_t errlen);
/* A KV record's op when name is one (KS, KR, KD, KE, KL), else -1; the record of
 * version 6 (femu_trace_kv.c), refused in an older version. */
int trace_kv_op(const char *name);
int trace_parse_kv(struct trace_reader *t, char **f, int n, struct trace_record *r,
                   char *err, size_t errlen);
/* Version 7's N record (femu_trace_admin.c), refused in an older version. */
int trace_parse_admin(struct trace_reader *t, char **f, int n, struct trace_record *r,
                      char *err, size_t errlen);
/* Version 8's PS, PA and PG records (femu_trace_power.c), refused in an older version:
 * trace_power_op says whether a record's name is one (0) or not (-1). */
int trace_power_op(const char *name);
int trace_parse_power(struct trace_reader *t, char **f, int n, struct trace_record *r,
                      char *err, size_t errlen);
/* A decimal field, at most max, named what in the message; 0 or -1 after trace_fail. */
int trace_parse_number(struct trace_reader *t, const char *field, const char *what,
                       uint64_t max, uint64_t *out, char *err, size_t errlen);
/* A record's arrival time and nsid, each checked; 0 or -1 after trace_fail. */
int trace_parse_time(struct trace_reader *t, const char *field, uint64_t *time_ns,
                     char *err, size_t errlen);
int trace_parse_nsid(struct trace_reader *t, const char *field, uint32_t *nsid, char *err,
                     size_t errlen);

#endif
