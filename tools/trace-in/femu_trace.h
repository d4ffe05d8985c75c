/*
 * femu_trace.h - reader for femu's own block I/O traces: version 1 (S / W / R records
 * and untimed zone and copy records, no times), version 2 (what the device and ftl-sim record, with
 * arrival times, namespace and stream), version 3 (version 2 with zone and copy
 * records), version 4 (version 3 with FDP's reclaim unit handle updates), version 5
 * (version 4 with FUA writes and write cache switches), version 6 (version 5 with the
 * key-value stores' commands), version 7 (version 6 with the commands that give the FTL
 * no work: admin commands, I/O commands the device answers itself) and version 8
 * (version 7 with NVMe power management: PS, PA, PG). The format is
 * described once, in hw/femu/ftl/include/femu_ftl/trace.h.
 *
 * Lines longer than TRACE_MAX_LINE bytes are rejected, as are NUL bytes. Errors are
 * reported as "FILE:LINE: problem" in the caller's buffer and are final: after
 * trace_next() returns -1 it keeps returning -1 with the same message, and the reader is
 * only good for trace_close().
 */
#ifndef TRACE_IN_FEMU_TRACE_H
#define TRACE_IN_FEMU_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "femu_ftl/trace.h"

/* A deallocate or a copy of 256 ranges of 20-digit numbers fits. */
#define TRACE_MAX_LINE 16384

enum trace_op {
    TRACE_SEED,
    TRACE_WRITE,
    TRACE_READ,
    TRACE_DEALLOCATE,       /* version 2 from here on */
    TRACE_FLUSH,
    TRACE_PHASE,
    TRACE_ADVANCE,
    TRACE_END,
    TRACE_VERIFY,
    TRACE_FORMAT,
    TRACE_ZONE_WRITE,       /* version 3, and untimed in version 1 */
    TRACE_ZONE_APPEND,
    TRACE_ZONE_READ,
    TRACE_ZONE_MGMT,
    TRACE_COPY,
    TRACE_RUH_UPDATE,       /* version 4 */
    TRACE_WRITE_CACHE,      /* version 5: WC */
    TRACE_KV_STORE,         /* version 6: KS, KR, KD, KE, KL */
    TRACE_KV_RETRIEVE,
    TRACE_KV_DELETE,
    TRACE_KV_EXIST,
    TRACE_KV_LIST,
    TRACE_KV_CREATE,        /* version 6: KC, KX (a store's life) */
    TRACE_KV_DESTROY,
    TRACE_ADMIN,            /* version 7: N, a command without FTL work */
    TRACE_POWER,            /* version 8: PS, PA, PG (power), the command in power */
};

struct trace_range {
    uint64_t lba, nsect;    /* 512-byte sectors; nsect may be 0 (the range is skipped) */
};

struct trace_record {
    enum trace_op op;
    uint64_t lba;           /* first 512-byte sector (W, R, Y, X, ZW, ZR, KC; the zone start
                             * of ZA and ZM; C's destination) */
    uint64_t nsect;         /* sector count, > 0 (W, R, Y, X, ZW, ZA, ZR, KC) */
    uint32_t zone_action;   /* ZM: enum ftl_zone_action */
    bool all;               /* ZM: Select All */
    bool zoned;             /* C: in the zoned namespace */
    bool erase;             /* X: a user data erase */
    bool fua;               /* W (version 5): Force Unit Access */
    bool wce;               /* WC: the write cache on */
    uint64_t seed;          /* S only */
    int stream;             /* W: version 1: 0 = C (cold), 1 = H (hot), -1 = untagged;
                               versions 2 to 4: the stream number (or FDP handle);
                               U: the reclaim unit handle */
    uint64_t time_ns;       /* version 2: arrival time since the recording's origin */
    uint32_t nsid;          /* version 2 and 3 W, R, D, F, Y, X, ZW, ZA, ZR, ZM, C;
                             * version 1: 2 for zone records and a zoned C, else 1 */
    uint32_t nranges;       /* D, C: ranges[0..nranges), valid until the next call */
    const struct trace_range *ranges;
    const char *phase;      /* P: the name, valid until the next call */
    struct ftl_kv_key key;  /* KS, KR, KD, KE, KL (LIST: the start key), 1 to 16 bytes */
    uint32_t kv_bytes;      /* KS: the value's bytes; KR: the buffer's; KL: the most keys */
    uint64_t value_tag;     /* KS: the value's tag */
    unsigned kv_flags;      /* KS: FTL_KV_ONLY_IF_EXISTS and/or _ABSENT, nothing else */
    uint64_t kv_capacity;   /* KC: the store's capacity in value bytes (its range: lba,
                             * nsect) */
    bool io;                /* N: an I/O command (kind io), else an admin command */
    uint32_t data_in, data_out;     /* N: payload bytes from and into the host's memory */
    struct ftl_power_cmd power;     /* PS (a state 0-31), PA (the table: entries the
                                     * record leaves out 0:0), PG */
    unsigned long line;     /* 1-based line number in the file */
};

struct trace_reader;

/* Open a trace file ("-" reads standard input).  NULL + message on
 * failure. */
struct trace_reader *trace_open(const char *path, char *err, size_t errlen);

/* The same over an open stream (e.g. a decompressing one), which the reader owns and
 * closes; name is the file's name in messages. skip_bad (--trace-skip-bad): a line that
 * does not parse is counted and passed over instead of failing; a line too long, with a
 * NUL byte or unreadable still fails. */
struct trace_reader *trace_open_stream(FILE *f, const char *name, bool skip_bad, char *err,
                                       size_t errlen);

/* The lines skip_bad passed over so far. */
uint64_t trace_bad_lines(const struct trace_reader *t);

/* Read the next record into *rec: 1 = record, 0 = end of file,
 * -1 = error ("FILE:LINE: ..." in err). */
int trace_next(struct trace_reader *t, struct trace_record *rec, char *err,
               size_t errlen);

/* 1 to 8: known from the first record, which trace_open() reads ahead. */
int trace_version(const struct trace_reader *t);

/* Close the reader and free it; NULL is fine. */
void trace_close(struct trace_reader *t);

#endif
