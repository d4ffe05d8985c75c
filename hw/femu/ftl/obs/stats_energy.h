/* The energy model's and the power states' columns of stats.csv and phases.csv
 * (STATS.md): written only when on, so other runs' files stay as they were. */
#ifndef FTL_OBS_STATS_ENERGY_H
#define FTL_OBS_STATS_ENERGY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "femu_ftl/config.h"
#include "femu_ftl/ftl.h"

/* The columns a run writes: energy_j (and power_w in stats.csv) with energy=on;
 * ps<N>_ms for each configured state and ps_exits with more than one power state. */
bool stats_energy_wanted(const struct ftl_config *cfg);
bool stats_ps_wanted(const struct ftl_config *cfg);

/* The header's columns, each after a comma; with_power: stats.csv's power_w too. */
void stats_energy_header(FILE *f, const struct ftl_config *cfg, bool with_power);
/* The values from snapshot a to b, elapsed_ns apart, each after a comma. */
void stats_energy_values(FILE *f, const struct ftl_config *cfg, bool with_power,
                         const struct ftl_counters *a, const struct ftl_counters *b,
                         uint64_t elapsed_ns);

#endif
