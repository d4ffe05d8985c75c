/*
 * map.h - what a trace's record becomes on a device: its address folded into the
 * device's capacity (--trace-lba-map), its byte range widened to whole sectors, its time
 * made relative to the first record and scaled (--trace-time). ftl-sim and femu-trace
 * convert both use these, so a trace means the same to both.
 */
#ifndef TRACE_IN_MAP_H
#define TRACE_IN_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_in.h"

enum tin_lba_map {
    TIN_MAP_REFUSE,     /* a request beyond the device is an error */
    TIN_MAP_MODULO,     /* a request beyond the device: its offset modulo the capacity
                         * (those inside stay) */
    TIN_MAP_SCALE,      /* every request: offset * capacity / the trace's extent, rounded
                         * down to the original's alignment (up to 4 KiB); nothing moves
                         * when the extent fits the device */
};

struct tin_map {
    enum tin_lba_map mode;
    uint64_t device_bytes;      /* 0: no device, nothing mapped */
    uint64_t extent;            /* TIN_MAP_SCALE: the trace's highest end offset, bytes */
    bool extent_given;          /* by --trace-extent: a request ending beyond is refused */
    uint64_t remapped;          /* requests whose offset the map moved */
    uint64_t dropped;           /* requests longer than the whole device (modulo, scale) */
};

/*
 * Fold rec's range into the device: 0 kept (perhaps moved: counted in remapped), 1
 * dropped (longer than the device; counted), -1 refused ("PATH:LINE: ..." in err: beyond
 * the device under refuse, beyond a given --trace-extent under scale). A moved request
 * that would cross the device's end is moved back to end there. Scale keeps the order of
 * the unrounded addresses; the rounding moves a start down by less than its alignment.
 * Flushes and empty ranges pass untouched.
 */
int tin_map_apply(struct tin_map *m, const char *path, struct tin_record *rec, char *err,
                  size_t errlen);

int tin_lba_map_parse(const char *name, enum tin_lba_map *out);
const char *tin_lba_map_name(enum tin_lba_map m);

/* [offset, offset + length) widened to whole units: the first unit and the count. */
void tin_align(uint64_t offset, uint64_t length, uint64_t unit, uint64_t *first,
               uint64_t *count);

/* --trace-time: arrival times scaled by scale, or none (closed loop). */
struct tin_clock {
    bool closed_loop;
    double scale;               /* 1: as recorded */
    bool started;
    uint64_t origin_ns;         /* the first record's time */
};

/* "scale=F" (0 < F <= 10^6) or "closed-loop"; 0 or -1. */
int tin_clock_parse(const char *text, struct tin_clock *out);

/* rec's arrival relative to the first record's, scaled (earlier ones arrive at 0): 0, or
 * -1 with "PATH:LINE: ..." when beyond IO_TRACE_MAX_TIME_NS (104 days). */
int tin_clock_ns(struct tin_clock *c, const char *path, const struct tin_record *rec,
                 uint64_t *out, char *err, size_t errlen);

/* ns scaled as it is, not made relative (femu's own traces: their times and their phase
 * records' share the recording's clock): 0, or -1 with "PATH:LINE: ..." beyond 104 days. */
int tin_clock_scale(const struct tin_clock *c, const char *path, unsigned long line,
                    uint64_t ns, uint64_t *out, char *err, size_t errlen);

#endif
