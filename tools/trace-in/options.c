/* options.c - the shared --trace-* options (options.h). */
#include "options.h"

#include <stdio.h>
#include <string.h>

#include "fields.h"

void tin_settings_init(struct tin_settings *s)
{
    *s = (struct tin_settings){ .map = { .mode = TIN_MAP_REFUSE },
                                .clock = { .scale = 1.0 } };
}

static int number(const char *name, const char *value, uint64_t min, uint64_t max,
                  uint64_t *out, char *err, size_t errlen)
{
    if (!fields_u64(value, out) || *out < min || *out > max) {
        snprintf(err, errlen, "--%s: '%s' is not a whole number in [%llu, %llu]", name,
                 value, (unsigned long long)min, (unsigned long long)max);
        return -1;
    }
    return 0;
}

static int choice(const char *name, const char *value, const char *a, const char *b,
                  bool *is_b, char *err, size_t errlen)
{
    if (strcmp(value, a) && strcmp(value, b)) {
        snprintf(err, errlen, "--%s: '%s' is not one of %s, %s", name, value, a, b);
        return -1;
    }
    *is_b = strcmp(value, b) == 0;
    return 0;
}

int tin_settings_option(struct tin_settings *s, const char *name, const char *value,
                        char *err, size_t errlen)
{
    struct tin_options *in = &s->in;
    uint64_t v;
    bool b;
    if (!strcmp(name, "trace-format")) {
        if (tin_format_parse(value, &in->format)) {
            snprintf(err, errlen, "--trace-format: '%s' is not one of %s", value,
                     tin_format_names);
            return -1;
        }
    } else if (!strcmp(name, "trace-host")) {
        in->host = value;
    } else if (!strcmp(name, "trace-disk")) {
        if (number(name, value, 0, UINT64_MAX, &in->disk, err, errlen)) {
            return -1;
        }
        in->disk_set = true;
    } else if (!strcmp(name, "trace-asu")) {
        if (choice(name, value, "stream", "offset", &b, err, errlen)) {
            return -1;
        }
        in->asu = b ? TIN_ASU_OFFSET : TIN_ASU_STREAM;
    } else if (!strcmp(name, "trace-events")) {
        if (choice(name, value, "queue", "complete", &in->complete_events, err, errlen)) {
            return -1;
        }
    } else if (!strcmp(name, "trace-sector-size")) {
        if (number(name, value, 1, 1u << 20, &v, err, errlen)) {
            return -1;
        }
        in->sector_size = (uint32_t)v;
    } else if (!strcmp(name, "trace-skip-bad")) {
        in->skip_bad = true;
    } else if (!strcmp(name, "trace-lba-map")) {
        if (tin_lba_map_parse(value, &s->map.mode)) {
            snprintf(err, errlen, "--trace-lba-map: '%s' is not one of modulo, scale, refuse",
                     value);
            return -1;
        }
        s->map_set = true;
    } else if (!strcmp(name, "trace-extent")) {
        if (number(name, value, 1, UINT64_MAX, &s->map.extent, err, errlen)) {
            return -1;
        }
        s->extent_set = true;
        s->map.extent_given = true;
    } else if (!strcmp(name, "trace-time")) {
        if (tin_clock_parse(value, &s->clock)) {
            snprintf(err, errlen, "--trace-time: '%s' is not scale=F (0 < F <= 10^6) or "
                     "closed-loop", value);
            return -1;
        }
        s->clock_set = true;
    } else {
        snprintf(err, errlen, "--%s: not a trace option", name);
        return -1;
    }
    return 0;
}

bool tin_settings_any(const struct tin_settings *s)
{
    const struct tin_options *in = &s->in;
    return in->host || in->disk_set || in->asu != TIN_ASU_STREAM || in->complete_events ||
           in->sector_size || in->skip_bad || s->map_set || s->extent_set || s->clock_set;
}
