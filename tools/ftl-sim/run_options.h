/*
 * What one ftl-sim run was asked: its command line parsed (option_table.h lists the
 * options), the configuration combined from --config and --set, every cross-check done.
 */
#ifndef FTL_SIM_RUN_OPTIONS_H
#define FTL_SIM_RUN_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "femu_ftl/config.h"
#include "kv_spec.h"
#include "power_options.h"
#include "options.h"
#include "workload.h"

#define EXIT_USAGE 2
#define NS_PER_S 1000000000.0

#define MAX_CONFIGS 16
#define MAX_SETS 256

enum precondition { PRECONDITION_NONE, PRECONDITION_SEQ, PRECONDITION_REGION };
enum replay_mode { REPLAY_AUTO, REPLAY_OPEN, REPLAY_CLOSED };

struct options {
    const char *config_paths[MAX_CONFIGS];     /* --config, in order: later keys win */
    unsigned nconfigs;
    const char *sets[MAX_SETS];                /* --set, in order, applied after the files */
    unsigned nsets;
    struct ftl_config cfg;
    struct ftl_config_origins origins;         /* which file and line set each key */
    struct workload_spec workload;
    unsigned qd;
    enum precondition precondition;
    uint64_t io_bytes;
    double runtime_s;
    uint64_t idle_every_bytes;  /* --idle SIZE:TIME */
    double idle_s;
    const char *stats_dir;
    const char *summary_path;
    const char *trace_out;
    const char *state_in;   /* --state-in: restored before the workload */
    const char *state_out;  /* --state-out: saved at the end */
    bool power_cut;         /* --power-cut-at was given: ... */
    double power_cut_s;     /* ... the cut, seconds into the measured part */
    const char *lost_out;   /* --lost-out: the lost ranges as CSV */
    uint64_t check_every;
    bool stream_set;        /* --stream was given */
    bool fdp_set;           /* --fdp was given */
    bool zone_set;          /* --zone was given */
    bool print_config;
    bool unit_log;          /* --unit-log: units.csv in stats_dir, victims per stream */
    enum replay_mode replay;
    bool qd_given;
    struct tin_settings trace_in;   /* --trace-format and the other --trace-* options */
    struct kv_spec kv;              /* --kv and the --kv-* options */
    struct power_spec power;        /* --power-state and --apst */
};

/* One line "ftl-sim: WHY (see ftl-sim --help)" on stderr, then exit 2. */
void usage_error(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* Parse argv into o: the options, then the configuration (defaults, every --config in
 * order, every --set in order); any refusal is a usage_error. */
void parse_options(int argc, char **argv, struct options *o);

/* The pauses of --idle within the 2^53 ns a run may reach (once io_bytes is known). */
void check_idle_budget(const struct options *o);

#endif
