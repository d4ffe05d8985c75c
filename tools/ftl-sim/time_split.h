/* Where the commands' time went (the engine's struct ftl_time_split), summed per kind
 * for the summary's means. */
#ifndef FTL_SIM_TIME_SPLIT_H
#define FTL_SIM_TIME_SPLIT_H

#include <stdint.h>

#include "femu_ftl/engine.h"

struct split_sums {
    uint64_t count, flash_ns, link_ns, ctrl_ns, wait_ns;
};

void split_sums_add(struct split_sums *s, const struct ftl_time_split *t);

#endif
