/*
 * formats.h - what each format's line parser (fmt_*.c) offers the reader (reader.c):
 * a parse of one non-blank, non-comment line into a record, and the little state the
 * stateful formats keep between lines.
 */
#ifndef TRACE_IN_FORMATS_H
#define TRACE_IN_FORMATS_H

#include <stdbool.h>
#include <stdint.h>

#include "trace_in.h"

/* What a line was. */
enum line_kind {
    LINE_BAD = -1,      /* broken: why in parse.why */
    LINE_OTHER = 0,     /* not a request (a header, another blkparse event): passed over */
    LINE_RECORD = 1,    /* *rec filled */
    LINE_FILTERED = 2,  /* a request the filters leave out */
};

struct parse {
    const struct tin_options *opt;
    uint32_t sector;            /* bytes per sector of the sector-addressed formats */
    unsigned long line;         /* the line parsed: set by the reader */
    char why[256];              /* LINE_BAD's reason */
    bool pending;               /* blkparse: a preflush's write, handed out next */
    struct tin_record next;
    int fio_version;            /* fio: 0 until the header, then 2 or 3 */
    uint64_t fio_clock_ns;      /* fio version 2: the sum of the waits so far */
    char fio_file[256];         /* fio: the one file of the log ("" until named) */
};

/* Record a bad line's reason; returns LINE_BAD. */
enum line_kind parse_bad(struct parse *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* sectors * p->sector as bytes: 0, or LINE_BAD naming what when it overflows. */
int parse_sectors(struct parse *p, uint64_t sectors, const char *what,
                  uint64_t *bytes);

/* Each parser; line is writable and ends at its NUL. */
enum line_kind msr_parse(struct parse *p, char *line, struct tin_record *rec);
enum line_kind spc_parse(struct parse *p, char *line, struct tin_record *rec);
enum line_kind blkparse_parse(struct parse *p, char *line, struct tin_record *rec);
enum line_kind fio_parse(struct parse *p, char *line, struct tin_record *rec);
enum line_kind mqsim_parse(struct parse *p, char *line, struct tin_record *rec);
enum line_kind disksim_parse(struct parse *p, char *line, struct tin_record *rec);

/* The format of a file from its first decoded bytes; TIN_AUTO when none fits. */
enum tin_format detect_format(const char *data, size_t len);

#endif
