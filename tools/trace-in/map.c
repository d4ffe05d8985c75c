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

int tin_map_apply(struct tin_map *m, const char *path, struct tin_record *rec, char *err,
                  size_t errlen)
{
    uint64_t cap = m->device_bytes;
    if (cap == 0 || rec->op == TIN_FLUSH) {
        return 0;
    }
    if (rec->length <= cap && rec->offset <= cap - rec->length) {
        return 0;   /* inside already: no map moves it */
    }
    if (m->mode == TIN_MAP_REFUSE) {
        snprintf(err, errlen, "%s:%lu: bytes %llu..%llu are beyond the device's %llu bytes "
                 "(--trace-lba-map modulo or scale folds them in)", path, rec->line,
                 (unsigned long long)rec->offset,
                 (unsigned long long)(rec->offset + rec->length - 1),
                 (unsigned long long)cap);
        return -1;
    }
    if (rec->length > cap) {
        m->dropped++;
        return 1;
    }
    uint64_t off;
    if (m->mode == TIN_MAP_MODULO || m->extent <= cap) {
        off = rec->offset % cap;
    } else {
        off = (uint64_t)((unsigned __int128)rec->offset * cap / m->extent);
        /* as aligned as the original was (up to 4 KiB): scaling must not split pages */
        uint64_t align = rec->offset & (~rec->offset + 1);
        align = align == 0 || align > 4096 ? 4096 : align;
        off -= off % align;
    }
    if (off > cap - rec->length) {
        off = cap - rec->length;    /* crossing the end: ends there instead */
    }
    m->remapped += off != rec->offset;
    rec->offset = off;
    return 0;
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
    double t = (double)rel * c->scale;
    /* unscaled, the integer itself is compared: a double rounds 2^53 + 1 down to 2^53 */
    if (c->scale == 1.0 ? rel > IO_TRACE_MAX_TIME_NS : t > (double)IO_TRACE_MAX_TIME_NS) {
        snprintf(err, errlen, "%s:%lu: %.0f ns after the first record is beyond the 104 "
                 "days a replay may last (--trace-time scale=F shrinks it)", path,
                 rec->line, t);
        return -1;
    }
    *out = c->scale == 1.0 ? rel : (uint64_t)(t + 0.5);
    return 0;
}
