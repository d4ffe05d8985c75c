/* The link and controller model's figures of the measured phase (docs/front.md): each
 * link direction's wire bytes and utilisation, the cores' utilisation, and where reads'
 * and writes' time went on average. Nothing when pcie_gen and ctrl_cores are 0. */
#ifndef FTL_SIM_SUMMARY_FRONT_H
#define FTL_SIM_SUMMARY_FRONT_H

#include <stdio.h>

#include "femu_ftl/ftl.h"
#include "sim.h"

void summary_json_front(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m);
void summary_print_front(FILE *f, const struct ftl *ftl, const struct sim_phase_result *m);

#endif
