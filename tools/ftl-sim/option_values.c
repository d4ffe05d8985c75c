/* The values of ftl-sim's options (option_values.h). */
#include "option_values.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "femu_ftl/trace.h"
#include "one_line.h"
#include "size.h"

void usage_error(const char *fmt, ...)
{
    char text[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    one_line(stderr, "ftl-sim", "%s (see ftl-sim --help)", text);
    exit(EXIT_USAGE);
}

static uint64_t parse_count(const char *opt, const char *text, uint64_t min, uint64_t max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (*text < '0' || *text > '9' || *end || errno || v < min || v > max) {
        usage_error("%s: '%s' is not a whole number in [%llu, %llu]", opt, text,
                    (unsigned long long)min, (unsigned long long)max);
    }
    return v;
}

static uint64_t parse_size_opt(const char *opt, const char *text)
{
    uint64_t bytes;
    char err[256];
    if (parse_size(text, &bytes, err, sizeof(err))) {
        usage_error("%s: %s", opt, err);
    }
    if (bytes == 0) {
        usage_error("%s: must be greater than zero", opt);
    }
    return bytes;
}

/* A duration option in [0, 2^53 ns] (above 0 unless zero_ok): its seconds, or exit 2. */
static double parse_time_opt(const char *name, const char *text, bool zero_ok)
{
    char err[256];
    double s;
    if (parse_duration_s(text, &s, err, sizeof(err))) {
        usage_error("%s: %s", name, err);
    }
    if (!(zero_ok ? s >= 0 : s > 0) || s > MAX_TIME_S) {
        usage_error("%s: '%s' is not %s 0 and 2^53 ns (%.0f s, 104 days), the latest a "
                    "run may reach", name, text, zero_ok ? "between" : "above", MAX_TIME_S);
    }
    return s;
}

/* An enum field: the index of text among names; the refusal lists every spelling. */
static int parse_choice(const char *opt, const struct sim_option *row, const char *text)
{
    for (size_t i = 0; i < row->nnames; i++) {
        if (row->names[i] && !strcmp(text, row->names[i])) {
            return (int)i;
        }
    }
    char list[512] = "";
    for (size_t i = 0, n = 0; i < row->nnames && n < sizeof(list); i++) {
        if (row->names[i]) {
            n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "",
                                  row->names[i]);
        }
    }
    usage_error("%s: '%s' is not one of %s", opt, text, list);
}

static void store_count(void *field, size_t size, uint64_t v)
{
    if (size == sizeof(uint32_t)) {
        *(uint32_t *)field = (uint32_t)v;
    } else {
        *(uint64_t *)field = v;
    }
}

void option_apply(struct options *o, const struct sim_option *opt, const char *arg)
{
    char name[64], err[512];
    void *field = (char *)o + opt->field;
    snprintf(name, sizeof(name), "--%s", opt->name);
    switch (opt->kind) {
    case SIM_OPT_FLAG: *(bool *)field = true; break;
    case SIM_OPT_TEXT: *(const char **)field = arg; break;
    case SIM_OPT_COUNT:
        store_count(field, opt->field_size, parse_count(name, arg, opt->min, opt->max));
        break;
    case SIM_OPT_SIZE: *(uint64_t *)field = parse_size_opt(name, arg); break;
    case SIM_OPT_TIME: *(double *)field = parse_time_opt(name, arg, opt->min == 0); break;
    case SIM_OPT_CHOICE: *(int *)field = parse_choice(name, opt, arg); break;
    case SIM_OPT_CUSTOM: opt->parse(o, arg); break;
    case SIM_OPT_TRACE_IN:
        if (tin_settings_option(&o->trace_in, opt->name, arg, err, sizeof(err))) {
            usage_error("%s", err);
        }
        break;
    case SIM_OPT_HELP:
        sim_options_help(stdout);
        exit(0);
    }
    if (opt->given) {
        *(bool *)((char *)o + opt->given) = true;
    }
}

void option_add_config(struct options *o, const char *arg)
{
    if (o->nconfigs == MAX_CONFIGS) {
        usage_error("--config: more than %d files", MAX_CONFIGS);
    }
    o->config_paths[o->nconfigs++] = arg;
}

void option_add_set(struct options *o, const char *arg)
{
    if (o->nsets == MAX_SETS) {
        usage_error("--set: too many");
    }
    o->sets[o->nsets++] = arg;
}

void option_dist(struct options *o, const char *arg)
{
    char err[512];
    if (dist_parse(arg, &o->workload.dist, err, sizeof(err))) {
        usage_error("%s", err);
    }
}

/* --idle SIZE:TIME: both parts given, SIZE > 0, TIME in (0, 2^53 ns]. */
void option_idle(struct options *o, const char *text)
{
    char size[64];
    const char *colon = strchr(text, ':');
    if (!colon || (size_t)(colon - text) >= sizeof(size)) {
        usage_error("--idle: expected SIZE:TIME (e.g. 1g:30s), got '%s'", text);
    }
    memcpy(size, text, (size_t)(colon - text));
    size[colon - text] = '\0';
    o->idle_every_bytes = parse_size_opt("--idle", size);   /* refuses 0 */
    o->idle_s = parse_time_opt("--idle", colon + 1, false);
}
