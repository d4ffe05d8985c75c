/*
 * writers.h - the formats femu-trace convert writes, one request at a time:
 *   fio-iolog  fio iolog version 3: "T FILE add/open", "T FILE read|write|trim OFF LEN",
 *              "T FILE sync 0 0" for a flush, "T FILE close" last; T in microseconds
 *   femu       femu's trace version 2 (femu_ftl/trace.h): W/R/D/F with times in ns,
 *              nsid 1, stream 0; version 5 when the trace has FUA writes (marked fua)
 *   mqsim      MQSim ASCII: "t_ns 0 sector nsectors 0|1"; no trims or flushes there: left
 *              out and counted
 * Offsets and lengths arrive in whole 512-byte sectors (convert widens them).
 */
#ifndef FEMU_TRACE_WRITERS_H
#define FEMU_TRACE_WRITERS_H

#include <stdint.h>
#include <stdio.h>

#include "trace_in.h"

enum out_format { OUT_FIO, OUT_FEMU, OUT_MQSIM };

struct writer {
    FILE *f;
    enum out_format format;
    const char *fio_file;       /* fio-iolog: the file name every line names */
    int femu_version;           /* femu: 2, or 5 to mark FUA writes */
    uint64_t last_ns;           /* the latest time written */
    uint64_t left_out;          /* requests the format has no record for */
};

int out_format_parse(const char *name, enum out_format *out);

/* Header lines; source names where the requests come from (a comment where the format
 * has them). 0 or -1 (a write error: ferror). */
int writer_begin(struct writer *w, const char *source);
int writer_request(struct writer *w, const struct tin_record *rec, uint64_t time_ns);
int writer_end(struct writer *w);

#endif
