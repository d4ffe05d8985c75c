/*
 * trace_in.h - reading real-world block traces as one kind of record: SNIA / MSR
 * Cambridge CSV, SPC (UMass), blkparse text, fio iolog versions 2 and 3, MQSim ASCII,
 * DiskSim ASCII and femu's own format (femu_ftl/trace.h). Files may be gzip or xz
 * compressed; the format is detected from the first lines unless named. The formats,
 * their units and the options: docs/ftl-sim.md, "Trace formats".
 *
 * A reader streams the file line by line. A line that is not a request of its format (a
 * header, a comment, a blkparse event other than the one chosen) is passed over; a line
 * that is broken is an error "FILE:LINE: what is wrong", or with skip_bad counted and
 * passed over.
 */
#ifndef TRACE_IN_H
#define TRACE_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace_reader;

enum tin_format {
    TIN_AUTO, TIN_MSR, TIN_SPC, TIN_BLKPARSE, TIN_FIO, TIN_MQSIM, TIN_DISKSIM, TIN_FEMU,
};

enum tin_op { TIN_READ, TIN_WRITE, TIN_TRIM, TIN_FLUSH };

struct tin_record {
    enum tin_op op;
    bool timed;             /* time_ns is the format's arrival time (else 0) */
    uint64_t time_ns;       /* on the trace's own clock: callers rebase to the first */
    uint64_t offset, length;    /* bytes (0 for a flush) */
    int stream;             /* SPC's ASU with asu=stream, femu's stream; -1: none */
    bool fua, sync;         /* blkparse's F after the op and S; femu's fua */
    unsigned long line;     /* 1-based line in the file */
};

enum tin_asu { TIN_ASU_STREAM, TIN_ASU_OFFSET };

/* SPC with asu=offset: ASU n's offsets start at n times this (1 TiB). */
#define TIN_ASU_REGION (UINT64_C(1) << 40)

struct tin_options {
    enum tin_format format;     /* TIN_AUTO: detect */
    const char *host;           /* MSR: only this Hostname (NULL: all) */
    bool disk_set;              /* MSR DiskNumber, MQSim and DiskSim device: only ... */
    uint64_t disk;              /* ... this one */
    enum tin_asu asu;           /* SPC: what the ASU becomes */
    bool complete_events;       /* blkparse: C events instead of Q */
    uint32_t sector_size;       /* blkparse, MQSim, DiskSim, SPC sectors (0: 512) */
    bool skip_bad;              /* count and pass over bad lines instead of failing (a
                                 * line too long or with a NUL byte is still fatal) */
    bool quiet;                 /* tin_open does not name the detected format on stderr */
};

/* What a reader has seen so far. */
struct tin_counts {
    uint64_t records;           /* handed out */
    uint64_t bad;               /* bad lines passed over (skip_bad) */
    uint64_t zero_length;       /* reads, writes and trims of 0 bytes: passed over */
    uint64_t filtered;          /* requests another host, disk or device's (filters) */
    uint64_t not_block;         /* femu's records of requests no block request holds
                                 * (verify, format, zone, copy, FDP, write cache,
                                 * key-value, admin, power): passed over */
};

struct tin_reader;

struct tin_input;    /* input.h: a trace opened once, read again from its start */

/* A reader from the start of in (which stays the caller's and must outlive it); NULL
 * with one line in err. With TIN_AUTO the format is detected from the first lines, and
 * named on stderr unless opt->quiet (or it is femu's own format, the tools' native one).
 * A tool that reads a trace more than once opens a reader per pass over one input. */
struct tin_reader *tin_open_input(struct tin_input *in, const struct tin_options *opt,
                                  char *err, size_t errlen);

/* The same over path ("-": standard input) opened for this one reader. */
struct tin_reader *tin_open(const char *path, const struct tin_options *opt, char *err,
                            size_t errlen);

/* 1: *rec filled; 0: the end; -1: error in err ("FILE:LINE: ..."), final. */
int tin_next(struct tin_reader *r, struct tin_record *rec, char *err, size_t errlen);

enum tin_format tin_format_of(const struct tin_reader *r);
/* Whether the format's records carry arrival times (fio iolog version 2: its waits). */
bool tin_timed(const struct tin_reader *r);
const struct tin_counts *tin_counts_of(const struct tin_reader *r);
/* femu's own format: the version (1 to 8) of the file, else 0. */
int tin_femu_version(const struct tin_reader *r);
/* The filters applied, as text for a summary ("host=X disk=N", "" for none). */
void tin_filters_text(const struct tin_options *opt, char *buf, size_t len);

/* femu's own format: its reader (femu_trace.h) under it, which ftl-sim replays itself (every
 * record kind, not only block requests); NULL for the other formats. */
struct trace_reader *tin_femu_reader(struct tin_reader *r);

void tin_close(struct tin_reader *r);

const char *tin_format_name(enum tin_format f);
/* "auto", "msr", ...: 0, or -1 for an unknown name. */
int tin_format_parse(const char *name, enum tin_format *out);
/* The names tin_format_parse takes, for messages. */
extern const char tin_format_names[];

#endif
