/*
 * reader.c - a trace file of any known format as a stream of trace_in records: the
 * source (decompression), detection, the line loop shared by the line formats, bad-line
 * and zero-length accounting. The formats themselves: fmt_*.c and femu_in.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "femu_in.h"
#include "formats.h"
#include "input.h"
#include "lines.h"
#include "source.h"

typedef enum line_kind (*line_parser)(struct parse *p, char *line, struct tin_record *rec);

static const struct {
    const char *name;
    line_parser parse;
} formats[] = {
    [TIN_AUTO] = { "auto", NULL },
    [TIN_MSR] = { "msr", msr_parse },
    [TIN_SPC] = { "spc", spc_parse },
    [TIN_BLKPARSE] = { "blkparse", blkparse_parse },
    [TIN_FIO] = { "fio-iolog", fio_parse },
    [TIN_MQSIM] = { "mqsim", mqsim_parse },
    [TIN_DISKSIM] = { "disksim", disksim_parse },
    [TIN_FEMU] = { "femu", NULL },
};

const char tin_format_names[] = "auto, msr, spc, blkparse, fio-iolog, mqsim, disksim, femu";

struct tin_reader {
    char *path;
    struct tin_input *own_input;    /* tin_open's, closed with the reader */
    struct tin_options opt;
    enum tin_format format;
    struct source *src;         /* the line formats: the source and its lines */
    struct lines *lines;
    struct femu_in *femu;       /* femu's format (owns its stream and source) */
    struct parse parse;
    struct tin_counts counts;
    bool failed;
    char failure[512];
};

const char *tin_format_name(enum tin_format f)
{
    return formats[f].name;
}

int tin_format_parse(const char *name, enum tin_format *out)
{
    if (strcmp(name, "fio") == 0) {     /* the short name people type */
        *out = TIN_FIO;
        return 0;
    }
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
        if (strcmp(name, formats[i].name) == 0) {
            *out = (enum tin_format)i;
            return 0;
        }
    }
    return -1;
}

enum line_kind parse_bad(struct parse *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->why, sizeof(p->why), fmt, ap);
    va_end(ap);
    return LINE_BAD;
}

int parse_sectors(struct parse *p, uint64_t sectors, const char *what, uint64_t *bytes)
{
    if (sectors > UINT64_MAX / p->sector) {
        parse_bad(p, "%s %llu is beyond 2^64 bytes", what, (unsigned long long)sectors);
        return LINE_BAD;
    }
    *bytes = sectors * p->sector;
    return 0;
}

/* The format from the first lines; an error when nothing fits. */
static int detect(struct tin_reader *r, char *err, size_t errlen)
{
    const char *data;
    size_t len;
    if (source_peek(r->src, &data, &len, err, errlen)) {
        return -1;
    }
    r->format = detect_format(data, len);
    if (r->format == TIN_AUTO) {
        snprintf(err, errlen, "%s: cannot tell the trace format from its first lines (%s); "
                 "name it with --trace-format", r->path, len ? "none fits" : "empty file");
        return -1;
    }
    /* femu's own traces are the tools' native input: only a foreign format is news */
    if (!r->opt.quiet && r->format != TIN_FEMU) {
        fprintf(stderr, "trace: %s: detected format %s%s%s\n", r->path,
                tin_format_name(r->format), source_codec(r->src) == SOURCE_PLAIN ? "" : ", ",
                source_codec(r->src) == SOURCE_PLAIN ? ""
                                                     : source_codec_name(source_codec(r->src)));
    }
    return 0;
}

struct tin_reader *tin_open_input(struct tin_input *in, const struct tin_options *opt,
                                  char *err, size_t errlen)
{
    const char *path = tin_input_path(in);
    struct tin_reader *r = calloc(1, sizeof(*r));
    if (!r || !(r->path = strdup(path))) {
        free(r);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->opt = *opt;
    r->format = opt->format;
    r->parse.opt = &r->opt;
    r->parse.sector = opt->sector_size ? opt->sector_size : 512;
    FILE *f = tin_input_stream(in);
    if (!f) {
        snprintf(err, errlen, "%s: out of memory", path);
        tin_close(r);
        return NULL;
    }
    r->src = source_open(f, path, err, errlen);
    if (!r->src || (r->format == TIN_AUTO && detect(r, err, errlen))) {
        tin_close(r);
        return NULL;
    }
    if (r->format == TIN_FEMU) {
        FILE *stream = source_stream(r->src);
        if (!stream) {
            snprintf(err, errlen, "out of memory");
            tin_close(r);
            return NULL;
        }
        r->src = NULL;      /* the stream's now */
        r->femu = femu_in_open(stream, r->path, r->opt.skip_bad, err, errlen);
        if (!r->femu) {
            tin_close(r);
            return NULL;
        }
        return r;
    }
    r->lines = lines_open(r->src, r->path);
    if (!r->lines) {
        snprintf(err, errlen, "out of memory");
        tin_close(r);
        return NULL;
    }
    return r;
}

struct tin_reader *tin_open(const char *path, const struct tin_options *opt, char *err,
                            size_t errlen)
{
    struct tin_input *in = tin_input_open(path, err, errlen);
    if (!in) {
        return NULL;
    }
    struct tin_reader *r = tin_open_input(in, opt, err, errlen);
    if (!r) {
        tin_input_close(in);
        return NULL;
    }
    r->own_input = in;
    return r;
}

static int fail(struct tin_reader *r, const char *err)
{
    r->failed = true;
    snprintf(r->failure, sizeof(r->failure), "%s", err);
    return -1;
}

/* The next line's record from a line format: 1, 0 at the end, -1. */
static int next_line_record(struct tin_reader *r, struct tin_record *rec, char *err,
                            size_t errlen)
{
    struct parse *p = &r->parse;
    if (p->pending) {
        p->pending = false;
        *rec = p->next;
        return 1;
    }
    for (;;) {
        char *line;
        int rc = lines_next(r->lines, &line, err, errlen);
        if (rc <= 0) {
            return rc;
        }
        line += strspn(line, " \t");
        /* blank lines and '#' comments, except fio's first line must be its header */
        if (*line == '\0' || (*line == '#' && !(r->format == TIN_FIO && !p->fio_version))) {
            continue;
        }
        *rec = (struct tin_record){ .stream = -1, .line = lines_number(r->lines) };
        p->why[0] = '\0';
        p->line = rec->line;
        switch (formats[r->format].parse(p, line, rec)) {
        case LINE_RECORD:
            return 1;
        case LINE_FILTERED:
            r->counts.filtered++;
            continue;
        case LINE_OTHER:
            continue;
        case LINE_BAD:
            if (r->opt.skip_bad) {
                r->counts.bad++;
                continue;
            }
            snprintf(err, errlen, "%s:%lu: %s", r->path, rec->line, p->why);
            return -1;
        }
    }
}

int tin_next(struct tin_reader *r, struct tin_record *rec, char *err, size_t errlen)
{
    if (r->failed) {
        snprintf(err, errlen, "%s", r->failure);
        return -1;
    }
    for (;;) {
        int rc = r->femu ? femu_in_next(r->femu, rec, err, errlen)
                         : next_line_record(r, rec, err, errlen);
        if (r->femu) {
            r->counts.bad = femu_in_bad_lines(r->femu);
            r->counts.not_block = femu_in_not_block(r->femu);
        }
        if (rc < 0) {
            return fail(r, err);
        }
        if (rc == 0) {
            return 0;
        }
        if (rec->op != TIN_FLUSH && rec->length == 0) {
            r->counts.zero_length++;
            continue;
        }
        r->counts.records++;
        return 1;
    }
}

enum tin_format tin_format_of(const struct tin_reader *r)
{
    return r->format;
}

bool tin_timed(const struct tin_reader *r)
{
    return r->femu ? femu_in_version(r->femu) >= 2 : true;
}

const struct tin_counts *tin_counts_of(const struct tin_reader *r)
{
    return &r->counts;
}

int tin_femu_version(const struct tin_reader *r)
{
    return r->femu ? femu_in_version(r->femu) : 0;
}

struct trace_reader *tin_femu_reader(struct tin_reader *r)
{
    return r->femu ? femu_in_reader(r->femu) : NULL;
}

void tin_filters_text(const struct tin_options *opt, char *buf, size_t len)
{
    int n = 0;
    buf[0] = '\0';
    if (opt->host) {
        n += snprintf(buf + n, len - (size_t)n, "host=%s", opt->host);
    }
    if (opt->disk_set && (size_t)n < len) {
        n += snprintf(buf + n, len - (size_t)n, "%sdisk=%llu", n ? " " : "",
                      (unsigned long long)opt->disk);
    }
}

void tin_close(struct tin_reader *r)
{
    if (!r) {
        return;
    }
    lines_close(r->lines);
    source_close(r->src);
    femu_in_close(r->femu);
    tin_input_close(r->own_input);
    free(r->path);
    free(r);
}
