/*
 * trace.c - line reader and parser for DFTL-lab traces (see trace.h).
 */
#include "trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct trace_reader {
    FILE *f;
    int close_f;            /* 0 for stdin */
    int state;              /* 0 reading, 1 at EOF, -1 failed */
    unsigned long line;
    char *path;
    char msg[320];          /* the final error, repeated on later calls */
    char buf[TRACE_MAX_LINE + 1];
};

static void copy_msg(const char *msg, char *err, size_t errlen)
{
    if (err != NULL && errlen > 0) {
        snprintf(err, errlen, "%s", msg);
    }
}

/* Record a final error "FILE:LINE: why" and return -1. */
static int fail(struct trace_reader *t, char *err, size_t errlen,
                const char *fmt, ...)
{
    char why[200];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(t->msg, sizeof(t->msg), "%s:%lu: %s", t->path, t->line, why);
    t->state = -1;
    copy_msg(t->msg, err, errlen);
    return -1;
}

struct trace_reader *trace_open(const char *path, char *err, size_t errlen)
{
    struct trace_reader *t;
    size_t len;

    if (path == NULL || path[0] == '\0') {
        copy_msg("no trace file given", err, errlen);
        return NULL;
    }
    t = calloc(1, sizeof(*t));
    len = strlen(path);
    if (t == NULL || (t->path = malloc(len + 1)) == NULL) {
        free(t);
        copy_msg("out of memory opening a trace", err, errlen);
        return NULL;
    }
    memcpy(t->path, path, len + 1);
    if (strcmp(path, "-") == 0) {
        t->f = stdin;
        strcpy(t->path, "-");
    } else {
        t->f = fopen(path, "r");
        t->close_f = 1;
        if (t->f == NULL) {
            if (err != NULL && errlen > 0) {
                snprintf(err, errlen, "%s: cannot open: %s", path,
                         strerror(errno));
            }
            free(t->path);
            free(t);
            return NULL;
        }
    }
    return t;
}

void trace_close(struct trace_reader *t)
{
    if (t == NULL) {
        return;
    }
    if (t->close_f) {
        fclose(t->f);
    }
    free(t->path);
    free(t);
}

/* Read one line into t->buf without its newline (and without a CR before
 * it).  1 = line read, 0 = EOF before any byte, -1 = error. */
static int read_line(struct trace_reader *t, char *err, size_t errlen)
{
    size_t len = 0;
    int c;
    int any = 0;

    t->line++;
    while ((c = getc(t->f)) != EOF) {
        any = 1;
        if (c == '\n') {
            break;
        }
        if (c == '\0') {
            return fail(t, err, errlen, "NUL byte (not a text trace?)");
        }
        /* the CR of a CRLF does not count against the limit */
        if (len >= TRACE_MAX_LINE && !(len == TRACE_MAX_LINE && c == '\r')) {
            return fail(t, err, errlen, "line longer than %d bytes",
                        TRACE_MAX_LINE);
        }
        t->buf[len++] = (char)c;
    }
    if (c == EOF && ferror(t->f)) {
        return fail(t, err, errlen, "read error: %s", strerror(errno));
    }
    if (!any) {
        t->line--;
        return 0;
    }
    if (len > 0 && t->buf[len - 1] == '\r') {
        len--;
    }
    t->buf[len] = '\0';
    return 1;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Split the line at blanks into fields[0..max], stopping at a comment.
 * Returns the field count; max + 1 means "more than max" (fields[max] is
 * the first extra one, for the message). */
static int split(char *s, char **fields, int max)
{
    int n = 0;

    while (n <= max) {
        while (is_blank(*s)) {
            s++;
        }
        if (*s == '\0' || *s == '#') {
            break;
        }
        fields[n++] = s;
        while (*s != '\0' && !is_blank(*s)) {
            s++;
        }
        if (*s != '\0') {
            *s++ = '\0';
        }
    }
    return n;
}

/* Parse an unsigned decimal field; messages name the field. */
static int parse_u64(struct trace_reader *t, const char *field,
                     const char *what, uint64_t *out, char *err,
                     size_t errlen)
{
    uint64_t v = 0;
    const char *p = field;

    if (*p == '\0') {
        return fail(t, err, errlen, "%s is empty", what);
    }
    for (; *p != '\0'; p++) {
        unsigned d;

        if (*p < '0' || *p > '9') {
            return fail(t, err, errlen, "%s '%.32s' is not a decimal number",
                        what, field);
        }
        d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) {
            return fail(t, err, errlen, "%s '%.32s' does not fit in 64 bits",
                        what, field);
        }
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int trace_next(struct trace_reader *t, struct trace_record *rec, char *err,
               size_t errlen)
{
    char *f[5];             /* S/R/W fields plus one extra */
    struct trace_record r;
    int n, rc;

    if (t == NULL) {
        copy_msg("trace_next: no reader", err, errlen);
        return -1;
    }
    if (t->state < 0) {
        copy_msg(t->msg, err, errlen);
        return -1;
    }
    if (t->state > 0) {
        return 0;
    }
    for (;;) {
        rc = read_line(t, err, errlen);
        if (rc <= 0) {
            if (rc == 0) {
                t->state = 1;
            }
            return rc;
        }
        n = split(t->buf, f, 4);
        if (n > 0) {
            break;
        }
    }

    memset(&r, 0, sizeof(r));
    r.stream = -1;
    r.line = t->line;
    if (strcmp(f[0], "S") == 0) {
        r.op = TRACE_SEED;
        if (n < 2) {
            return fail(t, err, errlen, "S: missing seed");
        }
        if (n > 2) {
            return fail(t, err, errlen, "S: trailing junk '%.32s'", f[2]);
        }
        if (parse_u64(t, f[1], "seed", &r.seed, err, errlen) != 0) {
            return -1;
        }
    } else if (strcmp(f[0], "W") == 0 || strcmp(f[0], "R") == 0) {
        int write = f[0][0] == 'W';
        int max = write ? 4 : 3;

        r.op = write ? TRACE_WRITE : TRACE_READ;
        if (n < 2) {
            return fail(t, err, errlen, "%s: missing lba and nsect", f[0]);
        }
        if (n < 3) {
            return fail(t, err, errlen, "%s: missing nsect", f[0]);
        }
        if (n > max) {
            return fail(t, err, errlen, "%s: trailing junk '%.32s'", f[0],
                        f[max]);
        }
        if (parse_u64(t, f[1], "lba", &r.lba, err, errlen) != 0 ||
            parse_u64(t, f[2], "nsect", &r.nsect, err, errlen) != 0) {
            return -1;
        }
        if (r.nsect == 0) {
            return fail(t, err, errlen, "%s: nsect is 0", f[0]);
        }
        if (r.lba > UINT64_MAX - r.nsect) {
            return fail(t, err, errlen, "%s: lba + nsect overflows 64 bits",
                        f[0]);
        }
        if (n == 4) {
            if (strcmp(f[3], "H") == 0) {
                r.stream = 0;
            } else if (strcmp(f[3], "C") == 0) {
                r.stream = 1;
            } else {
                return fail(t, err, errlen,
                            "W: bad stream tag '%.32s' (want H or C)", f[3]);
            }
        }
    } else {
        return fail(t, err, errlen, "unknown op '%.32s' (want S, W or R)",
                    f[0]);
    }
    *rec = r;
    return 1;
}
