/*
 * options.h - the trace input options ftl-sim and femu-trace share, parsed in one place:
 *   --trace-format F  --trace-host NAME  --trace-disk N  --trace-asu stream|offset
 *   --trace-events queue|complete  --trace-sector-size N  --trace-skip-bad
 *   --trace-lba-map modulo|scale|refuse  --trace-extent BYTES  --trace-time scale=F|closed-loop
 * A tool puts TIN_GETOPT_OPTIONS in its getopt_long table and hands every TIN_OPT it gets
 * to tin_settings_option with the option's name.
 */
#ifndef TRACE_IN_OPTIONS_H
#define TRACE_IN_OPTIONS_H

#include <getopt.h>

#include "map.h"
#include "trace_in.h"

#define TIN_OPT 1000    /* getopt_long's value for every option below */

#define TIN_GETOPT_OPTIONS \
    { "trace-format", required_argument, NULL, TIN_OPT }, \
    { "trace-host", required_argument, NULL, TIN_OPT }, \
    { "trace-disk", required_argument, NULL, TIN_OPT }, \
    { "trace-asu", required_argument, NULL, TIN_OPT }, \
    { "trace-events", required_argument, NULL, TIN_OPT }, \
    { "trace-sector-size", required_argument, NULL, TIN_OPT }, \
    { "trace-skip-bad", no_argument, NULL, TIN_OPT }, \
    { "trace-lba-map", required_argument, NULL, TIN_OPT }, \
    { "trace-extent", required_argument, NULL, TIN_OPT }, \
    { "trace-time", required_argument, NULL, TIN_OPT }

struct tin_settings {
    struct tin_options in;
    struct tin_map map;             /* device_bytes: the tool's to set */
    bool map_set, extent_set;       /* --trace-lba-map, --trace-extent given */
    struct tin_clock clock;
    bool clock_set;                 /* --trace-time given */
};

/* The defaults: auto format, refuse, times as recorded. */
void tin_settings_init(struct tin_settings *s);

/* Apply the option named name (without "--"); 0, or -1 with "--name: why" in err. */
int tin_settings_option(struct tin_settings *s, const char *name, const char *value,
                        char *err, size_t errlen);

/* Whether any option other than the format was given (they need a trace to apply to). */
bool tin_settings_any(const struct tin_settings *s);

#endif
