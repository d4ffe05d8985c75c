/* The energy model's and the power states' figures of the measured phase
 * (docs/energy.md): joules, mean power, joules by component and per GiB written with
 * energy=on; the time in each power state and the exits from non-operational ones with
 * more than one state. Nothing otherwise. */
#ifndef FTL_SIM_SUMMARY_ENERGY_H
#define FTL_SIM_SUMMARY_ENERGY_H

#include <stdio.h>

#include "femu_ftl/ftl.h"
#include "sim.h"

void summary_json_energy(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m);
void summary_print_energy(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m);

#endif
