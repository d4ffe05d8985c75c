/*
 * femu_trace_records.c - the records of femu's block I/O traces, versions 1 to 8: their
 * fields (numbers, times, ranges, namespaces, flags) and each record kind's body, parsed
 * into a trace_record; the first bad field fails the line with a message naming it.
 * Version 6's KV records are femu_trace_kv.c's, version 7's N femu_trace_admin.c's,
 * version 8's PS PA PG femu_trace_power.c's.
 */
#include "femu_trace.h"
#include "femu_trace_reader.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int parse_flag(struct trace_reader *t, const char *op, const char *field,
                      const char *what, bool *out, char *err, size_t errlen);

/* Parse an unsigned decimal field; messages name the field. */
static int parse_u64(struct trace_reader *t, const char *field,
                     const char *what, uint64_t *out, char *err,
                     size_t errlen)
{
    uint64_t v = 0;
    const char *p = field;

    if (*p == '\0') {
        return trace_fail(t, err, errlen, "%s is empty", what);
    }
    for (; *p != '\0'; p++) {
        unsigned d;

        if (*p < '0' || *p > '9') {
            return trace_fail(t, err, errlen, "%s '%.32s' is not a decimal number",
                        what, field);
        }
        d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) {
            return trace_fail(t, err, errlen, "%s '%.32s' does not fit in 64 bits",
                        what, field);
        }
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* A field that must be a number; trace_fail() names it. */
#define NUMBER(field, what, out) \
    do { \
        if (parse_u64(t, (field), (what), (out), err, errlen) != 0) { \
            return -1; \
        } \
    } while (0)

/* A record's arrival time, at most IO_TRACE_MAX_TIME_NS. */
static int parse_time(struct trace_reader *t, const char *field, uint64_t *time_ns,
                      char *err, size_t errlen)
{
    NUMBER(field, "time", time_ns);
    if (*time_ns > IO_TRACE_MAX_TIME_NS) {
        return trace_fail(t, err, errlen, "time %llu ns is beyond the latest a trace may hold "
                    "(2^53 ns, 104 days)", (unsigned long long)*time_ns);
    }
    return 0;
}

static int check_range(struct trace_reader *t, const char *op, uint64_t lba, uint64_t nsect,
                       char *err, size_t errlen)
{
    if (lba > UINT64_MAX - nsect) {
        return trace_fail(t, err, errlen, "%s: lba + nsect overflows 64 bits", op);
    }
    return 0;
}

static int parse_nsid(struct trace_reader *t, const char *field, uint32_t *nsid, char *err,
                      size_t errlen)
{
    uint64_t v;

    if (parse_u64(t, field, "nsid", &v, err, errlen) != 0) {
        return -1;
    }
    if (v == 0 || v > UINT32_MAX) {
        return trace_fail(t, err, errlen, "nsid %.32s is not a namespace id", field);
    }
    *nsid = (uint32_t)v;
    return 0;
}

int trace_parse_number(struct trace_reader *t, const char *field, const char *what,
                       uint64_t max, uint64_t *out, char *err, size_t errlen)
{
    NUMBER(field, what, out);
    if (*out > max) {
        return trace_fail(t, err, errlen, "%s %.32s is over %llu", what, field,
                          (unsigned long long)max);
    }
    return 0;
}

int trace_parse_time(struct trace_reader *t, const char *field, uint64_t *time_ns,
                     char *err, size_t errlen)
{
    return parse_time(t, field, time_ns, err, errlen);
}

int trace_parse_nsid(struct trace_reader *t, const char *field, uint32_t *nsid, char *err,
                     size_t errlen)
{
    return parse_nsid(t, field, nsid, err, errlen);
}

/* The field count of each version-2 record (D: the least, with one range). */
static int v2_fields(char op)
{
    switch (op) {
    case 'W': return 6;
    case 'R': return 5;
    case 'Y': return 5;
    case 'X': return 6;
    case 'D': return 5;
    case 'F': return 3;
    case 'P': return 3;
    case 'A': return 2;
    case 'E': return 2;
    }
    return 0;
}

static const char v2_usage[] = "want W t lba nsect nsid stream, R t lba nsect nsid, "
                               "D t nsid lba nsect..., F t nsid, Y t lba nsect nsid, "
                               "X t nsid lba nsect erase, P t name, A t or E t";

/* X t nsid lba nsect erase: a format of whole sectors, erase 0 or 1. */
static int parse_format(struct trace_reader *t, char **f, struct trace_record *r, char *err,
                        size_t errlen)
{
    uint64_t erase;

    r->op = TRACE_FORMAT;
    if (parse_nsid(t, f[2], &r->nsid, err, errlen) != 0) {
        return -1;
    }
    NUMBER(f[3], "lba", &r->lba);
    NUMBER(f[4], "nsect", &r->nsect);
    NUMBER(f[5], "erase", &erase);
    if (erase > 1) {
        return trace_fail(t, err, errlen, "X: erase '%.32s' is not 0 or 1", f[5]);
    }
    r->erase = erase == 1;
    if (r->nsect == 0) {
        return trace_fail(t, err, errlen, "X: nsect is 0");
    }
    return check_range(t, "X", r->lba, r->nsect, err, errlen);
}

static const char v3_usage[] = "; version 3: ZW t lba nsect nsid, ZA t zslba nsect nsid, "
                               "ZR t lba nsect nsid, ZM t nsid action zslba all, "
                               "C t nsid dest zoned lba nsect...";
/* The records each later version adds, by name only: an unknown op's message stays one
 * line a caller's buffer holds, however new the version (their fields: trace.h). */
static const char *const later_records[] = {
    [3] = "; version 3: ZW ZA ZR ZM C", [4] = "; version 4: U",
    [5] = "; version 5: WC and W's fua", [6] = "; version 6: KS KR KD KE KL KC KX",
    [7] = "; version 7: N", [8] = "; version 8: PS PA PG",
};
_Static_assert(sizeof(later_records) / sizeof(later_records[0]) == IO_TRACE_VERSION + 1,
               "a new trace version names its records here");

/* A W record's placement (stream or reclaim unit handle) or a U record's handle. */
static int parse_placement(struct trace_reader *t, const char *op, const char *field,
                           const char *what, int *out, char *err, size_t errlen)
{
    uint64_t v;

    if (parse_u64(t, field, what, &v, err, errlen) != 0) {
        return -1;
    }
    if (v > INT32_MAX) {
        return trace_fail(t, err, errlen, "%s: %s %.32s is too large", op, what, field);
    }
    *out = (int)v;
    return 0;
}

/* U t nsid ruh: a Reclaim Unit Handle Update (version 4). */
static int parse_ruh_update(struct trace_reader *t, char **f, int n, struct trace_record *r,
                            char *err, size_t errlen)
{
    if (t->ended) {
        return trace_fail(t, err, errlen, "U after the end record E");
    }
    if (n < 4) {
        return trace_fail(t, err, errlen, "U: too few fields (want U t nsid ruh)");
    }
    if (n > 4) {
        return trace_fail(t, err, errlen, "U: trailing junk '%.32s'", f[4]);
    }
    r->op = TRACE_RUH_UPDATE;
    if (parse_time(t, f[1], &r->time_ns, err, errlen) != 0 ||
        parse_nsid(t, f[2], &r->nsid, err, errlen) != 0) {
        return -1;
    }
    return parse_placement(t, "U", f[3], "ruh", &r->stream, err, errlen);
}

/* WC t nsid wce: the volatile write cache switched on (1) or off (0) (version 5). */
static int parse_write_cache(struct trace_reader *t, char **f, int n, struct trace_record *r,
                             char *err, size_t errlen)
{
    if (t->ended) {
        return trace_fail(t, err, errlen, "WC after the end record E");
    }
    if (n < 4) {
        return trace_fail(t, err, errlen, "WC: too few fields (want WC t nsid wce)");
    }
    if (n > 4) {
        return trace_fail(t, err, errlen, "WC: trailing junk '%.32s'", f[4]);
    }
    r->op = TRACE_WRITE_CACHE;
    if (parse_time(t, f[1], &r->time_ns, err, errlen) != 0 ||
        parse_nsid(t, f[2], &r->nsid, err, errlen) != 0) {
        return -1;
    }
    return parse_flag(t, "WC", f[3], "wce", &r->wce, err, errlen);
}

/* The zone and copy records' op, or -1. */
static int zone_op(const char *name)
{
    static const struct { const char *name; enum trace_op op; } ops[] = {
        { "ZW", TRACE_ZONE_WRITE }, { "ZA", TRACE_ZONE_APPEND }, { "ZR", TRACE_ZONE_READ },
        { "ZM", TRACE_ZONE_MGMT }, { "C", TRACE_COPY },
    };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (strcmp(name, ops[i].name) == 0) {
            return (int)ops[i].op;
        }
    }
    return -1;
}

/* A 0 or 1 field. */
static int parse_flag(struct trace_reader *t, const char *op, const char *field,
                      const char *what, bool *out, char *err, size_t errlen)
{
    uint64_t v;

    if (parse_u64(t, field, what, &v, err, errlen) != 0) {
        return -1;
    }
    if (v > 1) {
        return trace_fail(t, err, errlen, "%s: %s '%.32s' is not 0 or 1", op, what, field);
    }
    *out = v == 1;
    return 0;
}

/* The range list of a D or C record: n fields of lba nsect pairs, at most
 * IO_TRACE_MAX_RANGES of them, into the reader's ranges (r->ranges points there). */
static int parse_ranges(struct trace_reader *t, const char *op, char **f, int n,
                        struct trace_record *r, char *err, size_t errlen)
{
    if (n > 2 * IO_TRACE_MAX_RANGES) {
        return trace_fail(t, err, errlen, "%s: more than %d ranges", op, IO_TRACE_MAX_RANGES);
    }
    if (n % 2 != 0) {
        return trace_fail(t, err, errlen, "%s: a range needs lba and nsect", op);
    }
    r->nranges = (uint32_t)n / 2;
    for (uint32_t i = 0; i < r->nranges; i++) {
        struct trace_range *range = &t->ranges[i];

        NUMBER(f[2 * i], "lba", &range->lba);
        NUMBER(f[2 * i + 1], "nsect", &range->nsect);
        if (check_range(t, op, range->lba, range->nsect, err, errlen) != 0) {
            return -1;
        }
    }
    r->ranges = t->ranges;
    return 0;
}

/* C's body: dest zoned lba nsect [lba nsect]... (at least one range). */
static int parse_copy(struct trace_reader *t, char **f, int n, struct trace_record *r,
                      char *err, size_t errlen)
{
    NUMBER(f[0], "dest", &r->lba);
    if (parse_flag(t, "C", f[1], "zoned", &r->zoned, err, errlen) != 0) {
        return -1;
    }
    return parse_ranges(t, "C", f + 2, n - 2, r, err, errlen);
}

/*
 * The fields of a zone or copy record after its time and nsid (version 3) or its op
 * (version 1): ZW / ZA / ZR lba nsect, ZM action zslba all, C dest zoned lba nsect...
 */
static int parse_zone_body(struct trace_reader *t, enum trace_op op, const char *name,
                           char **f, int n, struct trace_record *r, char *err, size_t errlen)
{
    int want = op == TRACE_ZONE_MGMT ? 3 : op == TRACE_COPY ? 4 : 2;

    r->op = op;
    if (n < want) {
        return trace_fail(t, err, errlen, "%s: too few fields (%s)", name,
                    t->version == 1 ? "want ZW lba nsect, ZA zslba nsect, ZR lba nsect, "
                                      "ZM action zslba all or C dest zoned lba nsect..."
                                    : v3_usage + 2);
    }
    if (op != TRACE_COPY && n > want) {
        return trace_fail(t, err, errlen, "%s: trailing junk '%.32s'", name, f[want]);
    }
    switch (op) {
    case TRACE_ZONE_MGMT:
        if (io_trace_zone_action_parse(f[0], &r->zone_action) != 0) {
            return trace_fail(t, err, errlen, "ZM: action '%.32s' is not one of open, close, "
                        "finish, reset, offline, open-zrwa, zrwa-flush", f[0]);
        }
        NUMBER(f[1], "zslba", &r->lba);
        return parse_flag(t, "ZM", f[2], "all", &r->all, err, errlen);
    case TRACE_COPY:
        return parse_copy(t, f, n, r, err, errlen);
    default:
        NUMBER(f[0], op == TRACE_ZONE_APPEND ? "zslba" : "lba", &r->lba);
        NUMBER(f[1], "nsect", &r->nsect);
        if (r->nsect == 0) {
            return trace_fail(t, err, errlen, "%s: nsect is 0", name);
        }
        return check_range(t, name, r->lba, r->nsect, err, errlen);
    }
}

/* ZW / ZA / ZR t lba nsect nsid; ZM t nsid action zslba all; C t nsid dest zoned ... */
static int parse_v3_zone(struct trace_reader *t, char **f, int n, struct trace_record *r,
                         char *err, size_t errlen)
{
    enum trace_op op = (enum trace_op)zone_op(f[0]);
    bool nsid_last = op == TRACE_ZONE_WRITE || op == TRACE_ZONE_APPEND ||
                     op == TRACE_ZONE_READ;

    if (t->ended) {
        return trace_fail(t, err, errlen, "%s after the end record E", f[0]);
    }
    if (n < 3) {
        return trace_fail(t, err, errlen, "%s: too few fields (%s)", f[0], v3_usage + 2);
    }
    if (parse_time(t, f[1], &r->time_ns, err, errlen) != 0) {
        return -1;
    }
    if (nsid_last) {
        /* the body is lba nsect, then the nsid: parse the body first for its messages */
        if (n < 5) {
            return trace_fail(t, err, errlen, "%s: too few fields (%s)", f[0], v3_usage + 2);
        }
        if (n > 5) {
            return trace_fail(t, err, errlen, "%s: trailing junk '%.32s'", f[0], f[5]);
        }
        if (parse_zone_body(t, op, f[0], f + 2, 2, r, err, errlen) != 0) {
            return -1;
        }
        return parse_nsid(t, f[4], &r->nsid, err, errlen);
    }
    if (parse_nsid(t, f[2], &r->nsid, err, errlen) != 0) {
        return -1;
    }
    return parse_zone_body(t, op, f[0], f + 3, n - 3, r, err, errlen);
}

int trace_parse_v2(struct trace_reader *t, char **f, int n, struct trace_record *r,
                   char *err, size_t errlen)
{
    char op = f[0][1] == '\0' ? f[0][0] : '\0';
    int want = v2_fields(op);

    if (t->version >= 3 && zone_op(f[0]) >= 0) {
        return parse_v3_zone(t, f, n, r, err, errlen);
    }
    if (t->version >= 4 && strcmp(f[0], "U") == 0) {
        return parse_ruh_update(t, f, n, r, err, errlen);
    }
    if (t->version >= 5 && strcmp(f[0], "WC") == 0) {
        return parse_write_cache(t, f, n, r, err, errlen);
    }
    if (trace_kv_op(f[0]) >= 0) {
        return trace_parse_kv(t, f, n, r, err, errlen);
    }
    if (strcmp(f[0], "N") == 0) {
        return trace_parse_admin(t, f, n, r, err, errlen);
    }
    if (trace_power_op(f[0]) == 0) {
        return trace_parse_power(t, f, n, r, err, errlen);
    }
    /* version 5: a FUA write ends with the word fua */
    if (t->version >= 5 && op == 'W' && n == 7 && strcmp(f[6], "fua") == 0) {
        r->fua = true;
        n = 6;
    }

    if (want == 0) {
        char later[160] = "";
        for (int v = 3; v <= t->version; v++) {    /* at most IO_TRACE_VERSION */
            strncat(later, later_records[v], sizeof(later) - strlen(later) - 1);
        }
        return trace_fail(t, err, errlen, "unknown op '%.32s' (%s%s%s)", f[0], v2_usage, later,
                          t->version >= 3 ? "; fields: femu_ftl/trace.h" : "");
    }
    if (t->ended) {
        return trace_fail(t, err, errlen, "%c after the end record E", op);
    }
    if (n < want) {
        return trace_fail(t, err, errlen, "%c: too few fields (%s)", op, v2_usage);
    }
    if (op != 'D' && n > want) {
        return trace_fail(t, err, errlen, "%c: trailing junk '%.32s'", op, f[want]);
    }
    if (parse_time(t, f[1], &r->time_ns, err, errlen) != 0) {
        return -1;
    }
    switch (op) {
    case 'W':
    case 'R':
    case 'Y':
        r->op = op == 'W' ? TRACE_WRITE : op == 'R' ? TRACE_READ : TRACE_VERIFY;
        NUMBER(f[2], "lba", &r->lba);
        NUMBER(f[3], "nsect", &r->nsect);
        if (parse_nsid(t, f[4], &r->nsid, err, errlen) != 0) {
            return -1;
        }
        r->stream = 0;
        /* version 4 names the field for what it also is: an FDP handle */
        if (op == 'W' && parse_placement(t, "W", f[5], t->version >= 4 ? "placement"
                                                                        : "stream",
                                         &r->stream, err, errlen) != 0) {
            return -1;
        }
        if (r->nsect == 0) {
            return trace_fail(t, err, errlen, "%c: nsect is 0", op);
        }
        return check_range(t, f[0], r->lba, r->nsect, err, errlen);
    case 'D':
        r->op = TRACE_DEALLOCATE;
        if (parse_nsid(t, f[2], &r->nsid, err, errlen) != 0) {
            return -1;
        }
        return parse_ranges(t, "D", f + 3, n - 3, r, err, errlen);
    case 'X':
        return parse_format(t, f, r, err, errlen);
    case 'F':
        r->op = TRACE_FLUSH;
        return parse_nsid(t, f[2], &r->nsid, err, errlen);
    case 'P':
        r->op = TRACE_PHASE;
        if (strlen(f[2]) > IO_TRACE_MAX_PHASE) {
            return trace_fail(t, err, errlen, "P: phase name longer than %d bytes",
                        IO_TRACE_MAX_PHASE);
        }
        strcpy(t->phase, f[2]);
        r->phase = t->phase;
        return 0;
    case 'A':
        r->op = TRACE_ADVANCE;
        return 0;
    default:
        r->op = TRACE_END;
        t->ended = true;
        return 0;
    }
}

int trace_parse_v1(struct trace_reader *t, char **f, int n, struct trace_record *r,
                   char *err, size_t errlen)
{
    if (strcmp(f[0], "S") == 0) {
        r->op = TRACE_SEED;
        if (n < 2) {
            return trace_fail(t, err, errlen, "S: missing seed");
        }
        if (n > 2) {
            return trace_fail(t, err, errlen, "S: trailing junk '%.32s'", f[2]);
        }
        NUMBER(f[1], "seed", &r->seed);
        return 0;
    }
    int zone = zone_op(f[0]);
    if (zone >= 0) {
        if (parse_zone_body(t, (enum trace_op)zone, f[0], f + 1, n - 1, r, err, errlen)) {
            return -1;
        }
        /* the device's zoned namespace is nsid 2; a conventional copy's is 1 */
        r->nsid = zone == TRACE_COPY && !r->zoned ? 1 : 2;
        return 0;
    }
    if (strcmp(f[0], "W") != 0 && strcmp(f[0], "R") != 0) {
        return trace_fail(t, err, errlen, "unknown op '%.32s' (want S, W, R, ZW, ZA, ZR, ZM or C; "
                    "a version-2 trace starts with 'V 2')", f[0]);
    }
    int write = f[0][0] == 'W';
    int max = write ? 4 : 3;

    r->op = write ? TRACE_WRITE : TRACE_READ;
    if (n < 2) {
        return trace_fail(t, err, errlen, "%s: missing lba and nsect", f[0]);
    }
    if (n < 3) {
        return trace_fail(t, err, errlen, "%s: missing nsect", f[0]);
    }
    if (n > max) {
        return trace_fail(t, err, errlen, "%s: trailing junk '%.32s'", f[0], f[max]);
    }
    NUMBER(f[1], "lba", &r->lba);
    NUMBER(f[2], "nsect", &r->nsect);
    if (r->nsect == 0) {
        return trace_fail(t, err, errlen, "%s: nsect is 0", f[0]);
    }
    if (check_range(t, f[0], r->lba, r->nsect, err, errlen) != 0) {
        return -1;
    }
    if (n == 4) {
        /* the lab's tags: cold data is stream 0, hot stream 1 */
        if (strcmp(f[3], "C") == 0) {
            r->stream = 0;
        } else if (strcmp(f[3], "H") == 0) {
            r->stream = 1;
        } else {
            return trace_fail(t, err, errlen, "W: bad stream tag '%.32s' (want H or C)", f[3]);
        }
    }
    return 0;
}

/* The version line: only as the first record, only a version this reader knows. */
int trace_parse_version(struct trace_reader *t, char **f, int n, char *err, size_t errlen)
{
    uint64_t v;

    if (n != 2) {
        return trace_fail(t, err, errlen, "V: want 'V 2' to 'V %d'", IO_TRACE_VERSION);
    }
    NUMBER(f[1], "version", &v);
    if (v < 2 || v > IO_TRACE_VERSION) {
        return trace_fail(t, err, errlen, "trace version %.32s is not supported (this reader "
                    "knows 1 to %d)", f[1], IO_TRACE_VERSION);
    }
    t->version = (int)v;
    return 0;
}
