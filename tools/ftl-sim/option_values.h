/*
 * The values of ftl-sim's options: each kind's parser (option_table.h), the options
 * parsed by their own function, and the refusal every bad value gets (exit 2).
 */
#ifndef FTL_SIM_OPTION_VALUES_H
#define FTL_SIM_OPTION_VALUES_H

#include "femu_ftl/trace.h"
#include "option_table.h"
#include "run_options.h"

/* The latest simulated time a run may reach, in seconds: 2^53 ns (104 days), the limit of
 * a recording's times (femu_ftl/trace.h), so every option that makes time has it. */
#define MAX_TIME_S ((double)IO_TRACE_MAX_TIME_NS / NS_PER_S)

/* Store arg, parsed as opt's kind says, into o (a refusal exits 2). */
void option_apply(struct options *o, const struct sim_option *opt, const char *arg);

/* The options parsed by their own function. */
void option_add_config(struct options *o, const char *arg);    /* --config FILE */
void option_add_set(struct options *o, const char *arg);       /* --set key=value */
void option_dist(struct options *o, const char *arg);          /* --dist SPEC */
void option_idle(struct options *o, const char *arg);          /* --idle SIZE:TIME */

#endif
