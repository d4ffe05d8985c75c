/* map.c - addresses into a device, sectors, relative times (map.h). */
#include "map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/trace.h"

static const char *const map_names[] = { "refuse", "modulo", "scale" };

int tin_lba_map_parse(const char *name, enum tin_lba_map *out)
{
    for (size_t i = 0; i < sizeof(map_names) / sizeof(map_names[0]); i++) {
        if (strcmp(name, map_names[i]) == 0) {
            *out = (enum tin_lba_map)i;
            return 0;
        }
    }
    return -1;
}

const char *tin_lba_map_name(enum tin_lba_map m)
{
    return map_names[m];
}

static int refuse_beyond(const char *path, const struct tin_record *rec, const char *what,
                         uint64_t limit, const char *hint, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s:%lu: bytes %llu..%llu are beyond %s %llu%s", path, rec->line,
             (unsigned long long)rec->offset,
             (unsigned long long)(rec->offset + rec->length - 1), what,
             (unsigned long long)limit, hint);
    return -1;
}

/* The address the request starts at once moved to off: ends at the device's end rather
 * than cross it; counted when it moved. */
static int place(struct tin_map *m, struct tin_record *rec, uint64_t off)
{
    if (off > m->device_bytes - rec->length) {
        off = m->device_bytes - rec->length;
    }
    m->remapped += off != rec->offset;
    rec->offset = off;
    return 0;
}

/* --trace-lba-map scale: every address moves in proportion, offset * capacity / extent,
 * so the trace's layout shrinks evenly onto the device; a trace that fits stays put. */
static int scale(struct tin_map *m, const char *path, struct tin_record *rec, char *err,
                 size_t errlen)
{
    uint64_t cap = m->device_bytes, end = rec->offset + rec->length;  /* readers: no wrap */
    if (m->extent_given && end > m->extent) {
        return refuse_beyond(path, rec, "--trace-extent", m->extent, "", err, errlen);
    }
    if (rec->length > cap) {
        m->dropped++;
        return 1;
    }
    if (m->extent <= cap) {
        return end <= cap ? 0 : place(m, rec, rec->offset);
    }
    /* extent > cap: the quotient is below offset, and the product fits 128 bits */
    uint64_t off = (uint64_t)((unsigned __int128)rec->offset * cap / m->extent);
    /* as aligned as the original was (up to 4 KiB): scaling must not split pages */
    uint64_t align = rec->offset & (~rec->offset + 1);
    align = align == 0 || align > 4096 ? 4096 : align;
    return place(m, rec, off - off % align);
}

int tin_map_apply(struct tin_map *m, const char *path, struct tin_record *rec, char *err,
                  size_t errlen)
{
    uint64_t cap = m->device_bytes;
    if (cap == 0 || rec->op == TIN_FLUSH || rec->length == 0) {
        return 0;
    }
    if (m->mode == TIN_MAP_SCALE) {
        return scale(m, path, rec, err, errlen);
    }
    if (rec->length <= cap && rec->offset <= cap - rec->length) {
        return 0;   /* inside already: refuse and modulo leave it */
    }
    if (m->mode == TIN_MAP_REFUSE) {
        return refuse_beyond(path, rec, "the device's", cap, " bytes (--trace-lba-map "
                             "modulo or scale folds them in)", err, errlen);
    }
    if (rec->length > cap) {
        m->dropped++;
        return 1;
    }
    return place(m, rec, rec->offset % cap);
}

void tin_align(uint64_t offset, uint64_t length, uint64_t unit, uint64_t *first,
               uint64_t *count)
{
    uint64_t end = offset + length;     /* readers refuse ranges that wrap */
    *first = offset / unit;
    *count = end / unit + (end % unit != 0) - *first;
}

int tin_clock_parse(const char *text, struct tin_clock *out)
{
    *out = (struct tin_clock){ .scale = 1.0 };
    if (strcmp(text, "closed-loop") == 0) {
        out->closed_loop = true;
        return 0;
    }
    if (strncmp(text, "scale=", 6) != 0) {
        return -1;
    }
    char *end;
    double f = strtod(text + 6, &end);
    if (end == text + 6 || *end || !(f > 0) || f > 1e6) {
        return -1;
    }
    out->scale = f;
    return 0;
}

int tin_clock_scale(const struct tin_clock *c, const char *path, unsigned long line,
                    uint64_t ns, uint64_t *out, char *err, size_t errlen)
{
    double t = (double)ns * c->scale;
    /* unscaled, the integer itself is compared: a double rounds 2^53 + 1 down to 2^53 */
    if (c->scale == 1.0 ? ns > IO_TRACE_MAX_TIME_NS : t > (double)IO_TRACE_MAX_TIME_NS) {
        snprintf(err, errlen, "%s:%lu: its time, %.0f ns once scaled, is beyond the 104 "
                 "days a replay may last (--trace-time scale=F shrinks it)", path, line, t);
        return -1;
    }
    *out = c->scale == 1.0 ? ns : (uint64_t)(t + 0.5);
    return 0;
}

int tin_clock_ns(struct tin_clock *c, const char *path, const struct tin_record *rec,
                 uint64_t *out, char *err, size_t errlen)
{
    if (c->closed_loop || !rec->timed) {
        *out = 0;
        return 0;
    }
    if (!c->started) {
        c->started = true;
        c->origin_ns = rec->time_ns;
    }
    uint64_t rel = rec->time_ns > c->origin_ns ? rec->time_ns - c->origin_ns : 0;
    return tin_clock_scale(c, path, rec->line, rel, out, err, errlen);
}
