/*
 * trace.h - reader for the DFTL-lab block trace format.
 *
 * One record per line, fields separated by blanks (spaces or tabs):
 *   S seed                 seed of the generator that made the trace
 *   W lba nsect [H|C]      write; optional stream tag H (hot) or C (cold)
 *   R lba nsect            read
 * lba and nsect are unsigned decimal numbers of 512-byte sectors;
 * nsect > 0 and lba + nsect must fit in 64 bits.  Blank lines are
 * skipped, and '#' starts a comment that runs to the end of the line
 * (at the start of a line or after a blank).  LF or CRLF line endings;
 * the last line needs no newline.  Lines longer than TRACE_MAX_LINE bytes
 * are rejected, as are NUL bytes.
 *
 * Errors are reported as "FILE:LINE: problem" in the caller's buffer and
 * are final: after trace_next() returns -1 it keeps returning -1 with the
 * same message, and the reader is only good for trace_close().
 */
#ifndef FTL_SIM_TRACE_H
#define FTL_SIM_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_MAX_LINE 4096

enum trace_op {
    TRACE_SEED,
    TRACE_WRITE,
    TRACE_READ,
};

struct trace_record {
    enum trace_op op;
    uint64_t lba;           /* first 512-byte sector (W, R) */
    uint64_t nsect;         /* sector count, > 0 (W, R) */
    uint64_t seed;          /* S only */
    int stream;             /* W: 0 = H (hot), 1 = C (cold), -1 = untagged */
    unsigned long line;     /* 1-based line number in the file */
};

struct trace_reader;

/* Open a trace file ("-" reads standard input).  NULL + message on
 * failure. */
struct trace_reader *trace_open(const char *path, char *err, size_t errlen);

/* Read the next record into *rec: 1 = record, 0 = end of file,
 * -1 = error ("FILE:LINE: ..." in err). */
int trace_next(struct trace_reader *t, struct trace_record *rec, char *err,
               size_t errlen);

/* Close the reader and free it; NULL is fine. */
void trace_close(struct trace_reader *t);

#endif
