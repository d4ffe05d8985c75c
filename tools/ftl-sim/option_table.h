/*
 * ftl-sim's options as one table, in the style of the FTL configuration's keys
 * (hw/femu/ftl/config/): each option's name, kind, bounds and help. parse_options walks
 * it, and --help is printed from it.
 */
#ifndef FTL_SIM_OPTION_TABLE_H
#define FTL_SIM_OPTION_TABLE_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "run_options.h"

enum sim_opt_kind {
    SIM_OPT_FLAG,       /* no argument: sets a bool field */
    SIM_OPT_TEXT,       /* a file or folder name, kept as given */
    SIM_OPT_COUNT,      /* a whole number in [min, max] (a 32- or 64-bit field) */
    SIM_OPT_SIZE,       /* bytes, fio's spelling, above 0 (a uint64_t field) */
    SIM_OPT_TIME,       /* seconds or with a unit, up to 2^53 ns; min 1: above 0 */
    SIM_OPT_CHOICE,     /* one of names (an enum field, names[i] = i; NULL: not a choice) */
    SIM_OPT_CUSTOM,     /* parsed by its own function */
    SIM_OPT_TRACE_IN,   /* a --trace-* option, parsed by tools/trace-in (options.h) */
    SIM_OPT_HELP,       /* --help */
};

struct sim_option {
    const char *name;           /* without the leading -- */
    enum sim_opt_kind kind;
    const char *arg;            /* the argument's name in --help (NULL: a flag, or a
                                 * choice's names joined by |) */
    size_t field, field_size;   /* in struct options */
    size_t given;               /* offsetof the bool that says it was given (0: none) */
    uint64_t min, max;          /* COUNT: bounds; TIME: min 1 = above 0 */
    const char *const *names;   /* CHOICE */
    size_t nnames;
    void (*parse)(struct options *o, const char *arg);     /* CUSTOM */
    const char *help;           /* "\n" starts a line under the first */
};

extern const struct sim_option sim_options[];
extern const size_t sim_option_count;

/* getopt_long's table for sim_options (out holds sim_option_count + 1 entries); each
 * entry's index is its row's. */
void sim_options_getopt(struct option *out);

/* --help: the synopsis, then every option with its help. */
void sim_options_help(FILE *f);

#endif
