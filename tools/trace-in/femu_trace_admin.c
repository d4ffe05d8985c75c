/*
 * femu_trace_admin.c - version 7's record of a command without FTL work (N t nsid kind in
 * out; the format: hw/femu/ftl/include/femu_ftl/trace.h): each field range-checked. An
 * older version's trace holding one is refused with the version it would need.
 */
#include "femu_trace.h"
#include "femu_trace_reader.h"

#include <string.h>

#define ADMIN_FIELDS 6      /* N t nsid kind in out */
#define ADMIN_USAGE "N t nsid kind in out"

int trace_parse_admin(struct trace_reader *t, char **f, int n, struct trace_record *r,
                      char *err, size_t errlen)
{
    uint64_t in, out;

    if (t->version < 7) {
        return trace_fail(t, err, errlen, "N: a command without FTL work needs a version-7 "
                          "trace (this one is version %d)", t->version);
    }
    if (t->ended) {
        return trace_fail(t, err, errlen, "N after the end record E");
    }
    if (n < ADMIN_FIELDS) {
        return trace_fail(t, err, errlen, "N: too few fields (want " ADMIN_USAGE ")");
    }
    if (n > ADMIN_FIELDS) {
        return trace_fail(t, err, errlen, "N: trailing junk '%.32s'", f[ADMIN_FIELDS]);
    }
    r->op = TRACE_ADMIN;
    if (trace_parse_time(t, f[1], &r->time_ns, err, errlen) != 0 ||
        trace_parse_nsid(t, f[2], &r->nsid, err, errlen) != 0) {
        return -1;
    }
    if (strcmp(f[3], "admin") != 0 && strcmp(f[3], "io") != 0) {
        return trace_fail(t, err, errlen, "N: kind '%.32s' is not admin or io", f[3]);
    }
    r->io = f[3][0] == 'i';
    if (trace_parse_number(t, f[4], "N: in", UINT32_MAX, &in, err, errlen) != 0 ||
        trace_parse_number(t, f[5], "N: out", UINT32_MAX, &out, err, errlen) != 0) {
        return -1;
    }
    r->data_in = (uint32_t)in;
    r->data_out = (uint32_t)out;
    return 0;
}
