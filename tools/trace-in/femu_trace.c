/*
 * femu_trace.c - line reader for block I/O traces, versions 1 to 8 (see femu_trace.h; the
 * format: hw/femu/ftl/include/femu_ftl/trace.h): the reader's life, lines split into
 * fields and the final error; femu_trace_records.c parses the records, the version
 * line among them.
 */
#include "femu_trace.h"
#include "femu_trace_reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fields of the longest record: C t nsid dest zoned and 256 ranges, plus one extra for
 * messages. */
#define MAX_FIELDS (5 + 2 * IO_TRACE_MAX_RANGES + 1)

static int parse_next(struct trace_reader *t, struct trace_record *rec, char *err,
                      size_t errlen);

static void copy_msg(const char *msg, char *err, size_t errlen)
{
    if (err != NULL && errlen > 0) {
        snprintf(err, errlen, "%s", msg);
    }
}

/* Record a final error "FILE:LINE: why" and return -1. */
int trace_fail(struct trace_reader *t, char *err, size_t errlen, const char *fmt, ...)
{
    char why[560];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(t->msg, sizeof(t->msg), "%s:%lu: %s", t->path, t->line, why);
    t->state = -1;
    copy_msg(t->msg, err, errlen);
    return -1;
}

/* A reader over f, named name in messages; it closes f unless f is stdin. */
static struct trace_reader *open_on(FILE *f, const char *name, bool skip_bad, char *err,
                                    size_t errlen)
{
    struct trace_reader *t = calloc(1, sizeof(*t));
    size_t len = strlen(name);

    if (t == NULL || (t->path = malloc(len + 1)) == NULL) {
        free(t);
        if (f != stdin) {
            fclose(f);
        }
        copy_msg("out of memory opening a trace", err, errlen);
        return NULL;
    }
    memcpy(t->path, name, len + 1);
    t->f = f;
    t->close_f = f != stdin;
    t->skip_bad = skip_bad;
    /* The version is the first record's business: read it now, hand it out later. */
    t->version = 1;
    t->ahead_rc = parse_next(t, &t->ahead, NULL, 0);
    t->ahead_pending = true;
    return t;
}

struct trace_reader *trace_open(const char *path, char *err, size_t errlen)
{
    FILE *f;

    if (path == NULL || path[0] == '\0') {
        copy_msg("no trace file given", err, errlen);
        return NULL;
    }
    if (strcmp(path, "-") == 0) {
        return open_on(stdin, "-", false, err, errlen);
    }
    f = fopen(path, "r");
    if (f == NULL) {
        if (err != NULL && errlen > 0) {
            snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        }
        return NULL;
    }
    return open_on(f, path, false, err, errlen);
}

struct trace_reader *trace_open_stream(FILE *f, const char *name, bool skip_bad, char *err,
                                       size_t errlen)
{
    return open_on(f, name, skip_bad, err, errlen);
}

uint64_t trace_bad_lines(const struct trace_reader *t)
{
    return t->bad_lines;
}

int trace_version(const struct trace_reader *t)
{
    return t->version;
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
            return trace_fail(t, err, errlen, "NUL byte (not a text trace?)");
        }
        /* the CR of a CRLF does not count against the limit */
        if (len >= TRACE_MAX_LINE && !(len == TRACE_MAX_LINE && c == '\r')) {
            return trace_fail(t, err, errlen, "line longer than %d bytes",
                        TRACE_MAX_LINE);
        }
        t->buf[len++] = (char)c;
    }
    if (c == EOF && ferror(t->f)) {
        return trace_fail(t, err, errlen, "read error: %s", strerror(errno));
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

/* Read and parse the next record: 1 = record, 0 = end of file, -1 = error. */
static int parse_next(struct trace_reader *t, struct trace_record *rec, char *err,
                      size_t errlen)
{
    char *f[MAX_FIELDS];
    bool first = t->line == 0;

    if (t->state < 0) {
        copy_msg(t->msg, err, errlen);
        return -1;
    }
    if (t->state > 0) {
        return 0;
    }
    for (;;) {
        int n, rc = read_line(t, err, errlen);

        if (rc <= 0) {
            if (rc == 0) {
                t->state = 1;
            }
            return rc;
        }
        n = split(t->buf, f, MAX_FIELDS - 1);
        if (n == 0) {
            continue;
        }
        struct trace_record r = { .stream = -1, .nsid = 1, .line = t->line };
        bool version_line = strcmp(f[0], "V") == 0;

        if (version_line && !first) {
            rc = trace_fail(t, err, errlen, "V: the version must be the first record");
        } else if (version_line) {
            rc = trace_parse_version(t, f, n, err, errlen);
        } else {
            rc = t->version == 1 ? trace_parse_v1(t, f, n, &r, err, errlen)
                                 : trace_parse_v2(t, f, n, &r, err, errlen);
        }
        first = false;
        if (rc != 0 && t->skip_bad) {
            /* the whole line was read: passing it over leaves the reader sound */
            t->state = 0;
            t->bad_lines++;
            continue;
        }
        if (rc != 0) {
            return -1;
        }
        if (version_line) {
            continue;
        }
        *rec = r;
        return 1;
    }
}

int trace_next(struct trace_reader *t, struct trace_record *rec, char *err,
               size_t errlen)
{
    if (t == NULL) {
        copy_msg("trace_next: no reader", err, errlen);
        return -1;
    }
    if (t->ahead_pending) {
        t->ahead_pending = false;
        if (t->ahead_rc < 0) {
            copy_msg(t->msg, err, errlen);
        } else if (t->ahead_rc > 0) {
            *rec = t->ahead;
        }
        return t->ahead_rc;
    }
    return parse_next(t, rec, err, errlen);
}
