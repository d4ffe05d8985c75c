/* ftl-sim --kv's options on the command line: --kv-value-size's parser and the checks
 * between the --kv-* options and the rest (run_options.h). */
#ifndef FTL_SIM_KV_OPTIONS_H
#define FTL_SIM_KV_OPTIONS_H

#include "run_options.h"

/* --kv-value-size SIZE | uniform:MIN:MAX (a refusal exits 2). */
void option_kv_value_size(struct options *o, const char *arg);

/* The --kv-* options need --kv, and --kv excludes the block workloads' options and a
 * zoned device; one usage_error line naming the option otherwise. */
void check_kv_options(struct options *o);

#endif
