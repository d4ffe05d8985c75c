/*
 * fmt_fio.c - fio iologs, version 2 and 3 (fio's HOWTO, "Trace file format"):
 *   fio version 2 iolog | fio version 3 iolog     the first line
 *   [T] FILE add|open|close
 *   [T] FILE read|write|trim OFFSET LENGTH        bytes
 *   [T] FILE sync|datasync [OFFSET LENGTH]        a flush
 *   FILE wait USECONDS [LENGTH]                   version 2 only: the clock moves on
 * Version 3's T is microseconds since the run's start (fio writes utime_since ... and
 * replays the differences as microsecond delays); version 2's time is the sum of the
 * waits before a request. One device: the log must name a single file.
 */
#include <string.h>

#include "fields.h"
#include "formats.h"

static enum line_kind header(struct parse *p, const char *line)
{
    if (strcmp(line, "fio version 2 iolog") == 0) {
        p->fio_version = 2;
    } else if (strcmp(line, "fio version 3 iolog") == 0) {
        p->fio_version = 3;
    } else {
        return parse_bad(p, "not a fio iolog: the first line must be 'fio version 2 iolog' "
                         "or 'fio version 3 iolog'");
    }
    return LINE_OTHER;
}

/* The log's one file: the first named fixes it, another is an error. */
static enum line_kind same_file(struct parse *p, const char *file)
{
    if (p->fio_file[0] == '\0') {
        if (strlen(file) >= sizeof(p->fio_file)) {
            return parse_bad(p, "file name longer than %zu bytes", sizeof(p->fio_file) - 1);
        }
        strcpy(p->fio_file, file);
    } else if (strcmp(file, p->fio_file) != 0) {
        return parse_bad(p, "a second file '%.64s' (one device: the log must name one "
                         "file, here '%.64s')", file, p->fio_file);
    }
    return LINE_RECORD;
}

static enum line_kind request(struct parse *p, char **f, int n, struct tin_record *rec)
{
    static const struct { const char *name; enum tin_op op; } ops[] = {
        { "read", TIN_READ }, { "write", TIN_WRITE }, { "trim", TIN_TRIM },
        { "sync", TIN_FLUSH }, { "datasync", TIN_FLUSH },
    };
    const char *act = f[1];
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (strcmp(act, ops[i].name) != 0) {
            continue;
        }
        rec->op = ops[i].op;
        if (rec->op == TIN_FLUSH) {
            rec->sync = true;
            return n == 2 || n == 4 ? LINE_RECORD
                                    : parse_bad(p, "%s: want FILE %s [OFFSET LENGTH]", act,
                                                act);
        }
        if (n != 4) {
            return parse_bad(p, "%s: want FILE %s OFFSET LENGTH", act, act);
        }
        if (!fields_u64(f[2], &rec->offset) || !fields_u64(f[3], &rec->length)) {
            return parse_bad(p, "%s: OFFSET '%.32s' and LENGTH '%.32s' must be byte counts",
                             act, f[2], f[3]);
        }
        if (rec->offset > UINT64_MAX - rec->length) {
            return parse_bad(p, "OFFSET + LENGTH overflows 64 bits");
        }
        return LINE_RECORD;
    }
    return parse_bad(p, "unknown action '%.32s' (want add, open, close, read, write, trim, "
                     "sync, datasync%s)", act, p->fio_version == 2 ? " or wait" : "");
}

enum line_kind fio_parse(struct parse *p, char *line, struct tin_record *rec)
{
    char *f[7];
    if (p->fio_version == 0) {
        return header(p, line);
    }
    int n = fields_split(line, ' ', f, 6);
    char **g = f;
    if (p->fio_version == 3) {
        if (n < 3 || !fields_u64(f[0], &rec->time_ns) ||
            !fields_mul(rec->time_ns, 1000, &rec->time_ns)) {
            return parse_bad(p, "want 'TIMESTAMP FILE ACTION ...' with TIMESTAMP in "
                             "microseconds");
        }
        g++;
        n--;
    }
    if (n < 2 || n > 4) {
        return parse_bad(p, "want FILE ACTION [OFFSET LENGTH]");
    }
    if (same_file(p, g[0]) != LINE_RECORD) {
        return LINE_BAD;
    }
    if (n == 2 && (!strcmp(g[1], "add") || !strcmp(g[1], "open") || !strcmp(g[1], "close"))) {
        return LINE_OTHER;
    }
    if (strcmp(g[1], "wait") == 0) {
        uint64_t us, ns;
        if (p->fio_version == 3) {
            return parse_bad(p, "wait: version 3 has timestamps instead");
        }
        if (n < 3 || !fields_u64(g[2], &us) || !fields_mul(us, 1000, &ns) ||
            p->fio_clock_ns > UINT64_MAX - ns) {
            return parse_bad(p, "wait: want FILE wait USECONDS");
        }
        p->fio_clock_ns += ns;
        return LINE_OTHER;
    }
    if (p->fio_version == 2) {
        rec->time_ns = p->fio_clock_ns;
    }
    rec->timed = true;
    return request(p, g, n, rec);
}
