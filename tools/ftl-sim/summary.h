/* The run's summary: JSON for tools (--summary) and a few lines for people (stdout). */
#ifndef FTL_SIM_SUMMARY_H
#define FTL_SIM_SUMMARY_H

#include <stdio.h>

#include "femu_ftl/ftl.h"
#include "power_cut.h"
#include "sim.h"
#include "workload.h"

struct kv_run;

struct run_description {
    const struct workload_spec *workload;
    unsigned qd;
    const char *precondition;       /* "none" or "seq" */
    uint64_t io_bytes;              /* 0 when limited by runtime */
    double runtime_s;               /* 0 when limited by io_size */
    uint64_t idle_every_bytes;      /* --idle: a pause after every this many bytes (0: none) */
    double idle_s;                  /* --idle: each pause's length */
    const char *const *config_paths;    /* the --config files in order (none: FEMU defaults) */
    unsigned nconfigs;
    double precondition_s;          /* simulated time spent preconditioning */
    const char *state_in, *state_out;   /* --state-in / --state-out, NULL when unused */
    const struct sim_power_cut *power_cut;  /* --power-cut-at (NULL: no cut) ... */
    const char *lost_out;                   /* ... and --lost-out (NULL: none) */
    const struct trace_input_summary *trace_input;  /* a trace's reader (NULL: none) */
    char trace_filters[256];                /* its filters as text */
    const struct unit_log *units;           /* --unit-log (NULL: off) */
    const struct kv_run *kv;                /* --kv (NULL: off; summary_kv.h) */
};

int summary_write_json(FILE *f, const struct ftl *ftl, const struct run_description *run,
                       const struct sim_phase_result *measured);
void summary_print_text(FILE *f, const struct ftl *ftl, const struct sim_phase_result *measured);

#endif
